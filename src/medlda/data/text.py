"""Raw text to word counts: the one preprocessing path for text corpora.

The standard preprocessing: drop the e-mail header block except the Subject line (``news``) and
the quoting boilerplate of e-mail and news messages (``quotes``: quoted lines, attribution lines,
the closing signature), lowercase, keep alphabetic tokens of 3+ letters, remove English stop words,
keep words that occur in at least ``min_df`` training documents. The benchmark convention of the
MedLDA papers' 20 Newsgroups runs (data/README.md) strips the headers only: ``PAPERS``. Test texts
are counted against the training vocabulary; ``count_oov_tokens`` reports what it dropped.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

import numpy as np
from sklearn.base import clone
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


_QUOTED = re.compile(r"[ \t]*[>|]")  # a quoted line: '>' or '|' first (after any indentation)
_ATTRIBUTION_START = re.compile(r"\s*In article\b")  # "In article <id> someone writes:" (may wrap)
_ATTRIBUTION_END = re.compile(r".*\b(?:writes|wrote):\s*$")  # "someone writes:" / "... wrote:"
SIGNATURE_LINES = 10
"""The most non-blank lines after the last ``--`` line that are taken for a signature."""


def strip_quotes(text: str) -> str:
    """Drop quoted lines (those starting with ``>`` or ``|``, after any indentation) and the
    attribution lines that introduce a quote (starting with "In article", or ending with
    "writes:" or "wrote:"); the other lines are kept in order, joined by ``\\n``."""
    return "\n".join(line for line in text.splitlines() if not _QUOTED.match(line)
                     and not _ATTRIBUTION_START.match(line) and not _ATTRIBUTION_END.match(line))


def strip_signature(text: str) -> str:
    """Drop the signature block: from the last line that is ``--`` (the signature delimiter, any
    surrounding whitespace) to the end, when at most ``SIGNATURE_LINES`` non-blank lines follow it
    (a longer tail is taken for text after a separator and kept)."""
    lines = text.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip() == "--":
            if sum(1 for line in lines[i + 1:] if line.strip()) <= SIGNATURE_LINES:
                return "\n".join(lines[:i])
            return text
    return text


def news_preprocessor(text: str) -> str:
    """Header stripping plus lowercasing (CountVectorizer skips ``lowercase`` for a custom preprocessor)."""
    return strip_news_headers(text).lower()


def quotes_preprocessor(text: str) -> str:
    """Quote and signature stripping plus lowercasing."""
    return strip_quotes(strip_signature(text)).lower()


def news_quotes_preprocessor(text: str) -> str:
    """Header, quote and signature stripping plus lowercasing: the message body the sender wrote."""
    return strip_quotes(strip_signature(strip_news_headers(text))).lower()


# (news, quotes) -> the preprocessor; identity tells the settings back (vectorizer_settings)
_PREPROCESSORS = {(False, False): None, (True, False): news_preprocessor, (False, True): quotes_preprocessor,
                  (True, True): news_quotes_preprocessor}


def make_vectorizer(
    *,
    news: bool = True,
    quotes: bool | None = None,
    min_df: int | float = 3,
    stop_words: str | Sequence[str] | None = "english",
    vocabulary: Sequence[str] | np.ndarray | None = None,
    max_df: int | float = 1.0,
    max_features: int | None = None,
) -> CountVectorizer:
    """A scikit-learn CountVectorizer with medlda's standard text preprocessing.

    Lowercase, alphabetic tokens of 3+ letters, English stop words removed, words kept that
    occur in at least ``min_df`` documents; e-mail and news boilerplate stripped first.

    Parameters
    ----------
    news : bool, default=True
        Drop a leading e-mail header block but its Subject line (``strip_news_headers``).
    quotes : bool, optional
        Drop quoted lines, attribution lines (``strip_quotes``) and the closing signature
        (``strip_signature``); default: as ``news``.
    min_df : int or float, default=3
        Keep words in at least this many documents (a float: this fraction of them).
    stop_words : "english", list of str or None, default="english"
        Words to drop.
    vocabulary : sequence of str, optional
        Use these words as they are (no document-frequency limits).
    max_df : int or float, default=1.0
        Drop words in more documents than this (a float: this fraction of them).
    max_features : int, optional
        Keep only the most frequent words.

    Returns
    -------
    CountVectorizer
        Unfitted; ``medlda.save_model`` keeps its settings in a model file.

    Examples
    --------
    >>> from medlda.data.text import make_vectorizer
    >>> vectorizer = make_vectorizer(min_df=1)
    >>> X = vectorizer.fit_transform(["From: a@b.org\\nSubject: Space probes\\n\\nThe probe reached orbit.",
    ...                               "Cars and their engines: engines roar"])
    >>> vectorizer.get_feature_names_out().tolist()
    ['cars', 'engines', 'orbit', 'probe', 'probes', 'reached', 'roar', 'space']
    >>> X.toarray()
    array([[0, 0, 1, 1, 1, 1, 0, 1],
           [1, 2, 0, 0, 0, 0, 1, 0]])
    """
    quotes = news if quotes is None else quotes
    if vocabulary is not None:
        vocabulary = [str(w) for w in vocabulary]
        min_df, max_df, max_features = 1, 1.0, None
    return CountVectorizer(
        preprocessor=_PREPROCESSORS[bool(news), bool(quotes)],
        lowercase=True,
        token_pattern=TOKEN_PATTERN,
        stop_words=stop_words,
        min_df=min_df,
        max_df=max_df,
        max_features=max_features,
        vocabulary=vocabulary,
        dtype=np.int64,
    )


SETTINGS = ("news", "quotes", "min_df", "max_df", "max_features", "stop_words")
"""``make_vectorizer``'s keywords, bar ``vocabulary``: what a model file keeps of its preprocessing."""

OMITTED_SETTINGS = {"quotes": False}
"""Settings a model file may leave out, and what its absence means (the texts were read without it)."""

PAPERS = {"news": True, "quotes": False}
"""The benchmark convention of the MedLDA papers' 20 Newsgroups runs (data/README.md): headers
stripped but the Subject, quotes and signatures kept; pass as ``make_vectorizer(**PAPERS)``."""


def vectorizer_settings(vectorizer: CountVectorizer) -> dict[str, Any]:
    """The ``make_vectorizer`` keywords (``SETTINGS``) that rebuild ``vectorizer``'s preprocessing,
    as JSON values; ValueError for a vectorizer they cannot describe (another class, analyzer,
    tokenizer, preprocessor, token pattern, n-grams, ...), which a model file could keep only by
    pickling it."""
    params = vectorizer.get_params() if isinstance(vectorizer, CountVectorizer) else None
    if params is None or type(vectorizer) is not CountVectorizer:
        raise ValueError(f"cannot describe a {type(vectorizer).__name__} as medlda.data.text.make_vectorizer "
                         "settings: only a CountVectorizer built by make_vectorizer is saved (as JSON, never pickled)")
    stop_words = params["stop_words"]
    if stop_words is not None and not isinstance(stop_words, str):
        stop_words = [str(w) for w in stop_words]
    news_quotes = next((k for k, f in _PREPROCESSORS.items() if f is params["preprocessor"]), (False, False))
    settings = {"news": news_quotes[0], "quotes": news_quotes[1], "min_df": params["min_df"],
                "max_df": params["max_df"], "max_features": params["max_features"], "stop_words": stop_words}
    try:
        expected = make_vectorizer(**settings).get_params()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot describe the vectorizer as make_vectorizer settings ({exc})") from None
    differ = sorted(k for k in params if k not in (*SETTINGS, "vocabulary") and not _same(params[k], expected[k]))
    if differ:
        raise ValueError(f"cannot save the vectorizer: its {', '.join(differ)} "
                         f"{'differs' if len(differ) == 1 else 'differ'} from what "
                         "medlda.data.text.make_vectorizer sets, and a model file keeps only make_vectorizer's "
                         f"settings ({', '.join(SETTINGS)}) as JSON, never a pickled object; build it with "
                         "make_vectorizer, or save the model without it (model.save(path, vectorizer=False))")
    return settings


def _same(a, b) -> bool:
    """Whether two vectorizer parameter values are the same setting (functions and types by identity)."""
    return a is b or (type(a) is type(b) and a == b)


def is_texts(X) -> bool:
    """Whether ``X`` is raw texts: a non-empty list, tuple, 1-d array or pandas Series of strings."""
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__") or not hasattr(X, "__iter__"):
        return False
    if getattr(X, "ndim", 1) != 1 or len(X) == 0:
        return False
    return all(isinstance(x, str) for x in X)


def vectorizer_for(vocabulary: Sequence[str] | np.ndarray, settings: dict | None = None,
                   vectorizer: CountVectorizer | None = None) -> CountVectorizer:
    """A CountVectorizer that counts texts over ``vocabulary`` (column v: word v), preprocessing
    them as ``settings`` (``make_vectorizer`` keywords) or a copy of ``vectorizer`` does (default:
    ``make_vectorizer()``'s); its document-frequency settings stay as given and do not apply to a
    fixed vocabulary."""
    if vectorizer is None:
        vectorizer = make_vectorizer(**({**OMITTED_SETTINGS, **settings} if settings else {}))
    else:
        vectorizer = clone(vectorizer)
    return vectorizer.set_params(vocabulary=[str(w) for w in vocabulary])


def count_oov_tokens(vectorizer: CountVectorizer, texts: Iterable[str], X) -> int:
    """Tokens the analyzer produced that the (fixed) vocabulary dropped: all tokens minus ``X.sum()``."""
    analyze = vectorizer.build_analyzer()
    total = sum(len(analyze(text)) for text in texts)
    return int(total - X.sum())
