"""``sampler="auto"``: the rule (``medlda.samplers.choice``), and what a fit and a model file keep
of it (the parameter untouched, the resolved sampler in ``sampler_``)."""

from __future__ import annotations

import pytest

import medlda.samplers.choice as choice
from medlda import LDA, MedLDAClassifier, MedLDARegressor
from medlda.io.model_file import load_model
from medlda.samplers import choose_sampler, describe_choice, resolve_sampler


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
    assert "sampler: gibbs\n" in out and "auto" not in out
