"""Topic inference for new documents against a fixed phi (docs/mathematics.md §7)."""

import numpy as np
from numba import njit, prange

from medlda._kernels.alias import build_alias, draw_alias
from medlda._kernels.common import add_average, cdf_index, finish_average, max_doc_length
from medlda._kernels.em_inference import fixed_point_weights
from medlda._kernels.rng import DOCS_PER_STREAM, block_docs, doc_state, next_uniform


@njit(cache=True)
def prior_tables(phi_wk, alpha):
    """Per word v, an alias table over alpha_k phi_kv and its total mass: the prior part of
    p(z_i = k) ~ phi_kw (n_dk + alpha_k), which does not depend on the document. O(V K) once."""
    n_words, n_topics = phi_wk.shape
    prob = np.empty((n_words, n_topics))
    alias = np.empty((n_words, n_topics), np.int32)  # V x K: int32 saves a third at large K
    mass = np.empty(n_words)
    weights, q = np.empty(n_topics), np.empty(n_topics)
    small, large = np.empty(n_topics, np.int64), np.empty(n_topics, np.int64)
    for v in range(n_words):
        for k in range(n_topics):
            weights[k] = phi_wk[v, k] * alpha[k]
        mass[v] = build_alias(weights, prob[v], alias[v], q, small, large)
    return prob, alias, mass


@njit(cache=True, inline="always")
def _count_in(k, counts, used, where, n_used):
    """One more token of topic k: a topic that had none joins the used list. Returns n_used.
    Each array is written on every path (k goes to ``used`` past its end either way, so
    ``used`` has a spare slot): numba wraps an inlined helper that touches an array on some
    paths only in reference-count calls, six per token and sweep here."""
    is_new = counts[k] == 0
    used[n_used] = k
    where[k] = n_used if is_new else where[k]
    counts[k] += 1
    return n_used + is_new


# passes of the start's fixed point: from theta = alpha, each moves theta toward the topics that
# explain the document's words (on 20 Newsgroups, a chain from this start needs 20-30 burn-in sweeps
# at K = 400 where one from z_i ~ alpha_k phi_kw needs 100-200; docs/benchmarks.md, "Prediction")
START_PASSES = 4


@njit(cache=True)
def sparse_infer_doc_topic(word_ids, doc_ptr, phi_wk, alpha, prior_prob, prior_alias, prior_mass, n_burn, n_avg,
                           streams, out, rao_blackwell, doc_seeded=False):
    """Exact Gibbs inference against a fixed phi: each document's z sampled from
    phi_kw (n_dk^{-i} + alpha_k), ``out[d]`` its expected doc-topic counts (divide by N_d for
    zbar). O(K_d) per token (K_d: the document's topics in use) instead of O(K): phi_kw (n_dk +
    alpha_k) splits into phi_kw n_dk, summed over the document's topics only, and phi_kw alpha_k,
    drawn from the word's static alias table (``prior_tables``). Starts from z_i ~ theta_k phi_kw,
theta the document's topic weights after START_PASSES fixed-point passes (``fixed_point_weights``): a
start near where the chain goes, so that a short burn-in forgets it at any K.

    With ``rao_blackwell`` (what prediction uses), ``out`` averages over the last ``n_avg`` of
    n_burn + n_avg sweeps each token's conditional p(z_i = k | z_-i) itself, not the topic drawn
    from it; else the drawn counts (the chain's states, which the tests check against the
    enumerated posterior). Same mean, less noise: the sparse part is the cumulative masses the
    draw computes anyway, the prior part one scalar per token (1 / its normalizer), spread over
    alpha_k phi_kw once per document (O(N_d K)).

    With ``doc_seeded`` each document starts its own stream from its block's state and its words
    (``doc_state``), and the streams stay as they were: given streams all equal, a document's
    result then depends on it alone, not on the batch around it (what predictions need); else
    documents draw one after another from their block's stream (independent chains for copies
    of one document, as the posterior tests want)."""
    _infer_blocks(0, streams.size, word_ids, doc_ptr, phi_wk, alpha, prior_prob, prior_alias, prior_mass, n_burn,
                  n_avg, streams, out, rao_blackwell, doc_seeded)


@njit(cache=True, parallel=True)
def sparse_infer_doc_topic_parallel(chunks, word_ids, doc_ptr, phi_wk, alpha, prior_prob, prior_alias, prior_mass,
                                    n_burn, n_avg, streams, out, rao_blackwell, doc_seeded=False):
    """``sparse_infer_doc_topic`` with the stream blocks split at ``chunks`` (C + 1,) across threads:
    documents are independent given phi and each block keeps its stream, so the result does not
    depend on C."""
    for c in prange(chunks.size - 1):
        _infer_blocks(chunks[c], chunks[c + 1], word_ids, doc_ptr, phi_wk, alpha, prior_prob, prior_alias,
                      prior_mass, n_burn, n_avg, streams, out, rao_blackwell, doc_seeded)


@njit(cache=True)
def _infer_blocks(block_lo, block_hi, word_ids, doc_ptr, phi_wk, alpha, prior_prob, prior_alias, prior_mass,
                  n_burn, n_avg, streams, out, rao_blackwell, doc_seeded):
    """``sparse_infer_doc_topic`` over the documents of stream blocks [block_lo, block_hi), with
    scratch space of its own."""
    first_doc, last_doc = block_docs(block_lo, block_hi, doc_ptr)[:2]
    n_topics = phi_wk.shape[1]
    longest = max_doc_length(doc_ptr)
    z = np.empty(longest, dtype=np.int64)
    prior_weight = np.empty(longest)  # sum over the averaged sweeps of 1 / normalizer, per token
    counts = np.zeros(n_topics, dtype=np.int64)
    used = np.empty(n_topics + 1, dtype=np.int64)  # the topics with counts > 0, in used[:n_used]
    where = np.empty(n_topics, dtype=np.int64)  # position of each used topic in ``used``
    cum = np.empty(n_topics)
    theta = np.empty(n_topics)  # the start's topic weights
    for d in range(first_doc, last_doc):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        out[d, :] = 0.0
        if end == start:
            continue
        s_idx = d // DOCS_PER_STREAM
        state = doc_state(streams[s_idx], word_ids, start, end) if doc_seeded else streams[s_idx]
        n_used = 0
        fixed_point_weights(word_ids, start, end, phi_wk, alpha, START_PASSES, theta, cum)
        for i in range(end - start):  # the start: z_i ~ phi_kw theta_k
            v = word_ids[start + i]
            mass = 0.0
            for k in range(n_topics):
                mass += phi_wk[v, k] * theta[k]
                cum[k] = mass
            state, u = next_uniform(state)
            k = cdf_index(cum, n_topics, u * mass)
            z[i] = k
            prior_weight[i] = 0.0
            n_used = _count_in(k, counts, used, where, n_used)
        for sweep in range(n_burn + n_avg):
            averaged = sweep >= n_burn
            for i in range(end - start):
                v = word_ids[start + i]
                old = z[i]
                counts[old] -= 1
                if counts[old] == 0:  # swap-remove from the used list
                    n_used -= 1
                    last = used[n_used]
                    used[where[old]] = last
                    where[last] = where[old]
                doc_mass = 0.0
                for j in range(n_used):
                    k = used[j]
                    doc_mass += counts[k] * phi_wk[v, k]
                    cum[j] = doc_mass
                total = doc_mass + prior_mass[v]
                if averaged and rao_blackwell:  # p(z_i = k | z_-i): the document part now, the prior part at the end
                    inv_total = 1.0 / total
                    previous = 0.0
                    for j in range(n_used):
                        out[d, used[j]] += (cum[j] - previous) * inv_total
                        previous = cum[j]
                    prior_weight[i] += inv_total
                state, u = next_uniform(state)
                u *= total
                if u < doc_mass:
                    new = used[cdf_index(cum, n_used, u)]
                else:
                    state, new = draw_alias(state, prior_prob[v], prior_alias[v])
                z[i] = new
                n_used = _count_in(new, counts, used, where, n_used)
            if averaged and not rao_blackwell:
                add_average(out, d, counts, n_topics)
        for i in range(end - start):
            v = word_ids[start + i]
            c = prior_weight[i]
            for k in range(n_topics):
                out[d, k] += c * alpha[k] * phi_wk[v, k]
        finish_average(out, d, n_avg, n_topics)
        for j in range(n_used):
            counts[used[j]] = 0
        if not doc_seeded:
            streams[s_idx] = state
