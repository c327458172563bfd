"""Exact collapsed Gibbs for unsupervised LDA, sparse in topics (SparseLDA: Yao, Mimno and McCallum 2009).

The conditional of docs/mathematics.md (2) with T = 0 tasks,
p(z_i = k) ~ (n_dk + alpha_k)(n_kw + beta) / (n_k + V beta), is the sum of three buckets:

- s = sum_k alpha_k beta / (n_k + V beta), the smoothing bucket over all topics;
- r = sum_k n_dk beta / (n_k + V beta), over the document's topics in use;
- q = sum_k (n_dk + alpha_k) n_kw / (n_k + V beta), over the word's topics in use.

s and r follow each count change in O(1) (and are summed afresh on entering a document); q is
summed over the word's topics for each token, with (n_dk + alpha_k) / (n_k + V beta) kept per
topic for the current document; a draw walks the bucket its uniform falls in. A token costs
O(topics of its word) (the r and s walks, O(topics of the document) and O(K), take a few tokens
in ten thousand on text), a document O(K). Same conditional as ``gibbs_sweep``, so the same
chain in law; the draws differ.

The sweep keeps the topic-word counts as per-word lists of (topic, count) pairs of the topics in
use, built from n_wk at its start (sorted by topic: a function of the counts alone, so a resumed
chain draws what an uninterrupted one does) and written back to n_wk at its end; within the
sweep a topic leaving a word's list takes the last entry's place and a topic joining it goes at
the end.
"""

import numpy as np
from numba import njit

from medlda._kernels.common import cdf_index
from medlda._kernels.prefetch import prefetch
from medlda._kernels.rng import DOCS_PER_STREAM, next_uniform

# tokens ahead of the current one whose word list is prefetched (measured: 2 to 8 alike, none slower)
AHEAD = 2


@njit(cache=True)
def word_lists(n_wk):
    """Each word's topics in use with their counts, sorted by topic: (ptr (V + 1,) int64,
    length (V,) int32, pairs int32) with word v's j-th pair at ``pairs[2 (ptr[v] + j)]`` (topic)
    and the next entry (count), j < length[v]. Word v's room, ptr[v + 1] - ptr[v], is
    min(K, its tokens): every topic it can use at once, so a list never moves. O(V K)."""
    n_words, n_topics = n_wk.shape
    ptr = np.empty(n_words + 1, np.int64)
    length = np.zeros(n_words, np.int32)
    ptr[0] = 0
    for v in range(n_words):
        total = 0
        for k in range(n_topics):
            total += n_wk[v, k]
        ptr[v + 1] = ptr[v] + min(total, n_topics)
    pairs = np.empty(2 * ptr[n_words] + 2, np.int32)  # + 2: where a full last list's zero counts are written
    for v in range(n_words):
        at = 2 * ptr[v]
        for k in range(n_topics):  # branch-free: a zero count's pair is overwritten by the next
            c = n_wk[v, k]
            pairs[at] = k
            pairs[at + 1] = c
            at += 2 * (c != 0)
        length[v] = at // 2 - ptr[v]
    return ptr, length, pairs


@njit(cache=True)
def lists_to_dense(ptr, length, pairs, n_wk):
    """n_wk (V, K) written from ``word_lists``' layout."""
    for v in range(n_wk.shape[0]):
        n_wk[v, :] = 0
        at = 2 * ptr[v]
        for j in range(length[v]):
            n_wk[v, pairs[at + 2 * j]] = pairs[at + 2 * j + 1]


@njit(cache=True)
def sparse_gibbs_sweep(tokens, counts, alpha, beta, vbeta, streams):
    """Resample every z_di from (n_dk + alpha_k)(n_kw + beta)/(n_k + V beta) by the bucket split
    above (alpha (K,) may differ per topic). ``tokens`` and ``counts`` are the records of
    ``medlda._kernels.records``; z and the counts are updated in place (n_wk at the end);
    ``streams`` advance, one per DOCS_PER_STREAM documents as in ``gibbs_sweep``."""
    word_ids, doc_ptr, z = tokens
    n_dk, n_wk, n_k = counts
    n_topics = n_k.size
    word_ptr, word_len, pairs = word_lists(n_wk)
    inv = np.empty(n_topics)  # 1 / (n_k + V beta)
    coef = np.empty(n_topics)  # (n_dk + alpha_k) / (n_k + V beta), n_dk of the current document (0 outside it)
    for k in range(n_topics):
        inv[k] = 1.0 / (n_k[k] + vbeta)
        coef[k] = alpha[k] * inv[k]
    doc_topic = np.empty(n_topics, np.int32)  # the document's topics in use, in no order
    doc_pos = np.empty(n_topics, np.int32)  # where a topic stands in doc_topic
    cdf = np.empty(n_topics)
    last_token = word_ids.size - 1
    for d in range(doc_ptr.size - 1):
        start, end = doc_ptr[d], doc_ptr[d + 1]
        if end == start:
            continue
        block = d // DOCS_PER_STREAM
        state = streams[block]
        n_doc = 0
        s = 0.0  # s / beta and r / beta: beta multiplies them at the draw
        r = 0.0
        for k in range(n_topics):
            s += alpha[k] * inv[k]
            c = n_dk[d, k]
            if c != 0:
                doc_topic[n_doc] = k
                doc_pos[k] = n_doc
                n_doc += 1
                r += c * inv[k]
                coef[k] = (c + alpha[k]) * inv[k]
        for i in range(start, end):
            v = word_ids[i]
            prefetch(pairs, 2 * word_ptr[word_ids[min(i + AHEAD, last_token)]])
            old = z[i]
            # the token leaves its topic (its word's pair apart: read as count - 1 below)
            c = n_dk[d, old] - 1
            inv_old = inv[old]
            s_kept, r_kept, inv_kept, coef_kept = s, r, inv_old, coef[old]
            s -= alpha[old] * inv_old
            r -= (c + 1) * inv_old
            n_dk[d, old] = c
            n_k[old] -= 1
            inv_old = 1.0 / (n_k[old] + vbeta)
            inv[old] = inv_old
            s += alpha[old] * inv_old
            r += c * inv_old
            coef[old] = (c + alpha[old]) * inv_old
            # q and its cumulative sums over the word's topics
            at = 2 * word_ptr[v]
            n_word = word_len[v]
            q = 0.0
            j_old = 0
            for j in range(n_word):
                k = pairs[at + 2 * j]
                is_old = k == old
                j_old = j if is_old else j_old
                q += coef[k] * (pairs[at + 2 * j + 1] - is_old)
                cdf[j] = q
            state, u = next_uniform(state)
            u *= q + beta * (r + s)
            j_new = -1
            if u < q:
                j_new = cdf_index(cdf, n_word, u)
                new = pairs[at + 2 * j_new]
            else:
                u = (u - q) / beta
                new = -1
                if u < r:
                    acc = 0.0
                    for j in range(n_doc):
                        k = doc_topic[j]
                        acc += n_dk[d, k] * inv[k]
                        if acc > u:
                            new = k
                            break
                if new < 0:  # s, or r's rounding past its last topic
                    u = max(u - r, 0.0)
                    acc = 0.0
                    new = n_topics - 1
                    for k in range(n_topics):
                        acc += alpha[k] * inv[k]
                        if acc > u:
                            new = k
                            break
            if new == old:  # the token stays: everything back as it was, exactly
                n_dk[d, old] = c + 1
                n_k[old] += 1
                inv[old] = inv_kept
                coef[old] = coef_kept
                s, r = s_kept, r_kept
                continue
            # the word's list: old loses the token (its pair dropped at 0), new gains it
            left = pairs[at + 2 * j_old + 1] - 1
            if j_new < 0:
                for j in range(n_word):
                    if pairs[at + 2 * j] == new:
                        j_new = j
                        break
            if left == 0:
                n_word -= 1
                pairs[at + 2 * j_old] = pairs[at + 2 * n_word]
                pairs[at + 2 * j_old + 1] = pairs[at + 2 * n_word + 1]
                j_new = j_old if j_new == n_word else j_new
            else:
                pairs[at + 2 * j_old + 1] = left
            if j_new < 0:
                pairs[at + 2 * n_word] = new
                pairs[at + 2 * n_word + 1] = 1
                n_word += 1
            else:
                pairs[at + 2 * j_new + 1] += 1
            word_len[v] = n_word
            # the document's list
            if c == 0:
                last = doc_topic[n_doc - 1]
                doc_topic[doc_pos[old]] = last
                doc_pos[last] = doc_pos[old]
                n_doc -= 1
            c = n_dk[d, new]
            if c == 0:
                doc_topic[n_doc] = new
                doc_pos[new] = n_doc
                n_doc += 1
            # the token joins its new topic
            inv_new = inv[new]
            s -= alpha[new] * inv_new
            r -= c * inv_new
            n_dk[d, new] = c + 1
            n_k[new] += 1
            inv_new = 1.0 / (n_k[new] + vbeta)
            inv[new] = inv_new
            s += alpha[new] * inv_new
            r += (c + 1) * inv_new
            coef[new] = (c + 1 + alpha[new]) * inv_new
            z[i] = new
        for j in range(n_doc):  # leaving the document: its topics' coef back to alpha_k / (n_k + V beta)
            k = doc_topic[j]
            coef[k] = alpha[k] * inv[k]
        streams[block] = state
    lists_to_dense(word_ptr, word_len, pairs, n_wk)
