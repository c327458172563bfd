"""``sampler="auto"``: the rule (``medlda.samplers.choice``), and what a fit and a model file keep
of it (the parameter untouched, the resolved sampler in ``sampler_``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import medlda.samplers.choice as choice
from medlda import LDA, MedLDAClassifier, MedLDARegressor
from medlda.exceptions import ModelFileError
from medlda.io.model_file import load_model
from medlda.samplers import choose_sampler, describe_choice, resolve_sampler, resolve_steps


def test_gibbs_up_to_the_measured_number_of_topics_then_light():
    lda, supervised = choice.GIBBS_MAX_TOPICS_LDA, choice.GIBBS_MAX_TOPICS_SUPERVISED
    assert supervised < lda  # task terms make gibbs's sweep dearer
    assert choose_sampler(lda, 0) == "gibbs" and choose_sampler(lda + 1, 0) == "light"
    for n_tasks in (1, 2, 20):
        assert choose_sampler(supervised, n_tasks) == "gibbs" and choose_sampler(supervised + 1, n_tasks) == "light"
    assert choose_sampler(2, 0) == "gibbs" and choose_sampler(1000, 20) == "light"
    assert resolve_sampler("blocked", 1000, 0) == "blocked" and resolve_sampler("auto", 1001, 0) == "light"
    assert {choose_sampler(k, t) for k in (2, 10, 100, 1000) for t in (0, 1, 20)} == {"gibbs", "light"}


def test_auto_is_every_estimators_default_and_sampler_underscore_is_what_ran(binary_corpus, monkeypatch):
    corpus, _ = binary_corpus
    y = corpus.single_labels()
    for cls in (LDA, MedLDAClassifier, MedLDARegressor):
        assert cls().get_params()["sampler"] == "auto"
    model = MedLDAClassifier(4, max_iter=2, random_state=0).fit(corpus, y)
    assert model.get_params()["sampler"] == "auto" and model.sampler_ == choose_sampler(4, 1) == "gibbs"
    assert describe_choice(model) == "gibbs (auto: K=4, 2 classes)"
    explicit = LDA(4, max_iter=2, sampler="gibbs", random_state=0).fit(corpus)
    assert explicit.sampler_ == "gibbs" and describe_choice(explicit) == "gibbs"
    monkeypatch.setattr(choice, "GIBBS_MAX_TOPICS_LDA", 3)  # K = 4 is "large": auto takes light
    lda = LDA(4, max_iter=2, random_state=0).fit(corpus)
    assert lda.sampler == "auto" and lda.sampler_ == "light" and describe_choice(lda) == "light (auto: K=4, LDA)"


def test_a_model_file_keeps_the_resolved_sampler(binary_corpus, tmp_path):
    corpus, _ = binary_corpus
    model = MedLDAClassifier(4, max_iter=2, random_state=0).fit(corpus, corpus.single_labels())
    model.save(tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert loaded.sampler == "auto" and loaded.sampler_ == model.sampler_ == "gibbs"


def test_one_vs_rest_keeps_its_binary_models_sampler(multiclass_corpus):
    corpus, _ = multiclass_corpus
    model = MedLDAClassifier(4, max_iter=2, strategy="ovr", n_jobs=1, random_state=0)
    model.fit(corpus, corpus.single_labels())
    assert model.sampler_ == choose_sampler(4, 1) == model.estimators_[0].sampler_ == "gibbs"


@pytest.mark.parametrize("sampler", ["gibbs", "light", "blocked"])
def test_a_named_sampler_is_used_as_named(sampler):
    assert resolve_sampler(sampler, 2, 0) == resolve_sampler(sampler, 5000, 20) == sampler


def test_the_command_line_says_which_sampler_auto_took(capsys):
    import json

    from medlda.cli import main

    assert main(["demo", "--docs", "100", "--iters", "1", "--topics", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["sampler"] == "gibbs" and result["sampler_choice"] == "gibbs (auto: K=3, 2 classes)"
    assert main(["demo", "--docs", "100", "--iters", "1", "--topics", "3", "--sampler", "gibbs"]) == 0
    out = capsys.readouterr().out
    assert "sampler: gibbs\n" in out and "auto" not in out and "MH steps" not in out
    assert main(["demo", "--docs", "100", "--iters", "1", "--topics", "3", "--sampler", "light"]) == 0
    assert "sampler: light, 6 MH steps per token\n" in capsys.readouterr().out


def test_light_takes_more_steps_past_the_measured_number_of_classes():
    few, many = choice.LIGHT_STEPS, choice.LIGHT_STEPS_MANY_CLASSES
    assert few < many
    for n_tasks in (0, 1, choice.MANY_CLASSES):
        assert resolve_steps("auto", n_tasks) == few
    assert resolve_steps("auto", choice.MANY_CLASSES + 1) == resolve_steps("auto", 52) == many
    assert resolve_steps("auto", 90, multilabel=True) == few  # weaker label terms: more steps did not help
    assert resolve_steps(3, 90) == resolve_steps(3, 0) == 3


def _edit_metadata(src, dst, edit) -> None:
    """A copy of model file ``src`` with ``edit(metadata)`` applied."""
    with np.load(src, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(arrays["__metadata__"].tobytes())
    edit(meta)
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(dst, **arrays)


class _Compiled(Exception):
    """Raised by the sweeps' spy once it has seen what a fit asks for."""


def test_a_fit_runs_the_steps_its_classes_resolve_to_and_keeps_auto(multiclass_corpus, multilabel_corpus, monkeypatch,
                                                                    tmp_path):
    """Three classes with MANY_CLASSES lowered to 2: a light fit asks for the many-class steps, a
    one-vs-rest model's binary models and a multi-label model for the few; ``n_mh_`` says so,
    before and after a file."""
    import medlda.samplers.light as light

    corpus, _ = multiclass_corpus
    y = corpus.single_labels()
    monkeypatch.setattr(choice, "MANY_CLASSES", 2)
    monkeypatch.setattr(choice, "LIGHT_STEPS_MANY_CLASSES", 7)
    asked = []

    def spy(mode, tasks, n_mh):
        asked.append(n_mh)
        raise _Compiled

    monkeypatch.setattr(light, "sweeps_for", spy)
    with pytest.raises(_Compiled):
        MedLDAClassifier(4, max_iter=2, sampler="light", random_state=0).fit(corpus, y)
    assert asked == [7]
    monkeypatch.undo()
    monkeypatch.setattr(choice, "MANY_CLASSES", 2)
    model = MedLDAClassifier(4, max_iter=2, sampler="gibbs", random_state=0).fit(corpus, y)
    assert model.get_params()["n_mh"] == "auto" and model.n_mh_ == choice.LIGHT_STEPS_MANY_CLASSES
    model.save(tmp_path / "m.npz")
    assert load_model(tmp_path / "m.npz").n_mh_ == choice.LIGHT_STEPS_MANY_CLASSES
    _edit_metadata(tmp_path / "m.npz", tmp_path / "bare.npz", lambda meta: meta.pop("n_mh"))
    with pytest.raises(ModelFileError, match="n_mh 'auto' needs n_mh in the metadata"):
        load_model(tmp_path / "bare.npz")
    # a file that does not keep n_mh_ names its steps in its params
    _edit_metadata(tmp_path / "m.npz", tmp_path / "old.npz",
                   lambda meta: (meta.pop("n_mh"), meta["params"].update(n_mh=6)))
    assert load_model(tmp_path / "old.npz").n_mh_ == 6
    ovr = MedLDAClassifier(4, max_iter=2, sampler="gibbs", strategy="ovr", n_jobs=1, random_state=0).fit(corpus, y)
    assert ovr.n_mh_ == choice.LIGHT_STEPS
    ovr.save(tmp_path / "ovr.npz")
    assert load_model(tmp_path / "ovr.npz").n_mh_ == choice.LIGHT_STEPS
    assert MedLDAClassifier(4, max_iter=2, n_mh=5, random_state=0).fit(corpus, y).n_mh_ == 5
    labels, truth = multilabel_corpus
    multilabel = MedLDAClassifier(4, max_iter=2, sampler="gibbs", random_state=0).fit(labels, truth.Y)
    assert multilabel.multilabel_ and multilabel.n_mh_ == choice.LIGHT_STEPS
    multilabel.save(tmp_path / "multilabel.npz")
    assert load_model(tmp_path / "multilabel.npz").n_mh_ == choice.LIGHT_STEPS
