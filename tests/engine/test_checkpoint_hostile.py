"""Hostile and damaged checkpoints: every value read back is checked before a kernel sees it, so a
resume either goes on from a valid checkpoint or stops with one CheckpointError (or LimitError)
line naming the file; and a resume whose settings would change the chain is refused, naming the
setting, its value in the checkpoint and now."""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from crashes import Crash, crash_after
from medlda import LDA, MedLDAClassifier
from medlda.data.synthetic import make_supervised_corpus
from medlda.engine.checkpoint import CheckpointError
from medlda.exceptions import MedLDAError
from medlda.models import base
from npz_fuzz import mutations, read, write

K, N_ITER = 5, 4
SETTINGS = dict(max_iter=N_ITER, sampler="light", light_variant="collapsed", random_state=1, checkpoint_every=2)



@pytest.fixture(scope="module")
def small():
    corpus, _ = make_supervised_corpus(300, K, words_per_topic=10, doc_length=40, random_state=0)
    return corpus, corpus.single_labels()


def write_checkpoint(path, corpus, y, **kw) -> None:
    """A checkpoint of iteration 2 of 4 at ``path`` (the run stopped right after writing it)."""
    with pytest.MonkeyPatch.context() as mp:
        crash_after(mp, 2)
        with pytest.raises(Crash):
            MedLDAClassifier(K, checkpoint_path=path, **{**SETTINGS, **kw}).fit(corpus, y)


@pytest.fixture(scope="module")
def good(small, tmp_path_factory):
    """(path, arrays, metadata) of a light collapsed classifier's checkpoint at iteration 2."""
    path = tmp_path_factory.mktemp("ckpt") / "good.ckpt"
    write_checkpoint(path, *small)
    arrays, meta = read(path)
    return path, arrays, meta


def resume(path, corpus, y, **kw):
    return MedLDAClassifier(K, checkpoint_path=path, resume=True, **{**SETTINGS, **kw}).fit(corpus, y)


def refused(path, corpus, y, monkeypatch, match: str) -> str:
    """The one-line error resuming from ``path`` gives; fails if the chain was ever built (no
    kernel saw the checkpoint's values)."""
    def no_chain(*args, **kwargs):
        raise AssertionError("a checkpoint with bad values reached the chain's kernels")

    monkeypatch.setattr(base.LocalBackend, "initialize", no_chain)
    with pytest.raises(MedLDAError, match=match) as info:
        resume(path, corpus, y)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


@pytest.mark.parametrize("name, change, match", [
    ("z + 1000", lambda a: {**a, "z": a["z"] + 1000}, "z holds 100[0-9], above its greatest allowed value 4"),
    ("z + 10^7", lambda a: {**a, "z": a["z"] + 10 ** 7}, "z holds 1000000[0-9], above"),
    ("negative z", lambda a: {**a, "z": a["z"] - 3}, "z holds -3, below its least allowed value 0"),
    ("fractional z", lambda a: {**a, "z": a["z"] + 0.5}, "z should hold integers, not float64"),
    ("z of int64 past int32", lambda a: {**a, "z": a["z"].astype(np.int64) + 2 ** 32}, "above"),
    ("short z", lambda a: {**a, "z": a["z"][:-1]}, r"z should be of shape \(11897,\)"),
    ("NaN eta", lambda a: {**a, "eta": a["eta"] * np.nan}, "eta holds NaN or infinite values"),
    ("huge eta", lambda a: {**a, "eta": a["eta"] + 1e300}, r"eta holds 1e\+300, above its greatest allowed value"),
    ("infinite kept eta", lambda a: {**a, "kept_eta": a["kept_eta"] + np.inf}, "kept_eta holds NaN or infinite"),
    ("eta of other tasks", lambda a: {**a, "eta": np.zeros((2, K))}, r"eta should be of shape \(1, 5\)"),
    ("short streams", lambda a: {**a, "streams": a["streams"][:1]}, r"streams should be of shape \(2,\)"),
    ("zero stream", lambda a: {**a, "streams": a["streams"] * 0}, "streams holds 0, below"),
    ("signed streams", lambda a: {**a, "streams": a["streams"].astype(np.int64)},
     "streams should hold unsigned integers, not int64"),
    ("missing z", lambda a: {k: v for k, v in a.items() if k != "z"}, "missing z"),
    ("missing streams", lambda a: {k: v for k, v in a.items() if k != "streams"}, "missing streams"),
    ("missing eta", lambda a: {k: v for k, v in a.items() if k != "eta"}, "missing eta"),
    ("missing kept_eta", lambda a: {k: v for k, v in a.items() if k != "kept_eta"}, "missing kept_eta"),
    ("an unknown member", lambda a: {**a, "extra": np.zeros(3)}, "unexpected extra"),
])
def test_bad_arrays_never_reach_a_kernel(tmp_path, small, good, monkeypatch, name, change, match):
    _, arrays, meta = good
    path = tmp_path / "bad.ckpt"
    write(path, change(arrays), meta)
    refused(path, *small, monkeypatch, match)


@pytest.mark.parametrize("name, change, match", [
    ("iteration -5", lambda m: {**m, "iteration": -5}, "iteration should be an integer >= 0, not -5"),
    ("iteration past n_iter", lambda m: {**m, "iteration": 9, "trace": m["trace"] * 5}, "beyond max_iter=4"),
    ("fractional iteration", lambda m: {**m, "iteration": 1.5}, "iteration should be an integer"),
    ("trace of another length", lambda m: {**m, "trace": m["trace"][:1]}, "trace holds 1 iterations"),
    ("foreign generator state", lambda m: {**m, "rng_state": {"bit_generator": "MT19937"}}, "rng_state should be"),
    ("broken generator state", lambda m: {**m, "rng_state": {**m["rng_state"], "state": 7}}, "rng_state should be"),
    ("negative seconds", lambda m: {**m, "seconds": -1.0}, "seconds should be a finite number >= 0"),
    ("missing fingerprint", lambda m: {k: v for k, v in m.items() if k != "fingerprint"}, "missing fingerprint"),
    ("an unknown field", lambda m: {**m, "surprise": 1}, "unexpected surprise"),
    ("config not an object", lambda m: {**m, "config": [1]}, "config should be an object"),
    ("metadata not an object", lambda m: [m], "not a medlda checkpoint"),
])
def test_bad_metadata_is_refused_in_one_line(tmp_path, small, good, monkeypatch, name, change, match):
    _, arrays, meta = good
    path = tmp_path / "bad.ckpt"
    write(path, arrays, change(json.loads(json.dumps(meta))))
    refused(path, *small, monkeypatch, match)


def test_missing_metadata_damaged_members_and_headerless_members(tmp_path, small, good, monkeypatch):
    path, arrays, meta = good
    bad = tmp_path / "bad.ckpt"
    with open(bad, "wb") as f:
        np.savez(f, **arrays)
    refused(bad, *small, monkeypatch, r"not a medlda checkpoint \(no metadata\)")
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as z, zipfile.ZipFile(path) as src:
        for name in src.namelist():
            z.writestr(name, b"no npy header here" if name == "z.npy" else src.read(name))
    bad.write_bytes(raw.getvalue())
    refused(bad, *small, monkeypatch, "archive member z has no npy header")


def tampered_hash(arrays: dict, how: str) -> dict:
    """The checkpoint's light collapsed word hash changed in one way (a copy)."""
    meta, slots = arrays["sampler.word_meta"].copy(), arrays["sampler.slots"].copy()
    layout = arrays["sampler.layout"].copy()
    key = slots[0::3]
    full = np.flatnonzero(key >= 0)
    j = int(full[0])
    if how == "topic out of range":
        slots[3 * j] = K + 3
    elif how == "count off":
        slots[3 * j + 1] += 1
    elif how == "used off":
        meta[0, 2] += 1
    elif how == "blocks overlap":
        meta[1, 0] = meta[0, 0]
    elif how == "block past the slots":
        meta[0, 0] = layout[1]
    elif how == "not a power of two":
        meta[0, 1] = 5
    elif how == "unreachable topic":  # moved to an empty slot that probing from its home never reaches
        base, mask = int(meta[0, 0]), int(meta[0, 1])
        block = np.arange(base, base + mask + 1)
        k = int(next(key[s] for s in block if key[s] >= 0))
        home = base + (k & mask)
        at = next(s for s in block if key[s] == k)
        steps = [base + ((home - base + i) & mask) for i in range(mask + 1)]
        first_empty = next(i for i, s in enumerate(steps) if key[s] < 0)
        target = next(s for s in steps[first_empty + 1:] if key[s] < 0)
        slots[3 * target:3 * target + 3] = slots[3 * at:3 * at + 3]
        slots[3 * at:3 * at + 3] = (-1, 0, 0)
    elif how == "wide slots":
        slots = slots.astype(np.int32)
    elif how == "less spill room":
        layout[2] -= 1
    elif how == "huge layout":
        layout[0] = 10 ** 12
    return {**arrays, "sampler.word_meta": meta, "sampler.slots": slots, "sampler.layout": layout}


@pytest.mark.parametrize("how", ["topic out of range", "count off", "used off", "blocks overlap",
                                 "block past the slots", "not a power of two", "unreachable topic", "wide slots",
                                 "less spill room", "huge layout"])
def test_a_tampered_word_hash_is_refused_before_a_kernel_probes_it(tmp_path, small, good, how):
    _, arrays, meta = good
    path = tmp_path / "bad.ckpt"
    write(path, tampered_hash(arrays, how), meta)
    with pytest.raises(CheckpointError, match="the sampler's arrays in the checkpoint do not fit") as info:
        resume(path, *small)
    assert "\n" not in str(info.value)


def test_the_untampered_checkpoint_resumes(tmp_path, small, good):
    """The fixture's checkpoint itself passes every check (the checks above can fail only on
    what was changed)."""
    path, arrays, meta = good
    copy = tmp_path / "copy.ckpt"
    write(copy, arrays, meta)
    assert resume(copy, *small).fit_stats_["resumed_from_iteration"] == 2


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two thread chunks need two cores")
def test_resume_with_another_thread_count_is_refused_where_it_changes_the_chain(tmp_path, small):
    """Light collapsed: each thread sweeps against its own snapshot of the counts, so the thread
    chunks change the draws; light partial and gibbs draw the same on any number of threads."""
    corpus, y = small
    path = tmp_path / "c.ckpt"
    write_checkpoint(path, corpus, y, n_jobs=1)
    with pytest.raises(CheckpointError, match=r"another configuration \(n_jobs=1 in the checkpoint, 2 now\)"):
        resume(path, corpus, y, n_jobs=2)
    resume(path, corpus, y, n_jobs=None)  # one thread either way: the same chain
    for sampler, variant in (("light", "partial"), ("gibbs", "partial")):
        write_checkpoint(path, corpus, y, n_jobs=1, sampler=sampler, light_variant=variant)
        resumed = resume(path, corpus, y, n_jobs=2, sampler=sampler, light_variant=variant)
        whole = MedLDAClassifier(K, **{**SETTINGS, "checkpoint_every": 0, "sampler": sampler,
                                       "light_variant": variant}).fit(corpus, y)
        np.testing.assert_array_equal(resumed.topic_word_counts_, whole.topic_word_counts_)


def test_unsupervised_checkpoint_must_hold_no_eta(tmp_path, small):
    corpus, _ = small
    path = tmp_path / "lda.ckpt"
    kw = dict(max_iter=2, random_state=0, checkpoint_every=2, checkpoint_path=path)
    LDA(K, **kw).fit(corpus)
    arrays, meta = read(path)
    assert "eta" not in arrays
    write(path, {**arrays, "eta": np.zeros((1, K))}, meta)
    with pytest.raises(CheckpointError, match="unexpected eta"):
        LDA(K, resume=True, **kw).fit(corpus)


# ---- fuzz ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fuzz_base(small, good, tmp_path_factory):
    path, arrays, meta = good
    return arrays, meta, path.read_bytes(), tmp_path_factory.mktemp("fuzz") / "fuzzed.ckpt"


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzzed_checkpoints_resume_or_fail_in_one_line(small, fuzz_base, data):
    """A mutated checkpoint either resumes (its values all valid, the run then ends normally) or
    is refused with one MedLDAError line; never another exception, never a crash."""
    arrays, meta, raw, path = fuzz_base
    kind, content = data.draw(mutations(arrays, meta, raw))
    path.write_bytes(content)
    try:
        model = resume(path, *small)
    except MedLDAError as exc:
        assert "\n" not in str(exc)
        event(f"{kind}: refused")
        return
    event(f"{kind}: resumed")
    assert model.fit_stats_["resumed_from_iteration"] <= N_ITER
    assert np.isfinite(model.eta_samples_).all() and (model.topic_word_counts_ >= 0).all()
