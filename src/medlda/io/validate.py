"""Reading npz archives that may be hostile, and checking every value read from one.

Model files and checkpoints are npz archives (a zip of ``.npy`` members) plus JSON metadata.
``NpzReader`` reads a member's npy header (``numpy.lib.format``, never pickle) and bounds its
declared size (``limits.CELLS``, ``limits.MEMBER_BYTES``) before it inflates a byte of its data,
so a small archive that claims or inflates to gigabytes fails at once. ``check_array`` and
``check_fields`` then check what the readers' callers use (dtype kind, shape, range,
finiteness, JSON types) before any kernel or array operation sees it. Every problem is one
line naming the file, raised as the caller's error class (``Where``).
"""

from __future__ import annotations

import json
import lzma
import math
import numbers
import struct
import tokenize
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numpy.lib import format as npy

from medlda.exceptions import MedLDAError
from medlda.limits import CELLS, MEMBER_BYTES, METADATA_BYTES

CHUNK = 1 << 24  # bytes inflated at a time
MAX_MEMBERS = 64  # more than any medlda archive holds
MAX_HEADER = 10_000  # bytes of an npy header (NumPy's own default bound)
READ_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, OSError, EOFError, ValueError, RuntimeError,
               NotImplementedError, struct.error, KeyError, UnicodeDecodeError, OverflowError, SyntaxError,
               TypeError)


@dataclass(frozen=True)
class Where:
    """The file values come from and the error class that refuses them."""

    path: Path
    error: type[MedLDAError]

    def fail(self, problem: str) -> MedLDAError:
        """The error to raise: ``"<path>: <problem>"`` on one line."""
        return self.error(f"{self.path}: {' '.join(str(problem).split())}")


class NpzReader:
    """The members of one npz archive, each read only when asked and only once checked.

    Use as a context manager; ``keys`` are the member names without ``.npy``."""

    def __init__(self, where: Where, refused: str) -> None:
        self.where = where
        self.refused = refused  # what the file is said not to be, e.g. "not a medlda model file"
        self.zip: zipfile.ZipFile | None = None
        self.keys: list[str] = []
        self.infos: dict[str, zipfile.ZipInfo] = {}

    def __enter__(self) -> "NpzReader":
        try:
            self.zip = zipfile.ZipFile(self.where.path)
            infos = self.zip.infolist()
        except READ_ERRORS as exc:
            raise self.where.fail(f"{self.refused} (a damaged npz archive: {exc})") from None
        if len(infos) > MAX_MEMBERS:
            raise self.where.fail(f"{self.refused} ({len(infos)} archive members; medlda writes at most "
                                  f"{MAX_MEMBERS})")
        for info in infos:
            name = info.filename
            if not name.endswith(".npy"):
                raise self.where.fail(f"{self.refused} (archive member {name!r} is not an .npy array)")
            key = name[:-4]
            if key in self.infos:
                raise self.where.fail(f"{self.refused} (archive member {name!r} appears twice)")
            self.infos[key] = info
            self.keys.append(key)
        return self

    def __exit__(self, *exc_info) -> None:
        if self.zip is not None:
            self.zip.close()

    def check_keys(self, required: set[str], optional: set[str] = frozenset(),
                   extra: Callable[[str], bool] = lambda key: False) -> None:
        """Refuse a missing member of ``required`` and a member neither required nor optional
        (unless ``extra(key)`` allows it)."""
        missing = sorted(required - set(self.keys))
        unknown = sorted(k for k in self.keys if k not in required and k not in optional and not extra(k))
        problems = []
        if missing:
            problems.append("missing " + ", ".join(missing))
        if unknown:
            problems.append("unexpected " + ", ".join(unknown))
        if problems:
            raise self.where.fail(f"archive members do not fit the format: {'; '.join(problems)}")

    def array(self, key: str) -> np.ndarray:
        """Member ``key`` as an array: its header read and its size bounded before its data."""
        info = self.infos[key]
        source = f"{self.where.path}: {key}"
        MEMBER_BYTES.check(info.file_size, source)
        try:
            with self.zip.open(info) as fp:
                shape, fortran, dtype = self._header(key, fp)
                cells = math.prod(shape)
                CELLS.check(cells, source)
                MEMBER_BYTES.check(cells * dtype.itemsize, source)
                flat = np.empty(cells, dtype)
                self._fill(key, fp, flat.view(np.uint8) if cells else np.empty(0, np.uint8))
        except MedLDAError:
            raise
        except READ_ERRORS as exc:
            raise self.where.fail(f"archive member {key} is damaged ({exc.__class__.__name__}: {exc})") from None
        return flat.reshape(shape, order="F" if fortran else "C")

    def _header(self, key: str, fp) -> tuple[tuple[int, ...], bool, np.dtype]:
        try:
            version = npy.read_magic(fp)
        except ValueError:
            raise self.where.fail(f"archive member {key} has no npy header (not a NumPy array)") from None
        if version not in ((1, 0), (2, 0)):
            raise self.where.fail(f"archive member {key}: npy format version {version} is not supported")
        read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        try:
            shape, fortran, dtype = read(fp, max_header_size=MAX_HEADER)
        except READ_ERRORS + (tokenize.TokenError, RecursionError, MemoryError) as exc:
            # NumPy parses the header as a Python literal: damaged text fails in many ways
            if "pickle" in str(exc):
                raise self.where.fail(f"{self.refused} ({key} holds Python objects, which medlda files never "
                                      "do; refused without unpickling)") from None
            raise self.where.fail(f"archive member {key} has a damaged npy header "
                                  f"({exc.__class__.__name__}: {short(str(exc))})") from None
        if dtype.hasobject:
            raise self.where.fail(f"{self.refused} ({key} holds Python objects, which medlda files never do; "
                                  "refused without unpickling)")
        if dtype.kind not in "biufcU" or dtype.itemsize == 0 or dtype.subdtype is not None:
            raise self.where.fail(f"archive member {key} has dtype {dtype}, not numbers or text")
        return tuple(int(n) for n in shape), bool(fortran), dtype

    def _fill(self, key: str, fp, out: np.ndarray) -> None:
        """Read exactly ``out.size`` bytes of data into ``out``, then check that the member ends
        there (which also checks its CRC)."""
        view = memoryview(out)
        pos = 0
        while pos < out.size:
            chunk = fp.read(min(CHUNK, out.size - pos))
            if not chunk:
                raise self.where.fail(f"archive member {key} is truncated ({pos:,} of {out.size:,} data bytes)")
            view[pos:pos + len(chunk)] = chunk
            pos += len(chunk)
        if fp.read(1):
            raise self.where.fail(f"archive member {key} holds more data than its npy header declares")

    def json(self, key: str) -> Any:
        """Member ``key`` (UTF-8 JSON text stored as uint8 bytes, at most ``limits.METADATA_BYTES``)
        decoded."""
        METADATA_BYTES.check(self.infos[key].file_size, f"{self.where.path}: {key}")
        raw = self.array(key)
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise self.where.fail(f"corrupt metadata ({key} should be bytes, not {raw.dtype} {raw.shape})")
        try:
            return json.loads(raw.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise self.where.fail(f"corrupt metadata ({exc.__class__.__name__}: {str(exc)[:200]})") from None


INT32_MAX = int(np.iinfo(np.int32).max)
ETA_LIMIT = 1e150  # the largest classifier weight read: products of two weights, or of one and c, stay finite
KIND_NAMES = {"b": "booleans", "i": "integers", "u": "integers", "f": "real numbers", "c": "complex numbers",
              "U": "text"}


def check_array(where: Where, name: str, value: np.ndarray, *, kinds: str, shape: tuple | None = None,
                ndim: int | None = None, dtype=None, finite: bool = False, low: float | None = None,
                high: float | None = None, integral: bool = False, unique: bool = False) -> np.ndarray:
    """``value`` checked and returned as a native, C-contiguous array (of ``dtype`` if given).

    ``kinds``: the dtype kinds accepted (``"iu"`` integers, ``"f"`` reals, ``"U"`` text);
    ``shape``: the exact shape, entries that are no integer free (``None``, or a name such as
    ``"S"`` shown in the message); ``finite``, ``low``/``high`` (inclusive
    bounds), ``integral`` (whole numbers, for a real array standing for counts), ``unique``
    (no value twice). ``dtype`` is applied last, after the range checks that make it exact."""
    if value.dtype.kind not in kinds:
        wanted = "unsigned integers" if kinds == "u" else " or ".join(dict.fromkeys(KIND_NAMES[k] for k in kinds))
        raise where.fail(f"{name} should hold {wanted}, not {value.dtype}")
    expected_ndim = len(shape) if shape is not None else ndim
    if expected_ndim is not None and value.ndim != expected_ndim:
        raise where.fail(f"{name} should have {expected_ndim} dimensions, not shape {value.shape}")
    if shape is not None and any(isinstance(s, int) and s != n for s, n in zip(shape, value.shape)):
        wanted = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise where.fail(f"{name} should be of shape {wanted}, not {value.shape}")
    value = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("="))
    if value.size and value.dtype.kind in "biufc":
        _check_values(where, name, value, finite, low, high, integral)
    if unique and value.size and np.unique(value).size != value.size:
        raise where.fail(f"{name} holds a value more than once")
    return value if dtype is None else value.astype(dtype, copy=False)


def _check_values(where: Where, name: str, value: np.ndarray, finite: bool, low, high, integral: bool) -> None:
    if value.dtype.kind == "c":
        raise where.fail(f"{name} should hold real numbers, not {value.dtype}")
    if value.dtype.kind == "f" and (finite or integral or low is not None or high is not None):
        if not np.isfinite(value).all():
            raise where.fail(f"{name} holds NaN or infinite values")
    if integral and value.dtype.kind == "f" and not (value == np.round(value)).all():
        raise where.fail(f"{name} holds fractional values where whole numbers belong")
    # compared as Python numbers: a bound cast to a narrow dtype would overflow or round
    if low is not None and value.min().item() < low:
        raise where.fail(f"{name} holds {value.min().item()!r}, below its least allowed value {low!r}")
    if high is not None and value.max().item() > high:
        raise where.fail(f"{name} holds {value.max().item()!r}, above its greatest allowed value {high!r}")


# ---- JSON values -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """What a JSON value must be: ``test(value)`` and the phrase for its error message."""

    test: Callable[[Any], bool]
    phrase: str

    def or_none(self) -> "Field":
        return Field(lambda v: v is None or self.test(v), f"{self.phrase} or null")


def is_number(value: Any) -> bool:
    """A JSON number (int or float, not a boolean)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def integer(low: int | None = None, high: int | None = None) -> Field:
    def test(v: Any) -> bool:
        return (isinstance(v, int) and not isinstance(v, bool) and (low is None or v >= low)
                and (high is None or v <= high))
    bounds = (f" >= {low}" if low is not None else "") + (f" <= {high:,}" if high is not None else "")
    return Field(test, "an integer" + bounds)


def real(low: float | None = None, open_low: bool = False, finite: bool = True) -> Field:
    def test(v: Any) -> bool:
        if not is_number(v) or (finite and not math.isfinite(v)):
            return False
        return low is None or (v > low if open_low else v >= low)
    bound = "" if low is None else f" {'>' if open_low else '>='} {low:g}"
    return Field(test, ("a finite number" if finite else "a number") + bound)


TEXT = Field(lambda v: isinstance(v, str), "a string")
FLAG = Field(lambda v: isinstance(v, bool), "true or false")
OBJECT = Field(lambda v: isinstance(v, dict), "an object")
NUMBER = real(finite=False)
ROWS = Field(lambda v: isinstance(v, list) and all(isinstance(r, dict) and all(is_number(x) for x in r.values())
                                                   and is_number(r.get("iteration")) and is_number(r.get("seconds"))
                                                   for r in v),
             "a list of objects of numbers, each with iteration and seconds")


def check_fields(where: Where, what: str, value: Any, required: dict[str, Field],
                 optional: dict[str, Field] | None = None) -> dict:
    """``value`` as a JSON object holding every ``required`` key, no key outside ``required``
    and ``optional``, and each of the right type; returned as is."""
    optional = optional or {}
    if not isinstance(value, dict):
        raise where.fail(f"{what} should be a JSON object, not {type(value).__name__}")
    missing = sorted(k for k in required if k not in value)
    unknown = sorted(str(k) for k in value if k not in required and k not in optional)
    if missing or unknown:
        problems = (["missing " + ", ".join(missing)] if missing else []) + (
            ["unexpected " + ", ".join(unknown[:10]) + (", ..." if len(unknown) > 10 else "")] if unknown else [])
        raise where.fail(f"{what} does not fit the format: {'; '.join(problems)}")
    for key, rule in {**required, **optional}.items():
        if key in value and not rule.test(value[key]):
            raise where.fail(f"{what}: {key} should be {rule.phrase}, not {short(value[key])}")
    return value


def short(value: Any) -> str:
    """``repr(value)``, cut to 60 characters for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
