"""Every estimator parameter declared once: its default, its rule, its documentation and its flag.

The estimators validate with ``validate``, document themselves with ``params_doc`` and the
command line builds its flags from ``PARAMS`` (``Param.flag``), so a name, default, set of
choices or help text is written in one place. Choices that come from a registry (samplers,
losses) are read when asked, so a registered sampler or loss is accepted everywhere at once.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from medlda.engine.alpha import ALPHA_BURN_IN, ALPHA_EVERY
from medlda.limits import SWEEPS, Limit
from medlda.losses import losses_for
from medlda.samplers import BLOCK_SIMULATIONS, ETA_DRAWS, LIGHT_VARIANTS, PROPOSAL_MODES, REGISTRY


class Rule:
    """What values a parameter takes: ``accepts(value)`` and a phrase for the error message."""

    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def phrase(self) -> str:
        raise NotImplementedError

    def choices(self) -> list | None:
        """The values a command-line flag offers (None: any value of its type)."""
        return None


def _finite(value: numbers.Real) -> bool:
    """Whether ``value`` is a finite float64 (an integer too large for one is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


_SHORT = reprlib.Repr()  # a refused value as messages quote it: a long one shortened
_SHORT.maxstring = _SHORT.maxother = 80
_SHORT.maxlong = 40


def _bound(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else f"{value}"


@dataclass(frozen=True)
class Number(Rule):
    """A finite integer (``integer``) or real number, at least ``low`` (above it if ``open``) and at
    most ``high``, or the limit ``limit`` (``medlda.limits``, read when checked)."""

    low: float | None = None
    open: bool = False
    integer: bool = False
    auto: bool = False  # 'auto' is also accepted
    high: float | None = None
    limit: Limit | None = None

    def accepts(self, value: Any) -> bool:
        if self.auto and isinstance(value, str) and value == "auto":
            return True
        return self.in_range(value) and (self.limit is None or value <= self.limit.value)

    def in_range(self, value: Any) -> bool:
        """Of the right type, finite, and within ``low`` and ``high`` (the limit aside)."""
        kind = numbers.Integral if self.integer else numbers.Real
        if not isinstance(value, kind) or isinstance(value, bool) or not _finite(value):
            return False
        if self.low is not None and not (value > self.low if self.open else value >= self.low):
            return False
        return self.high is None or value <= self.high

    def upper(self) -> float | None:
        """The largest value allowed: ``high`` or the limit in force (None: no bound)."""
        return self.limit.value if self.limit is not None else self.high

    def phrase(self) -> str:
        low = "-inf" if self.low is None else _bound(self.low)
        upper = self.upper()
        high = "inf" if upper is None else _bound(upper)
        left = "(" if self.open or self.low is None else "["
        right = ")" if upper is None else "]"
        what = f"{'an int' if self.integer else 'a float'} in the range {left}{low}, {high}{right}"
        return f"'auto' or {what}" if self.auto else what


@dataclass(frozen=True)
class Options(Rule):
    """One of a fixed list, or of a registry read when asked (``source`` a callable)."""

    source: tuple | Callable[[], Iterable]

    def choices(self) -> list:
        return list(self.source() if callable(self.source) else self.source)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (str, type(None))) and value in self.choices()

    def phrase(self) -> str:
        return "a str among {" + ", ".join(repr(c) for c in self.choices()) + "}"


@dataclass(frozen=True)
class Custom(Rule):
    """A rule written as a predicate and its phrase."""

    test: Callable[[Any], bool]
    text: str

    def accepts(self, value: Any) -> bool:
        return self.test(value)

    def phrase(self) -> str:
        return self.text


@dataclass(frozen=True)
class Param:
    """One estimator parameter: ``kind`` and ``doc`` are its numpydoc type and description;
    ``flag`` and ``help`` its ``medlda train`` option (None: not on the command line), whose
    default None means "the estimator's default"."""

    name: str
    default: Any
    rule: Rule
    kind: str
    doc: str
    flag: str | None = None
    help: str | None = None
    metavar: str | None = None
    note: str = ""  # said after a refused value
    aliases: tuple[str, ...] = ()  # more flags for the same option
    former: str | None = None  # a former name, still accepted with a FutureWarning (``models.signature``)

    def check(self, value: Any, owner: str | None = None) -> None:
        """Raise ValueError naming the parameter (and ``owner``, the estimator) unless ``value`` is
        allowed; LimitError, naming the environment variable that raises the limit, for a number
        beyond a limit of ``medlda.limits``."""
        if self.rule.accepts(value):
            return
        who = f"The {self.name!r} parameter" + (f" of {owner}" if owner else "")
        message = f"{who} must be {self.rule.phrase()}. Got {_SHORT.repr(value)} instead.{self.note}"
        rule = self.rule
        if isinstance(rule, Number) and rule.limit is not None and rule.in_range(value):
            rule.limit.check(value, who)
        raise ValueError(message)


def _losses(task: str) -> Callable[[], tuple]:
    return lambda: losses_for(task)


_INT1, _INT0 = Number(1, integer=True), Number(0, integer=True)
_SWEEPS1, _SWEEPS0 = Number(1, integer=True, limit=SWEEPS), Number(0, integer=True, limit=SWEEPS)
# c and positive_cost multiply each other, class and sample weights and the augmentation's squares:
# past HUGE those products leave float64; 1 / sigma2 likewise below 1 / HUGE
HUGE = 1e50
_PRIOR_MASS = Number(1 / HUGE, high=HUGE)  # a Dirichlet mass: positive and normal (a subnormal one underflows)

PARAMS: dict[str, Param] = {p.name: p for p in [
    Param("n_components", 20, _INT1, "int", "Number of topics K (scikit-learn's name, as in its "
          "LatentDirichletAllocation).", "--topics", metavar="K", aliases=("--n-components",),
          former="n_topics"),
    Param("alpha_sum", 6.4, _PRIOR_MASS, "float",
          "Total Dirichlet prior mass on a document's topics; alpha_k = alpha_sum / K (with optimize_alpha, "
          "the start of the learned prior).", "--alpha-sum",
          "sum of the Dirichlet prior on a document's topic proportions, alpha_sum / K per topic"),
    Param("optimize_alpha", False, Custom(lambda v: isinstance(v, (bool, int)), "True or False"), "bool",
          "Learn an asymmetric document-topic prior alpha (K,) from the data, as gensim's alpha='auto', "
          "MALLET's --optimize-interval and tomotopy's optim_interval do: from alpha_sum / K, after iteration "
          f"{ALPHA_BURN_IN} and every {ALPHA_EVERY} iterations from then on, alpha becomes the maximum-likelihood "
          "prior of the chain's doc-topic counts (Minka's fixed point; Wallach, Mimno and McCallum 2009), so "
          "words that every document uses can gather in one topic of large alpha. False keeps alpha_k = "
          "alpha_sum / K. The prior in use after the fit is ``alpha_`` (K,); inference of new documents uses it.",
          "--optimize-alpha",
          f"learn an asymmetric document-topic prior (after iteration {ALPHA_BURN_IN} and every {ALPHA_EVERY} "
          "from then on)"),
    Param("beta", 0.01, _PRIOR_MASS, "float",
          "Symmetric Dirichlet prior of each topic's word distribution; smaller gives sparser topics.", "--beta"),
    Param("max_iter", 50, _SWEEPS1, "int",
          "Training iterations (one aux draw, one sweep over all tokens, one eta draw each); all of them "
          "run (no convergence test stops them early).", "--iters", "training iterations",
          "N", aliases=("--max-iter",), former="n_iter"),
    Param("sampler", "auto", Options(lambda: ("auto", *REGISTRY)), "str",
          "'gibbs' is the exact collapsed sampler, O(K) per token (LDA: sparse in topics): the reference. 'light' "
          "is LightMedLDA: Metropolis-Hastings with doc, word and exp proposals from alias tables, O(1) per token. "
          "'blocked' (LDA only) redraws all tokens of one word in one document jointly (docs/mathematics.md §8). "
          "'auto' takes gibbs or light, whichever was measured faster for K topics with or without tasks (gibbs up "
          "to 1000 topics for LDA, 20 supervised: medlda.samplers.choice); the fitted sampler_ says which.",
          "--sampler", "auto (the default: gibbs or light, whichever is faster for K: gibbs up to 1000 topics for "
          "LDA, 20 supervised), gibbs (exact), light (LightMedLDA) or blocked (blocked Gibbs, plain LDA only)"),
    Param("block_simulation", "nested", Options(lambda: BLOCK_SIMULATIONS), "str",
          "How the blocked sampler draws a block's topic counts exactly: 'nested' walks down a balanced "
          "binary tree over topics (O(C log K) draws), 'backward' goes through the topics in turn (O(K)).",
          "--block-simulation", "blocked sampler: how a block's topic counts are drawn"),
    Param("trace_every", 1, _INT1, "int",
          "Take the trace's measurements (log joint, held-out perplexity) every this many iterations and "
          "after the last.", "--trace-every", "measure the trace every N iterations", "N"),
    Param("light_variant", "collapsed", Options(lambda: LIGHT_VARIANTS), "str",
          "'collapsed' is the papers' sampler: O(1) per token whatever K, with a small bias from its frozen "
          "word tables that vanishes as the corpus grows. 'partial' draws phi every phi_every iterations "
          "and is exact, at O(V K) per phi draw and slower mixing.", "--light-variant",
          "light sampler: 'partial' (exact, phi drawn) or 'collapsed' (the papers')"),
    Param("phi_every", 1, _INT1, "int",
          "With light_variant='partial', draw phi every this many iterations and sample the tokens given "
          "the same phi in between: still exact, and the O(V K) draw is paid once per phi_every iterations "
          "(checkpoint_every must be a multiple).", "--phi-every",
          "light partial: draw phi every N iterations (still exact)", "N"),
    Param("proposal", "mixture", Options(lambda: PROPOSAL_MODES), "str",
          "How the light sampler's MH steps pick proposals: uniformly at random, in turn, or one kind only. "
          "'mixture' accepts with the ratio of the mixture of the three proposals, 'scan' with the ratio of "
          "the one picked (the papers' code); both are exact, and the mixture's ratio accepts more often.",
          "--proposal", "light sampler's MH proposals"),
    Param("n_mh", "auto", Number(1, integer=True, auto=True, limit=SWEEPS), "int or 'auto'",
          "Metropolis-Hastings steps per token (light sampler). 'auto': 6, or 12 for a classifier of more "
          "than 20 classes (not multi-label), whose label terms the proposals follow less closely; the value "
          "used is ``n_mh_``.", "--n-mh",
          "light: MH steps per token (default 6; 12 for a classifier of over 20 classes)", "N"),
    Param("n_gibbs", 2, _SWEEPS1, "int",
          "Coordinate Gibbs sweeps over eta per iteration when the light sampler does not draw eta "
          "exactly (see eta_draw)."),
    Param("eta_draw", "auto", Options(lambda: ETA_DRAWS), "str",
          "How the light sampler draws eta each iteration: exactly from its Gaussian conditional "
          "(O(D K + T sum_d m_d^2 + T K^3) for documents of m_d topics, as gibbs always does), by n_gibbs "
          "coordinate Gibbs sweeps (O(nnz(zbar) T)), "
          "or 'auto': exactly where that costs at most a quarter of a sweep, else at the start and at a random "
          "share of the iterations (coordinate sweeps mix slowly, more so on many classes).", "--eta-draw",
          "how light draws eta: exactly, by coordinate Gibbs sweeps, or exactly where cheap (auto)"),
    Param("c", "auto", Number(0, open=True, auto=True, high=HUGE), "float or 'auto'",
          "Regularization constant weighing the labels against the words (papers: c or lambda). 'auto' "
          "takes the loss's default: the papers' settings for hinge (1.6) and logistic (25 for two classes, "
          "204.8 for several tasks). The value used is ``c_``.", "--c",
          "regularization constant c (default: the loss's: hinge 1.6, logistic 25 binary / 204.8 several "
          "tasks, regression 0.32 x mean document length)"),
    Param("margin", "auto", Number(0, auto=True), "float or 'auto'",
          "Hinge-loss margin l. 'auto' takes the papers' settings: 164 for two classes (c * l = 262.4), 64 "
          "for several; 8 for multi-label data, where a wide margin leaves rare labels unpredicted. The "
          "value used is ``margin_``.", "--margin",
          "hinge margin l (default: 164 for two classes, 64 for more, 8 for multi-label data)"),
    Param("sigma2", 1.0, Number(1 / HUGE, high=HUGE), "float", "Prior variance of each classifier weight eta_tk.",
          "--sigma2", "prior variance of eta"),
    Param("background_topics", 0, _INT0, "int",
          "Topics without classifier weights: the last this many of the n_components topics keep eta at 0, "
          "so words that every class uses can gather there, out of the labels' pull (0: all are supervised).",
          "--background-topics", "topics without classifier weights, the last N (default 0)", "N"),
    Param("positive_cost", "auto", Number(0, open=True, auto=True, high=HUGE), "float or 'auto'",
          "Multiplies c on the positive examples of every task (the documents that carry the task's label; "
          "for two classes, those of ``classes_[1]``): a cost-sensitive loss for rare labels. 'auto' is the "
          "loss's default: 1 (the papers' loss) for one label per document; C - 1 for one-vs-rest on C "
          "classes, so each binary model weighs its class's documents as much as all the others' (for the "
          "logistic loss only up to 100 topics); 4 for multi-label data. The value used is "
          "``positive_cost_``.", "--positive-cost",
          "classification: c times R on each task's positive documents, for rare labels (default: the "
          "loss's)", "R"),
    Param("class_weight", None,
          Custom(lambda v: v is None or (isinstance(v, str) and v == "balanced") or isinstance(v, dict),
                 "None, 'balanced' or a dict {class: weight}"), "{None, 'balanced'} or dict",
          "'balanced' weighs each document by n_docs / (n_classes x the documents of its class), so every "
          "class weighs alike in the loss (as scikit-learn's); a dict {class: weight} gives the weights "
          "(classes left out: 1). A document's c becomes c times its weight. Single-label data only; for "
          "rare labels of multi-label data see positive_cost.", "--class-weight",
          "classification: weigh each document by n_docs / (n_classes x its class's documents)"),
    Param("loss", "hinge", Options(_losses("classification")), "str",
          "Classification loss: 'hinge' is Gibbs MedLDA (inverse-Gaussian augmentation); 'logistic' is "
          "gSLDA (Polya-Gamma augmentation), which also gives ``predict_proba``.", "--loss",
          "the loss: hinge or logistic (classification), epsilon or squared (regression)",
          note=" Regression losses are for MedLDARegressor."),
    Param("strategy", "multitask", Options(("multitask", "ovr")), "str",
          "Several classes or labels: 'multitask' learns C classifiers on one shared set of topics; 'ovr' "
          "trains C independent binary models, each with its own topics (in parallel, see n_jobs).",
          "--strategy", "several classes or labels: shared topics, or one binary model each (ovr)"),
    Param("epsilon", 1e-3, Number(0), "float",
          "Width of the epsilon-insensitive loss (no penalty when |y - omega| <= epsilon), in units of the "
          "response's standard deviation (the chain sees the responses scaled to unit variance).", "--epsilon",
          "epsilon-insensitive loss width"),
    Param("n_jobs", None,
          Custom(lambda v: v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and v != 0),
                 "None or a non-zero integer"), "int or None",
          "Cores to use (None: 1, -1: all). The light sampler splits the documents across threads: with light_variant="
          "'partial' the topics are the same on any number of threads (eta to rounding); with 'collapsed' each thread "
          "reads the word counts as the last of 32 merges per sweep left them. Inference splits new documents across "
          "threads with any sampler, with the same result on any number. One-vs-rest runs its C binary models in "
          "parallel instead (at most C at a time): on threads with the light sampler, else in processes.",
          "--n-jobs", "cores: light sampler threads, or one-vs-rest's parallel models (-1 all cores)"),
    Param("n_chains", 1, _INT1, "int",
          "Independent chains from seeds spawned from random_state, their predictions averaged (posterior predictive "
          "over chains), or weighed as ``combine`` says: more accurate than one chain, n_chains times the training. "
          "Their topics are stacked (n_chains * n_components; ``chains_``); they run n_jobs at a time (on threads "
          "with the light sampler, else in processes; backend='ray': a Ray task each). Multi-task strategy.",
          "--chains", "independent chains whose predictions are averaged", "N"),
    Param("combine", "average", Options(("average", "ridge")), "str",
          "How prediction weighs the topics. 'average': by the chain's eta (several chains: their predictions "
          "averaged). 'ridge': by one ridge regression of the training responses (classes: +1 / -1 per task) on all "
          "chains' topics of the training documents inferred as new ones, penalty by leave-one-out; better on 20 "
          "Newsgroups, on a regression from about 8 chains (docs/choosing.md). Multi-task; no background_topics.",
          "--combine", "weigh the topics by the chains' eta (average) or by one ridge regression (ridge)"),
    Param("n_eta_avg", 5, _INT1, "int",
          "Predict with the average of the eta samples of the last n_eta_avg iterations."),
    Param("inference", "cvb0", Options(lambda: INFERENCE_METHODS), "str",
          "How new documents' topics are inferred (transform, predict, score): 'cvb0' updates each "
          "token's topic responsibilities against the others' (CVB0, 8 passes): deterministic, about 15 "
          "times faster than 'gibbs' at K = 100 with the same accuracy and R^2 (docs/benchmarks.md, "
          "'Prediction'); 'gibbs' averages each token's conditional over n_infer_avg sweeps of exact "
          "Gibbs, a Monte Carlo estimate of the posterior mean of the topic proportions.",
          "--inference", "how test documents' topics are inferred: cvb0 (deterministic, fast) or gibbs "
          "(sampled posterior mean)"),
    Param("n_infer_burn", 30, _SWEEPS0, "int",
          "Sweeps over a new document's topics before averaging (docs/mathematics.md §7): enough for the chain to "
          "forget its start (more change the estimate by less than its Monte Carlo error).",
          "--infer-burn", "sweeps over a test document's topics before averaging", "N"),
    Param("n_infer_avg", 200, _SWEEPS1, "int",
          "Sweeps over which a new document's topic conditionals are averaged (after n_infer_burn). A "
          "document's posterior spreads over alternative topic mixes, so the estimate's Monte Carlo "
          "error falls only as 1 / sqrt(n_infer_avg): fewer sweeps predict labels almost as well but "
          "give topic proportions farther from their posterior mean.", "--infer-avg",
          "sweeps whose topic conditionals are averaged for a test document", "N"),
    Param("trace", False, Custom(lambda v: isinstance(v, (bool, int)), "True or False"), "bool",
          "Record the log joint (docs/mathematics.md §9) after every iteration in ``trace_``, a list of dicts with "
          "iteration, seconds (sampling only) and log_joint (costs O(DK + VK) each, not counted in "
          "seconds); LDA.fit(X, heldout=...) adds perplexity."),
    Param("random_state", None, Custom(lambda v: True, "a seed"),
          "int or None", "Seed; the same seed gives bitwise-identical results.", "--seed",
          "random seed, 0 or more (same seed, same model; default: none, another model each run)"),
    Param("verbose", 0, Custom(lambda v: isinstance(v, (bool, numbers.Integral)) and v >= 0, "an integer >= 0"),
          "int", "1 shows a progress bar (iteration, train accuracy, log likelihood, tokens/s) on stderr."),
    Param("checkpoint_every", 0, _INT0, "int",
          "Write the whole sampler state to checkpoint_path every this many iterations (0: never), "
          "atomically; see resume.", "--checkpoint-every", "write a checkpoint every N iterations (0: never)",
          "N"),
    Param("checkpoint_path", None, Custom(lambda v: True, "a path"), "str or path",
          "The checkpoint file (npz + JSON, no pickle).", "--checkpoint",
          "checkpoint file: the whole sampler state (npz + JSON), replaced atomically"),
    Param("resume", False, Custom(lambda v: isinstance(v, (bool, int)), "True or False"), "bool",
          "Go on from checkpoint_path if it exists (same data and settings, else an error); a resumed run "
          "ends with the same model as an uninterrupted one.", "--resume",
          "go on from --checkpoint if it exists (same data and settings)"),
    Param("backend", "local", Options(("local", "ray")), "str",
          "Where training runs: this process, or data-parallel on a Ray cluster (``pip install medlda[ray]``): "
          "n_workers actors hold document shards; exact for light_variant='partial' given phi, approximate (stale "
          "counts within an iteration) for the collapsed samplers.", "--backend",
          "train in this process, or data-parallel on a Ray cluster (medlda[ray])"),
    Param("n_workers", 2, _INT1, "int", "Ray actors (document shards) when backend='ray'.", "--workers", "Ray workers"),
    Param("ray_address", None, Custom(lambda v: v is None or isinstance(v, str), "None or an address"),
          "str or None", "Address of a running Ray cluster; None uses this process's Ray, else starts one on this "
          "machine.", "--address", "Ray cluster address (default: a Ray instance of its own on this machine)"),
]}

# the regressor's own defaults and choices for names it shares with the classifier
REGRESSOR_PARAMS: dict[str, Param] = {
    "c": Param("c", "auto", Number(0, open=True, auto=True, high=HUGE), "float or 'auto'",
               "Regularization constant weighing the responses against the words, on responses scaled to unit "
               "variance (1 / noise variance for the squared loss). 'auto' is 0.32 times the training documents' "
               "mean length (picked on a hotel reviews validation split). The value used is ``c_``.", "--c"),
    "loss": Param("loss", "epsilon", Options(_losses("regression")), "str",
                  "Regression loss: 'epsilon' is MedLDA regression (epsilon-insensitive, two inverse-Gaussian "
                  "augmentations); 'squared' is sLDA's Gaussian response.", "--loss",
                  note=" Classification losses are for MedLDAClassifier."),
}

# groups of parameters, in the order the estimators' signatures list them
PRIOR = ("n_components", "alpha_sum", "optimize_alpha", "beta")
SAMPLING = ("max_iter", "sampler", "light_variant", "phi_every", "proposal", "n_mh")
ETA = ("n_gibbs", "eta_draw", "n_eta_avg")
INFERENCE = ("inference", "n_infer_burn", "n_infer_avg")
INFERENCE_METHODS = ("cvb0", "gibbs")
RUN = ("trace", "random_state", "verbose", "checkpoint_every", "checkpoint_path", "resume", "backend",
       "n_workers", "ray_address")


def declared(names: Iterable[str], overrides: dict[str, Param] | None = None) -> dict[str, Param]:
    """The declarations of ``names``, with an estimator's own ``overrides``."""
    overrides = overrides or {}
    return {n: overrides.get(n, PARAMS[n]) for n in names}


def validate(estimator, params: dict[str, Param]) -> None:
    """Check every declared parameter of ``estimator`` (raises ValueError naming the first bad one)."""
    for name, param in params.items():
        param.check(getattr(estimator, name), type(estimator).__name__)


def params_doc(params: dict[str, Param]) -> str:
    """The numpydoc 'Parameters' block of ``params``."""
    lines = ["Parameters", "----------"]
    for p in params.values():
        lines += [f"{p.name} : {p.kind}, default={p.default!r}", f"    {p.doc}"]
    return "\n".join(lines)


def check_param(value, name: str, kind, low=None, low_open=False) -> None:
    """Raise ValueError unless value is of ``kind`` (numbers.Integral or numbers.Real) and at least
    ``low`` (above it if ``low_open``): for arguments of methods, not estimator parameters."""
    Param(name, None, Number(low, low_open, kind is numbers.Integral), "", "").check(value)
