"""``sampler="auto"``: which sampler trains fastest for a number of topics and tasks.

The exact ``gibbs`` sweep costs O(K (1 + T)) per token with T tasks (every topic's probability,
with T task terms each); for LDA it is sparse in topics (SparseLDA's buckets: the topics of the
token's document and word). ``light`` costs O(n_mh) per token whatever K, at a higher cost per
step (alias tables, hashed counts, Metropolis-Hastings tests), and its supervised steps carry task
terms too. Measured on 20 Newsgroups (the "Sampler choice" section of docs/benchmarks.md), light
overtakes the supervised gibbs sweep above about 20 topics, with 1 task or 20 alike; for LDA the
sparse sweep is faster up to about 400 topics, and at 1000 light sweeps 1.4x faster but its
chain reaches a far lower log joint in the same iterations, so gibbs is kept up to 1000 (the
largest K measured). The limits below are those measurements. The blocked sampler
(LDA only) is never chosen.

``n_mh="auto"``: light's MH steps per token. Its proposals (the document's topics, the word's,
and the document's label terms as they stood when the sweep entered it) do not follow the label
terms as the document's tokens move; with many classes those terms shape a token's conditional
more, and it takes more steps to reach it. On R52 (52 classes) 6 steps left light's test accuracy
0.011-0.013 behind exact gibbs at K = 20 and 100, and 12 close it to 0.003-0.005; up to 20
classes (20 Newsgroups) 6 steps match gibbs. Multi-label data differ: their label terms are
weaker (a margin of 8, not 64), and on Reuters' 90 labels 12 steps gave a lower micro F1 than 6
(docs/benchmarks.md, "Light against exact Gibbs"). A step with tasks costs O(T) for its label
terms on top of its table reads, so the doubled steps cost 1.4-1.5x the training time, not 2x.
"""

from __future__ import annotations

AUTO = "auto"
# gibbs up to this many topics, light above (docs/benchmarks.md, "Sampler choice")
GIBBS_MAX_TOPICS_LDA = 1000
GIBBS_MAX_TOPICS_SUPERVISED = 20


# light's MH steps per token: this many, and LIGHT_STEPS_MANY_CLASSES for more than MANY_CLASSES classes
LIGHT_STEPS = 6
LIGHT_STEPS_MANY_CLASSES = 12
MANY_CLASSES = 20


def choose_sampler(n_components: int, n_tasks: int) -> str:
    """The faster sampler for K = ``n_components`` topics and T = ``n_tasks`` tasks (0: LDA; a
    binary classifier or a regressor has 1, a multi-class one one per class): "gibbs" up to
    ``GIBBS_MAX_TOPICS_LDA`` topics for LDA and ``GIBBS_MAX_TOPICS_SUPERVISED`` with tasks, else
    "light"."""
    limit = GIBBS_MAX_TOPICS_LDA if int(n_tasks) == 0 else GIBBS_MAX_TOPICS_SUPERVISED
    return "gibbs" if int(n_components) <= limit else "light"


def resolve_sampler(name: str, n_components: int, n_tasks: int) -> str:
    """``name``, or for "auto" the sampler ``choose_sampler`` picks."""
    return choose_sampler(n_components, n_tasks) if name == AUTO else name


def resolve_steps(n_mh: int | str, n_tasks: int, multilabel: bool = False) -> int:
    """``n_mh``, or for "auto" light's MH steps per token for T = ``n_tasks`` tasks:
    ``LIGHT_STEPS_MANY_CLASSES`` for a multi-class model of more than ``MANY_CLASSES`` classes
    (one task per class), else ``LIGHT_STEPS`` (LDA, regression, binary and multi-label models)."""
    if n_mh != AUTO:
        return int(n_mh)
    many = not multilabel and int(n_tasks) > MANY_CLASSES
    return LIGHT_STEPS_MANY_CLASSES if many else LIGHT_STEPS


def describe_choice(model) -> str:
    """How a fitted estimator's sampler was chosen, for a summary line: its ``sampler_`` alone
    when ``sampler`` named it, else e.g. "light (auto: K=100, 20 classes)" (reads ``sampler``,
    ``sampler_``, ``n_components`` and, where it has them, ``classes_`` and ``eta_samples_``)."""
    resolved = getattr(model, "sampler_", model.sampler)
    if model.sampler != AUTO:
        return resolved
    classes = getattr(model, "classes_", None)
    if classes is not None:
        what = f"{len(classes)} classes"
    elif hasattr(model, "eta_samples_"):
        what = "regression"
    else:
        what = "LDA"
    return f"{resolved} (auto: K={model.n_components}, {what})"
