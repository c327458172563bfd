"""Normalizers of a block draw (docs/mathematics.md §8): the leaves q_k and their convolutions h.

Used by ``blocked.sweep``, whose docstring explains the numerics (plain products inside a proved
range, else log-space leaves, a common tilt and per-node rescaling) and the tail cut. Layout:
``table`` is flat, row r of a block of C tokens at table[r * (C + 1):]; rows 0..K-1 are the
leaves, rows K.. the internal nodes of ``tree`` (nested) or the prefixes h_{0..k} (backward);
``supp[r]`` is the largest count row r can hold (the tail cut), ``rows`` = (n_d., n_.v, n_.,
alpha, beta, V beta) with the block removed.
"""

import math

import numpy as np
from numba import njit

TRUNCATE_FROM = 6  # blocks at least this long get their leaves' negligible tails cut
LOG_RANGE = 680.0  # plain path: |log| of any product or sum stays below this (1e295)
_TINY = 1e-280  # rescaled path: leaves by plain products while q(n) r^n stays in [_TINY, 1 / _TINY]


@njit(cache=True, inline="always")
def abc_terms(rows, k):
    """(a_k, b_k, c_k) = (n_dk + alpha_k, n_kv + beta, n_k + V beta)."""
    nd, nv, nk, alpha, beta, vbeta = rows
    return nd[k] + alpha[k], nv[k] + beta, nk[k] + vbeta


@njit(cache=True, inline="always")
def q_ratio(a, b, c, j):
    """q(j + 1) / q(j) = (a + j)(b + j) / ((j + 1)(c + j))."""
    return (a + j) * (b + j) / ((j + 1.0) * (c + j))


@njit(cache=True)
def plain_is_safe(size, n_topics, log_rho_min, log_rho_max):
    """True when plain products cannot leave the normal range: every term of every h is a
    product of at most ``size`` ratios in [rho_min, rho_max], an h sums at most (K + C)^C."""
    up = size * (max(log_rho_max, 0.0) + math.log(n_topics + size))
    down = size * min(log_rho_min, 0.0)
    return up < LOG_RANGE and down > -LOG_RANGE


@njit(cache=True)
def _min_ratio(a, b, c, size):
    """min over i < size of q(i + 1) / q(i)."""
    low = np.inf
    for i in range(size):
        low = min(low, q_ratio(a, b, c, i))
    return low


@njit(cache=True)
def top_two(rows, size, by_low):
    """The two topics with the largest q(1) = ab/c (or its lower bound min(a, 1) b / c)."""
    s1 = s2 = -1.0
    i1 = i2 = -1
    for k in range(rows[0].size):
        a, b, c = abc_terms(rows, k)
        s = (b / c) * (min(a, 1.0) if by_low else a)
        if s > s1:
            s2, i2, s1, i1 = s1, i1, s, k
        elif s > s2:
            s2, i2 = s, k
    return i1, i2


@njit(cache=True)
def absorbers(rows, size):
    """(rho1, j1, rho2): the two largest exact min-ratios among a few candidate topics (top two
    by q(1) and by min(a, 1) b / c), j1 the topic of the first. Any rho_j bounds
    h_{-k}(C) >= rho_j^n h_{-k}(C - n) for k != j (see the module docstring)."""
    i1, i2 = top_two(rows, size, False)
    m1, m2 = top_two(rows, size, True)
    rho1, j1, rho2, j2 = 0.0, -1, 0.0, -1
    for j in (i1, i2, m1, m2):
        if j < 0 or j == j1 or j == j2:
            continue
        a, b, c = abc_terms(rows, j)
        rho = _min_ratio(a, b, c, size)
        if rho > rho1:
            rho2, j2 = rho1, j1
            rho1, j1 = rho, j
        elif rho > rho2:
            rho2, j2 = rho, j
    return rho1, j1, rho2


@njit(cache=True, inline="always")
def _tail_done(a, n, gb, t, tol):
    """The leaf may stop at n: with G = max((a + n)/(n + 1), 1) gb < 1 bounding the ratio of
    successive tail terms, the rest of the tail, t G / (1 - G), is at most ``tol``."""
    num = max(a + n, n + 1.0) * gb
    den = n + 1.0
    return num < den and t * num <= tol * (den - num)


@njit(cache=True, inline="always")
def _cut_params(cut, k, b, c, size):
    """(1 / rho, gb) for leaf k: rho from a topic other than k; zeros when nothing is cut."""
    rho1, j1, rho2, tol = cut
    rho = rho2 if k == j1 else rho1
    if rho <= 0.0:
        return 0.0, 0.0
    return 1.0 / rho, (b + size) / ((c + size) * rho)


@njit(cache=True)
def _leaf_plain(a, b, c, size, inv_rho, gb, tol, out, off):
    """out[off + n] = q(n) for n = 0..m, m <= size the tail cut (none when inv_rho = 0); m."""
    q = 1.0
    t = 1.0
    out[off] = 1.0
    for n in range(1, size + 1):
        r = q_ratio(a, b, c, n - 1)
        q *= r
        out[off + n] = q
        if inv_rho > 0.0:
            t *= r * inv_rho
            if _tail_done(a, n, gb, t, tol):
                return n
    return size


@njit(cache=True)
def _leaf_log(a, b, c, size, tilt, inv_rho, gb, tol, out, off):
    """out[off + n] = q(n) exp(tilt n) / its maximum, n = 0..m; returns m (the tail cut when
    inv_rho > 0). Log space, so any block length is safe."""
    lq = 0.0
    top = 0.0
    m = size
    log_tol = math.log(tol) if inv_rho > 0.0 else 0.0
    log_inv_rho = math.log(inv_rho) if inv_rho > 0.0 else 0.0
    out[off] = 0.0
    for n in range(1, size + 1):
        lq += math.log(q_ratio(a, b, c, n - 1))
        val = lq + tilt * n
        out[off + n] = val
        top = max(top, val)
        if inv_rho > 0.0:
            num = max(a + n, n + 1.0) * gb
            den = n + 1.0
            if num < den and lq + n * log_inv_rho + math.log(num) - math.log(den - num) <= log_tol:
                m = n
                break
    for n in range(m + 1):
        out[off + n] = math.exp(out[off + n] - top)
    return m


@njit(cache=True)
def _leaf_scaled(a, b, c, size, r, inv_rho, gb, tol, out, off):
    """``_leaf_log`` by plain products: out[off + n] = q(n) r^n / its maximum, n = 0..m; returns
    m, or -1 (out untouched past the leaf) when some q(n) r^n before the cut leaves
    [_TINY, 1 / _TINY], where products keep full precision."""
    q = 1.0
    t = 1.0
    top = 1.0
    m = size
    out[off] = 1.0
    for n in range(1, size + 1):
        ratio = q_ratio(a, b, c, n - 1)
        q *= ratio * r
        if not (q > _TINY and q < 1.0 / _TINY):
            return -1
        out[off + n] = q
        top = max(top, q)
        if inv_rho > 0.0:
            t *= ratio * inv_rho
            if _tail_done(a, n, gb, t, tol):
                m = n
                break
    inv = 1.0 / top
    for n in range(m + 1):
        out[off + n] *= inv
    return m


@njit(cache=True)
def _leaves(rows, size, plain, tilt, cut, table, supp):
    """Every leaf into rows 0..K-1 (plain or tilted-rescaled), supports into supp. Plain blocks
    shorter than TRUNCATE_FROM take one division per topic, q(n) = num_n / (n! c^(n)) with the
    numerators a^(n) b^(n) and the one inverse 1 / (C! c^(C)) (in range: a, b, c < 2^63, C < 6)."""
    stride = size + 1
    n_topics = rows[0].size
    if plain and size == 2:
        for k in range(n_topics):
            a, b, c = abc_terms(rows, k)
            inv = 1.0 / (c * (c + 1.0))
            ab = a * b
            table[3 * k] = 1.0
            table[3 * k + 1] = ab * (c + 1.0) * inv
            table[3 * k + 2] = 0.5 * ab * (a + 1.0) * (b + 1.0) * inv
            supp[k] = 2
        return
    if plain and size == 3:
        for k in range(n_topics):
            a, b, c = abc_terms(rows, k)
            inv = 1.0 / (c * (c + 1.0) * (c + 2.0))
            ab = a * b
            ab2 = ab * (a + 1.0) * (b + 1.0)
            table[4 * k] = 1.0
            table[4 * k + 1] = ab * (c + 1.0) * (c + 2.0) * inv
            table[4 * k + 2] = 0.5 * ab2 * (c + 2.0) * inv
            table[4 * k + 3] = ab2 * (a + 2.0) * (b + 2.0) * inv / 6.0
            supp[k] = 3
        return
    if plain and size < TRUNCATE_FROM:  # no tail cut: one division per topic
        for k in range(n_topics):
            a, b, c = abc_terms(rows, k)
            o = k * stride
            num = 1.0
            den = 1.0
            table[o] = 1.0
            for n in range(1, size + 1):
                num *= (a + n - 1.0) * (b + n - 1.0)
                den *= n * (c + n - 1.0)
                table[o + n] = num
            w = 1.0 / den
            for n in range(size, 0, -1):
                table[o + n] *= w
                w *= n * (c + n - 1.0)
            supp[k] = size
        return
    tol = cut[3]
    r = math.exp(tilt)
    for k in range(n_topics):
        a, b, c = abc_terms(rows, k)
        inv_rho, gb = _cut_params(cut, k, b, c, size)
        if plain:
            supp[k] = _leaf_plain(a, b, c, size, inv_rho, gb, tol, table, k * stride)
        else:
            m = _leaf_scaled(a, b, c, size, r, inv_rho, gb, tol, table, k * stride)
            supp[k] = m if m >= 0 else _leaf_log(a, b, c, size, tilt, inv_rho, gb, tol, table, k * stride)


@njit(cache=True)
def _prefixes_2(rows, table):
    """Backward, plain, C = 2: rows K + k = h_{0..k}(0..2), leaves on the fly, one division."""
    n_topics = rows[0].size
    h1 = 0.0
    h2 = 0.0
    for k in range(n_topics):
        a, b, c = abc_terms(rows, k)
        inv = 1.0 / (c * (c + 1.0))
        ab = a * b
        q1 = ab * (c + 1.0) * inv
        q2 = 0.5 * ab * (a + 1.0) * (b + 1.0) * inv
        h2 += q1 * h1 + q2
        h1 += q1
        o = (n_topics + k) * 3
        table[o] = 1.0
        table[o + 1] = h1
        table[o + 2] = h2


@njit(cache=True)
def _prefixes_3(rows, table):
    """Backward, plain, C = 3: rows K + k = h_{0..k}(0..3), leaves on the fly, one division."""
    n_topics = rows[0].size
    h1 = 0.0
    h2 = 0.0
    h3 = 0.0
    for k in range(n_topics):
        a, b, c = abc_terms(rows, k)
        inv = 1.0 / (c * (c + 1.0) * (c + 2.0))
        ab = a * b
        ab2 = ab * (a + 1.0) * (b + 1.0)
        q1 = ab * (c + 1.0) * (c + 2.0) * inv
        q2 = 0.5 * ab2 * (c + 2.0) * inv
        q3 = ab2 * (a + 2.0) * (b + 2.0) * inv / 6.0
        h3 += q1 * h2 + q2 * h1 + q3
        h2 += q1 * h1 + q2
        h1 += q1
        o = (n_topics + k) * 4
        table[o] = 1.0
        table[o + 1] = h1
        table[o + 2] = h2
        table[o + 3] = h3


@njit(cache=True)
def _prefixes_4(rows, table):
    """Backward, plain, C = 4: rows K + k = h_{0..k}(0..4), leaves on the fly, one division."""
    n_topics = rows[0].size
    h1 = h2 = h3 = h4 = 0.0
    for k in range(n_topics):
        a, b, c = abc_terms(rows, k)
        inv = 1.0 / (c * (c + 1.0) * (c + 2.0) * (c + 3.0))
        n1 = a * b
        n2 = n1 * (a + 1.0) * (b + 1.0)
        n3 = n2 * (a + 2.0) * (b + 2.0)
        q4 = n3 * (a + 3.0) * (b + 3.0) * inv / 24.0
        w = inv * (c + 3.0)
        q3 = n3 * w / 6.0
        w *= c + 2.0
        q2 = 0.5 * n2 * w
        q1 = n1 * w * (c + 1.0)
        h4 += q1 * h3 + q2 * h2 + q3 * h1 + q4
        h3 += q1 * h2 + q2 * h1 + q3
        h2 += q1 * h1 + q2
        h1 += q1
        o = (n_topics + k) * 5
        table[o] = 1.0
        table[o + 1] = h1
        table[o + 2] = h2
        table[o + 3] = h3
        table[o + 4] = h4


@njit(cache=True)
def _prefixes_5(rows, table):
    """Backward, plain, C = 5: rows K + k = h_{0..k}(0..5), leaves on the fly, one division."""
    n_topics = rows[0].size
    h1 = h2 = h3 = h4 = h5 = 0.0
    for k in range(n_topics):
        a, b, c = abc_terms(rows, k)
        inv = 1.0 / (c * (c + 1.0) * (c + 2.0) * (c + 3.0) * (c + 4.0))
        n1 = a * b
        n2 = n1 * (a + 1.0) * (b + 1.0)
        n3 = n2 * (a + 2.0) * (b + 2.0)
        n4 = n3 * (a + 3.0) * (b + 3.0)
        q5 = n4 * (a + 4.0) * (b + 4.0) * inv / 120.0
        w = inv * (c + 4.0)
        q4 = n4 * w / 24.0
        w *= c + 3.0
        q3 = n3 * w / 6.0
        w *= c + 2.0
        q2 = 0.5 * n2 * w
        q1 = n1 * w * (c + 1.0)
        h5 += q1 * h4 + q2 * h3 + q3 * h2 + q4 * h1 + q5
        h4 += q1 * h3 + q2 * h2 + q3 * h1 + q4
        h3 += q1 * h2 + q2 * h1 + q3
        h2 += q1 * h1 + q2
        h1 += q1
        o = (n_topics + k) * 6
        table[o] = 1.0
        table[o + 1] = h1
        table[o + 2] = h2
        table[o + 3] = h3
        table[o + 4] = h4
        table[o + 5] = h5


@njit(cache=True)
def _prefixes(rows, size, cut, table, supp, buf):
    """Backward, plain, any C: rows K + k = h_{0..k}(0..C). Leaf k (cut at its support m) goes
    into buf[0:C+1]; the running h into buf[C+1:2C+2], updated in place from the top count down
    with the loop-carried term added last."""
    n_topics = rows[0].size
    stride = size + 1
    tol = cut[3]
    q = buf[:stride]
    cur = buf[stride:2 * stride]
    cur[0] = 1.0
    for cc in range(1, stride):
        cur[cc] = 0.0
    for k in range(n_topics):
        a, b, c = abc_terms(rows, k)
        inv_rho, gb = _cut_params(cut, k, b, c, size)
        m = _leaf_plain(a, b, c, size, inv_rho, gb, tol, q, 0)
        supp[k] = m
        supp[n_topics + k] = size
        row = (n_topics + k) * stride
        table[row] = 1.0
        for cc in range(size, 0, -1):
            acc = q[cc] if cc <= m else 0.0
            for n in range(1, min(cc - 1, m) + 1):
                acc += q[n] * cur[cc - n]
            cur[cc] += acc
            table[row + cc] = cur[cc]


@njit(cache=True)
def _convolve(table, stride, out, left, right, s_left, s_right, size, rescale):
    """Row out = row left * row right (supports s_left, s_right; result cut at size), divided
    by its maximum when ``rescale``; returns the support of the result."""
    s_out = min(size, s_left + s_right)
    o, lo, ro = out * stride, left * stride, right * stride
    if s_out == 2 and s_left == 2 and s_right == 2:
        l1, r1 = table[lo + 1], table[ro + 1]
        table[o] = table[lo] * table[ro]
        table[o + 1] = l1 * table[ro] + table[lo] * r1
        table[o + 2] = table[lo + 2] * table[ro] + l1 * r1 + table[lo] * table[ro + 2]
    else:
        for c in range(s_out + 1):
            table[o + c] = 0.0
        for n in range(s_left + 1):
            ln = table[lo + n]
            for m in range(min(s_right, s_out - n) + 1):
                table[o + n + m] += ln * table[ro + m]
    if rescale:
        top = 0.0
        for c in range(s_out + 1):
            top = max(top, table[o + c])
        if top > 0.0:
            inv = 1.0 / top
            for c in range(s_out + 1):
                table[o + c] *= inv
    return s_out


@njit(cache=True)
def _tree_full(table, tree, n_topics, size, supp):
    """Nested, plain, every support full (no tail cut; h(0) = 1): every internal node's h,
    children first, without a call per node (C = 2, 3 unrolled)."""
    stride = size + 1
    for i in range(n_topics - 1):
        lo, ro, o = tree[0, i] * stride, tree[1, i] * stride, (n_topics + i) * stride
        table[o] = 1.0
        if size == 2:
            l1, r1 = table[lo + 1], table[ro + 1]
            table[o + 1] = l1 + r1
            table[o + 2] = table[lo + 2] + l1 * r1 + table[ro + 2]
        elif size == 3:
            l1, l2, r1, r2 = table[lo + 1], table[lo + 2], table[ro + 1], table[ro + 2]
            table[o + 1] = l1 + r1
            table[o + 2] = l2 + l1 * r1 + r2
            table[o + 3] = table[lo + 3] + l2 * r1 + l1 * r2 + table[ro + 3]
        else:
            for cc in range(1, size + 1):
                acc = table[lo + cc] + table[ro + cc]
                for n in range(1, cc):
                    acc += table[lo + n] * table[ro + cc - n]
                table[o + cc] = acc
        supp[n_topics + i] = size


@njit(cache=True)
def build_normalizers(rows, size, plain, tilt, nested, cut, tree, table, supp, buf):
    """Normalizers of one block; returns the row holding h over all topics."""
    n_topics = rows[0].size
    stride = size + 1
    if plain and not nested:
        if size == 2:
            _prefixes_2(rows, table)
        elif size == 3:
            _prefixes_3(rows, table)
        elif size == 4:
            _prefixes_4(rows, table)
        elif size == 5:
            _prefixes_5(rows, table)
        else:
            _prefixes(rows, size, cut, table, supp, buf)
        return 2 * n_topics - 1
    _leaves(rows, size, plain, tilt, cut, table, supp)
    rescale = not plain
    if nested:
        if plain and size < TRUNCATE_FROM:
            _tree_full(table, tree, n_topics, size, supp)
        else:
            for i in range(n_topics - 1):
                l, r = tree[0, i], tree[1, i]
                supp[n_topics + i] = _convolve(table, stride, n_topics + i, l, r, supp[l], supp[r],
                                               size, rescale)
        return 2 * n_topics - 2
    for c in range(size + 1):
        table[n_topics * stride + c] = table[c] if c <= supp[0] else 0.0
    supp[n_topics] = supp[0]
    for k in range(1, n_topics):
        supp[n_topics + k] = _convolve(table, stride, n_topics + k, k, n_topics + k - 1, supp[k],
                                       supp[n_topics + k - 1], size, rescale)
    return 2 * n_topics - 1
