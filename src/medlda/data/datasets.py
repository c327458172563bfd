"""Benchmark data sets: 20 Newsgroups (bydate) from a local archive, folder or its public home.

The library never assumes a particular data directory: pass ``path=``, set ``$MEDLDA_DATA``, or let
``load_20newsgroups`` download the archive into ``~/.cache/medlda/``.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Sequence

import numpy as np
from sklearn.utils import Bunch

from medlda.data.readers.folder import read_text_folder
from medlda.data.text import strip_news_headers, strip_quotes, strip_signature
from medlda.io.atomic import atomic_write
from medlda.limits import MEMBER_BYTES

NEWS20_URL = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
NEWS20_ARCHIVE = "20news-bydate.tar.gz"


def data_home() -> Path:
    """The folder that downloaded data goes to: ``$MEDLDA_DATA`` if set, else ``~/.cache/medlda``.

    Returns
    -------
    Path

    Examples
    --------
    >>> import os
    >>> from medlda.data.datasets import data_home
    >>> os.environ["MEDLDA_DATA"] = "/data/medlda"
    >>> str(data_home())
    '/data/medlda'
    >>> del os.environ["MEDLDA_DATA"]
    """
    env = os.environ.get("MEDLDA_DATA")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "medlda"


def load_20newsgroups(
    path: str | os.PathLike | None = None,
    subset: str = "train",
    categories: Sequence[str] | None = None,
    *,
    remove_headers: bool = False,
    remove_quotes: bool = False,
    download_if_missing: bool = True,
) -> Bunch:
    """20 Newsgroups "bydate": raw texts and their groups, as scikit-learn's ``fetch_20newsgroups``.

    Unshuffled, sorted by group. The archive (``20news-bydate.tar.gz``, 15 MB, from
    http://qwone.com/~jason/20Newsgroups/) is looked for in ``data_home()`` and downloaded there
    when missing, unless ``path`` names it or its extracted folder.

    Parameters
    ----------
    path : str or path-like, optional
        The archive or its extracted folder; default: found or downloaded.
    subset : {"train", "test", "all"}, default="train"
        The half of the bydate split.
    categories : sequence of str, optional
        The groups to read (e.g. ``["sci.space", "rec.autos"]``); default: all 20.
    remove_headers : bool, default=False
        Drop each message's header block but its Subject line.
    remove_quotes : bool, default=False
        Drop quoted lines, attribution lines and the closing signature
        (``medlda.data.text.strip_quotes`` and ``strip_signature``). Both together remove about
        what scikit-learn's ``remove=("headers", "footers", "quotes")`` does, but keep the Subject.
    download_if_missing : bool, default=True
        Download the archive when it is not found; False raises FileNotFoundError instead.

    Returns
    -------
    Bunch
        ``data`` (raw texts), ``target`` (ints), ``target_names`` (the sorted groups present),
        ``filenames`` (paths inside the archive or folder) and ``DESCR``.

    Examples
    --------
    ``load_20newsgroups(subset="train", categories=["sci.space", "rec.autos"])`` reads two groups
    of the archive; here, a folder in its layout:

    >>> from pathlib import Path
    >>> from medlda.data.datasets import load_20newsgroups
    >>> for group, text in [("rec.autos", "Subject: brakes\\n\\nMy brakes squeal."),
    ...                     ("sci.space", "Subject: orbit\\n\\nThe probe reached orbit.")]:
    ...     folder = Path("news", "20news-bydate-train", group)
    ...     folder.mkdir(parents=True)
    ...     _ = (folder / "1").write_text(text)
    >>> news = load_20newsgroups("news", categories=["sci.space", "rec.autos"], remove_headers=True)
    >>> news.target_names, news.target.tolist(), news.data[1]
    (['rec.autos', 'sci.space'], [0, 1], 'orbit\\n\\nThe probe reached orbit.')
    """
    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', not {subset!r}")
    if path is None:
        path = _find_or_download_20news(download_if_missing)
    texts, labels, names = read_text_folder(path, subset=subset, categories=categories)
    if remove_headers:
        texts = [strip_news_headers(t) for t in texts]
    if remove_quotes:
        texts = [strip_quotes(strip_signature(t)) for t in texts]
    target_names = sorted(set(labels))
    index = {name: i for i, name in enumerate(target_names)}
    return Bunch(
        data=texts,
        target=np.array([index[label] for label in labels], dtype=np.int64),
        target_names=target_names,
        filenames=np.array(names, dtype=object),
        DESCR=f"20 Newsgroups (bydate), subset={subset!r}, read from {path}",
    )


def _find_or_download_20news(download_if_missing: bool) -> Path:
    """The local 20news archive in ``$MEDLDA_DATA`` or ``~/.cache/medlda``, downloading it if allowed."""
    env = os.environ.get("MEDLDA_DATA")
    places = ([Path(env).expanduser()] if env else []) + [Path.home() / ".cache" / "medlda"]
    for place in places:
        if (place / NEWS20_ARCHIVE).is_file():
            return place / NEWS20_ARCHIVE
    target = data_home() / NEWS20_ARCHIVE
    if not download_if_missing:
        raise FileNotFoundError(
            f"{NEWS20_ARCHIVE} not found in {' or '.join(map(str, places))}; download it from "
            f"{NEWS20_URL} and pass path=, or allow download_if_missing=True"
        )
    return download(NEWS20_URL, target)


def download(url: str, target: Path, timeout: float = 60.0) -> Path:
    """Fetch ``url`` into ``target`` atomically (temporary file beside it, then rename), at most
    ``limits.MEMBER_BYTES`` of it."""
    target.parent.mkdir(parents=True, exist_ok=True)

    def fetch(out) -> None:
        total = 0
        with urllib.request.urlopen(url, timeout=timeout) as response:
            while chunk := response.read(1 << 20):
                total += len(chunk)
                MEMBER_BYTES.check(total, url)  # a download is bounded like an archive member
                out.write(chunk)

    try:
        return atomic_write(target, fetch)
    except (urllib.error.URLError, OSError) as err:
        raise ConnectionError(
            f"could not download {url} ({err}); download the archive by hand and pass its path "
            f"as path=..., or put it at {target}"
        ) from err
