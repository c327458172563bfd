"""The exp proposal q(k) = exp(G_d(k)) / Z of a supervised document (docs/mathematics.md §4), its table, and
what a light sweep sets up per sweep and per document for it.

Its draws take one of two forms, whichever costs less for the draws a document makes: Vose's
alias table (one try a draw, a build of O(K)), or the weights scaled to a maximum of 1 as a
rejection table (no build, K / Z tries a draw), which suits a flat q.
"""

import numpy as np
from numba import njit

from medlda._kernels.alias import build_alias
from medlda._kernels.common import all_topic_g, doc_task_terms
from medlda._kernels.fastexp import fast_exp_lanes
from medlda._kernels.light.proposals import FAST

REJECT = -1  # the alias of a rejection table's entry: the try is rejected and the draw made again
REJECTION_BUDGET = 0.5  # retries a document's draws may cost, per topic, before Vose's build is cheaper


@njit(cache=True, fastmath=FAST)  # the sweeps' flags, which numba would give it from them anyway
def exp_scratch(n_tasks, n_topics):
    """Buffers of the per-document exp table (weights, prob, alias, q, small, large); with no
    tasks the table is uniform, built once (only reached in proposal mode "exp")."""
    exp_w = np.ones(n_topics)
    exp_prob = np.empty(n_topics)
    exp_alias = np.empty(n_topics, np.int64)
    exp_q = np.empty(n_topics)
    small = np.empty(n_topics, np.int64)
    large = np.empty(n_topics, np.int64)
    if n_tasks == 0:
        build_alias(exp_w, exp_prob, exp_alias, exp_q, small, large)
    return exp_w, exp_prob, exp_alias, exp_q, small, large


@njit(cache=True, fastmath=FAST)
def exp_table(eta, b, p, exp_w, exp_prob, exp_alias, exp_q, small, large, n_draws):
    """The exp proposal given the task terms b, p: O(K * T). ``exp_q`` gets q and (exp_prob,
    exp_alias) a table that draws from it for about ``n_draws`` draws: a rejection table (entry k
    kept with probability w_k, else ``REJECT``: draw again) when its expected retries cost at most
    ``REJECTION_BUDGET`` per topic, else Vose's. Both draw from q exactly (a draw accepted on its
    try j is k with probability w_k / Z for every j)."""
    gmax = all_topic_g(eta, b, p, exp_w)
    n_topics = exp_w.size
    total = 0.0
    for k in range(n_topics):
        x = min(fast_exp_lanes(exp_w[k] - gmax), 1.0)  # at most 1: a probability of keeping k
        exp_w[k] = x
        total += x
    if n_draws * (n_topics / total - 1.0) <= REJECTION_BUDGET * n_topics:
        inv = 1.0 / total
        for k in range(n_topics):
            exp_prob[k] = exp_w[k]
            exp_alias[k] = REJECT
            exp_q[k] = exp_w[k] * inv
    else:
        build_alias(exp_w, exp_prob, exp_alias, exp_q, small, large)


@njit(cache=True, inline="always")
def enter_doc(eta, eta_kt, n_dk, d, kappa, w, length, a, b, p, exact, exp_w, exp_prob, exp_alias, exp_q,
              small, large, n_draws):
    """On entering document d of a model with tasks: its task terms a, b, p, and the exp table
    for about ``n_draws`` draws, built from its m_dt of this moment for the collapsed sampler and
    from m_dt = 0 (p = a, a per-sweep constant) for the exact one. LDA's sweeps skip it and so
    read no row of n_dk."""
    doc_task_terms(eta_kt, n_dk, d, kappa, w, length, a, b, p)
    exp_table(eta, b, a if exact else p, exp_w, exp_prob, exp_alias, exp_q, small, large, n_draws)


@njit(cache=True, fastmath=FAST)  # the sweeps' flags, which numba would give it from them anyway
def sweep_scratch(eta, alpha, n_mh):
    """What every light sweep sets up once: eta transposed (K, T) so that G_d(k) reads one topic's
    weights side by side, alpha_sum, ``alpha_flat`` (the common alpha_k of a symmetric prior, else
    -1: the MH steps then read no K-vector for it), the per-document task terms a, b, p
    (``doc_task_terms``), the exp-table buffers (``exp_scratch``), and the kinds and topics of a
    token's n_mh proposals (drawn before its steps)."""
    n_tasks, n_topics = eta.shape
    alpha_sum = 0.0
    alpha_flat = alpha[0]
    for k in range(n_topics):
        alpha_sum += alpha[k]
        if alpha[k] != alpha[0]:
            alpha_flat = -1.0
    exp_w, exp_prob, exp_alias, exp_q, small, large = exp_scratch(n_tasks, n_topics)
    return (np.ascontiguousarray(eta.T), alpha_sum, alpha_flat, np.zeros(n_tasks), np.zeros(n_tasks),
            np.zeros(n_tasks), exp_w, exp_prob, exp_alias, exp_q, small, large, np.empty(n_mh, np.int64),
            np.empty(n_mh, np.int64))
