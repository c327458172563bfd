"""Parameter documentation written once and shared by the estimators' docstrings."""

from __future__ import annotations

import numbers

PARAMS = {
    "n_topics": "n_topics : int, default=20\n    Number of topics K.",
    "alpha_sum": "alpha_sum : float, default=6.4\n    Total Dirichlet prior mass on a document's topics; alpha_k = alpha_sum / K.",
    "beta": "beta : float, default=0.01\n    Symmetric Dirichlet prior of each topic's word distribution.",
    "n_iter": "n_iter : int, default=50\n    Training iterations (one aux draw, one sweep over all tokens, one eta draw each).",
    "sampler": ("sampler : {'gibbs', 'light', 'blocked'}, default='gibbs'\n    'gibbs' is the exact collapsed "
                "sampler, O(K) per token: the reference. 'light' is LightMedLDA: Metropolis-Hastings with doc, "
                "word and exp proposals from alias tables, O(1) per token, and coordinate Gibbs for eta. "
                "'blocked' (LDA only) redraws all tokens of one word in one document jointly (SPEC §8), "
                "see block_simulation."),
    "block_simulation": ("block_simulation : {'nested', 'backward'}, default='nested'\n    How the blocked "
                         "sampler draws a block's topic counts exactly: 'nested' walks down a balanced "
                         "binary tree over topics (O(C log K) draws), 'backward' goes through the topics "
                         "in turn (O(K)). Both cost O(K C^2) per block of C tokens to build."),
    "trace_every": ("trace_every : int, default=1\n    Take the trace's measurements (log joint, held-out "
                    "perplexity) every this many iterations and after the last."),
    "light_variant": ("light_variant : {'collapsed', 'partial'}, default='collapsed'\n    'collapsed' is the "
                      "papers' sampler: O(1) per token whatever K, faster mixing, a small bias from its "
                      "frozen tables that vanishes as the corpus grows (measured). 'partial' draws phi every "
                      "phi_every iterations and is exact, at O(V K) per phi draw and slower mixing."),
    "phi_every": ("phi_every : int, default=1\n    With light_variant='partial', draw phi every this many "
                  "iterations and sample the tokens given the same phi in between: still exact, and the "
                  "O(V K) draw is paid once per phi_every iterations (checkpoint_every must be a multiple)."),
    "proposal": ("proposal : {'mixture', 'scan', 'cycle', 'doc', 'word', 'exp'}, default='mixture'\n    How the "
                 "light sampler's MH steps pick proposals: uniformly at random, in turn, or one kind only. "
                 "'mixture' accepts with the ratio of the mixture of the three proposals, 'scan' with the ratio "
                 "of the one picked (the papers' code); both are exact, and the mixture's ratio accepts more "
                 "often, so the topics follow the labels in fewer iterations."),
    "n_mh": "n_mh : int, default=6\n    Metropolis-Hastings steps per token (light sampler).",
    "n_gibbs": ("n_gibbs : int, default=2\n    Coordinate Gibbs sweeps over eta per iteration (light sampler). "
                "Where the exact draw costs at most about a tenth of an iteration (documents x K^2 x tasks "
                "<= 12 x tokens x n_mh, e.g. 20 classes at K <= 24 on 20 Newsgroups) light draws eta "
                "exactly instead, as gibbs does: coordinate sweeps mix slowly when topics are few."),
    "eta_draw": ("eta_draw : {'auto', 'exact', 'coordinate'}, default='auto'\n    How the light sampler "
                 "draws eta each iteration: exactly from its Gaussian conditional (O(D K^2 T + K^3 T), as gibbs "
                 "always does), by n_gibbs coordinate Gibbs sweeps (O(nnz(zbar) T)), or 'auto': exactly where that "
                 "costs at most about a tenth of an iteration."),
    "c": ("c : float or 'auto', default='auto'\n    Regularization constant weighing the labels against the "
          "words (papers: c or lambda). 'auto' takes the papers' settings: 1.6 for the hinge loss; 25 (two "
          "classes, gSLDA) or 204.8 (several tasks, LightMedLDA) for the logistic loss. The value used is "
          "``c_``."),
    "c_regression": ("c : float, default=4.0\n    Regularization constant weighing the responses against "
                     "the words (1 / noise variance for the squared loss). Hotel reviews, K = 20, light, "
                     "40 iterations: c = 1, 4, 16, 64, 262.4 gave test R^2 0.51, 0.54, 0.53, 0.58, 0.55."),
    "epsilon": "epsilon : float, default=1e-3\n    Width of the epsilon-insensitive loss (no penalty when |y - omega| <= epsilon).",
    "strategy": ("strategy : {'multitask', 'ovr'}, default='multitask'\n    Several classes or labels: "
                 "'multitask' learns C classifiers on one shared set of topics; 'ovr' trains C independent "
                 "binary models, each with its own topics (in parallel processes, see n_jobs)."),
    "n_jobs": ("n_jobs : int or None, default=None\n    Cores to use (None: 1, -1: all). The light sampler "
               "splits the documents across threads: with light_variant='partial' the result is the same "
               "on any number of threads; with 'collapsed' each thread samples against a snapshot of the "
               "counts, merged after each sweep (the approximate distributed-LDA scheme). Inference of new "
               "documents (transform, predict, perplexity) splits them across threads with any sampler, "
               "with the same result on any number. One-vs-rest runs its C binary models in parallel "
               "processes instead (never more than C)."),
    "margin": ("margin : float or 'auto', default='auto'\n    Hinge-loss margin l. 'auto' takes the papers' "
               "settings: 164 for two classes (c * l = 262.4), 64 for several (the authors' LightMedLDA "
               "default, c * l = 102.4); 8 for multi-label data (picked on a Reuters validation split: "
               "64 leaves most rare labels unpredicted). The value used is ``margin_``."),
    "positive_cost": ("positive_cost : float or 'auto', default='auto'\n    Multiplies c on the positive examples of "
                      "every task (the documents that carry the task's label; for two classes, those of "
                      "``classes_[1]``): a cost-sensitive loss for rare labels. 'auto' is 1 (the papers' loss) "
                      "for binary labels and multi-task multi-class ones; C - 1 for one-vs-rest on C classes, so "
                      "each binary model weighs its class's documents as much as all the others' (without it, gibbs "
                      "hinge one-vs-rest at K = 400 on 20 Newsgroups lags multi-task by 0.039), except for the logistic "
                      "loss above K = 100 topics, where it is 1 (on a 20 Newsgroups validation split balancing "
                      "gained light logistic one-vs-rest 0.008-0.009 at K = 20-50 and cost it 0.012 at K = 200, and "
                      "cost gibbs 0.020 at K = 400); and 4 for multi-label "
                      "data, where the plain loss never predicts most rare labels (Reuters-21578, 90 categories: "
                      "see the README). The value used is ``positive_cost_``."),
    "class_weight": ("class_weight : {None, 'balanced'} or dict, default=None\n    'balanced' weighs each "
                     "document by n_docs / (n_classes x the documents of its class), so every class weighs alike in "
                     "the loss (as scikit-learn's); a dict {class: weight} gives the weights (classes left out: 1). "
                     "A document's c becomes c times its weight. Single-label data only; for "
                     "rare labels of multi-label data see positive_cost. ``fit(X, y, sample_weight=...)`` multiplies "
                     "in weights of your own."),
    "sigma2": "sigma2 : float, default=1.0\n    Prior variance of each classifier weight eta_tk.",
    "loss": ("loss : {'hinge', 'logistic'}, default='hinge'\n    Classification loss: 'hinge' is Gibbs "
             "MedLDA (inverse-Gaussian augmentation); 'logistic' is gSLDA (Polya-Gamma augmentation), "
             "which also gives ``predict_proba`` (sigmoid(s omega), s fitted on training documents: "
             "``proba_scale_``)."),
    "loss_regression": ("loss : {'epsilon', 'squared'}, default='epsilon'\n    Regression loss: "
                        "'epsilon' is MedLDA regression (epsilon-insensitive, two inverse-Gaussian "
                        "augmentations); 'squared' is sLDA's Gaussian response."),
    "n_eta_avg": "n_eta_avg : int, default=5\n    Predict with the average of the eta samples of the last n_eta_avg iterations.",
    "n_infer_burn": ("n_infer_burn : int, default=100\n    Sweeps over a new document's topics before averaging (SPEC §7). "
                     "Fewer cost test accuracy: 30 lost 0.005-0.01 on 20 Newsgroups at K = 200."),
    "n_infer_avg": ("n_infer_avg : int, default=200\n    Sweeps over which a new document's topic "
                    "conditionals are averaged (after n_infer_burn). The inference chain of a document "
                    "moves between topic mixes slowly, so a longer average predicts better: 20 Newsgroups, "
                    "20 classes, validation accuracy 0.8833 / 0.8687 with 50 and 0.8895 / 0.8705 with 200 "
                    "at K = 200 (seeds 0 / 1), at twice the prediction time."),
    "trace": ("trace : bool, default=False\n    Record the log joint (SPEC §9) after every iteration in ``trace_``, "
              "a list of dicts with iteration, seconds (sampling only) and log_joint (costs O(DK + VK) "
              "each, not counted in seconds); LDA.fit(X, heldout=...) adds perplexity."),
    "checkpoint_every": ("checkpoint_every : int, default=0\n    Write the whole sampler state to checkpoint_path "
                         "every this many iterations (0: never), atomically; see resume."),
    "checkpoint_path": "checkpoint_path : str or path, default=None\n    The checkpoint file (npz + JSON, no pickle).",
    "resume": ("resume : bool, default=False\n    Go on from checkpoint_path if it exists (same data and "
               "settings, else an error); a resumed run ends with the same model as an uninterrupted one."),
    "backend": ("backend : {'local', 'ray'}, default='local'\n    Where training runs: this process, or "
                "data-parallel on a Ray cluster (``pip install medlda[ray]``): n_workers actors hold "
                "document shards; exact for light_variant='partial' given phi, approximate (stale counts "
                "within an iteration) for the collapsed samplers."),
    "n_workers": "n_workers : int, default=2\n    Ray actors (document shards) when backend='ray'.",
    "ray_address": ("ray_address : str or None, default=None\n    Address of a running Ray cluster; None "
                    "joins the one ray.init() finds or starts a local one."),
    "random_state": "random_state : int or None, default=None\n    Seed; the same seed gives bitwise-identical results.",
    "verbose": "verbose : int, default=0\n    1 shows a progress bar (iteration, train accuracy, log likelihood, tokens/s) on stderr.",
}


def params_doc(*names: str) -> str:
    """The numpydoc 'Parameters' block for the given parameter names."""
    lines = ["Parameters", "----------"]
    lines += [PARAMS[n] for n in names]
    return "\n".join(lines)

def check_param(value, name: str, kind, low=None, low_open=False) -> None:
    """Raise ValueError unless value is of ``kind`` and above ``low`` (strictly if low_open)."""
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if not ok:
        bound = "" if low is None else f" {'>' if low_open else '>='} {low}"
        what = "an integer" if kind is numbers.Integral else "a number" if kind is numbers.Real else \
            f"a {getattr(kind, '__name__', 'value')}"
        raise ValueError(f"{name} must be {what}{bound}, got {value!r}")
