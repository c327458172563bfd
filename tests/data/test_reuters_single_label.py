"""Reuters-21578's single-label subset (R52): documents with exactly one topic."""

from __future__ import annotations

import pytest

from files import make_tar
from medlda.data.readers.reuters import modapte_subset


def _doc(newid: int, split: str, topics: list[str], body: str) -> str:
    ds = "".join(f"<D>{t}</D>" for t in topics)
    return (f'<REUTERS TOPICS="YES" LEWISSPLIT="{split}" CGISPLIT="X" OLDID="1" NEWID="{newid}">\n'
            f"<TOPICS>{ds}</TOPICS>\n<TEXT><TITLE>T{newid}</TITLE><BODY>{body}</BODY></TEXT>\n</REUTERS>\n")


def test_single_label_keeps_one_topic_documents_of_categories_in_both_splits(tmp_path):
    sgm = (_doc(1, "TRAIN", ["grain", "wheat"], "a") + _doc(2, "TRAIN", ["oil"], "b") + _doc(3, "TRAIN", ["gold"], "c")
           + _doc(4, "TEST", ["grain"], "d") + _doc(5, "TEST", ["oil", "gold"], "e") + _doc(6, "TEST", ["oil"], "f")
           + _doc(7, "TRAIN", ["grain"], "g") + _doc(8, "TEST", ["wheat"], "h"))
    archive = make_tar(tmp_path / "r.tar.gz", {"reuters21578/reut2-000.sgm": sgm})
    texts, labels, categories, ids = modapte_subset(archive, "train", single_label=True)
    # gold: no single-topic test document; wheat: no single-topic training one; doc 1 has two topics
    assert categories == ["grain", "oil"]
    assert ids == [2, 7] and labels == [("oil",), ("grain",)] and texts[0] == "T2\nb"
    _, labels, _, ids = modapte_subset(archive, "test", single_label=True)
    assert ids == [4, 6] and labels == [("grain",), ("oil",)]
    # the multi-label split keeps documents with several topics (gold and grain occur in both splits)
    _, labels, categories, ids = modapte_subset(archive, "test")
    assert categories == ["gold", "grain", "oil", "wheat"] and ids == [4, 5, 6, 8]


@pytest.mark.slow
def test_r52_sizes(shared_data):
    """The standard R52: 52 categories, 6,532 training and 2,568 test documents."""
    for subset, size in (("train", 6532), ("test", 2568)):
        texts, labels, categories, _ = modapte_subset(shared_data / "reuters21578.tar.gz", subset, single_label=True)
        assert (len(texts), len(categories)) == (size, 52)
        assert all(len(labs) == 1 for labs in labels) and {labs[0] for labs in labels} <= set(categories)
