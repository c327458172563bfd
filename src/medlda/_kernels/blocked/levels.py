"""Nested simulation of a block draw (docs/mathematics.md §8) on the plain path, over a tree stored level by level.

Same draw as the per-node tree of ``block_normalizers``, laid out for speed: with P the power
of two >= K, node i of level L (P / 2^L nodes) has children i and i + P / 2^(L+1) of level
L - 1, so leaf k (level 0) is topic k and a node holds the topics congruent to i mod P / 2^L.
Each level stores h(1..C) count-major (row c - 1 of a level is h(c) of all its nodes; h(0) = 1
is implicit), so the convolutions run as contiguous loops over nodes with no dependence chain
(kernels use error_model="numpy" so the divisions vectorize; c_k > 0 always). Missing leaves
(k >= K) have h = 1: their siblings are copied up. C = 2, 3, 4 compute the leaves inside the
first level and recompute the two leaves of a level-1 node while walking down; longer blocks
store the leaf rows. Plain products only: the caller checks ``plain_is_safe`` or takes the
block's own tilt from ``level_tilt``, and checks the root for a finite, positive h(C).
``lev`` is caller-allocated, ``level_table_size`` doubles.
"""

import math

import numpy as np
from numba import njit

from medlda._kernels.blocked.normalizers import LOG_RANGE, abc_terms
from medlda._kernels.common import draw_from_cdf
from medlda._kernels.rng import next_uniform

LEVEL_MAX_SIZE = 128  # longer blocks always take the per-node rescaled path
_FEW_NODES = 16  # levels with fewer nodes are built node by node
_UNROLLED = 7  # blocks up to this long combine full levels in one pass (_combine_2 .. _combine_7)


@njit(cache=True)
def level_table_size(n_topics, max_size):
    """Doubles of ``lev`` for blocks up to min(max_size, LEVEL_MAX_SIZE) tokens: the leaves
    (C K) and the levels above them (C (P - 1))."""
    return min(max_size, LEVEL_MAX_SIZE) * (n_topics + _width(n_topics))


@njit(cache=True, inline="always")
def _width(n_topics):
    """P: the smallest power of two >= K."""
    width = 1
    while width < n_topics:
        width *= 2
    return width


@njit(cache=True, error_model="numpy")
def level_tilt(rows, size):
    """(ok, log r): a tilt r^n of every leaf under which plain products are safe for this block,
    from its own counts. Every ratio q_k(n + 1) / q_k(n), n < C, lies in [min(a, 1) b / c,
    max(a, 1) (b + C - 1) / (c + C - 1)] (b <= c), so every term of any h(c) lies in
    [e^{c (lo + log r)}, e^{c (hi + log r)}], and an h(c) sums at most binom(K + c - 1, c)
    terms. log r centres that range; ok when it fits in the normal doubles (as
    ``plain_is_safe``)."""
    nd, nv, nk, alpha, beta, vbeta = rows
    n_topics = nd.size
    lo = np.inf
    hi = 0.0
    for k in range(n_topics):
        a = nd[k] + alpha[k]
        c = nk[k] + vbeta
        b = nv[k] + beta
        lo = min(lo, min(a, 1.0) * b / c)
        hi = max(hi, max(a, 1.0) * (b + size - 1.0) / (c + size - 1.0))
    log_lo, log_hi = math.log(lo), math.log(hi)
    log_terms = math.lgamma(n_topics + size) - math.lgamma(size + 1.0) - math.lgamma(n_topics)
    tilt = -0.5 * (log_lo + log_hi) - 0.5 * log_terms / size
    ok = size * (log_hi - log_lo) + log_terms < 2.0 * LOG_RANGE and size <= LEVEL_MAX_SIZE
    return ok, tilt


@njit(cache=True, inline="always", error_model="numpy")
def _q2(a, b, c):
    """(q(1), q(2)) with one division."""
    inv = 1.0 / (c * (c + 1.0))
    ab = a * b
    return ab * (c + 1.0) * inv, 0.5 * ab * (a + 1.0) * (b + 1.0) * inv


@njit(cache=True, inline="always", error_model="numpy")
def _q3(a, b, c):
    """(q(1), q(2), q(3)) with one division."""
    inv = 1.0 / (c * (c + 1.0) * (c + 2.0))
    ab = a * b
    ab2 = ab * (a + 1.0) * (b + 1.0)
    return (ab * (c + 1.0) * (c + 2.0) * inv, 0.5 * ab2 * (c + 2.0) * inv,
            ab2 * (a + 2.0) * (b + 2.0) * inv / 6.0)


@njit(cache=True, inline="always", error_model="numpy")
def _q4(a, b, c):
    """(q(1), .., q(4)) with one division."""
    inv = 1.0 / (c * (c + 1.0) * (c + 2.0) * (c + 3.0))
    n1 = a * b
    n2 = n1 * (a + 1.0) * (b + 1.0)
    n3 = n2 * (a + 2.0) * (b + 2.0)
    q4 = n3 * (a + 3.0) * (b + 3.0) * inv / 24.0
    w = inv * (c + 3.0)
    q3 = n3 * w / 6.0
    w *= c + 2.0
    return n1 * w * (c + 1.0), 0.5 * n2 * w, q3, q4


@njit(cache=True, error_model="numpy")
def _first_level_4(rows, half, lev):
    """C = 4: level 1 (``half`` nodes) from the leaves, computed on the fly."""
    nd, nv, nk, alpha, beta, vbeta = rows
    n_topics = nd.size
    both = n_topics - half
    h1, h2, h3, h4 = lev[:half], lev[half:2 * half], lev[2 * half:3 * half], lev[3 * half:4 * half]
    nd_r, nv_r, nk_r, alpha_r = nd[half:], nv[half:], nk[half:], alpha[half:]
    for i in range(both):
        l1, l2, l3, l4 = _q4(nd[i] + alpha[i], nv[i] + beta, nk[i] + vbeta)
        r1, r2, r3, r4 = _q4(nd_r[i] + alpha_r[i], nv_r[i] + beta, nk_r[i] + vbeta)
        h1[i] = l1 + r1
        h2[i] = l2 + l1 * r1 + r2
        h3[i] = l3 + l2 * r1 + l1 * r2 + r3
        h4[i] = l4 + l3 * r1 + l2 * r2 + l1 * r3 + r4
    for i in range(both, half):
        h1[i], h2[i], h3[i], h4[i] = _q4(nd[i] + alpha[i], nv[i] + beta, nk[i] + vbeta)


@njit(cache=True, error_model="numpy")
def _first_level_2(rows, half, lev):
    """C = 2: level 1 (``half`` nodes) from the leaves, computed on the fly."""
    nd, nv, nk, alpha, beta, vbeta = rows
    n_topics = nd.size
    both = n_topics - half
    h1 = lev[:half]
    h2 = lev[half:2 * half]
    nd_r, nv_r, nk_r, alpha_r = nd[half:], nv[half:], nk[half:], alpha[half:]
    for i in range(both):
        l1, l2 = _q2(nd[i] + alpha[i], nv[i] + beta, nk[i] + vbeta)
        r1, r2 = _q2(nd_r[i] + alpha_r[i], nv_r[i] + beta, nk_r[i] + vbeta)
        h1[i] = l1 + r1
        h2[i] = l2 + l1 * r1 + r2
    for i in range(both, half):
        h1[i], h2[i] = _q2(nd[i] + alpha[i], nv[i] + beta, nk[i] + vbeta)


@njit(cache=True, error_model="numpy")
def _first_level_3(rows, half, lev):
    """C = 3: level 1 (``half`` nodes) from the leaves, computed on the fly."""
    nd, nv, nk, alpha, beta, vbeta = rows
    n_topics = nd.size
    both = n_topics - half
    h1 = lev[:half]
    h2 = lev[half:2 * half]
    h3 = lev[2 * half:3 * half]
    nd_r, nv_r, nk_r, alpha_r = nd[half:], nv[half:], nk[half:], alpha[half:]
    for i in range(both):
        l1, l2, l3 = _q3(nd[i] + alpha[i], nv[i] + beta, nk[i] + vbeta)
        r1, r2, r3 = _q3(nd_r[i] + alpha_r[i], nv_r[i] + beta, nk_r[i] + vbeta)
        h1[i] = l1 + r1
        h2[i] = l2 + l1 * r1 + r2
        h3[i] = l3 + l2 * r1 + l1 * r2 + r3
    for i in range(both, half):
        h1[i], h2[i], h3[i] = _q3(nd[i] + alpha[i], nv[i] + beta, nk[i] + vbeta)


@njit(cache=True, error_model="numpy")
def _leaves(rows, size, r, lev):
    """Any C: leaf k's q(n) r^n at lev[(n - 1) K + k], n = 1..C, one row of topics at a time."""
    nd, nv, nk, alpha, beta, vbeta = rows
    n_topics = nd.size
    q = lev[:n_topics]
    for k in range(n_topics):
        q[k] = (nd[k] + alpha[k]) * (nv[k] + beta) * r / (nk[k] + vbeta)
    for n in range(1, size):
        prev = lev[(n - 1) * n_topics:n * n_topics]
        q = lev[n * n_topics:(n + 1) * n_topics]
        for k in range(n_topics):
            q[k] = prev[k] * ((nd[k] + alpha[k] + n) * (nv[k] + beta + n) * r / ((n + 1.0) * (nk[k] + vbeta + n)))


@njit(cache=True)
def _combine(src, n_src, dst, n_dst, size):
    """dst (n_dst nodes) from src (n_src <= 2 n_dst nodes): node i's children are i and
    i + n_dst; h(c) = l(c) + r(c) + sum_{0<j<c} l(j) r(c - j), or l(c) without a right child."""
    both = n_src - n_dst
    if n_dst < _FEW_NODES:  # few nodes: one node at a time, no loop set up per (c, j)
        for i in range(n_dst):
            has_right = i < both
            for c in range(1, size + 1):
                acc = src[(c - 1) * n_src + i]
                if has_right:
                    acc += src[(c - 1) * n_src + n_dst + i]
                    for j in range(1, c):
                        acc += src[(j - 1) * n_src + i] * src[(c - j - 1) * n_src + n_dst + i]
                dst[(c - 1) * n_dst + i] = acc
        return
    for c in range(1, size + 1):
        out = dst[(c - 1) * n_dst:c * n_dst]
        row = src[(c - 1) * n_src:c * n_src]
        right = row[n_dst:]
        for i in range(both):
            out[i] = row[i] + right[i]
        for i in range(both, n_dst):
            out[i] = row[i]
        for j in range(1, c - 1, 2):  # two terms per pass over out
            la = src[(j - 1) * n_src:(j - 1) * n_src + both]
            ra = src[(c - j - 1) * n_src + n_dst:(c - j - 1) * n_src + n_dst + both]
            lb = src[j * n_src:j * n_src + both]
            rb = src[(c - j - 2) * n_src + n_dst:(c - j - 2) * n_src + n_dst + both]
            for i in range(both):
                out[i] += la[i] * ra[i] + lb[i] * rb[i]
        if c % 2 == 0:  # c - 1 terms: the last one alone
            lj = src[(c - 2) * n_src:(c - 2) * n_src + both]
            rj = src[n_dst:n_dst + both]
            for i in range(both):
                out[i] += lj[i] * rj[i]


@njit(cache=True)
def _combine_2(src, dst, n):
    """C = 2, full level (2 n children)."""
    for i in range(n):
        l1, r1 = src[i], src[n + i]
        l2, r2 = src[2 * n + i], src[3 * n + i]
        dst[i] = l1 + r1
        dst[1 * n + i] = l2 + l1 * r1 + r2


@njit(cache=True)
def _combine_3(src, dst, n):
    """C = 3, full level (2 n children)."""
    for i in range(n):
        l1, r1 = src[i], src[n + i]
        l2, r2 = src[2 * n + i], src[3 * n + i]
        l3, r3 = src[4 * n + i], src[5 * n + i]
        dst[i] = l1 + r1
        dst[1 * n + i] = l2 + l1 * r1 + r2
        dst[2 * n + i] = l3 + l2 * r1 + l1 * r2 + r3


@njit(cache=True)
def _combine_4(src, dst, n):
    """C = 4, full level (2 n children)."""
    for i in range(n):
        l1, r1 = src[i], src[n + i]
        l2, r2 = src[2 * n + i], src[3 * n + i]
        l3, r3 = src[4 * n + i], src[5 * n + i]
        l4, r4 = src[6 * n + i], src[7 * n + i]
        dst[i] = l1 + r1
        dst[1 * n + i] = l2 + l1 * r1 + r2
        dst[2 * n + i] = l3 + l2 * r1 + l1 * r2 + r3
        dst[3 * n + i] = l4 + l3 * r1 + l2 * r2 + l1 * r3 + r4


@njit(cache=True)
def _combine_5(src, dst, n):
    """C = 5, full level (2 n children)."""
    for i in range(n):
        l1, r1 = src[i], src[n + i]
        l2, r2 = src[2 * n + i], src[3 * n + i]
        l3, r3 = src[4 * n + i], src[5 * n + i]
        l4, r4 = src[6 * n + i], src[7 * n + i]
        l5, r5 = src[8 * n + i], src[9 * n + i]
        dst[i] = l1 + r1
        dst[1 * n + i] = l2 + l1 * r1 + r2
        dst[2 * n + i] = l3 + l2 * r1 + l1 * r2 + r3
        dst[3 * n + i] = l4 + l3 * r1 + l2 * r2 + l1 * r3 + r4
        dst[4 * n + i] = l5 + l4 * r1 + l3 * r2 + l2 * r3 + l1 * r4 + r5


@njit(cache=True)
def _combine_6(src, dst, n):
    """C = 6, full level (2 n children)."""
    for i in range(n):
        l1, r1 = src[i], src[n + i]
        l2, r2 = src[2 * n + i], src[3 * n + i]
        l3, r3 = src[4 * n + i], src[5 * n + i]
        l4, r4 = src[6 * n + i], src[7 * n + i]
        l5, r5 = src[8 * n + i], src[9 * n + i]
        l6, r6 = src[10 * n + i], src[11 * n + i]
        dst[i] = l1 + r1
        dst[1 * n + i] = l2 + l1 * r1 + r2
        dst[2 * n + i] = l3 + l2 * r1 + l1 * r2 + r3
        dst[3 * n + i] = l4 + l3 * r1 + l2 * r2 + l1 * r3 + r4
        dst[4 * n + i] = l5 + l4 * r1 + l3 * r2 + l2 * r3 + l1 * r4 + r5
        dst[5 * n + i] = l6 + l5 * r1 + l4 * r2 + l3 * r3 + l2 * r4 + l1 * r5 + r6


@njit(cache=True)
def _combine_7(src, dst, n):
    """C = 7, full level (2 n children)."""
    for i in range(n):
        l1, r1 = src[i], src[n + i]
        l2, r2 = src[2 * n + i], src[3 * n + i]
        l3, r3 = src[4 * n + i], src[5 * n + i]
        l4, r4 = src[6 * n + i], src[7 * n + i]
        l5, r5 = src[8 * n + i], src[9 * n + i]
        l6, r6 = src[10 * n + i], src[11 * n + i]
        l7, r7 = src[12 * n + i], src[13 * n + i]
        dst[i] = l1 + r1
        dst[1 * n + i] = l2 + l1 * r1 + r2
        dst[2 * n + i] = l3 + l2 * r1 + l1 * r2 + r3
        dst[3 * n + i] = l4 + l3 * r1 + l2 * r2 + l1 * r3 + r4
        dst[4 * n + i] = l5 + l4 * r1 + l3 * r2 + l2 * r3 + l1 * r4 + r5
        dst[5 * n + i] = l6 + l5 * r1 + l4 * r2 + l3 * r3 + l2 * r4 + l1 * r5 + r6
        dst[6 * n + i] = l7 + l6 * r1 + l5 * r2 + l4 * r3 + l3 * r4 + l2 * r5 + l1 * r6 + r7


@njit(cache=True)
def _combine_full(src, dst, n, size):
    """A full level (2 n children) for C <= _UNROLLED (one pass over the nodes, every product
    in registers); False for longer blocks."""
    if size == 2:
        _combine_2(src, dst, n)
    elif size == 3:
        _combine_3(src, dst, n)
    elif size == 4:
        _combine_4(src, dst, n)
    elif size == 5:
        _combine_5(src, dst, n)
    elif size == 6:
        _combine_6(src, dst, n)
    elif size == 7:
        _combine_7(src, dst, n)
    else:
        return False
    return True


@njit(cache=True)
def _top_levels(lev, off, n, size):
    """The levels above one of n < 2 _FEW_NODES full nodes at lev[off:], node by node in one
    call (short levels cost more in loop set-up than in arithmetic); returns the root's h(C)."""
    while n > 1:
        half = n // 2
        nxt = off + size * n
        for i in range(half):
            for c in range(1, size + 1):
                acc = lev[off + (c - 1) * n + i] + lev[off + (c - 1) * n + half + i]
                for j in range(1, c):
                    acc += lev[off + (j - 1) * n + i] * lev[off + (c - j - 1) * n + half + i]
                lev[nxt + (c - 1) * half + i] = acc
        off, n = nxt, half
    return lev[off + size - 1]


@njit(cache=True)
def build_levels(rows, size, tilt, lev):
    """Every level's h(1..C) into ``lev`` (leaves tilted by e^{tilt n}; C = 2, 3 untilted);
    returns h(C) of the root. K >= 2, C <= LEVEL_MAX_SIZE."""
    n_topics = rows[0].size
    n = _width(n_topics) // 2
    if size == 2:
        off = 0
        _first_level_2(rows, n, lev)
    elif size == 3:
        off = 0
        _first_level_3(rows, n, lev)
    elif size == 4 and tilt == 0.0:
        off = 0
        _first_level_4(rows, n, lev)
    else:
        off = size * n_topics
        _leaves(rows, size, math.exp(tilt), lev)
        if n_topics < 2 * n or not _combine_full(lev[:off], lev[off:off + size * n], n, size):
            _combine(lev[:off], n_topics, lev[off:off + size * n], n, size)
    while n > 1:
        nxt = off + size * n
        half = n // 2
        if size <= _UNROLLED:
            _combine_full(lev[off:nxt], lev[nxt:nxt + size * half], half, size)
        elif half < _FEW_NODES:
            return _top_levels(lev, off, n, size)
        else:
            _combine(lev[off:nxt], n, lev[nxt:nxt + size * half], half, size)
        off, n = nxt, half
    return lev[off + size - 1]


@njit(cache=True, inline="always")
def _leaf(rows, k, total, size, fused, lev, out, o):
    """out[o:o + total + 1] = q_k(0..total) for the descent: recomputed with the build's
    formulas when the leaves were ``fused`` into level 1 (C <= 4, untilted), else read from
    the leaf rows."""
    out[o] = 1.0
    if not fused:
        n_topics = rows[0].size
        for n in range(1, total + 1):
            out[o + n] = lev[(n - 1) * n_topics + k]
        return
    a, b, c = abc_terms(rows, k)
    if size == 2:
        out[o + 1], out[o + 2] = _q2(a, b, c)
    elif size == 3:
        out[o + 1], out[o + 2], out[o + 3] = _q3(a, b, c)
    else:
        out[o + 1], out[o + 2], out[o + 3], out[o + 4] = _q4(a, b, c)


@njit(cache=True, inline="always")
def emit(topics, pos, k, n):
    """topics[pos:pos + n] = k; returns pos + n."""
    for j in range(pos, pos + n):
        topics[j] = k
    return pos + n


@njit(cache=True)
def sample_levels(state, rows, size, tilt, lev, topics, cdf, stack, leaf_buf):
    """Walk down from the root drawing each node's left share n ~ h_left(n) h_right(c - n)
    (one comparison per level once a subtree holds one token); topic k is written n_k times
    into topics[0:size]. ``stack`` holds (level, node, count); ``leaf_buf`` >= 2 (C + 1)."""
    n_topics = rows[0].size
    width = _width(n_topics)
    depth = 0
    while (1 << depth) < width:
        depth += 1
    fused = size <= 3 or (size == 4 and tilt == 0.0)  # leaves computed inside level 1
    leaf_rows = 0 if fused else size * n_topics
    ql = leaf_buf
    r0 = size + 1  # the right leaf at leaf_buf[r0:]
    stack[0], stack[1], stack[2] = depth, 0, size
    sp = 1
    pos = 0
    while sp > 0:
        sp -= 1
        level, node, total = stack[3 * sp], stack[3 * sp + 1], stack[3 * sp + 2]
        if total == 1:  # one uniform for the whole walk: t ~ U(0, h_node(1)), as a sum tree
            state, u = next_uniform(state)
            t = -1.0
            while level > 1:
                n_child = width >> (level - 1)
                right = node + (n_child >> 1)
                off = leaf_rows + size * (width - (n_child << 1))
                hl = lev[off + node]
                if t < 0.0:
                    t = u * (hl + lev[off + right])
                go = t >= hl
                t -= hl if go else 0.0
                node = right if go else node
                level -= 1
            right = node + (width >> 1)
            if right < n_topics:
                _leaf(rows, node, 1, size, fused, lev, ql, 0)
                if t < 0.0:
                    _leaf(rows, right, 1, size, fused, lev, ql, r0)
                    t = u * (ql[1] + ql[r0 + 1])
                node = right if t >= ql[1] else node
            topics[pos] = node
            pos += 1
            continue
        n_child = width >> (level - 1)  # nodes of the level below
        right = node + (n_child >> 1)
        if level == 1:
            if right >= n_topics:
                pos = emit(topics, pos, node, total)
                continue
            _leaf(rows, node, total, size, fused, lev, ql, 0)
            _leaf(rows, right, total, size, fused, lev, ql, r0)
            acc = 0.0
            for n in range(total + 1):
                acc += ql[n] * ql[r0 + total - n]
                cdf[n] = acc
            state, n = draw_from_cdf(state, cdf, total + 1)
            pos = emit(topics, pos, node, n)
            pos = emit(topics, pos, right, total - n)
            continue
        off = leaf_rows + size * (width - (n_child << 1))  # start of the level below
        acc = 0.0
        for n in range(total + 1):
            hl = 1.0 if n == 0 else lev[off + (n - 1) * n_child + node]
            hr = 1.0 if n == total else lev[off + (total - n - 1) * n_child + right]
            acc += hl * hr
            cdf[n] = acc
        state, n = draw_from_cdf(state, cdf, total + 1)
        if n > 0:
            stack[3 * sp], stack[3 * sp + 1], stack[3 * sp + 2] = level - 1, node, n
            sp += 1
        if total > n:
            stack[3 * sp], stack[3 * sp + 1], stack[3 * sp + 2] = level - 1, right, total - n
            sp += 1
    return state
