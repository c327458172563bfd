"""Topic inference for new documents against a fixed phi (SPEC §7)."""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from medlda._kernels.alias import build_alias, build_alias_head, draw_alias
from medlda._kernels.common import cdf_index, max_doc_length
from medlda._kernels.rng import DOCS_PER_STREAM, block_docs, doc_state, next_u64, next_uniform

# A document's estimate averages short chains, each from its own random start z_i ~ alpha_k phi_kv:
# one long chain stays near one of a document's topic mixes for many sweeps, chains from several
# starts average over them sooner. At least MIN_CHAINS (n_avg if fewer), then more, up to n_avg,
# until the standard error of the estimate, summed over topics, is at most SE_SCALE / sqrt(n_avg)
# of the document's tokens (docs/benchmarks.md, "Prediction", measured these constants).
MIN_CHAINS = 4
SE_SCALE = 1.7
# A sweep computes each token's conditional over all K topics while the document uses more than
# K / DENSE_SHARE of them (as after a start: a contiguous pass the compiler vectorises), else over
# the topics in use; the dense draw searches blocks of BLOCK topics, then one block.
DENSE_SHARE = 5
BLOCK = 16
# reassociation lets the dense passes sum in vector registers (another rounding, the same target)
_VECTOR_SUM = {"reassoc", "contract", "arcp"}
_LOW_32 = np.uint64(0xFFFFFFFF)
_SHIFT_32 = np.uint64(32)
_INV_2_32 = 1.0 / 4294967296.0


class WordBucket(NamedTuple):
    """Per word v, alpha_k (phi_kv - floor_k) over the topics where it is not zero."""

    ptr: np.ndarray  # (V + 1,) int64: word v's entries are [ptr[v], ptr[v + 1])
    topic: np.ndarray  # (E,) int32: the entry's topic k
    weight: np.ndarray  # (E,) float64: alpha_k (phi_kv - floor_k)
    prob: np.ndarray  # (E,) float64: the word's alias table over its entries
    alias: np.ndarray  # (E,) int32: an entry of the same word, counted from ptr[v]
    mass: np.ndarray  # (V,) float64: the sum of the word's weights


class SmoothBucket(NamedTuple):
    """alpha_k floor_k, floor_k = min_v phi_kv: the part of alpha_k phi_kv that no word changes."""

    weight: np.ndarray  # (K,) float64
    prob: np.ndarray  # (K,) float64: an alias table over the weights
    alias: np.ndarray  # (K,) int32
    mass: float  # the sum of the weights


def prior_tables(phi_wk: np.ndarray, alpha: np.ndarray) -> tuple[WordBucket, SmoothBucket]:
    """The prior part alpha_k phi_kv of p(z_i = k) ~ phi_kv (n_dk + alpha_k), which does not depend
    on the document, split as SparseLDA splits it: alpha_k floor_k, one table for all words, plus
    alpha_k (phi_kv - floor_k), which is zero unless word v has counts in topic k (the point
    estimate (n_kv + beta) / (n_k + V beta) has floor beta / (n_k + V beta)). Exact for any phi;
    O(V K) to scan, O(entries) to store."""
    tables = _buckets(phi_wk, np.asarray(alpha, dtype=np.float64))
    return WordBucket(*tables[:6]), SmoothBucket(*tables[6:])


@njit(cache=True)
def _buckets(phi_wk, alpha):
    n_words, n_topics = phi_wk.shape
    floor = np.full(n_topics, np.inf) if n_words else np.zeros(n_topics)
    for v in range(n_words):
        for k in range(n_topics):
            floor[k] = min(floor[k], phi_wk[v, k])
    ptr = np.zeros(n_words + 1, np.int64)
    for v in range(n_words):
        n = 0
        for k in range(n_topics):
            n += phi_wk[v, k] > floor[k]
        ptr[v + 1] = ptr[v] + n
    topic = np.empty(ptr[n_words], np.int32)
    weight = np.empty(ptr[n_words])
    prob = np.empty(ptr[n_words])
    alias = np.empty(ptr[n_words], np.int32)
    mass = np.zeros(n_words)
    q = np.empty(n_topics)
    small, large = np.empty(n_topics, np.int64), np.empty(n_topics, np.int64)
    for v in range(n_words):
        lo, hi = ptr[v], ptr[v + 1]
        e = lo
        for k in range(n_topics):
            if phi_wk[v, k] > floor[k]:
                topic[e] = k
                weight[e] = alpha[k] * (phi_wk[v, k] - floor[k])
                e += 1
        if hi > lo:
            mass[v] = build_alias_head(weight[lo:hi], prob[lo:hi], alias[lo:hi], q, small, large, hi - lo)
    smooth = alpha * floor
    smooth_prob = np.empty(n_topics)
    smooth_alias = np.empty(n_topics, np.int32)
    smooth_mass = build_alias(smooth, smooth_prob, smooth_alias, q, small, large)
    return ptr, topic, weight, prob, alias, mass, smooth, smooth_prob, smooth_alias, smooth_mass


@njit(cache=True, inline="always")
def _entry_draw(state, lo, hi, prob, alias):
    """(new_state, e): entry e of the alias table in entries [lo, hi) of ``prob`` and ``alias``
    (aliases counted from lo), from one 64-bit draw as ``draw_alias`` does. The arrays go in
    whole: slicing them for each draw costs more than the draw."""
    state, r = next_u64(state)
    slot = lo + np.int64(((r >> _SHIFT_32) * np.uint64(hi - lo)) >> _SHIFT_32)
    other = lo + np.int64(alias[slot])
    return state, slot if np.float64(r & _LOW_32) * _INV_2_32 < prob[slot] else other


@njit(cache=True)
def sparse_infer_doc_topic(word_ids, doc_ptr, phi_wk, alpha, words, smooth, n_burn, n_avg, streams, out,
                           rao_blackwell, doc_seeded=False):
    """Exact Gibbs inference against a fixed phi: each document's z sampled from
    phi_kw (n_dk^{-i} + alpha_k), ``out[d]`` its expected doc-topic counts (divide by N_d for
    zbar). ``words`` and ``smooth`` are ``prior_tables(phi_wk, alpha)``.

    Each document runs independent chains, each from z_i ~ alpha_k phi_kw, n_burn sweeps, then one
    averaged sweep; ``out[d]`` is the mean of the chains' estimates. It runs at least
    min(MIN_CHAINS, n_avg) chains and at most n_avg, stopping once the standard error of that mean,
    summed over topics, is at most SE_SCALE / sqrt(n_avg) N_d. A token's conditional costs O(K_d)
    (K_d: the document's topics in use): phi_kw n_dk over those topics, the prior part
    alpha_k phi_kw from the word's bucket and the smooth one; while K_d > K / DENSE_SHARE one
    vectorised O(K) pass is cheaper.

    With ``rao_blackwell`` (what prediction uses), a chain's estimate is each token's conditional
    p(z_i = k | z_-i) in the averaged sweep summed over tokens, not the topics drawn from them; else
    the drawn counts (the chain's state, which the tests check against the enumerated posterior).
    Same mean, less noise: the sparse part reuses the masses the draw computes, the prior part one
    scalar per token (1 / its normalizer), spread over the buckets once per chain.

    With ``doc_seeded`` each document starts its own stream from its block's state and its words
    (``doc_state``), and the streams stay as they were: given streams all equal, a document's
    result then depends on it alone, not on the batch around it (what predictions need); else
    documents draw one after another from their block's stream (independent chains for copies
    of one document, as the posterior tests want)."""
    _infer_blocks(0, streams.size, word_ids, doc_ptr, phi_wk, alpha, words, smooth, n_burn, n_avg, streams, out,
                  rao_blackwell, doc_seeded)


@njit(cache=True, parallel=True)
def sparse_infer_doc_topic_parallel(chunks, word_ids, doc_ptr, phi_wk, alpha, words, smooth, n_burn, n_avg, streams,
                                    out, rao_blackwell, doc_seeded=False):
    """``sparse_infer_doc_topic`` with the stream blocks split at ``chunks`` (C + 1,) across threads:
    documents are independent given phi and each block keeps its stream, so the result does not
    depend on C."""
    for c in prange(chunks.size - 1):
        _infer_blocks(chunks[c], chunks[c + 1], word_ids, doc_ptr, phi_wk, alpha, words, smooth, n_burn, n_avg,
                      streams, out, rao_blackwell, doc_seeded)


@njit(cache=True)
def _infer_blocks(block_lo, block_hi, word_ids, doc_ptr, phi_wk, alpha, words, smooth, n_burn, n_avg, streams, out,
                  rao_blackwell, doc_seeded):
    """``sparse_infer_doc_topic`` over the documents of stream blocks [block_lo, block_hi), with
    scratch space of its own."""
    first_doc, last_doc = block_docs(block_lo, block_hi, doc_ptr)[:2]
    n_topics = phi_wk.shape[1]
    ptr, topic, weight, prob, alias, mass = words  # unpacked once: a record's field read in a loop is not free
    smooth_weight, smooth_prob, smooth_alias, smooth_mass = smooth
    longest = max_doc_length(doc_ptr)
    z = np.empty(longest, dtype=np.int64)
    prior_weight = np.empty(longest)  # per token: 1 / the normalizer of its sparse averaged draw
    counts = np.zeros(n_topics)  # n_dk of the running chain
    used = np.empty(n_topics + 1, dtype=np.int64)  # in sparse sweeps: the topics with counts, used[:n_used]
    where = np.empty(n_topics, dtype=np.int64)  # position of each used topic in ``used``
    doc_weight = np.empty(n_topics)  # in dense sweeps: n_dk + alpha_k
    scratch = np.empty(n_topics)
    block_mass = np.empty(-(-n_topics // BLOCK))
    estimate = np.empty(n_topics)  # one chain's
    squares = np.empty(n_topics)  # the sum of the squared estimates of the document's chains
    max_chains = max(n_avg, 1)
    min_chains = min(MIN_CHAINS, max_chains)
    tolerance = SE_SCALE / np.sqrt(max_chains)
    dense_above = n_topics // DENSE_SHARE
    for d in range(first_doc, last_doc):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        n_tokens = end - start
        row = out[d]
        row[:] = 0.0
        if n_tokens == 0:
            continue
        tokens = word_ids[start:end]
        s_idx = d // DOCS_PER_STREAM
        state = doc_state(streams[s_idx], word_ids, start, end) if doc_seeded else streams[s_idx]
        squares[:] = 0.0
        n_chains = 0
        while True:
            estimate[:] = 0.0
            prior_weight[:n_tokens] = 0.0
            n_used = 0
            for i in range(n_tokens):  # the start: z_i ~ alpha_k phi_kv, from word v's bucket or the smooth one
                v = tokens[i]
                state, u = next_uniform(state)
                if u * (mass[v] + smooth_mass) < mass[v]:
                    state, e = _entry_draw(state, ptr[v], ptr[v + 1], prob, alias)
                    k = np.int64(topic[e])
                else:
                    state, k = draw_alias(state, smooth_prob, smooth_alias)
                z[i] = k
                n_used += counts[k] == 0.0
                counts[k] += 1.0
            listed = False  # whether used[:n_used] lists the topics in use (the sparse sweeps keep it so)
            for sweep in range(n_burn + 1):
                averaged = sweep == n_burn and rao_blackwell
                if n_used > dense_above:
                    state, n_used = _dense_sweep(state, tokens, z, phi_wk, alpha, counts, doc_weight, scratch,
                                                 block_mass, estimate, averaged, n_used)
                    listed = False
                else:
                    if not listed:
                        n_used = _list_used(counts, used, where)
                        listed = True
                    state, n_used = _sparse_sweep(state, tokens, z, phi_wk, words, smooth, counts, used, where,
                                                  n_used, scratch, estimate, prior_weight, averaged)
            spread = 0.0
            for i in range(n_tokens):
                c = prior_weight[i]
                if c > 0.0:  # drawn in a sparse sweep: the prior part of its conditional, spread now
                    spread += c
                    v = tokens[i]
                    for e in range(ptr[v], ptr[v + 1]):
                        estimate[topic[e]] += c * weight[e]
            for k in range(n_topics):
                x = estimate[k] + spread * smooth_weight[k] if rao_blackwell else counts[k]
                counts[k] = 0.0
                row[k] += x
                squares[k] += x * x
            n_chains += 1
            if n_chains == max_chains or (n_chains >= min_chains
                                          and _standard_error(row, squares, n_chains) <= tolerance * n_tokens):
                break
        for k in range(n_topics):
            row[k] /= n_chains
        if not doc_seeded:
            streams[s_idx] = state


@njit(cache=True)
def _standard_error(total, squares, n):
    """The standard error of the mean of n estimates, summed over topics, from their sum and the
    sum of their squares (0 for one estimate)."""
    if n < 2:
        return 0.0
    se = 0.0
    for k in range(total.size):
        mean = total[k] / n
        se += np.sqrt(max(squares[k] / n - mean * mean, 0.0) / (n - 1))
    return se


@njit(cache=True, inline="always")
def _dense_fill(row, weight, prob, block_mass):
    """prob = weight * row over all K topics and the sums of its blocks of BLOCK topics; returns
    their total. Inlined into fastmath callers, whose reassociation vectorises the sums."""
    n_topics = row.size
    for k in range(n_topics):
        prob[k] = weight[k] * row[k]
    total = 0.0
    n_full = n_topics // BLOCK
    for b in range(n_full):
        block = 0.0
        for k in range(b * BLOCK, b * BLOCK + BLOCK):
            block += prob[k]
        block_mass[b] = block
        total += block
    if n_full < block_mass.size:
        block = 0.0
        for k in range(n_full * BLOCK, n_topics):
            block += prob[k]
        block_mass[n_full] = block
        total += block
    return total


@njit(cache=True, inline="always")
def _dense_pick(u, prob, block_mass):
    """The topic where u in [0, total) falls among ``prob``: its block first, then within it."""
    b = 0
    while b < block_mass.size - 1 and u >= block_mass[b]:
        u -= block_mass[b]
        b += 1
    k = b * BLOCK
    last = min(k + BLOCK, prob.size) - 1
    while k < last and u >= prob[k]:
        u -= prob[k]
        k += 1
    return k


@njit(cache=True, fastmath=_VECTOR_SUM)
def _dense_sweep(state, tokens, z, phi_wk, alpha, counts, weight, prob, block_mass, out_row, averaged, n_used):
    """One sweep over a document's tokens, each drawn from phi_kv (n_dk^{-i} + alpha_k) over all K
    topics and, when ``averaged``, its conditional added to ``out_row``. ``weight`` is scratch for
    n_dk + alpha_k. Returns (state, n_used)."""
    for k in range(counts.size):
        weight[k] = counts[k] + alpha[k]
    for i in range(tokens.size):
        old = z[i]
        counts[old] -= 1.0
        weight[old] = counts[old] + alpha[old]
        n_used -= counts[old] == 0.0
        total = _dense_fill(phi_wk[tokens[i]], weight, prob, block_mass)
        if averaged:
            inv_total = 1.0 / total
            for k in range(prob.size):
                out_row[k] += prob[k] * inv_total
        state, u = next_uniform(state)
        k = _dense_pick(u * total, prob, block_mass)
        z[i] = k
        n_used += counts[k] == 0.0
        counts[k] += 1.0
        weight[k] = counts[k] + alpha[k]
    return state, n_used


@njit(cache=True)
def _list_used(counts, used, where):
    """List the topics with counts in used[:n_used], each one's place in ``where``; returns n_used."""
    n_used = 0
    for k in range(counts.size):
        if counts[k] > 0.0:
            where[k] = n_used
            used[n_used] = k
            n_used += 1
    return n_used


@njit(cache=True)
def _sparse_sweep(state, tokens, z, phi_wk, words, smooth, counts, used, where, n_used, cum, out_row, prior_weight,
                  averaged):
    """One sweep over a document's tokens, each drawn in O(K_d): phi_kv n_dk^{-i} over the topics
    in use (``used[:n_used]``, kept up to date), the prior part from the buckets. When
    ``averaged``, the document part of each conditional goes to ``out_row`` and 1 / its
    normalizer to ``prior_weight``. Returns (state, n_used)."""
    ptr, topic, _, prob, alias, mass = words
    _, smooth_prob, smooth_alias, smooth_mass = smooth
    for i in range(tokens.size):
        v = tokens[i]
        old = z[i]
        counts[old] -= 1.0
        if counts[old] == 0.0:  # swap-remove from the used list
            n_used -= 1
            last = used[n_used]
            used[where[old]] = last
            where[last] = where[old]
        doc_mass = 0.0
        for j in range(n_used):
            k = used[j]
            doc_mass += counts[k] * phi_wk[v, k]
            cum[j] = doc_mass
        total = doc_mass + mass[v] + smooth_mass
        if averaged:  # the document part now, the prior part at the chain's end
            inv_total = 1.0 / total
            previous = 0.0
            for j in range(n_used):
                out_row[used[j]] += (cum[j] - previous) * inv_total
                previous = cum[j]
            prior_weight[i] += inv_total
        state, u = next_uniform(state)
        u *= total
        if u < doc_mass:
            new = used[cdf_index(cum, n_used, u)]
        elif u < doc_mass + mass[v]:
            state, e = _entry_draw(state, ptr[v], ptr[v + 1], prob, alias)
            new = np.int64(topic[e])
        else:
            state, new = draw_alias(state, smooth_prob, smooth_alias)
        z[i] = new
        is_new = counts[new] == 0.0  # joins the used list (written on every path: no reference-count calls)
        used[n_used] = new
        where[new] = n_used if is_new else where[new]
        counts[new] += 1.0
        n_used += is_new
    return state, n_used
