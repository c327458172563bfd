"""Plausible one-line bugs, as data, for ``tools/mutation_check.py``.

Each ``Mutation`` names a file under ``src/``, text that must occur in it exactly once, what
replaces it, why the bug is plausible, and the tests that should catch it (pytest node ids or
files, relative to the repository root), optionally narrowed by a ``-k`` expression (``select``).
The selections are as narrow as catch the bug, since every run recompiles the numba kernels it
reaches. The bitwise golden test (tests/test_golden.py) is never selected: it flags any change of
draws, which says nothing about whether the tests of a sampler's target would notice the bug.

List them with their checks: ``python tools/mutation_check.py --list``.
"""

from __future__ import annotations

from dataclasses import dataclass

POSTERIOR = "tests/samplers/test_exact_posterior.py"
TASKS = "tests/samplers/test_exact_tasks.py"
PREDICTION = "tests/models/test_prediction_formula.py"
RAY_DRIVER = "tests/engine/test_ray_driver.py"
LIGHT = "tests/samplers/test_light.py"
LOSSES = "tests/models/test_losses.py"


@dataclass(frozen=True)
class Mutation:
    """One planted bug: in ``path`` (under src/), ``old`` (occurring exactly once) becomes ``new``;
    ``tests`` (node ids or files) with the ``-k`` expression ``select`` should fail."""

    name: str
    path: str
    old: str
    new: str
    why: str
    tests: tuple[str, ...]
    select: str | None = None


EXACT = "src/medlda/_kernels/light/exact.py"
COLLAPSED = "src/medlda/_kernels/light/collapsed.py"

MUTATIONS: tuple[Mutation, ...] = (
    # -- the bugs of issue 43, point 2, and the collapsed doc-entry bug -----------------------------
    Mutation("partial_exp_table_from_current_mdt", EXACT,
             "a, b, p, True, exp_w", "a, b, p, False, exp_w",
             "the partial variant's exp table built from the document's m_dt of this moment (as the "
             "collapsed variant does) instead of the sweep's constants: the proposal then depends on the "
             "chain's state and its stored q no longer matches it",
             (POSTERIOR,), "partial and binary"),
    Mutation("partial_mixture_doc_normaliser_without_alpha", EXACT,
             "inv_doc = 1.0 / (length + alpha_sum)", "inv_doc = 1.0 / length",
             "the mixture's doc density normalised by N_d instead of N_d + alpha_sum",
             (POSTERIOR,), "flat-prior"),
    Mutation("collapsed_exp_q_ratio_dropped", COLLAPSED,
             "num *= rec[np.uint64(R * s) + R_EXP_Q]", "num *= rec[rt + R_EXP_Q]",
             "the collapsed exp proposal's q(s) / q(t) left out of its MH ratio (q(t) / q(t))",
             (POSTERIOR,), "documented_bias"),
    Mutation("predict_alpha_sum_per_topic", "src/medlda/models/base.py",
             "self._phi_wk(), self._alpha(),", "self._phi_wk(), np.full(self.n_topics, self.alpha_sum),",
             "prediction's inference with alpha_sum as every topic's alpha_k instead of alpha_sum / K",
             (PREDICTION,)),
    Mutation("eta_last_sample", "src/medlda/models/classifier.py",
             "return self.eta_samples_.mean(axis=0)", "return self.eta_samples_[-1]",
             "eta_ the last kept eta sample instead of the kept samples' mean",
             (PREDICTION,)),
    Mutation("threaded_coordinate_eta_skips_last_task", "src/medlda/_kernels/eta.py",
             "for t in range(c, n_tasks, n_chunks):", "for t in range(c, n_tasks - 1, n_chunks):",
             "the threaded coordinate eta draw never reaches the last task (n_jobs=2: that eta never moves)",
             (TASKS,)),
    Mutation("ray_phi_normalised_per_word", "src/medlda/samplers/light.py",
             "gam /= gam.sum(axis=0, keepdims=True)", "gam /= gam.sum(axis=1, keepdims=True)",
             "the distributed driver's phi (V, K) normalised over topics per word instead of over words",
             (RAY_DRIVER,)),
    Mutation("collapsed_doc_entry_not_marked", COLLAPSED,
             "            put_doc_topic(word_table, table_topics, doc_lo + i - start, own)\n", "",
             "the token's own doc-table entry keeps its starting topic s0 during its n_mh steps: once a step "
             "has moved the chain, a draw of that entry proposes s0 while the ratio assumes the doc factor "
             "cancels",
             (POSTERIOR,), "collapsed-doc"),
    # -- the exact Gibbs kernel and the task terms --------------------------------------------------
    Mutation("gibbs_normaliser_beta", "src/medlda/_kernels/gibbs.py",
             "/ (n_k[k] + vbeta)", "/ (n_k[k] + beta)",
             "the topic-word normaliser n_k + beta instead of n_k + V beta",
             (POSTERIOR,), "gibbs and lda"),
    Mutation("task_terms_b_over_length", "src/medlda/_kernels/common.py",
             "b[t] = w[d, t] / (2.0 * length * length)", "b[t] = w[d, t] / (2.0 * length)",
             "the quadratic task term b_t = w_dt / (2 N_d) instead of w_dt / (2 N_d^2)",
             (POSTERIOR,), "gibbs and supervised"),
    Mutation("topic_g_quadratic_sign", "src/medlda/_kernels/common.py",
             "s = e * (p[0] - b[0] * e)", "s = e * (p[0] + b[0] * e)",
             "the light kernels' G_d(k) with the first task's quadratic term added instead of subtracted",
             (POSTERIOR,), "partial and mixture and supervised"),
    # -- alias tables, gamma and Dirichlet draws -----------------------------------------------------
    Mutation("alias_draw_comparison_flipped", "src/medlda/_kernels/alias.py",
             "np.int64(slot) if u < prob[slot] else other", "np.int64(slot) if u > prob[slot] else other",
             "an alias draw keeps the slot with probability 1 - prob[slot] instead of prob[slot]",
             ("tests/kernels/test_alias.py",)),
    Mutation("gamma_boost_after_shift", "src/medlda/_kernels/dirichlet.py",
             "boost = np.log(1.0 - u) / shape", "boost = np.log(1.0 - u) / (shape + 1.0)",
             "the U^(1/a) boost of a shape below 1 taken with the shifted shape a + 1",
             ("tests/kernels/test_dirichlet.py",)),
    # -- eta: the exact draw, the coordinate draw, each loss's augmentation ------------------------
    Mutation("exact_eta_wrong_triangle", "src/medlda/samplers/eta.py",
             "eta[t] = mean + solve_triangular(chol.T, eps, lower=False)",
             "eta[t] = mean + solve_triangular(chol, eps, lower=True)",
             "the exact eta draw's noise L^-1 eps (covariance (L^T L)^-1) instead of L^-T eps (P^-1)",
             ("tests/samplers/test_exact_samplers.py::test_exact_eta_draw_matches_gaussian_conditional",)),
    Mutation("coordinate_eta_own_term_kept", "src/medlda/_kernels/eta.py",
             "mu += x * (kappa_t[d] - w_t[d] * (omega_t[d] - x * e_old))",
             "mu += x * (kappa_t[d] - w_t[d] * omega_t[d])",
             "the coordinate draw's residual keeps eta_tk's own part of omega",
             ("tests/kernels/test_eta.py",)),
    Mutation("hinge_ig_mean_inverted", "src/medlda/losses.py",
             "return rng.wald(1.0 / zeta, 1.0)", "return rng.wald(zeta, 1.0)",
             "the hinge (and epsilon) augmentation 1/lambda ~ IG(c |zeta|, 1) instead of IG(1 / (c |zeta|), 1)",
             (LOSSES,)),
    Mutation("logistic_polya_gamma_shape_one", "src/medlda/losses.py",
             "w = np.asarray(random_polyagamma(c, omega,", "w = np.asarray(random_polyagamma(1.0, omega,",
             "the logistic augmentation w ~ PG(1, omega) instead of PG(c, omega)",
             (LOSSES,)),
    # -- the light partial variant -----------------------------------------------------------------
    Mutation("partial_doc_proposal_without_own_token", "src/medlda/_kernels/light/proposals.py",
             "x = u * (length + alpha_sum)", "x = u * (length - 1 + alpha_sum)",
             "the doc proposal's uniform over N_d - 1 + alpha_sum (the token itself left out) while its "
             "ratio assumes (n_dk + alpha_k) / (N_d + alpha_sum)",
             (POSTERIOR,), "partial and doc"),
    Mutation("partial_exp_ratio_wrong_index", EXACT,
             "num = f_t * a_t * exp_q[s]", "num = f_t * a_t * exp_q[t_new]",
             "the partial exp proposal's ratio reads q(t) where it needs q(s)",
             (POSTERIOR,), "partial and exp and supervised"),
    # -- the collapsed variant, counts and moves ---------------------------------------------------
    Mutation("collapsed_normaliser_beta_at_s", COLLAPSED,
             "fd_s = rec[rs + R_N_K] + vbeta", "fd_s = rec[rs + R_N_K] + beta",
             "the collapsed target's normaliser at the current topic n_k + beta instead of n_k + V beta",
             (POSTERIOR,), "collapsed and (mixture or bias) and not partially"),
    Mutation("moves_wrong_topic_decremented", "src/medlda/_kernels/light/moves.py",
             "n_wk[v, old] -= 1", "n_wk[v, new] -= 1",
             "a logged move takes the word's count from its new topic instead of its old one",
             (f"{LIGHT}::test_counts_stay_consistent_after_sweeps",)),
    # -- blocked Gibbs -----------------------------------------------------------------------------
    Mutation("blocked_q2_without_factorial", "src/medlda/_kernels/blocked/levels.py",
             "0.5 * ab * (a + 1.0) * (b + 1.0) * inv", "ab * (a + 1.0) * (b + 1.0) * inv",
             "the block weight q(2) without its 1 / 2! (two tokens of one topic counted as ordered)",
             ("tests/samplers/test_blocked.py",), "level_tree_block_draw"),
    # -- inference and the training loop -----------------------------------------------------------
    Mutation("inference_prior_part_without_alpha", "src/medlda/_kernels/inference.py",
             "out[d, k] += c * alpha[k] * phi_wk[v, k]", "out[d, k] += c * phi_wk[v, k]",
             "the Rao-Blackwellised estimate spreads the prior part over phi_kw instead of alpha_k phi_kw",
             (f"{LIGHT}::test_rao_blackwellized_inference_has_the_posterior_mean_and_less_noise",)),
    Mutation("eta_kept_one_fewer", "src/medlda/engine/loop.py",
             "it >= n_iter - n_eta_keep", "it > n_iter - n_eta_keep",
             "the loop keeps the last n_eta_keep - 1 eta samples (an off-by-one in the kept window)",
             (PREDICTION,)),
)
