"""The light sweeps' proposals (docs/mathematics.md §4): modes, the MH acceptance, and draws through word_table rows.

Every proposal kind (doc, word, exp) is two alias tables in ``word_table``'s entries, drawn
through a row of ``draw_split`` parameters (``set_row``, ``draw_kind``), so one code path serves
all three and a step's random kind costs no branch.
"""

import numpy as np
from numba import njit

from medlda._kernels.fastexp import exp_above, fast_exp
from medlda._kernels.light.word_hash import draw_split, put_entry
from medlda._kernels.rng import next_uniform

MIXTURE, CYCLE, DOC, WORD, EXP, SCAN = 0, 1, 2, 3, 4, 5
PROPOSAL_MODES = {"mixture": MIXTURE, "scan": SCAN, "cycle": CYCLE, "doc": DOC, "word": WORD, "exp": EXP}
# "mixture" and "scan" draw the same proposal: each step picks doc, word or exp uniformly at random.
# "scan" accepts with the chosen proposal's own ratio (a random scan over three MH kernels, the
# papers' code); "mixture" with the ratio of the mixture q = (q_doc + q_word + q_exp) / 3 itself.
# Both leave the target invariant; the mixture's acceptance is never smaller (Peskun order:
# sum_j min(a_j, b_j) <= min(sum a_j, sum b_j)), and much larger for a topic the labels favour
# but the word and document do not yet hold: its exp factor no longer cancels in the ratio.

# The sweeps allow reassociation and fused multiply-adds (no other fast-math assumption: NaN and
# inf keep their meaning), so sums over tasks and topics vectorize; tests/kernels check that they
# draw bitwise what they draw without. A kernel they call sets its flags: numba would otherwise
# compile it with those of its first caller.
FAST = {"reassoc", "contract"}

SEVERAL = -1  # ``tasks`` of a sweep: T when it is 0 or 1, else this


def task_kind(n_tasks: int) -> int:
    """``sweeps_for``'s ``tasks`` for T tasks: T itself for 0 (LDA) or 1 (binary), else ``SEVERAL``."""
    return n_tasks if n_tasks <= 1 else SEVERAL


KINDS_PER_DRAW = 16  # mixture steps served by one uniform (each uses log2(3) of its 53 bits)


@njit(cache=True, inline="always")
def proposal_kind(state, digits, mode, step, n_kinds):
    """Which proposal MH step ``step`` uses: a random one (mixture, scan), in turn (cycle), or
    fixed. For a random one, ``digits`` is a uniform on [0, 1) whose base-n_kinds digits pick the
    kinds of ``KINDS_PER_DRAW`` steps, so a step costs no RNG call (a slightly uneven pick keeps
    the target: every kind is a valid MH kernel on its own). Returns (state, digits, kind)."""
    if mode == MIXTURE or mode == SCAN:
        if step % KINDS_PER_DRAW == 0:
            state, digits = next_uniform(state)
        digits *= n_kinds
        kind = np.int64(digits)
        digits -= kind
        return state, digits, min(kind, n_kinds - 1) + DOC
    if mode == CYCLE:
        return state, digits, DOC + step % n_kinds
    return state, digits, mode


@njit(cache=True, inline="always")
def exp_draws_per_token(mode, n_mh):
    """How many of a token's n_mh MH steps draw the exp proposal, on average, in ``mode``."""
    if mode == MIXTURE or mode == SCAN:
        return n_mh / 3.0
    if mode == CYCLE:
        return float((n_mh + 1) // 3)  # steps 2, 5, 8, ...
    return float(n_mh) if mode == EXP else 0.0


OWN = -1  # a doc proposal of the token being sampled: its current topic
FROM_ALPHA = -2  # a doc proposal drawn from alpha, not from a token


@njit(cache=True, inline="always")
def doc_token(state, start, length, i, alpha_sum):
    """Doc proposal (n_dk + alpha_k) / (N_d + alpha_sum) for token i, its own topic included: the
    topic of a uniformly chosen token of the document, or a draw from alpha. One uniform x on
    [0, N_d + alpha_sum) does both: below N_d its integer part is the token. Returns (state, j):
    the token's index, ``OWN`` for token i itself (no move), or ``FROM_ALPHA``. It takes no
    arrays, so numba adds no reference counting around it (see ``medlda._kernels``)."""
    state, u = next_uniform(state)
    x = u * (length + alpha_sum)
    if x < length:
        j = start + min(np.int64(x), length - 1)
        return state, j if j != i else OWN
    return state, FROM_ALPHA


@njit(cache=True, inline="always")
def mh_accept(state, num, den, x, tilted):
    """Whether an MH step accepts the ratio num / den, times e^x when ``tilted`` (a supervised
    model's exp(G_d(t) - G_d(s))). Uphill moves are accepted without a draw. A downhill move draws
    its uniform u and rejects if u den is above num times the cheap bound ``exp_above(x)``; only
    the rest pay for the exp. Same uniforms and decisions as comparing with num e^x itself.
    Returns (state, accept)."""
    if tilted:
        num_above = num * exp_above(x)
        if num_above < den:  # downhill for sure
            state, u = next_uniform(state)
            ud = u * den
            return state, ud < num_above and ud < num * fast_exp(x)
        num *= fast_exp(x)
    if num < den:
        state, u = next_uniform(state)
        return state, u * den < num
    return state, True


ROW = 4  # a proposal row's fields: p_a, scale_a, scale_b as float64; lo_a, n_a, lo_b, n_b as int64
DOC_ENTRY = 2.0  # a doc-proposal entry's probability: above any fraction, so the entry's own topic is drawn


@njit(cache=True)
def proposal_scratch(n_topics: int, max_length: int) -> int:
    """word_table entries one collapsed sweep (one thread of it) writes after the word tables: the
    doc proposal's alpha part (K), the document's exp table (K) and its tokens' topics (the
    longest document's length)."""
    return 2 * n_topics + max_length


@njit(cache=True, inline="always")
def set_row(rows_f, rows_i, kind, p_a, scale_a, lo_a, n_a, scale_b, lo_b, n_b):
    """Proposal row of ``kind`` (DOC, WORD, EXP): the ``draw_split`` parameters of its draw."""
    r = ROW * (kind - DOC)
    rows_f[r] = p_a
    rows_f[r + 1] = scale_a
    rows_f[r + 2] = scale_b
    rows_i[r] = lo_a
    rows_i[r + 1] = n_a
    rows_i[r + 2] = lo_b
    rows_i[r + 3] = n_b


@njit(cache=True, inline="always")
def draw_kind(state, rows_f, rows_i, kind, word_table, table_topics):
    """A draw from the proposal of ``kind`` through its row. With one code path for the three
    kinds, a randomly chosen kind costs no (mispredicted) three-way branch."""
    r = np.uint64(ROW * (kind - DOC))
    one, two, three = np.uint64(1), np.uint64(2), np.uint64(3)
    return draw_split(state, word_table, table_topics, rows_f[r], rows_f[r + one], rows_i[r], rows_i[r + one],
                      rows_f[r + two], rows_i[r + two], rows_i[r + three])


@njit(cache=True, inline="always")
def put_alias(word_table, table_topics, lo, prob, alias):
    """An alias table (prob, alias) of K topics as word_table entries lo, ..., lo + K - 1."""
    for k in range(prob.size):
        put_entry(word_table, table_topics, lo + k, prob[k], k, alias[k])


@njit(cache=True, inline="always")
def put_doc_topic(word_table, table_topics, e, k):
    """Entry e of the doc proposal: token topic k, always drawn."""
    put_entry(word_table, table_topics, e, DOC_ENTRY, k, k)
