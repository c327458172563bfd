"""Checkpoints: a run killed (SIGKILL, or an exception) and resumed ends with the same model as an
uninterrupted run with the same seed; a checkpoint of another corpus or configuration is refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from crashes import Crash, crash_after, crash_then_resume
from medlda import LDA, MedLDAClassifier
from medlda.cli import main
from medlda.data.readers import write_bow
from medlda.data.synthetic import make_supervised_corpus
from medlda.engine.checkpoint import CheckpointError
from medlda.io.model_file import load_model


@pytest.fixture(scope="module")
def small():
    corpus, _ = make_supervised_corpus(300, 5, words_per_topic=10, doc_length=40, random_state=0)
    return corpus, corpus.single_labels()


def _check_stored(path, iteration: int) -> None:
    assert _stored_iteration(path) == iteration


def _stored_iteration(path) -> int:
    with np.load(path, allow_pickle=False) as archive:
        return json.loads(archive["__metadata__"].tobytes())["iteration"]




# light collapsed at K = 30: its hashes, rebuilt from the counts, would lay their slots out in
# another order than the run's history did, and order the word tables otherwise (K = 5 hides it)
@pytest.mark.parametrize("sampler,variant,phi_every,n_topics", [
    ("gibbs", "partial", 1, 5), ("light", "partial", 1, 5), ("light", "partial", 3, 5), ("light", "collapsed", 1, 5),
    ("light", "collapsed", 1, 30)])
def test_crashed_and_resumed_fit_equals_uninterrupted(tmp_path, monkeypatch, small, sampler, variant, phi_every,
                                                      n_topics):
    corpus, y = small
    kw = dict(max_iter=9, sampler=sampler, light_variant=variant, random_state=1, n_eta_avg=4, phi_every=phi_every)
    reference = MedLDAClassifier(n_topics, **kw).fit(corpus, y)
    path = tmp_path / "run.ckpt"

    def fit(resume):
        return MedLDAClassifier(n_topics, checkpoint_every=3, checkpoint_path=path, resume=resume, **kw).fit(corpus, y)

    resumed = crash_then_resume(monkeypatch, fit, 6, between=lambda: _check_stored(path, 6))
    assert resumed.fit_stats_["resumed_from_iteration"] == 6
    np.testing.assert_array_equal(resumed.topic_word_counts_, reference.topic_word_counts_)
    np.testing.assert_array_equal(resumed.eta_samples_, reference.eta_samples_)
    assert [e["iteration"] for e in resumed.trace_] == list(range(1, 10))
    assert resumed.train_accuracy_ == reference.train_accuracy_


def test_a_checkpoint_whose_hash_does_not_fit_the_corpus_is_refused(tmp_path, monkeypatch, small):
    """Light collapsed's hashes come back from the checkpoint as they were; a tampered one is refused."""
    corpus, y = small
    kw = dict(max_iter=6, sampler="light", light_variant="collapsed", random_state=1, checkpoint_every=3,
              checkpoint_path=tmp_path / "c")
    crash_after(monkeypatch, 3)
    with pytest.raises(Crash):
        MedLDAClassifier(30, **kw).fit(corpus, y)
    monkeypatch.undo()
    with np.load(tmp_path / "c", allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    assert arrays["sampler.word_meta"].shape == (corpus.n_words, 8)
    arrays["sampler.word_meta"] = arrays["sampler.word_meta"][:-1]
    with open(tmp_path / "c", "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(CheckpointError, match="the sampler's arrays in the checkpoint do not fit"):
        MedLDAClassifier(30, **kw, resume=True).fit(corpus, y)


def test_checkpoints_must_fall_where_phi_is_drawn(tmp_path, small):
    corpus, y = small
    with pytest.raises(ValueError, match=r"checkpoint_every \(4\) must be a multiple of phi_every \(3\)"):
        MedLDAClassifier(5, sampler="light", light_variant="partial", phi_every=3, checkpoint_every=4,
                         checkpoint_path=tmp_path / "c").fit(corpus, y)
    with pytest.raises(ValueError, match="'phi_every' parameter of MedLDAClassifier must be"):
        MedLDAClassifier(5, sampler="light", light_variant="partial", phi_every=0).fit(corpus, y)


def test_unsupervised_resume(tmp_path, monkeypatch, small):
    corpus, _ = small
    kw = dict(max_iter=6, sampler="light", random_state=2)
    reference = LDA(5, **kw).fit(corpus)
    resumed = crash_then_resume(
        monkeypatch, lambda resume: LDA(5, checkpoint_every=2, checkpoint_path=tmp_path / "c", resume=resume,
                                        **kw).fit(corpus), 2)
    np.testing.assert_array_equal(resumed.topic_word_counts_, reference.topic_word_counts_)
    np.testing.assert_array_equal(resumed.transform(corpus), reference.transform(corpus))


def test_resume_refuses_other_corpus_or_configuration(tmp_path, small):
    corpus, y = small
    path = tmp_path / "run.ckpt"
    MedLDAClassifier(5, max_iter=2, checkpoint_every=2, checkpoint_path=path, random_state=0).fit(corpus, y)
    with pytest.raises(CheckpointError, match=r"another configuration \(n_components=5 in the checkpoint, 6 now\)"):
        MedLDAClassifier(6, max_iter=2, checkpoint_path=path, resume=True, random_state=0).fit(corpus, y)
    with pytest.raises(CheckpointError, match="different corpus"):
        MedLDAClassifier(5, max_iter=2, checkpoint_path=path, resume=True, random_state=0).fit(corpus, 1 - y)
    other, _ = make_supervised_corpus(300, 5, words_per_topic=10, doc_length=40, random_state=9)
    with pytest.raises(CheckpointError, match="different corpus"):
        MedLDAClassifier(5, max_iter=2, checkpoint_path=path, resume=True, random_state=0).fit(other, y)
    with pytest.raises(CheckpointError, match="different corpus"):  # sample weights change the task
        MedLDAClassifier(5, max_iter=2, checkpoint_path=path, resume=True, random_state=0).fit(
            corpus, y, sample_weight=np.full(corpus.n_docs, 2.0))
    with pytest.raises(CheckpointError, match="written by MedLDAClassifier, not LDA; resume with the estimator"):
        LDA(5, max_iter=2, checkpoint_path=path, resume=True, random_state=0).fit(corpus)
    # settings that do not change the chain may differ
    MedLDAClassifier(5, max_iter=2, checkpoint_path=path, resume=True, random_state=0, verbose=0,
                     n_infer_burn=3).fit(corpus, y)


def test_checkpoint_file_is_plain_npz_and_foreign_files_are_refused(tmp_path, small):
    corpus, y = small
    path = tmp_path / "run.ckpt"
    MedLDAClassifier(5, max_iter=4, checkpoint_every=2, checkpoint_path=path, random_state=0).fit(corpus, y)
    with np.load(path, allow_pickle=False) as archive:
        assert {"z", "streams", "eta", "kept_eta", "__metadata__"} <= set(archive.files)
        meta = json.loads(archive["__metadata__"].tobytes())
        assert archive["z"].dtype == np.int32 and archive["z"].size == corpus.n_tokens
    assert meta["iteration"] == 4 and meta["rng_state"]["bit_generator"] == "PCG64"
    assert not list(tmp_path.glob(".*tmp"))  # the atomic writer left no temporary behind
    (tmp_path / "foreign").write_text("not a checkpoint")
    with pytest.raises(CheckpointError, match="not a medlda checkpoint"):
        MedLDAClassifier(5, max_iter=4, checkpoint_path=tmp_path / "foreign", resume=True).fit(corpus, y)
    with pytest.raises(ValueError, match="need a checkpoint_path"):
        MedLDAClassifier(5, checkpoint_every=2).fit(corpus, y)


@pytest.fixture(scope="module")
def bow_train(tmp_path_factory):
    corpus, _ = make_supervised_corpus(1000, 10, words_per_topic=20, doc_length=100, random_state=5)
    return write_bow(corpus, tmp_path_factory.mktemp("kill") / "train.txt")


@pytest.mark.slow
def test_sigkilled_cli_run_resumes_to_the_uninterrupted_model(tmp_path, bow_train, capsys):
    args = ["train", "--train", str(bow_train), "--topics", "10", "--iters", "30", "--seed", "4",
            "--sampler", "light", "--quiet"]
    ckpt, killed_model, full_model = tmp_path / "run.ckpt", tmp_path / "resumed.npz", tmp_path / "full.npz"
    run_args = args + ["--checkpoint-every", "2", "--checkpoint", str(ckpt), "--out", str(killed_model)]
    proc = subprocess.Popen([sys.executable, "-m", "medlda", *run_args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not ckpt.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()
    assert not killed_model.exists()
    stopped_at = _stored_iteration(ckpt)
    assert 2 <= stopped_at < 30

    assert main(run_args + ["--resume"]) == 0
    assert main(args + ["--out", str(full_model)]) == 0
    resumed, full = load_model(killed_model), load_model(full_model)
    assert resumed.fit_stats_["resumed_from_iteration"] >= stopped_at
    assert "resumed_from_iteration" not in full.fit_stats_
    np.testing.assert_array_equal(resumed.topic_word_counts_, full.topic_word_counts_)
    np.testing.assert_array_equal(resumed.eta_samples_, full.eta_samples_)

    capsys.readouterr()
    assert main(args[:4] + ["12"] + args[5:] + ["--checkpoint", str(ckpt), "--resume"]) == 2
    assert "another configuration (n_components=10 in the checkpoint, 12 now)" in capsys.readouterr().err
    os.replace(ckpt, tmp_path / "gone")
    loud = [a for a in run_args if a != "--quiet"]
    assert main(loud + ["--resume"]) == 0  # no checkpoint yet: starts from the first iteration
    assert "no checkpoint yet, starting from the first iteration" in capsys.readouterr().err


def test_checkpoint_into_a_missing_directory_fails_before_the_first_iteration(tmp_path, monkeypatch, small):
    corpus, y = small
    from medlda.models import base

    def no_train(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(base, "train", no_train)
    model = MedLDAClassifier(3, max_iter=4, checkpoint_every=2, checkpoint_path=tmp_path / "no" / "run.ckpt")
    with pytest.raises(FileNotFoundError, match="directory .*no does not exist"):
        model.fit(corpus, y)
