"""Parameter documentation written once and shared by the estimators' docstrings."""

from __future__ import annotations

PARAMS = {
    "n_topics": "n_topics : int, default=20\n    Number of topics K.",
    "alpha_sum": "alpha_sum : float, default=6.4\n    Total Dirichlet prior mass on a document's topics; alpha_k = alpha_sum / K.",
    "beta": "beta : float, default=0.01\n    Symmetric Dirichlet prior of each topic's word distribution.",
    "n_iter": "n_iter : int, default=50\n    Training iterations (one aux draw, one sweep over all tokens, one eta draw each).",
    "sampler": ("sampler : {'gibbs', 'light'}, default='gibbs'\n    'gibbs' is the exact collapsed sampler, "
                "O(K) per token: the reference. 'light' is LightMedLDA: Metropolis-Hastings with doc, "
                "word and exp proposals from alias tables, O(1) per token, and coordinate Gibbs for eta."),
    "light_variant": ("light_variant : {'partial', 'collapsed'}, default='partial'\n    'partial' draws phi "
                      "each iteration and is exact; 'collapsed' is the papers' sampler (frozen tables, a "
                      "small bias that shrinks with corpus size)."),
    "proposal": ("proposal : {'mixture', 'cycle', 'doc', 'word', 'exp'}, default='mixture'\n    How the light "
                 "sampler's MH steps pick proposals: uniformly at random, in turn, or one kind only."),
    "n_mh": "n_mh : int, default=6\n    Metropolis-Hastings steps per token (light sampler).",
    "n_gibbs": "n_gibbs : int, default=2\n    Coordinate Gibbs sweeps over eta per iteration (light sampler).",
    "c": "c : float, default=1.6\n    Regularization constant weighing the labels against the words (papers: c or lambda).",
    "margin": ("margin : float or 'auto', default='auto'\n    Hinge-loss margin l. 'auto' takes the papers' "
               "settings: 164 for two classes (c * l = 262.4), 64 for several (the authors' LightMedLDA "
               "default, c * l = 102.4). The value used is ``margin_``."),
    "sigma2": "sigma2 : float, default=1.0\n    Prior variance of each classifier weight eta_tk.",
    "loss": "loss : {'hinge'}, default='hinge'\n    Classification loss: 'hinge' is Gibbs MedLDA.",
    "n_eta_avg": "n_eta_avg : int, default=5\n    Predict with the average of the eta samples of the last n_eta_avg iterations.",
    "n_infer_burn": "n_infer_burn : int, default=30\n    Gibbs sweeps over a new document's topics before averaging (SPEC §7).",
    "n_infer_avg": "n_infer_avg : int, default=20\n    Sweeps whose doc-topic counts are averaged for a new document.",
    "trace": "trace : bool, default=False\n    Record the log joint after every iteration in ``trace_`` (costs O(DK + VK) each).",
    "random_state": "random_state : int or None, default=None\n    Seed; the same seed gives bitwise-identical results.",
    "verbose": "verbose : int, default=0\n    1 shows a progress bar (iteration, train accuracy, log likelihood, tokens/s) on stderr.",
}


def params_doc(*names: str) -> str:
    """The numpydoc 'Parameters' block for the given parameter names."""
    lines = ["Parameters", "----------"]
    lines += [PARAMS[n] for n in names]
    return "\n".join(lines)
