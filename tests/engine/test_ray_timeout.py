"""A Ray worker that stops responding (SIGSTOP: alive, silent) ends a data-parallel run within the
round-trip timeout (MEDLDA_RAY_TIMEOUT) with the message a dead worker gives, naming the
checkpoint to resume from; on a real local Ray cluster with 2 CPUs. Skipped without Ray."""

from __future__ import annotations

import os
import signal
import time

import pytest

from medlda import MedLDAClassifier
from medlda.data.synthetic import make_supervised_corpus
from medlda.engine.ray import RayBackend, WorkerLostError
from medlda.exceptions import LimitError

TIMEOUT = 3  # seconds, from the third iteration on; the default (limits.RAY_SECONDS) is 600
MARGIN = 20  # seconds past the timeout for the driver to notice, kill the workers and raise


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_a_frozen_worker_ends_the_run_like_a_dead_one(ray, monkeypatch, tmp_path):
    corpus, _ = make_supervised_corpus(600, 4, words_per_topic=10, doc_length=30, random_state=2)
    y = corpus.single_labels()
    monkeypatch.setenv("MEDLDA_RAY_TIMEOUT", "300")  # start-up and the workers' first compiles take longer
    iterate = RayBackend.iterate
    frozen: dict = {}

    def freeze_at_three(self, iteration, *args):
        if iteration == 3:  # worker 1 answers no more: stopped, not dead
            assert self.timeout == 300
            self.timeout = TIMEOUT
            frozen["pid"] = ray.get(self.workers[1].pid.remote())
            os.kill(frozen["pid"], signal.SIGSTOP)
            frozen["at"] = time.monotonic()
        return iterate(self, iteration, *args)

    monkeypatch.setattr(RayBackend, "iterate", freeze_at_three)
    path = tmp_path / "dp.ckpt"
    try:
        with pytest.raises(WorkerLostError, match=r"Ray worker 1 \(documents \d+\.\.599, \d+ tokens\) stopped "
                                                  r"responding during iteration 3 \(no answer within 3 s; set the "
                                                  r"environment variable MEDLDA_RAY_TIMEOUT to wait longer\); its "
                                                  r"shard's assignments are lost, so training stopped; the last "
                                                  r"checkpoint is .*dp\.ckpt: resume from it"):
            MedLDAClassifier(4, max_iter=6, sampler="gibbs", random_state=0, backend="ray", n_workers=2,
                             checkpoint_every=2, checkpoint_path=path).fit(corpus, y)
        waited = time.monotonic() - frozen["at"]
        assert TIMEOUT <= waited < TIMEOUT + MARGIN
        assert path.exists()
    finally:
        pid = frozen.get("pid")
        if pid is not None and _alive(pid):  # the run killed its workers; if this one lingers, end it
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGKILL)


def test_a_malformed_timeout_is_refused_before_ray_starts(monkeypatch):
    corpus, _ = make_supervised_corpus(40, 2, words_per_topic=5, doc_length=10, random_state=0)
    monkeypatch.setenv("MEDLDA_RAY_TIMEOUT", "soon")
    with pytest.raises(LimitError, match="MEDLDA_RAY_TIMEOUT='soon' is not an integer"):
        MedLDAClassifier(2, max_iter=2, backend="ray").fit(corpus, corpus.single_labels())
