"""Hostile and damaged model files: every value is checked before the model is built, sizes are
bounded before a byte is inflated, and every refusal is one ModelFileError or LimitError line
naming the file; a fuzzed file either loads with valid values or is refused so, never another
exception."""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from numpy.lib import format as npy

from cli.cli_helpers import run
from medlda import LDA, MedLDAClassifier, MedLDARegressor
from medlda.exceptions import LimitError, MedLDAError, ModelFileError
from medlda.io.model_file import load_model
from npz_fuzz import metadata_bytes, mutations, read, write


@pytest.fixture(scope="module")
def models(binary_corpus, multiclass_corpus, regression_corpus):
    """Small fitted models of every kind, with a corpus each can read."""
    corpus, _ = binary_corpus
    y = np.where(corpus.single_labels() == 1, "yes", "no")
    multi, _ = multiclass_corpus
    reg, truth = regression_corpus
    quick = dict(max_iter=3, random_state=0, n_infer_burn=3, n_infer_avg=3)
    return {
        "lda": (LDA(3, **quick).fit(corpus), corpus),
        "classifier": (MedLDAClassifier(3, c=1.0, margin=1.0, **quick).fit(corpus, y), corpus),
        "ovr": (MedLDAClassifier(2, loss="logistic", strategy="ovr", n_jobs=1, **quick).fit(
            multi, multi.single_labels()), multi),
        "regressor": (MedLDARegressor(3, **quick).fit(reg, truth.y), reg),
    }


@pytest.fixture(scope="module")
def files(models, tmp_path_factory):
    """Each model's file (path, arrays, metadata)."""
    root = tmp_path_factory.mktemp("models")
    out = {}
    for name, (model, _) in models.items():
        path = root / f"{name}.npz"
        model.save(path)
        out[name] = (path, *read(path))
    return out


def refused(path, error=ModelFileError, match: str = "") -> str:
    with pytest.raises(error, match=match) as info:
        load_model(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path)), message
    return message


@pytest.mark.parametrize("name, change, match", [
    ("NaN counts", lambda c: np.where(c > 0, np.nan, 0.0), "topic_word_counts holds NaN or infinite values"),
    ("negative counts", lambda c: c - c.max() - 1, "topic_word_counts holds -[0-9]+, below its least allowed value 0"),
    ("fractional counts", lambda c: c + 0.5, "topic_word_counts holds fractional values"),
    ("wrapped counts", lambda c: c.astype(np.int64) + 2 ** 32, "topic_word_counts holds 42949[0-9]+, above"),
    ("wrapping unsigned", lambda c: np.where(np.arange(c.size).reshape(c.shape) == 0, np.uint32(2 ** 32 - 1),
                                             c.astype(np.uint32)), "holds 4294967295, above its greatest"),
    ("text counts", lambda c: c.astype(str), "topic_word_counts should hold integers or real numbers, not <U"),
    ("one topic short", lambda c: c[1:], r"topic_word_counts should be of shape \(3, V\)"),
    ("no words", lambda c: c[:, :0], "topic_word_counts should hold at least one word"),
])
def test_bad_counts_are_refused(tmp_path, files, name, change, match):
    _, arrays, meta = files["classifier"]
    write(tmp_path / "bad.npz", {**arrays, "topic_word_counts": change(arrays["topic_word_counts"])}, meta)
    refused(tmp_path / "bad.npz", match=match)


@pytest.mark.parametrize("name, member, change, match", [
    ("NaN eta", "eta_samples", lambda a: a * np.nan, "eta_samples holds NaN or infinite values"),
    ("huge eta", "eta_samples", lambda a: a - 1e200, "eta_samples holds -1e\\+200, below its least allowed value"),
    ("no eta samples", "eta_samples", lambda a: a[:0], "eta_samples should hold at least one sample"),
    ("eta of two tasks", "eta_samples", lambda a: np.concatenate([a, a], axis=1), r"eta_samples should be of shape"),
    ("duplicated vocabulary", "vocabulary", lambda a: np.where(np.arange(a.size) == 1, a[0], a),
     "vocabulary holds a value more than once"),
    ("numeric vocabulary", "vocabulary", lambda a: np.arange(a.size), "vocabulary should hold text"),
    ("one class", "classes", lambda a: a[:1], "classes should hold at least 2"),
    ("a class twice", "classes", lambda a: np.array([a[0], a[0]]), "classes holds a value more than once"),
])
def test_bad_arrays_are_refused(tmp_path, files, name, member, change, match):
    _, arrays, meta = files["classifier"]
    write(tmp_path / "bad.npz", {**arrays, member: change(arrays[member])}, meta)
    refused(tmp_path / "bad.npz", match=match)


def fields(**changes):
    """A metadata change: each field set (None: removed)."""
    def change(meta):
        meta = dict(meta)
        for key, value in changes.items():
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = value
        return meta
    return change


def params(**changes):
    return lambda meta: {**meta, "params": {**meta["params"], **changes}}


@pytest.mark.parametrize("name, kind, change, error, match", [
    ("JSON not an object", "classifier", lambda m: [m], ModelFileError, "its metadata is JSON list, not an object"),
    ("missing key", "classifier", fields(trace=None), ModelFileError, "metadata does not fit the format: missing "
                                                                      "trace"),
    ("extra key", "lda", fields(surprise=1), ModelFileError, "metadata does not fit the format: unexpected surprise"),
    ("a field of the wrong type", "regressor", fields(y_mean="high"), ModelFileError, "y_mean should be a finite"),
    ("infinite y_mean", "regressor", fields(y_mean=float("inf")), ModelFileError, "y_mean should be a finite"),
    ("estimator a list", "lda", fields(estimator=["LDA"]), ModelFileError, r"unknown estimator \['LDA'\]"),
    ("swapped estimator", "classifier", fields(estimator="MedLDARegressor"), ModelFileError, "unexpected"),
    ("swapped estimator", "regressor", fields(estimator="LDA"), ModelFileError, "unexpected"),
    ("swapped estimator", "lda", fields(estimator="MedLDAClassifier", train_accuracy=1.0, multilabel=False,
                                        ovr=False), ModelFileError, "missing classes, eta_samples"),
    ("n_infer_burn 10^12", "classifier", params(n_infer_burn=10 ** 12), LimitError, "number of sweeps 1,000,000,000,"),
    ("alpha_sum NaN", "lda", params(alpha_sum=float("nan")), ModelFileError, "alpha_sum"),
    ("beta infinite", "lda", params(beta=float("inf")), ModelFileError, "beta'? (parameter )?must be"),
    ("beta zero", "lda", params(beta=0), ModelFileError, "beta'? (parameter )?must be"),
    ("n_components not the counts'", "lda", params(n_components=4), ModelFileError, r"should be of shape \(4, V\)"),
    ("a parameter LDA lacks", "lda", params(c=1.0), ModelFileError, "params do not fit LDA"),
    ("a negative seed", "lda", params(random_state=-1), ModelFileError, "random_state should be"),
    ("trace rows not numbers", "lda", fields(trace=[{"iteration": "one"}]), ModelFileError, "trace should be"),
    ("ovr without its models", "ovr", fields(ovr_models=None), ModelFileError, "ovr_models should be there"),
    ("ovr models short", "ovr", lambda m: {**m, "ovr_models": m["ovr_models"][:1]}, ModelFileError,
     "one entry of ovr_models per class"),
])
def test_bad_metadata_is_refused_in_one_line(tmp_path, files, name, kind, change, error, match):
    _, arrays, meta = files[kind]
    write(tmp_path / "bad.npz", arrays, change(json.loads(json.dumps(meta))))
    refused(tmp_path / "bad.npz", error, match)


def test_missing_and_unexpected_members(tmp_path, files):
    _, arrays, meta = files["classifier"]
    write(tmp_path / "bad.npz", {k: v for k, v in arrays.items() if k != "eta_samples"}, meta)
    refused(tmp_path / "bad.npz", match="archive members do not fit the format: missing eta_samples")
    write(tmp_path / "bad.npz", {**arrays, "extra": np.zeros(2)}, meta)
    refused(tmp_path / "bad.npz", match="unexpected extra")


def zip_of(path, members: dict[str, bytes], compress: bool = False) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name, data)


def members_of(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def test_a_member_without_npy_header_or_a_damaged_deflate_stream(tmp_path, files):
    path = files["classifier"][0]
    members = members_of(path)
    zip_of(tmp_path / "bad.npz", {**members, "eta_samples.npy": b"not an npy file at all"})
    refused(tmp_path / "bad.npz", match="archive member eta_samples has no npy header")
    zip_of(tmp_path / "bad.npz", {**members, "eta_samples.npy": members["eta_samples.npy"][:-8]})
    refused(tmp_path / "bad.npz", match="archive member eta_samples is truncated")
    zip_of(tmp_path / "bad.npz", {**members, "notes.txt": b"hello"})
    refused(tmp_path / "bad.npz", match=r"archive member 'notes.txt' is not an .npy array")
    # a deflate stream damaged in the middle of the counts' data (the file is written compressed)
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("topic_word_counts.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + info.compress_size // 3, start + info.compress_size // 3 + 16):
        raw[i] ^= 0x5A
    (tmp_path / "bad.npz").write_bytes(bytes(raw))
    refused(tmp_path / "bad.npz", match="archive member topic_word_counts (is damaged|is truncated|holds more data)")


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def test_an_npy_header_claiming_10_to_the_12_cells_is_refused_before_allocating(tmp_path, files):
    path, arrays, meta = files["lda"]
    header = io.BytesIO()
    npy.write_array_header_1_0(header, {"descr": "<i4", "fortran_order": False, "shape": (10 ** 6, 10 ** 6)})
    zip_of(tmp_path / "bad.npz", {"__metadata__.npy": npy_bytes(metadata_bytes(meta)),
                                  "topic_word_counts.npy": header.getvalue() + bytes(64)})
    refused(tmp_path / "bad.npz", LimitError, r"topic_word_counts: number of array cells 1,000,000,000,000 exceeds "
                                              r"the limit of .* \(set the environment variable MEDLDA_MAX_CELLS")


def deflate_bomb(path, meta: dict, n_bytes: int) -> None:
    """A zip (zip64 sizes) of metadata and topic_word_counts.npy, n_bytes of int32 zeros deflated
    in identical 1 MiB blocks: about n_bytes / 1000 on disk. Its CRC is left 0: a reader that
    inflates before it bounds finds out only at the end."""
    header = io.BytesIO()
    npy.write_array_header_1_0(header, {"descr": "<i4", "fortran_order": False, "shape": (n_bytes // 4,)})
    chunk = bytes(1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = deflate.compress(header.getvalue()) + deflate.flush(zlib.Z_FULL_FLUSH)
    block = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    assert block == deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)  # the blocks repeat
    data = head + block * (n_bytes // len(chunk) - 2) + block + block + deflate.flush()
    meta_npy = npy_bytes(metadata_bytes(meta))
    entries = [(b"__metadata__.npy", meta_npy, 0, zlib.crc32(meta_npy), len(meta_npy)),
               (b"topic_word_counts.npy", data, 8, 0, len(header.getvalue()) + n_bytes)]
    out, central = bytearray(), bytearray()
    for name, payload, method, crc, size in entries:
        extra = struct.pack("<HHQQ", 1, 16, size, len(payload))
        fixed = (0x0021, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra))
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, *fixed, 0, 0, 0, 0,
                               len(out)) + name + extra
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, *fixed) + name + extra + payload
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
    path.write_bytes(bytes(out + central + end))


def test_a_small_npz_inflating_to_4_gib_fails_at_once_naming_the_limit(tmp_path, files):
    _, _, meta = files["lda"]
    bomb = tmp_path / "bomb.npz"
    deflate_bomb(bomb, meta, 4 * 2 ** 30)
    assert bomb.stat().st_size < 8 * 2 ** 20
    with zipfile.ZipFile(bomb) as z:  # a real bomb: its stream inflates to zeros
        with z.open("topic_word_counts.npy") as f:
            npy.read_magic(f)
            assert npy.read_array_header_1_0(f)[0] == (2 ** 30,) and f.read(1 << 20) == bytes(1 << 20)
    refused(bomb, LimitError, r"topic_word_counts: uncompressed size in bytes 4,294,967,\d+ exceeds the limit of "
                              r"1,073,741,824 \(set the environment variable MEDLDA_MAX_MEMBER_BYTES to raise it\)")


def test_a_member_over_a_lowered_limit_is_refused(tmp_path, files, monkeypatch):
    path = files["classifier"][0]
    monkeypatch.setenv("MEDLDA_MAX_MEMBER_BYTES", "100")
    refused(path, LimitError, "exceeds the limit of 100 .*MEDLDA_MAX_MEMBER_BYTES")


def test_metadata_nested_100000_deep_or_over_its_limit_is_refused(tmp_path, files, monkeypatch):
    path, arrays, _ = files["lda"]
    deep = tmp_path / "deep.npz"
    with open(deep, "wb") as f:
        np.savez(f, __metadata__=np.frombuffer(b"[" * 100_000 + b"]" * 100_000, np.uint8), **arrays)
    refused(deep, match=r"corrupt metadata \(RecursionError")
    monkeypatch.setenv("MEDLDA_MAX_METADATA_BYTES", "1000")
    refused(path, LimitError, "__metadata__: size of the JSON metadata in bytes .* MEDLDA_MAX_METADATA_BYTES")


def test_the_command_line_reports_a_bad_model_in_one_line(tmp_path, files, capsys):
    _, arrays, meta = files["classifier"]
    bad = tmp_path / "bad.npz"
    write(bad, {**arrays, "topic_word_counts": arrays["topic_word_counts"] - 5}, meta)
    code, out, err = run(capsys, "info", "--model", bad)
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and err.startswith("medlda: error: ") and str(bad) in err
    assert "below its least allowed value 0" in err and "Traceback" not in err


# ---- fuzz ------------------------------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzzed_model_files_load_valid_or_fail_in_one_line(models, files, tmp_path_factory, monkeypatch, capsys, data):
    """A mutated model file of any kind either loads, with values its kernels take (and then
    transforms documents to finite topic proportions, and ``medlda info`` and ``medlda topics``
    show it), or is refused with one MedLDAError line; never another exception, never a crash."""
    monkeypatch.setenv("MEDLDA_MAX_SWEEPS", "1000")  # a mutated file's inference stays quick
    kind = data.draw(st.sampled_from(sorted(files)))
    path, arrays, meta = files[kind]
    how, content = data.draw(mutations(arrays, meta, path.read_bytes(), nested="params"))
    fuzzed = tmp_path_factory.getbasetemp() / "fuzzed.npz"
    fuzzed.write_bytes(content)
    try:
        model = load_model(fuzzed)
    except MedLDAError as exc:
        assert "\n" not in str(exc)
        event(f"{how}: refused")
        return
    event(f"{how}: loaded")
    counts = model.topic_word_counts_
    assert counts.dtype == np.int32 and (counts >= 0).all()
    assert model.n_infer_burn + model.n_infer_avg <= 1000
    if model.vocabulary_ is not None:
        assert np.unique(model.vocabulary_).size == model.vocabulary_.size == counts.shape[1]
    if hasattr(model, "eta_samples_"):
        assert np.isfinite(model.eta_samples_).all()
    X = models[kind][1].subset(np.arange(3)).to_sparse()
    if X.shape[1] == model.n_features_in_:
        assert np.isfinite(model.transform(X)).all()
    for command in ("info", "topics"):
        code, out, err = run(capsys, command, "--model", fuzzed)
        assert code == 0 and out, err
