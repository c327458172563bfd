"""LDA's sparse exact Gibbs sweep (SparseLDA's bucket split) against enumerated posteriors: symmetric
and asymmetric priors, a prior large against the documents (much of the mass in the smoothing
bucket), power against a slightly wrong posterior and against a deliberately wrong kernel; and a
crashed and resumed fit equal to an uninterrupted one."""

from __future__ import annotations

import numpy as np
import pytest

from crashes import crash_then_resume
from exact import FALSE_ALARM, Tiny, chi_square_pvalue, sweeps
from medlda import LDA
from medlda._kernels import sparse_gibbs
from medlda.data.synthetic import make_supervised_corpus
from medlda.samplers.gibbs import SPARSE_FROM, ExactGibbs
from mutants import MutantLdaSweep

SPARSE = ExactGibbs(sparse_from=1)  # the sparse sweep at any K
TINY = Tiny(((0, 1, 0), (1, 2)), 3, 2)
THREE = Tiny(((0, 0, 0), (0, 1, 1)), 2, 3)
FLAT = Tiny(((0, 1, 0), (1, 2)), 3, 2, alpha=3.0)
CASES = {  # corpus, alpha (None: the corpus's symmetric one), the wrong alpha the histogram must reject, seed
    "tiny": (TINY, None, 0.25, 0),
    "three-topics": (THREE, None, 0.3, 1),
    "flat-prior": (FLAT, None, 1.5, 2),
    "tiny-asymmetric": (TINY, np.array([0.25, 1.2]), 0.5, 3),
    "three-topics-asymmetric": (THREE, np.array([0.2, 0.6, 1.5]), 0.5, 4),
}
N_CHAINS, N_SWEEPS = 3000, 12


@pytest.mark.parametrize("case", list(CASES))
def test_sparse_sweep_matches_the_enumerated_posterior(case):
    corpus, alpha, wrong, seed = CASES[case]
    hist = corpus.final_states(sweeps(SPARSE, N_SWEEPS, *corpus.no_tasks), N_CHAINS, seed, alpha=alpha)
    assert chi_square_pvalue(hist, corpus.posterior(alpha)) > FALSE_ALARM
    assert chi_square_pvalue(hist, corpus.posterior(wrong)) < FALSE_ALARM  # the test has power


@pytest.mark.slow
def test_a_word_bucket_without_its_alpha_term_fails_the_same_test():
    """q summed over (n_dk + alpha_k) n_kw / (n_k + V beta) with alpha_k dropped: the histogram of
    the same chains (the three-topic corpus, asymmetric prior) is rejected."""
    line = "q += coef[k] * (pairs[at + 2 * j + 1] - is_old)"
    wrong = "q += (coef[k] - alpha[k] * inv[k]) * (pairs[at + 2 * j + 1] - is_old)"
    mutant = MutantLdaSweep(sparse_gibbs, "sparse_gibbs_sweep", line, wrong)
    corpus, alpha, _, seed = CASES["three-topics-asymmetric"]
    hist = corpus.final_states(sweeps(mutant, N_SWEEPS, *corpus.no_tasks), N_CHAINS, seed, alpha=alpha)
    assert chi_square_pvalue(hist, corpus.posterior(alpha)) < FALSE_ALARM


def test_crashed_and_resumed_sparse_fit_equals_uninterrupted(tmp_path, monkeypatch):
    """LDA with the sparse sweep and a learned alpha (updated after iteration 10): the run that dies
    after its checkpoint of iteration 12 and resumes ends where the uninterrupted run does."""
    corpus, _ = make_supervised_corpus(200, 5, words_per_topic=10, doc_length=40, random_state=3)
    n_topics = SPARSE_FROM + 5
    kw = dict(max_iter=15, sampler="gibbs", optimize_alpha=True, random_state=4)
    reference = LDA(n_topics, **kw).fit(corpus)
    resumed = crash_then_resume(
        monkeypatch, lambda resume: LDA(n_topics, checkpoint_every=4, checkpoint_path=tmp_path / "c",
                                        resume=resume, **kw).fit(corpus), 12)
    assert resumed.fit_stats_["resumed_from_iteration"] == 12
    np.testing.assert_array_equal(resumed.alpha_, reference.alpha_)
    np.testing.assert_array_equal(resumed.topic_word_counts_, reference.topic_word_counts_)
    np.testing.assert_array_equal(resumed.transform(corpus), reference.transform(corpus))
