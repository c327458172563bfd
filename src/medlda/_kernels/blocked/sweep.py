"""Blocked collapsed Gibbs for LDA (docs/mathematics.md §8): all C_dv tokens of word v in document d at once.

The block's topic-count vector is drawn from (6),

    p((n_k)_k | rest) ~ prod_k q_k(n_k),   q_k(n) = a_k^(n) b_k^(n) / (n! c_k^(n)),

by backward or nested simulation over the normalizers h (discrete convolutions of the q_k),
then spread over the block's tokens in a uniformly random order (the tokens are exchangeable,
so z, not only the counts, gets its exact conditional). Blocks of one token take the single-site
draw of ``gibbs.py``, term for term. ``rows`` = (n_d., n_.v, n_., alpha, beta, V beta) with the
block removed gives a_k = n_dk + alpha_k, b_k = n_kv + beta, c_k = n_k + V beta.

Numerics. A block is first checked against a bound (``plain_is_safe``): when every product of
C ratios q_k(n + 1) / q_k(n), and every sum of the at most (K + C)^C such products, stays inside
the normal double range, plain products are exact to rounding (h(0) = 1 throughout). Otherwise
(long blocks) the q_k are built in log space, tilted by a common factor r^n (it multiplies every
count vector of total C by the same r^C, so the distribution is unchanged) so that the likeliest
single-topic clump weighs about 1, and every node's h is divided by its own maximum (docs/mathematics.md's
rescaled normalizers; a node's scale cancels in every draw it takes part in).

Nested blocks on the plain path (or whose own ratio bound fits under a tilt, ``level_tilt``)
take the level-ordered tree of ``block_levels.py`` (vectorized over nodes, no tail cut); the
per-node tree below serves the rescaled path.

Tails. For blocks of at least ``TRUNCATE_FROM`` tokens, leaf k is cut at the first m with
sum_{n > m} q_k(n) / rho^n <= TAIL_TV / K, where rho <= q_j(i + 1) / q_j(i) for all i < C and
some topic j != k. Since h(C) >= h_{-k}(C) >= rho^n h_{-k}(C - n), that sum bounds P(n_k > m),
so the draw is exact up to total variation TAIL_TV (1e-15) per block, below what the 53-bit
uniforms resolve.

Layout: ``table`` is flat, row r of a block of C tokens at table[r * (C + 1):]. Rows 0..K-1 are
the leaves q_k, rows K.. the internal tree nodes (nested, children before parents, root last) or
the prefixes h_{0..k} (backward). Caller-allocated, never per block: ``table`` (>= 2K (C_max+1)),
``work`` (floats, >= max(K, C_max + 1) + 2 (C_max + 1)), ``iwork`` (ints, >= 7K + 4 + C_max).
"""

import math

import numpy as np
from numba import njit

from medlda._kernels.blocked.levels import (
    LEVEL_MAX_SIZE,
    build_levels,
    emit,
    level_table_size,
    level_tilt,
    sample_levels,
)
from medlda._kernels.blocked.normalizers import (
    TRUNCATE_FROM,
    abc_terms,
    absorbers,
    build_normalizers,
    plain_is_safe,
    q_ratio,
    top_two,
)
from medlda._kernels.common import draw_from_cdf
from medlda._kernels.rng import DOCS_PER_STREAM, next_below, next_uniform

BACKWARD = 0
NESTED = 1
TAIL_TV = 1e-15  # total variation allowed to the tail cut, per block
_TILT_TRIES = 8
_ROOT_FLOOR = 1e-250  # rescaled path: h_root(C) relative to max_c h_root(c)
_SHORT = 4  # nested blocks this short skip draw_block's path choice in the sweep


@njit(cache=True)
def balanced_tree_arrays(n_topics):
    """Children (2, K - 1) of the internal nodes K..2K-2 of a balanced binary tree over topics
    0..K-1 (leaf k is node k; a left child holds the first ceil(size / 2) topics of its parent),
    children before parents, root last. Equals a recursive split of range(K)."""
    out = np.zeros((2, max(n_topics - 1, 0)), dtype=np.int64)
    if n_topics < 2:
        return out
    lo_s = np.empty(2 * n_topics, np.int64)
    hi_s = np.empty(2 * n_topics, np.int64)
    st_s = np.empty(2 * n_topics, np.int64)
    done = np.empty(2 * n_topics, np.int64)  # node ids of finished subtrees
    sp, dp, nxt = 1, 0, 0
    lo_s[0], hi_s[0], st_s[0] = 0, n_topics, 0
    while sp > 0:
        lo, hi, st = lo_s[sp - 1], hi_s[sp - 1], st_s[sp - 1]
        if hi - lo == 1:
            sp -= 1
            done[dp] = lo
            dp += 1
            continue
        mid = lo + (hi - lo + 1) // 2
        if st == 0:
            st_s[sp - 1] = 1
            lo_s[sp], hi_s[sp], st_s[sp] = lo, mid, 0
            sp += 1
        elif st == 1:
            st_s[sp - 1] = 2
            lo_s[sp], hi_s[sp], st_s[sp] = mid, hi, 0
            sp += 1
        else:
            sp -= 1
            out[0, nxt] = done[dp - 2]
            out[1, nxt] = done[dp - 1]
            dp -= 1
            done[dp - 1] = n_topics + nxt
            nxt += 1
    return out


@njit(cache=True)
def _draw_split(state, table, stride, left, right, s_left, s_right, total, cdf):
    """(state, n): n ~ row_left(n) row_right(total - n) over the supports."""
    lo = max(0, total - s_right)
    hi = min(total, s_left)
    acc = 0.0
    for n in range(lo, hi + 1):
        acc += table[left * stride + n] * table[right * stride + total - n]
        cdf[n - lo] = acc
    state, i = draw_from_cdf(state, cdf, hi - lo + 1)
    return state, lo + i


@njit(cache=True)
def _sample_nested(state, table, stride, tree, n_topics, size, supp, topics, cdf, stack):
    """Walk down from the root drawing each node's left share; topic k is written n_k times
    into topics[0:size]. Zero-size subtrees are skipped; ``stack`` holds (node, count) pairs."""
    pos = 0
    if n_topics == 1:
        pos = emit(topics, pos, 0, size)
        return state
    stack[0], stack[1] = 2 * n_topics - 2, size
    sp = 1
    while sp > 0:
        sp -= 1
        node, total = stack[2 * sp], stack[2 * sp + 1]
        if node < n_topics:
            pos = emit(topics, pos, node, total)
            continue
        left, right = tree[0, node - n_topics], tree[1, node - n_topics]
        state, n = _draw_split(state, table, stride, left, right, supp[left], supp[right], total, cdf)
        if n > 0:
            stack[2 * sp], stack[2 * sp + 1] = left, n
            sp += 1
        if total - n > 0:
            stack[2 * sp], stack[2 * sp + 1] = right, total - n
            sp += 1
    return state


@njit(cache=True)
def _sample_backward(state, rows, table, stride, size, plain, supp, topics, cdf):
    """Draw n_{K-1}, n_{K-2}, ... from q_k(n) h_{0..k-1}(rest - n) / h_{0..k}(rest) until
    nothing is left. On the plain path all prefixes share one scale, so the highest topic with
    a non-zero count is found at once by bisection on h_{0..i}(rest) (non-decreasing in i) and
    its count n >= 1 drawn from q_i(n) h_{0..i-1}(rest - n), q_i recomputed. Topic k is written
    n_k times into topics[0:size]."""
    n_topics = rows[0].size
    rest = size
    pos = 0
    if not plain:
        for k in range(n_topics - 1, 0, -1):
            if rest == 0:
                break
            state, n = _draw_split(state, table, stride, k, n_topics + k - 1, supp[k],
                                   supp[n_topics + k - 1], rest, cdf)
            pos = emit(topics, pos, k, n)
            rest -= n
        emit(topics, pos, 0, rest)
        return state
    top = n_topics - 1
    while rest > 0:
        state, u = next_uniform(state)
        u *= table[(n_topics + top) * stride + rest]
        lo, hi = 0, top
        while lo < hi:
            mid = (lo + hi) // 2
            if table[(n_topics + mid) * stride + rest] > u:
                hi = mid
            else:
                lo = mid + 1
        i = lo
        if i == 0:
            pos = emit(topics, pos, 0, rest)
            break
        a, b, c = abc_terms(rows, i)
        prev = (n_topics + i - 1) * stride
        q = 1.0
        acc = 0.0
        cdf[0] = 0.0
        hi = rest if size < TRUNCATE_FROM else min(rest, supp[i])
        for n in range(1, hi + 1):
            q *= q_ratio(a, b, c, n - 1)
            acc += q * table[prev + rest - n]
            cdf[n] = acc
        state, n = draw_from_cdf(state, cdf, hi + 1)
        pos = emit(topics, pos, i, n)
        rest -= n
        top = i - 1
    return state


@njit(cache=True)
def _clump_tilt(rows, size):
    """-max log q_j(C) / C over the two topics with the largest q(1): a tilt that gives the
    likeliest single-topic clump a weight near 1."""
    best = -np.inf
    for j in top_two(rows, size, False):
        if j < 0:
            continue
        a, b, c = abc_terms(rows, j)
        lq = 0.0
        for n in range(size):
            lq += math.log(q_ratio(a, b, c, n))
        best = max(best, lq)
    return -best / size


@njit(cache=True)
def draw_block(state, rows, size, nested, tree, table, supp, topics, cdf, stack, buf, force_rescaled,
               log_rho_min, log_rho_max):
    """(state, path): topics[0:size] gets topic k n_k times, n drawn from (6) for a block of ``size`` tokens (``rows``:
    the counts with the block removed, see the module docstring). ``path`` is 0 for plain
    products, else 1 + the number of re-tilts (1: the nested level tree under the block's tilt). ``log_rho_min`` and
    ``log_rho_max`` bound log q_k(n + 1) / q_k(n) (see plain_is_safe)."""
    n_topics = rows[0].size
    stride = size + 1
    plain = (not force_rescaled) and plain_is_safe(size, n_topics, log_rho_min, log_rho_max)
    if nested and n_topics > 1 and not force_rescaled and size <= LEVEL_MAX_SIZE:
        if plain and level_table_size(n_topics, size) <= table.size:
            ok, tilt, path = True, 0.0, 0
        elif size > 3:
            ok, tilt = level_tilt(rows, size)
            path = 1
        else:
            ok, tilt, path = False, 0.0, 0
        if ok:
            v = build_levels(rows, size, tilt, table)
            if v > 0.0 and v < np.inf:
                return sample_levels(state, rows, size, tilt, table, topics, cdf, stack, buf), path
            plain = False
    tol = TAIL_TV / n_topics
    if size >= TRUNCATE_FROM and n_topics > 1:
        rho1, j1, rho2 = absorbers(rows, size)
        cut = (rho1, j1, rho2, tol)
    else:
        cut = (0.0, -1, 0.0, tol)
    path = 0
    root = 0
    if plain:
        root = build_normalizers(rows, size, True, 0.0, nested, cut, tree, table, supp, buf)
        v = table[root * stride + size]
        plain = v > 0.0 and v < np.inf
    if not plain:
        tilt = _clump_tilt(rows, size)
        path = 1
        root = build_normalizers(rows, size, False, tilt, nested, cut, tree, table, supp, buf)
        while not (supp[root] >= size and table[root * stride + size] >= _ROOT_FLOOR):
            if path > _TILT_TRIES:
                raise FloatingPointError("blocked Gibbs: a block normalizer was lost to underflow")
            arg, top = 0, -1.0
            for c in range(supp[root] + 1):
                if table[root * stride + c] > top:
                    top, arg = table[root * stride + c], c
            v = table[root * stride + size] if supp[root] >= size else 0.0
            deficit = -math.log(v) if v > 0.0 else 700.0
            tilt += (deficit + 10.0) / max(size - arg, 1)
            path += 1
            root = build_normalizers(rows, size, False, tilt, nested, cut, tree, table, supp, buf)
    if nested:
        return _sample_nested(state, table, stride, tree, n_topics, size, supp, topics, cdf, stack), path
    return _sample_backward(state, rows, table, stride, size, plain, supp, topics, cdf), path


@njit(cache=True)
def draw_block_many(n_d, n_v, n_k, alpha, beta, vbeta, size, nested, force_rescaled, n_draws, stream):
    """(draws, path, cut): (n_draws, K) count vectors drawn independently from (6) for fixed
    counts (int32 n_d, n_v; int64 n_k, all with the block removed), the path of the last draw,
    and the largest count each leaf could take in it (< size where the tail was cut; blocks of at
    least TRUNCATE_FROM tokens). The sweep's block draw, exposed for tests and diagnostics.
    Bounds as in ``blocked_sweep`` (corpus size n_k.sum() + size, document n_d.sum() + size)."""
    n_topics = n_k.size
    tree = balanced_tree_arrays(n_topics)
    table = np.empty(max(2 * n_topics * (size + 1), level_table_size(n_topics, size)))
    supp = np.full(2 * n_topics, size, np.int64)
    cdf = np.empty(size + 1)
    buf = np.empty(2 * (size + 1))
    stack = np.empty(4 * n_topics + 4, np.int64)
    out = np.zeros((n_draws, n_topics), np.int64)
    topics = np.empty(size, np.int64)
    log_rho_min, log_rho_max = _ratio_bounds(alpha, beta, vbeta, n_k.sum() + size, n_d.sum() + size)
    rows = (n_d, n_v, n_k, alpha, beta, vbeta)
    state = stream
    path = 0
    for i in range(n_draws):
        state, path = draw_block(state, rows, size, nested, tree, table, supp, topics, cdf, stack, buf,
                                 force_rescaled, log_rho_min, log_rho_max)
        for j in range(size):
            out[i, topics[j]] += 1
    return out, path, supp[:n_topics].copy()


@njit(cache=True)
def _ratio_bounds(alpha, beta, vbeta, n_tokens, doc_length):
    """(log rho_min, log rho_max): bounds of q_k(n + 1) / q_k(n) in a corpus of ``n_tokens`` for
    a document of ``doc_length``: rho >= min(alpha beta / c_max, 1 / (2 (c_max + 1))) with
    c_max = N + V beta, and rho <= max(1, N_d + alpha_max) since b_k <= c_k."""
    c_max = n_tokens + vbeta
    low = min(math.log(alpha.min() * beta / c_max), -math.log(2.0 * (c_max + 1.0)))
    return low, math.log(max(1.0, doc_length + alpha.max()))


@njit(cache=True, error_model="numpy")
def _single_site_cdf(nd, nv, nk, alpha, beta, vbeta, cdf):
    """cdf[0:K] = running sums of (n_dk + alpha_k)(n_kv + beta)/(n_k + V beta), the same floats as
    ``gibbs_sweep``'s: the terms first (a loop free to vectorize), then the sums in order."""
    n_topics = nk.size
    for k in range(n_topics):
        cdf[k] = (nd[k] + alpha[k]) * (nv[k] + beta) / (nk[k] + vbeta)
    total = 0.0
    for k in range(n_topics):
        total += cdf[k]
        cdf[k] = total


@njit(cache=True, inline="always")
def _draw_bisect(state, cdf, n):
    """``draw_from_cdf`` by bisection: the same uniform and the same k (the first with
    cdf[k] > u, else n - 1), as cdf is non-decreasing."""
    state, u = next_uniform(state)
    u *= cdf[n - 1]
    base, length = 0, n
    while length > 1:  # the answer is in base..base + length - 1
        half = length >> 1
        base += half if cdf[base + half - 1] <= u else 0
        length -= half
    return state, base


@njit(cache=True)
def _shuffle(state, topics, size):
    """Uniformly random order of topics[0:size] (Fisher-Yates)."""
    for j in range(size - 1, 0, -1):
        state, i = next_below(state, j + 1)
        topics[j], topics[i] = topics[i], topics[j]
    return state


@njit(cache=True)
def blocked_sweep(tokens, blocks, counts, alpha, beta, vbeta, nested, tree, streams, scratch):
    """One blocked sweep: in every document, each block (tokens order[block_ptr[b]:
    block_ptr[b + 1]], all of one word; ``blocks``: ``Blocks``) is removed and redrawn jointly
    from (6), by nested simulation over ``tree`` when ``nested``, else backward.

    In distribution, each block's z is redrawn from the collapsed LDA posterior given all other
    tokens; a block of one token is exactly ``gibbs_sweep``'s update with T = 0. z and the counts
    (``tokens``, ``counts``) are updated in place; ``streams`` advance (one per DOCS_PER_STREAM
    documents). ``scratch`` is (table, work, iwork), sized as ``BlockedGibbs`` sizes them.
    """
    word_ids, doc_ptr, z = tokens
    order, block_ptr, doc_blocks = blocks
    n_dk, n_wk, n_k = counts
    table, work, iwork = scratch
    n_topics = n_wk.shape[1]
    max_block = iwork.size - 7 * n_topics - 4
    cdf = work[:max(n_topics, max_block + 1)]
    buf = work[cdf.size:cdf.size + 2 * (max_block + 1)]
    supp = iwork[n_topics:3 * n_topics]
    stack = iwork[3 * n_topics:7 * n_topics + 4]
    topics = iwork[7 * n_topics + 4:]
    for d in range(doc_ptr.size - 1):
        if doc_ptr[d + 1] == doc_ptr[d]:
            continue
        s = d // DOCS_PER_STREAM
        state = streams[s]
        log_rho_min, log_rho_max = _ratio_bounds(alpha, beta, vbeta, word_ids.size, doc_ptr[d + 1] - doc_ptr[d])
        short = 0  # nested blocks up to this size go straight to the level tree (plain, untilted)
        if nested and n_topics > 1:
            while short < _SHORT and plain_is_safe(short + 1, n_topics, log_rho_min, log_rho_max):
                short += 1
        for blk in range(doc_blocks[d], doc_blocks[d + 1]):
            start, end = block_ptr[blk], block_ptr[blk + 1]
            size = end - start
            v = word_ids[order[start]]
            for j in range(start, end):
                old = z[order[j]]
                n_dk[d, old] -= 1
                n_wk[v, old] -= 1
                n_k[old] -= 1
            if size == 1:
                _single_site_cdf(n_dk[d], n_wk[v], n_k, alpha, beta, vbeta, cdf)
                state, new = _draw_bisect(state, cdf, n_topics)
                z[order[start]] = new
                n_dk[d, new] += 1
                n_wk[v, new] += 1
                n_k[new] += 1
                continue
            rows = (n_dk[d], n_wk[v], n_k, alpha, beta, vbeta)
            if size <= short:
                h = build_levels(rows, size, 0.0, table)
                if h > 0.0 and h < np.inf:
                    state = sample_levels(state, rows, size, 0.0, table, topics, cdf, stack, buf)
                else:
                    state, _ = draw_block(state, rows, size, nested, tree, table, supp, topics, cdf, stack, buf,
                                          False, log_rho_min, log_rho_max)
            else:
                state, _ = draw_block(state, rows, size, nested, tree, table, supp, topics, cdf, stack, buf,
                                      False, log_rho_min, log_rho_max)
            state = _shuffle(state, topics, size)
            for j in range(size):
                new = topics[j]
                z[order[start + j]] = new
                n_dk[d, new] += 1
                n_wk[v, new] += 1
                n_k[new] += 1
        streams[s] = state
