"""Parameters declared once: the estimators' signatures, docstrings, validation and command-line
flags all follow from ``medlda.models.params``; a loss defined in one class is usable everywhere."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import medlda
from medlda.cli import main
from medlda.cli.flags import COMPARED
from medlda.cli.parser import build_parser
from medlda.data.readers import write_bow
from medlda.data.synthetic import make_supervised_corpus
from medlda.io.model_file import load_model
from medlda.losses import LOSSES, Loss
from medlda.models.params import PARAMS, Number, Options

ESTIMATORS = (medlda.LDA, medlda.MedLDAClassifier, medlda.MedLDARegressor)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_signature_docstring_and_params_follow_the_declaration(estimator):
    signature = inspect.signature(estimator)
    assert list(signature.parameters) == list(estimator.parameters)
    for name, param in estimator.parameters.items():
        assert signature.parameters[name].default == param.default
        assert f"{name} : {param.kind}, default={param.default!r}" in estimator.__doc__
    assert estimator().get_params() == {n: p.default for n, p in estimator.parameters.items()}
    assert next(iter(signature.parameters.values())).kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in list(signature.parameters.values())[1:])
    with pytest.raises(TypeError, match=f"{estimator.__name__}: got an unexpected keyword argument 'n_topic'"):
        estimator(n_topic=3)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_every_declared_rule_refuses_a_bad_value_by_name(estimator):
    X = np.array([[2, 1, 0], [0, 1, 3], [1, 0, 2], [3, 0, 1]])
    y = np.array([0, 1, 0, 1])
    for name, param in estimator.parameters.items():
        if isinstance(param.rule, Number):
            bad = (param.rule.low - 1) if param.rule.low is not None else "x"
        elif isinstance(param.rule, Options):
            bad = "no-such-choice"
        else:
            continue
        model = estimator(**{"n_components": 2, "max_iter": 1, name: bad})
        with pytest.raises(ValueError, match=f"^The '{name}' parameter of {estimator.__name__} must be "):
            model.fit(X) if estimator is medlda.LDA else model.fit(X, y)


def test_train_offers_a_flag_for_every_declared_one():
    train = next(a for a in build_parser()._subparsers._group_actions[0].choices.items() if a[0] == "train")[1]
    dests = {action.dest: action for action in train._actions}
    for name, param in PARAMS.items():
        if param.flag is None or name == "n_components":
            continue
        assert param.flag in dests[name].option_strings
        if isinstance(param.rule, Options) and name in COMPARED:  # one or several choices, comma-separated
            assert all(dests[name].type(choice) == [choice] for choice in param.rule.choices())
        elif isinstance(param.rule, Options):
            assert set(param.rule.choices()) <= set(dests[name].choices)


@pytest.fixture
def toy_loss():
    """A loss written as one class, as a user would: a least-squares classifier on the +-1 targets
    (no augmentation: kappa = c y, w = c). Defining it registers it; the fixture removes it after."""

    class ToyLoss(Loss):
        name = "toy"

        def encode(self, indicator):
            return np.where(indicator, 1.0, -1.0)

        def draw_aux(self, omega, y, rng):
            return self.c * y * np.ones_like(omega), self.c * np.ones_like(omega)

    yield ToyLoss
    LOSSES.pop("toy")


def test_a_loss_defined_in_one_class_trains_saves_and_runs_from_the_command_line(toy_loss, tmp_path, capsys):
    corpus, _ = make_supervised_corpus(300, 3, words_per_topic=8, doc_length=30, random_state=0)
    y = corpus.single_labels()
    model = medlda.MedLDAClassifier(3, loss="toy", c=2.0, max_iter=20, random_state=0,
                                    n_infer_burn=5, n_infer_avg=10).fit(corpus, y)
    assert model.score(corpus, y) > 0.8
    model.save(tmp_path / "toy.npz")
    assert np.array_equal(load_model(tmp_path / "toy.npz").predict(corpus), model.predict(corpus))
    write_bow(corpus, tmp_path / "train.txt")
    code = main(["train", "--train", str(tmp_path / "train.txt"), "--loss", "toy", "--topics", "3", "--iters", "5",
                 "--infer-burn", "2", "--infer-avg", "2", "--seed", "0", "--json"])
    assert code == 0 and '"loss": "toy"' in capsys.readouterr().out
