"""npz files of arrays and JSON metadata (model files and checkpoints share the layout): reading,
writing, and Hypothesis strategies that damage them: bytes flipped or cut, a member replaced,
dropped or changed in a few entries, a metadata field (or a field of one nested object) replaced,
dropped or added, or the metadata replaced whole."""

from __future__ import annotations

import io
import json

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

JSON = st.recursive(st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
DTYPES = st.sampled_from([np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                          np.uint64, np.float32, np.float64, np.complex64, "<U3", ">i4", ">f8"])


def metadata_bytes(meta) -> np.ndarray:
    """The metadata member as the file formats store it: JSON text as uint8."""
    return np.frombuffer(json.dumps(meta).encode(), np.uint8)


def read(path) -> tuple[dict, dict]:
    """(arrays, metadata) of an npz file of that layout."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    return arrays, json.loads(arrays.pop("__metadata__").tobytes())


def write(path, arrays: dict, meta) -> None:
    """An npz file of ``arrays`` and the metadata ``meta``, as the file formats store them."""
    with open(path, "wb") as f:
        np.savez(f, __metadata__=metadata_bytes(meta), **arrays)


@st.composite
def new_array(draw, like: np.ndarray) -> np.ndarray:
    """``like`` with a few entries changed (a large integer array), an array of its dtype and
    shape with other values, or of a random dtype and shape."""
    if like.size > 64 and like.dtype.kind in "iu" and draw(st.booleans()):
        value = like.copy()
        info = np.iinfo(like.dtype)
        for i in draw(st.lists(st.integers(0, value.size - 1), min_size=1, max_size=3)):
            value.flat[i] = draw(st.integers(int(info.min), int(info.max)))
        return value
    if draw(st.booleans()):
        dtype, shape = like.dtype, like.shape
    else:
        dtype = np.dtype(draw(DTYPES))
        shape = draw(st.sampled_from([like.shape, like.shape[:-1], like.shape + (1,), (0,), (3,), (2, 2)]))
    return draw(hnp.arrays(dtype, shape, elements=None if dtype.kind in "bU" else hnp.from_dtype(dtype)))


@st.composite
def mutations(draw, arrays: dict, meta: dict, raw: bytes, nested: str | None = None):
    """(kind, bytes of the damaged file) from the file's ``arrays``, ``meta`` and ``raw`` bytes;
    ``nested`` names a metadata object whose fields are damaged too (kind 'nested')."""
    kinds = ["flip", "truncate", "array", "drop", "field", "metadata"] + (["nested"] if nested else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "flip":
        data = bytearray(raw)
        for pos, bits in draw(st.lists(st.tuples(st.integers(0, len(raw) - 1), st.integers(1, 255)), min_size=1,
                                       max_size=8)):
            data[pos] ^= bits
        return kind, bytes(data)
    if kind == "truncate":
        return kind, raw[:draw(st.integers(0, len(raw) - 1))]
    new_arrays, new_meta = dict(arrays), json.loads(json.dumps(meta))
    name = draw(st.sampled_from(sorted(arrays)))
    if kind == "array":
        new_arrays[name] = draw(new_array(arrays[name]))
    elif kind == "drop":
        del new_arrays[name]
    elif kind in ("field", "nested"):
        target = new_meta if kind == "field" else new_meta[nested]
        key = draw(st.sampled_from(sorted(target) + ["surprise"]))
        if draw(st.booleans()):
            target[key] = draw(JSON)
        else:
            target.pop(key, None)
    else:
        new_meta = draw(JSON)
    buffer = io.BytesIO()
    np.savez(buffer, __metadata__=metadata_bytes(new_meta), **new_arrays)
    return kind, buffer.getvalue()
