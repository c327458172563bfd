"""Bounds on what an input may make medlda allocate or run, checked before the work starts.

Each limit has a default that fits a laptop and an environment variable that raises it; the error
names both, so a user with a real corpus that large knows what to set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from medlda.exceptions import LimitError


@dataclass(frozen=True)
class Limit:
    """One bound: its name in messages, its default, and the environment variable that sets it."""

    what: str
    default: int
    variable: str

    @property
    def value(self) -> int:
        """The bound in force: the environment variable when set to a positive integer, else the default."""
        raw = os.environ.get(self.variable)
        if raw is None:
            return self.default
        try:
            value = int(raw)
        except ValueError:
            raise LimitError(f"{self.variable}={raw!r} is not an integer") from None
        if value <= 0:
            raise LimitError(f"{self.variable}={raw!r} must be positive")
        return value

    def check(self, amount: int, source: str = "") -> int:
        """Raise ``LimitError`` naming ``source``, the amount, the limit and how to raise it, when
        ``amount`` exceeds the limit; return ``amount``."""
        limit = self.value
        if amount > limit:
            where = f"{source}: " if source else ""
            raise LimitError(f"{where}{self.what} {amount:,} exceeds the limit of {limit:,} "
                             f"(set the environment variable {self.variable} to raise it)")
        return amount


GiB = 2 ** 30
MEMBER_BYTES = Limit("uncompressed size in bytes", GiB, "MEDLDA_MAX_MEMBER_BYTES")
"""An archive member, npz member or npy array, by its declared and its actual size."""
TOKENS = Limit("number of tokens", 2 * 10 ** 9, "MEDLDA_MAX_TOKENS")
"""A corpus' total token count (int32 word ids and topics per token: 8 bytes each at least)."""
DOC_TOKENS = Limit("number of tokens in one document", 10 ** 8, "MEDLDA_MAX_DOC_TOKENS")
"""One document's token count (a single count in a bag-of-words pair included)."""
CELLS = Limit("number of array cells", 2 * 10 ** 9, "MEDLDA_MAX_CELLS")
"""A dense array a setting asks for: topics x words, documents x topics, K x K statistics."""
SWEEPS = Limit("number of sweeps", 10 ** 6, "MEDLDA_MAX_SWEEPS")
"""Iterations or inference sweeps read from a file."""
RAY_SECONDS = Limit("seconds a Ray worker may take to answer", 600, "MEDLDA_RAY_TIMEOUT")
"""One round trip to the Ray workers (an iteration, a broadcast, start-up): a worker silent that
long (frozen, its machine unreachable) ends the run as a dead one does."""
WORDS = Limit("number of words", 2 ** 24, "MEDLDA_MAX_WORDS")
"""A vocabulary a reader builds: one past the largest word id of an id file (24-bit hashing fits)."""
FILES = Limit("number of files", 10 ** 6, "MEDLDA_MAX_FILES")
"""Files of a folder corpus or members of an archive, counted as they are listed."""
METADATA_BYTES = Limit("size of the JSON metadata in bytes", 2 ** 28, "MEDLDA_MAX_METADATA_BYTES")
"""The JSON metadata of a model file or checkpoint (parsing JSON takes several times its size)."""
