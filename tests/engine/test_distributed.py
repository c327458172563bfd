"""Data-parallel training on a real local Ray cluster (2 CPUs), not a mock: accuracy against the
single-process chain, count invariants across shards, a killed worker, checkpoints, mmap shards.
Skipped when Ray is not installed (pip install 'medlda[ray]'); the tests on the cluster are slow."""

from __future__ import annotations

import numpy as np
import pytest

from crashes import Crash, crash_after
from medlda import MedLDAClassifier
from medlda._kernels.rng import DOCS_PER_STREAM
from medlda.data.synthetic import make_supervised_corpus
from medlda.engine import ray as distributed
from medlda.engine.loop import Supervision
from medlda.engine.ray import RayBackend, WorkerLostError, shard_bounds
from medlda.engine.ray_worker import compress_change, merge_change, sum_changes
from medlda.losses import make_loss
from medlda.samplers import make_sampler


@pytest.fixture(scope="module")
def data():
    corpus, _ = make_supervised_corpus(1500, 5, words_per_topic=15, doc_length=50, random_state=3)
    y = corpus.single_labels()
    return corpus.subset(np.arange(1000)), y[:1000], corpus.subset(np.arange(1000, 1500)), y[1000:]


KW = dict(max_iter=30, sampler="light", random_state=0, c=1.0, margin=1.0, alpha_sum=1.0)


def test_shards_are_stream_aligned_and_token_balanced():
    lengths = np.r_[np.full(600, 10), np.full(600, 30)]
    doc_ptr = np.concatenate(([0], np.cumsum(lengths)))
    bounds = shard_bounds(doc_ptr, 2)
    assert bounds[0][0] == 0 and bounds[-1][1] == 1200
    assert all(b0[1] == b1[0] for b0, b1 in zip(bounds, bounds[1:]))
    assert all(a % DOCS_PER_STREAM == 0 for a, _ in bounds)
    tokens = [doc_ptr[b] - doc_ptr[a] for a, b in bounds]
    assert max(tokens) < 0.65 * doc_ptr[-1]  # cut near the token median (768), not the doc median
    assert shard_bounds(doc_ptr[:101], 4) == [(0, 100)]  # one stream block: one shard


@pytest.mark.parametrize("n_changed", [3, 400])  # sparse and dense forms of a count change
def test_count_changes_merge_exactly(n_changed):
    rng = np.random.default_rng(n_changed)
    delta = np.zeros((40, 10), np.int32)
    delta.reshape(-1)[rng.choice(400, n_changed, replace=False)] = rng.integers(-3, 4, n_changed)
    change = compress_change(delta)
    assert ("dense" in change) == (n_changed == 400)
    counts = rng.integers(5, 9, size=(40, 10)).astype(np.int32)
    expected = counts + delta
    merge_change(counts, change)
    np.testing.assert_array_equal(counts, expected)


@pytest.mark.parametrize("n_changed", [3, 80, 400])  # sparse changes summing to a sparse, a dense; dense ones
def test_summed_count_changes_are_the_sum(n_changed):
    rng = np.random.default_rng(n_changed)
    deltas = np.zeros((3, 40, 10), np.int32)
    for delta in deltas:
        delta.reshape(-1)[rng.choice(400, n_changed, replace=False)] = rng.integers(-3, 4, n_changed)
    deltas[2].reshape(-1)[:5] = -deltas[:2].sum(axis=0).reshape(-1)[:5]  # cells whose changes cancel
    total = sum_changes([compress_change(delta) for delta in deltas], np.zeros((40, 10), np.int32))
    assert ("dense" in total) == (n_changed > 3)
    counts = rng.integers(5, 9, size=(40, 10)).astype(np.int32)
    expected = counts + deltas.sum(axis=0)
    merge_change(counts, total)
    np.testing.assert_array_equal(counts, expected)
    if "values" in total:
        assert total["values"].dtype == np.int32 and np.all(total["values"] != 0)
        assert np.all(np.diff(total["index"]) > 0)


@pytest.mark.slow
def test_dp_accuracy_close_to_single_process(ray, data):
    """The exact DP scheme (partially collapsed light: workers sample against one broadcast phi).
    The collapsed variant's DP scheme is approximate (stale snapshots); its accuracy is measured
    in the issue note, not asserted here."""
    train, y, test, y_test = data
    # 60 iterations: after 30 a chain may still hold two classes in one topic (exact Gibbs too,
    # one seed in six: 0.922), a local mode that says nothing about the DP scheme
    kw = dict(KW, max_iter=60)
    local = MedLDAClassifier(5, light_variant="partial", **kw).fit(train, y)
    dp = MedLDAClassifier(5, backend="ray", n_workers=2, light_variant="partial", **kw).fit(train, y)
    assert dp.fit_stats_["backend"] == "ray" and dp.fit_stats_["n_workers"] == 2
    assert len(dp.fit_stats_["worker_peak_rss_bytes"]) == 2
    acc_local, acc_dp = local.score(test, y_test), dp.score(test, y_test)
    assert acc_dp > 0.9 and abs(acc_dp - acc_local) <= 0.03, (acc_local, acc_dp)
    assert dp.topic_word_counts_.sum() == train.n_tokens
    assert dp.eta_samples_.shape == local.eta_samples_.shape


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["partial", "collapsed"])  # phi broadcast / counts-snapshot broadcast
def test_global_counts_equal_counts_of_z_across_shards(ray, data, variant):
    """(Every DP fit also checks this at its end, e.g. the gibbs one below.)"""
    train, y, _, _ = data
    loss = make_loss("hinge", 1.0, 1.0)
    supervision = Supervision(loss, loss.encode((y == 1)[:, None]), 1.0, np.zeros((1, 5)))
    K, V = 5, train.n_words
    rng = np.random.default_rng(1)
    trainer = RayBackend(ray, train.word_ids, train.doc_ptr, V, K, np.full(K, 0.2), 0.01,
                         make_sampler("light", light_variant=variant), supervision, 2, rng)
    try:
        assert len(trainer.workers) == 2
        trainer.start(supervision)
        for it in range(3):
            trainer.iterate(it + 1, supervision, rng, measure_log_joint=False)
            z, streams, worker_states = trainer.snapshot()
            assert z.shape == train.word_ids.shape and z.min() >= 0 and z.max() < K
            expected = np.zeros((V, K), np.int64)
            np.add.at(expected, (train.word_ids, z), 1)
            np.testing.assert_array_equal(trainer.n_wk, expected)
            np.testing.assert_array_equal(trainer.n_k, np.bincount(z, minlength=K))
        assert len(worker_states) == 2 and streams.size == -(-train.n_docs // DOCS_PER_STREAM)
        state = trainer.chain()  # raises if the merged counts disagree with z
        np.testing.assert_array_equal(state.n_dk.sum(axis=1), train.doc_lengths)
        assert np.all(np.isfinite(supervision.eta))
    finally:
        trainer.close()


@pytest.mark.slow
def test_driver_draws_phi_every_phi_every_iterations(ray, data, monkeypatch):
    """The exact DP scheme with phi_every = 2 broadcasts a new phi at iterations 1, 3, 5, as a
    local partial sweep draws it, and the global counts stay those of z."""
    from medlda.engine import ray as distributed

    train, y, _, _ = data
    drawn = []
    real = distributed.draw_phi_wk
    monkeypatch.setattr(distributed, "draw_phi_wk", lambda *args: drawn.append(1) or real(*args))
    K = 5
    rng = np.random.default_rng(3)
    trainer = RayBackend(ray, train.word_ids, train.doc_ptr, train.n_words, K, np.full(K, 0.2), 0.01,
                         make_sampler("light", light_variant="partial", phi_every=2), None, 2, rng)
    try:
        for it in range(5):
            trainer.iterate(it + 1, None, rng, measure_log_joint=False)
            assert len(drawn) == it // 2 + 1
        trainer.chain()  # raises if the merged counts disagree with z
    finally:
        trainer.close()


@pytest.mark.slow
def test_killed_worker_mid_fit_points_to_the_checkpoint(ray, data, monkeypatch, tmp_path):
    train, y, _, _ = data
    iterate = RayBackend.iterate

    def kill_at_three(self, iteration, *args):
        if iteration == 3:
            ray.kill(self.workers[0])
        return iterate(self, iteration, *args)

    monkeypatch.setattr(RayBackend, "iterate", kill_at_three)
    path = tmp_path / "dp.ckpt"
    with pytest.raises(WorkerLostError, match=r"Ray worker 0 \(documents 0\.\.511, \d+ tokens\) died during "
                                              r"iteration 3 .*its shard's assignments are lost, so training "
                                              r"stopped; the last checkpoint is .*dp\.ckpt: resume from it"):
        MedLDAClassifier(5, backend="ray", checkpoint_every=2, checkpoint_path=path,
                         **{**KW, "max_iter": 5}).fit(train, y)
    assert path.exists()



@pytest.mark.slow
def test_dp_resume_from_checkpoint_on_a_memory_mapped_corpus(ray, data, monkeypatch, tmp_path):
    train, y, _, _ = data
    kw = {**KW, "max_iter": 6, "sampler": "gibbs"}
    reference = MedLDAClassifier(5, backend="ray", **kw).fit(train, y)
    from medlda.data.corpus import Corpus
    mapped = Corpus.load(train.save_npy(tmp_path / "corpus"), mmap=True)
    assert mapped.mmap_file is not None
    crash_after(monkeypatch, 4)
    path = tmp_path / "dp.ckpt"
    with pytest.raises(Crash):
        MedLDAClassifier(5, backend="ray", checkpoint_every=2, checkpoint_path=path, **kw).fit(mapped, y)
    monkeypatch.undo()
    resumed = MedLDAClassifier(5, backend="ray", checkpoint_every=2, checkpoint_path=path, resume=True,
                               **kw).fit(mapped, y)
    assert resumed.fit_stats_["resumed_from_iteration"] == 4
    np.testing.assert_array_equal(resumed.topic_word_counts_, reference.topic_word_counts_)
    np.testing.assert_array_equal(resumed.eta_samples_, reference.eta_samples_)


@pytest.mark.slow
def test_label_parallel_one_vs_rest_equals_local_one_vs_rest(ray):
    corpus, _ = make_supervised_corpus(600, 6, words_per_topic=10, doc_length=40, random_state=4)
    y = np.arange(corpus.n_docs) % 3  # three classes (labels need not fit the topics here)
    kw = dict(strategy="ovr", max_iter=5, sampler="light", random_state=0, n_jobs=1)
    local = MedLDAClassifier(3, **kw).fit(corpus, y)
    lp = MedLDAClassifier(3, backend="ray", **kw).fit(corpus, y)
    assert len(lp.estimators_) == 3
    assert lp.fit_stats_["backend"] == "ray" and lp.fit_stats_["n_workers"] == 2
    assert local.fit_stats_["backend"] == "local" and local.fit_stats_["n_jobs"] == 1
    np.testing.assert_array_equal(lp.topic_word_counts_, local.topic_word_counts_)
    np.testing.assert_array_equal(lp.eta_samples_, local.eta_samples_)


@pytest.mark.slow
def test_chains_on_ray_equal_local_chains(ray):
    corpus, _ = make_supervised_corpus(600, 6, words_per_topic=10, doc_length=40, random_state=4)
    y = np.arange(corpus.n_docs) % 3
    kw = dict(n_chains=3, max_iter=5, sampler="light", random_state=0, n_jobs=1)
    local = MedLDAClassifier(3, **kw).fit(corpus, y)
    on_ray = MedLDAClassifier(3, backend="ray", **kw).fit(corpus, y)
    assert len(on_ray.chains_) == 3 and on_ray.fit_stats_["backend"] == "ray"
    np.testing.assert_array_equal(on_ray.topic_word_counts_, local.topic_word_counts_)
    np.testing.assert_array_equal(on_ray.eta_samples_, local.eta_samples_)


@pytest.mark.slow
def test_each_shard_gets_its_documents_weights(ray, data):
    """Sample weights travel with the shards: a ramp of weights against its mirror image gives
    another chain, and weight 2 everywhere is c doubled, draw for draw."""
    train, y, _, _ = data
    kw = dict(KW, max_iter=4, backend="ray", n_workers=2, light_variant="partial")
    ramp = np.linspace(0.2, 3.0, train.n_docs)
    doubled = MedLDAClassifier(5, **dict(kw, c=2.0)).fit(train, y)
    two = MedLDAClassifier(5, **kw).fit(train, y, sample_weight=np.full(train.n_docs, 2.0))
    np.testing.assert_array_equal(doubled.eta_samples_, two.eta_samples_)
    a = MedLDAClassifier(5, **kw).fit(train, y, sample_weight=ramp)
    b = MedLDAClassifier(5, **kw).fit(train, y, sample_weight=ramp[::-1])
    assert not np.array_equal(a.eta_samples_, b.eta_samples_)


@pytest.mark.slow
def test_cli_backend_ray(ray, data, tmp_path, capsys):
    import json

    from medlda.cli import main
    from medlda.data.readers import write_bow

    train, _, test, _ = data
    args = ["train", "--train", write_bow(train, tmp_path / "train.txt"), "--test",
            write_bow(test, tmp_path / "test.txt"), "--sampler", "light", "--topics", "5", "--iters", "20",
            "--seed", "0", "--c", "1", "--margin", "1", "--alpha-sum", "1", "--json",
            "--backend", "ray", "--workers", "2"]
    assert main([str(a) for a in args]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["backend"] == "ray" and result["n_workers"] == 2 and result["accuracy"] > 0.9


def test_missing_ray_is_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(distributed.MedLDAError, match=r"pip install 'medlda\[ray\]'"):
        distributed.import_ray()


def test_unreachable_cluster_is_a_clear_error():
    class Unreachable:
        def is_initialized(self):
            return False

        def init(self, **kwargs):
            raise ConnectionError(f"Failed to connect to Ray cluster at {kwargs['address']}")

    with pytest.raises(distributed.MedLDAError, match="cannot join the Ray cluster at 10.0.0.1:9999: Failed to connect"):
        distributed.connect(Unreachable(), "10.0.0.1:9999", 2)
    with pytest.raises(distributed.MedLDAError, match="RAY_AUTH_MODE=token"):  # Ray's default for `ray start`
        distributed.connect(Unreachable(), "10.0.0.1:9999", 2)


def test_no_address_starts_a_cluster_of_its_own():
    """Without an address, ray.init must not join a cluster `ray start` runs on this machine (or one
    that RAY_ADDRESS names): Ray refuses num_cpus there, so the local backend would fail."""
    class Recorder:
        def is_initialized(self):
            return False

        def init(self, **kwargs):
            self.kwargs = kwargs

    ray = Recorder()
    assert distributed.connect(ray, None, 3) is True
    assert ray.kwargs["address"] == "local" and ray.kwargs["num_cpus"] >= 3
