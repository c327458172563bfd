"""Hostile hyperparameters: infinite, NaN, negative, zero where not allowed, huge integers, sweeps
past limits.SWEEPS and topic counts whose arrays pass limits.CELLS, in Python and on the command
line. Each is refused before any work with a scikit-learn-style message naming the parameter
(or the flag), and a limit's message names its environment variable."""

from __future__ import annotations

import argparse
import math
import numbers
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import medlda
from medlda.cli import main
from medlda.cli.flags import real_in
from medlda.exceptions import LimitError
from medlda.models.params import PARAMS, REGRESSOR_PARAMS, Number

ESTIMATORS = (medlda.LDA, medlda.MedLDAClassifier, medlda.MedLDARegressor)
X = np.array([[2, 1, 0], [0, 1, 3], [1, 0, 2], [3, 0, 1]])
Y = np.array([0, 1, 0, 1])
NUMBERS = {name: p for name, p in [*PARAMS.items(), *REGRESSOR_PARAMS.items()] if isinstance(p.rule, Number)}


def fit(estimator, **params):
    model = estimator(**{"n_components": 2, "max_iter": 1, **params})
    return model.fit(X) if estimator is medlda.LDA else model.fit(X, Y)


def test_the_message_is_scikit_learn_style():
    with pytest.raises(ValueError, match=r"^The 'alpha_sum' parameter of MedLDAClassifier must be a float in the "
                                         r"range \[1e-50, 1e\+50\]\. Got inf instead\.$"):
        fit(medlda.MedLDAClassifier, alpha_sum=float("inf"))


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("value", [float("inf"), -float("inf"), float("nan"), 10 ** 400, -1, 0, "1", True, None])
def test_every_number_refuses_infinite_nan_negative_and_other_types(estimator, value):
    """Every numeric parameter of every estimator: inf, -inf, NaN, an integer beyond float64 and
    non-numbers are refused; -1 and 0 where below the bound."""
    for name in estimator.parameters:
        rule = estimator.parameters[name].rule
        if not isinstance(rule, Number) or (isinstance(value, int) and not isinstance(value, bool)
                                            and value in (-1, 0) and rule.in_range(value)):
            continue
        with pytest.raises(ValueError, match=f"^The '{name}' parameter of {estimator.__name__} must be "):
            fit(estimator, **{name: value})


def test_c_inf_is_refused_not_a_sampler_failure():
    """An infinite, NaN or overflowing c is refused by name for each loss, before any aux draw."""
    for estimator, loss in [(medlda.MedLDAClassifier, "hinge"), (medlda.MedLDAClassifier, "logistic"),
                            (medlda.MedLDARegressor, "epsilon"), (medlda.MedLDARegressor, "squared")]:
        for value in (float("inf"), float("nan"), 1e300):
            with pytest.raises(ValueError, match=f"The 'c' parameter of {estimator.__name__} must be"):
                fit(estimator, c=value, loss=loss)


@pytest.mark.parametrize("name", ["max_iter", "n_mh", "n_gibbs", "n_infer_burn", "n_infer_avg"])
def test_sweeps_are_bounded_by_the_limit_and_its_variable(name, monkeypatch):
    monkeypatch.setenv("MEDLDA_MAX_SWEEPS", "1000")
    param = PARAMS[name]
    param.check(1000)
    with pytest.raises(LimitError, match=rf"^The '{name}' parameter of MedLDAClassifier: number of sweeps 1,001 "
                                         r"exceeds the limit of 1,000 \(set the environment variable "
                                         r"MEDLDA_MAX_SWEEPS to raise it\)$"):
        param.check(1001, "MedLDAClassifier")
    monkeypatch.delenv("MEDLDA_MAX_SWEEPS")
    with pytest.raises(LimitError, match="MEDLDA_MAX_SWEEPS"):
        fit(medlda.MedLDAClassifier, **{name: 10 ** 12})


@pytest.mark.parametrize("estimator, params, what", [
    (medlda.LDA, dict(n_components=10 ** 9), r"topics x words"),
    (medlda.MedLDAClassifier, dict(n_components=10 ** 6, sampler="gibbs"), r"the exact eta draw's tasks x topics x topics"),
    (medlda.MedLDARegressor, dict(n_components=10 ** 6, sampler="gibbs"), r"the exact eta draw's tasks x topics x topics"),
    (medlda.MedLDAClassifier, dict(n_components=10 ** 6, sampler="light", eta_draw="exact"), r"the exact eta draw"),
    (medlda.MedLDAClassifier, dict(n_components=10 ** 9, sampler="light"), r"topics x words"),
    (medlda.MedLDARegressor, dict(n_components=10, n_chains=10 ** 9, sampler="light"), r"topics x words"),
])
def test_huge_topic_counts_are_refused_before_allocating(estimator, params, what):
    """The 7 TiB of --topics 1000000 (the eta draw's K x K statistics) and the other arrays are
    refused before the fit allocates anything of their size (peak under 10 MB)."""
    tracemalloc.start()
    try:
        with pytest.raises(LimitError, match=rf"n_components={params['n_components']}.*\({what}.*number of array cells "
                                             r"[\d,]+ exceeds the limit of [\d,]+ \(set the environment variable "
                                             r"MEDLDA_MAX_CELLS to raise it\)"):
            fit(estimator, **params)
        assert tracemalloc.get_traced_memory()[1] < 10 * 2 ** 20
    finally:
        tracemalloc.stop()


def test_documents_times_topics_is_bounded(monkeypatch):
    monkeypatch.setenv("MEDLDA_MAX_CELLS", "30")
    with pytest.raises(LimitError, match=r"LDA with n_components=8 on 4 documents \(documents x topics\): number of "
                                         r"array cells 32 exceeds the limit of 30"):
        fit(medlda.LDA, n_components=8, sampler="light")  # 8 x 3 words = 24 cells pass


@settings(max_examples=300, deadline=None, derandomize=True)
@given(value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10 ** 30, 10 ** 400),
                       st.sampled_from(["auto", "inf", "", "1"])),
       name=st.sampled_from(sorted(NUMBERS)))
def test_a_rule_accepts_exactly_finite_numbers_in_range(value, name):
    """Property: a numeric rule accepts a value iff it is of the rule's type, finite, and within
    its bounds ('auto' where allowed); the command line's parser of the flag agrees with it."""
    rule = NUMBERS[name].rule
    kind = numbers.Integral if rule.integer else numbers.Real
    finite = isinstance(value, kind) and not isinstance(value, bool) and _float64(value) is not None
    expected = (rule.auto and value == "auto") or (
        finite and (rule.low is None or (value > rule.low if rule.open else value >= rule.low))
        and (rule.upper() is None or value <= rule.upper()))
    assert rule.accepts(value) == expected
    if not rule.integer and not isinstance(value, str):
        parse = real_in(rule)
        text = repr(_float64(value)) if _float64(value) is not None else ("nan" if value != value else "-1e400")
        if rule.accepts(float(text)):
            assert parse(text) == float(text)
        else:
            with pytest.raises(argparse.ArgumentTypeError, match="must be"):
                parse(text)


def _float64(value) -> float | None:
    """``value`` as a finite float64, or None (infinite, NaN, or an integer too large for one)."""
    try:
        value = float(value)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


@pytest.mark.parametrize("flag, value, match", [
    ("--c", "inf", "argument --c: must be 'auto' or a float in the range (0, 1e+50], got inf"),
    ("--c", "nan", "argument --c: must be 'auto' or a float in the range (0, 1e+50], got nan"),
    ("--alpha-sum", "inf", "argument --alpha-sum: must be a float in the range [1e-50, 1e+50], got inf"),
    ("--beta", "inf", "argument --beta: must be a float in the range [1e-50, 1e+50], got inf"),
    ("--beta", "-0.01", "argument --beta: must be a float in the range [1e-50, 1e+50], got -0.01"),
    ("--beta", "0", "argument --beta: must be a float in the range [1e-50, 1e+50], got 0"),
    ("--sigma2", "1e-400", "argument --sigma2: must be a float in the range [1e-50, 1e+50], got 1e-400"),
    ("--epsilon", "-1", "argument --epsilon: must be a float in the range [0, inf), got -1"),
    ("--margin", "1e999", "argument --margin: must be 'auto' or a float in the range [0, inf), got 1e999"),
    ("--iters", "10000000", "argument --iters/--max-iter: number of sweeps 10,000,000 exceeds the limit of 1,000,000 "
                            "(set the environment variable MEDLDA_MAX_SWEEPS to raise it)"),
    ("--infer-burn", "1000000000000", "argument --infer-burn: number of sweeps 1,000,000,000,000 exceeds the limit"),
])
def test_the_command_line_refuses_them_by_flag_before_reading(capsys, flag, value, match):
    with pytest.raises(SystemExit) as stop:
        main(["train", "--train", "no-such-file.txt", flag, value])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and match in err and "Traceback" not in err


def test_the_command_line_refuses_a_million_topics_in_one_line(capsys, bow_files):
    code = main(["train", "--train", str(bow_files[0]), "--topics", "1000000", "--iters", "1", "--sampler", "gibbs"])
    err = "".join(line for line in capsys.readouterr().err.splitlines(True) if not line.endswith(" ...\n"))  # stages
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("medlda: error: MedLDAClassifier with n_components=1000000")
    assert "MEDLDA_MAX_CELLS" in err
