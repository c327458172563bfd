"""Choosing settings on a validation part: several values of --topics, --c, --loss, --epsilon,
--sigma2, --alpha-sum, --background-topics or --combine.

Every combination is trained on the training data less a validation part (``VALIDATION`` of it,
seeded by --seed, stratified by class) and measured there by the task's measure (``SELECT_BY``;
perplexity: the lowest wins; a tie goes to the combination listed first). The best is trained
again on all the training data, measured on the test data (--test or --holdout, never used to
choose) and kept (--out).
"""

from __future__ import annotations

import itertools
import json
from typing import Callable

from medlda.cli.common import CLIError
from medlda.cli.flags import COMPARED, flag_of
from medlda.data.corpus import Corpus

SELECT_BY = {"classification": "accuracy", "multilabel": "f1_micro", "regression": "r2", "unsupervised": "perplexity"}
VALIDATION = 0.2  # the share of the training documents on which the settings are compared
TEST_MEASURES = ("accuracy", "log_loss", "f1_micro", "f1_macro", "r2", "perplexity")  # on --test or --holdout data


def settings_grid(args) -> list[dict]:
    """Every combination of the settings given: estimator parameters, ``n_components`` (--topics)
    and each parameter of ``COMPARED`` given several values, in the order given."""
    axes = {"n_components": args.topics}
    axes.update({name: getattr(args, name) for name in COMPARED
                 if isinstance(getattr(args, name, None), list) and len(getattr(args, name)) > 1})
    return [dict(zip(axes, values)) for values in itertools.product(*axes.values())]


def check_comparison(args) -> None:
    """Several settings need no single-model outputs."""
    for flag, value in (("--checkpoint", args.checkpoint_path), ("--trace", args.trace), ("--resume", args.resume)):
        if value:
            raise CLIError(f"{flag} is for one model; give one value of each setting with it")


def compare_settings(args, train: Corpus, test: Corpus | None, common: dict, fit: Callable) -> int:
    """Choose among ``settings_grid(args)`` on a validation part, refit the best on all of
    ``train`` and test it (see the module docstring); ``fit(args, train, test, common, setting,
    test_name)`` trains one model and returns it and its summary. Prints the comparison (or its
    JSON) and returns the exit status."""
    grid = settings_grid(args)
    fit_part, validation = validation_split(train, args)
    loud = not (args.json or args.quiet)
    if loud:
        print(f"choosing among {len(grid)} {_what(grid)} on a validation part: {validation.n_docs} of the "
              f"{train.n_docs} training documents ({VALIDATION:.0%}), models trained on the other {fit_part.n_docs}",
              flush=True)
    runs, best = [], None
    for setting in grid:
        _, result = fit(args, fit_part, validation, common, setting, f"{args.train} (its validation part)")
        result["measured_on"] = "validation"
        result["setting"] = setting
        runs.append(result)
        key = SELECT_BY[result["task"]]
        score = -result[key] if key == "perplexity" else result[key]
        if best is None or score > best[0]:
            best = (score, setting)
        if loud:
            print(comparison_line(result, setting, key), flush=True)
    key, chosen = SELECT_BY[runs[0]["task"]], best[1]
    if not args.json:
        print(f"best: {describe(chosen)} by validation {key.replace('_', ' ')}; trained again on all "
              f"{train.n_docs} training documents", flush=True)
    model, final = fit(args, train, test, common, chosen, None)
    tested = "holdout" if args.holdout is not None else "test"
    if test is not None:
        final["measured_on"] = tested
    out = {"runs": runs, "selected_by": key, "best": chosen, "best_n_topics": chosen["n_components"],
           "validation": {"fraction": VALIDATION, "n_docs": validation.n_docs, "n_fit_docs": fit_part.n_docs,
                          "seed": args.random_state},
           "final": final}
    if args.out:
        model.save(args.out)
        out["model"] = args.out
    if args.json:
        print(json.dumps(out))
        return 0
    for measure in TEST_MEASURES:
        if measure in final:
            print(f"{tested} {measure.replace('_', ' ')}: {final[measure]:.4f} (of the model with {describe(chosen)}; "
                  "this data was not used to choose)")
    if args.out:
        print(f"saved to {args.out}")
    return 0


def validation_split(train: Corpus, args) -> tuple[Corpus, Corpus]:
    """(fit part, validation part) of the training data."""
    n_val = int(round(VALIDATION * train.n_docs))
    if not 1 <= n_val < train.n_docs:
        raise CLIError(f"several settings are compared on a validation part of {VALIDATION:.0%} of the training "
                       f"documents, and {train.n_docs} leave none: give more documents or one value of each")
    return train.holdout(n_val, random_state=args.random_state, stratify=not args.unsupervised)


def describe(setting: dict) -> str:
    """A setting in words: '20 topics, --c 0.5, --loss logistic'."""
    parts = [f"{setting['n_components']} topics"]
    parts += [f"{flag_of(name)} {value}" for name, value in setting.items() if name != "n_components"]
    return ", ".join(parts)


def comparison_line(result: dict, setting: dict, key: str) -> str:
    """One setting of a comparison: its measure on the validation part, coherence and training time."""
    npmi = f", coherence npmi {result['coherence_npmi']:+.3f}" if "coherence_npmi" in result else ""
    return (f"{describe(setting):>12}: validation {key.replace('_', ' ')} {result[key]:.4f}{npmi}, "
            f"trained in {result['train_seconds']:.1f} s")


def _what(grid: list[dict]) -> str:
    """What is compared: 'numbers of topics' when only K varies, else 'settings'."""
    return "numbers of topics" if all(len(s) == 1 for s in grid) else "settings"
