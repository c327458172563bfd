"""Raw text to word counts: the one preprocessing path for text corpora.

The standard preprocessing (data/README.md, as in the MedLDA papers' 20 Newsgroups runs): drop the
e-mail header block except the Subject line, lowercase, keep alphabetic tokens of 3+ letters,
remove English stop words, keep words that occur in at least ``min_df`` training documents. Test
texts are counted against the training vocabulary; ``count_oov_tokens`` reports what it dropped.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

TOKEN_PATTERN = r"(?u)\b[^\W\d_]{3,}\b"
"""Alphabetic tokens (any script, no digits or underscores) of three or more letters."""

_FIELD_LINE = re.compile(r"[!-9;-~]+:")  # an RFC 5322 field name (printable ASCII but ':') and ':'
_BLANK_LINE = re.compile(r"\r?\n[ \t]*\r?\n")


def strip_news_headers(text: str) -> str:
    """Drop a leading e-mail header block (up to the first blank line), keeping the Subject value.

    The block counts as headers when each of its lines is a ``Key: value`` field or a folded
    continuation (leading whitespace) and at least one is a field; otherwise ``text`` is returned
    unchanged, so plain documents are not cut.
    """
    match = _BLANK_LINE.search(text)
    header, body = (text, "") if match is None else (text[: match.start()], text[match.end():])
    lines = header.splitlines()
    if not lines or not all(_FIELD_LINE.match(ln) or ln[:1].isspace() for ln in lines):
        return text
    if not any(_FIELD_LINE.match(ln) for ln in lines):
        return text
    return _subject(lines) + "\n\n" + body


def _subject(lines: list[str]) -> str:
    """The Subject value of header lines, with folded continuation lines; "" if none."""
    for i, line in enumerate(lines):
        if line[:8].lower() == "subject:":
            parts = [line[8:].strip()]
            for cont in lines[i + 1:]:
                if not cont[:1].isspace():
                    break
                parts.append(cont.strip())
            return " ".join(parts)
    return ""


def news_preprocessor(text: str) -> str:
    """Header stripping plus lowercasing (CountVectorizer skips ``lowercase`` for a custom preprocessor)."""
    return strip_news_headers(text).lower()


def make_vectorizer(
    *,
    news: bool = True,
    min_df: int | float = 3,
    stop_words: str | Sequence[str] | None = "english",
    vocabulary: Sequence[str] | np.ndarray | None = None,
    max_df: int | float = 1.0,
    max_features: int | None = None,
) -> CountVectorizer:
    """A CountVectorizer with the standard preprocessing; ``max_df`` drops words in more documents
    (a fraction, or a count), ``max_features`` keeps the most frequent words. A given
    ``vocabulary`` is used as is (no document-frequency limits)."""
    if vocabulary is not None:
        vocabulary = [str(w) for w in vocabulary]
        min_df, max_df, max_features = 1, 1.0, None
    return CountVectorizer(
        preprocessor=news_preprocessor if news else None,
        lowercase=True,
        token_pattern=TOKEN_PATTERN,
        stop_words=stop_words,
        min_df=min_df,
        max_df=max_df,
        max_features=max_features,
        vocabulary=vocabulary,
        dtype=np.int64,
    )


def count_oov_tokens(vectorizer: CountVectorizer, texts: Iterable[str], X) -> int:
    """Tokens the analyzer produced that the (fixed) vocabulary dropped: all tokens minus ``X.sum()``."""
    analyze = vectorizer.build_analyzer()
    total = sum(len(analyze(text)) for text in texts)
    return int(total - X.sum())
