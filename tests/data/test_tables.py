"""Tables of raw texts (CSV, TSV, JSON Lines): what each row gives, and every malformed row named."""

from __future__ import annotations

import numpy as np
import pytest

from files import write_delimited, write_jsonl
from medlda.data.readers import guess_format, read_corpus
from medlda.data.text import make_vectorizer
from medlda.exceptions import InputFormatError

ROWS = [  # text, labels as written in a cell
    ("Refund the invoice, the card was charged twice", "billing"),
    ("The server is down again:\nlogin page timeout", "outage,urgent"),
    ("Please add an export option for invoices", ""),
    ("Invoice refund for a double card charge", "billing"),
    ("Login timeout, server error on the page", "outage"),
    ("Export option and a dark mode, please", "feature"),
]


def _vectorize(texts):
    """What a table's texts should give: the papers' preprocessing without news headers."""
    vectorizer = make_vectorizer(news=False, min_df=1)
    return vectorizer.fit_transform(texts).toarray(), vectorizer.get_feature_names_out()


def _dense(corpus):
    return corpus.to_sparse().toarray()


def test_csv_tsv_and_jsonl_give_the_same_corpus(tmp_path):
    texts = [t for t, _ in ROWS]
    expected, words = _vectorize(texts)
    labels = [tuple(part for part in cell.split(",") if part) for _, cell in ROWS]
    jsonl = write_jsonl(tmp_path / "t.jsonl", [{"body": t, "queue": list(lab) if len(lab) != 1 else lab[0]}
                                                for t, lab in zip(texts, labels)])
    tables = write_delimited(tmp_path / "t.csv", ",", ROWS), write_delimited(tmp_path / "t.tsv", "\t", ROWS)
    for path in (*tables, jsonl):
        corpus = read_corpus(path, text_column="body", label_column="queue",
                             vectorizer=make_vectorizer(news=False, min_df=1))  # six short rows keep their words
        assert list(corpus.vocabulary) == list(words)
        assert np.array_equal(_dense(corpus), expected)
        assert corpus.labels == labels  # "a,b": two labels; "": none
        # a row is named by the line it starts on: the second row's text spans two lines
        first_lines = [1, 2, 3, 4, 5, 6] if path.suffix == ".jsonl" else [2, 3, 5, 6, 7, 8]
        assert corpus.doc_names == [f"line {n}" for n in first_lines]


def test_label_column_defaults_to_label_and_numbers_are_responses(tmp_path):
    many = [(f"good clean room staff friendly {i}", str(i % 5 + 0.5)) for i in range(6)]
    path = write_delimited(tmp_path / "r.csv", ",", many, header=("id", "text", "label"))
    corpus = read_corpus(path)
    assert np.array_equal(corpus.real_labels(), [i % 5 + 0.5 for i in range(6)])
    unlabeled = write_jsonl(tmp_path / "u.jsonl", [{"text": t} for t, _ in many])
    assert read_corpus(unlabeled).labels is None
    numbers = write_jsonl(tmp_path / "n.jsonl", [{"text": t, "label": float(v)} for t, v in many])
    assert np.array_equal(read_corpus(numbers).real_labels(), corpus.real_labels())
    flags = write_jsonl(tmp_path / "b.jsonl", [{"text": t, "label": i % 2 == 0} for i, (t, _) in enumerate(many)])
    assert read_corpus(flags).labels == [("true",), ("false",)] * 3


def test_a_training_vocabulary_drops_and_counts_unknown_words(tmp_path):
    path = write_delimited(tmp_path / "t.csv", ",", [("refund invoice galaxy", "a"), ("server nebula", "b")],
                            header=("id", "text", "label"))
    corpus = read_corpus(path, vocabulary=np.array(["invoice", "refund", "server"]))
    assert corpus.n_oov_dropped == 2 and np.array_equal(_dense(corpus), [[1, 1, 0], [0, 0, 1]])


def test_guess_format_reads_the_suffix(tmp_path):
    for name, fmt in (("a.csv", "csv"), ("a.TSV", "tsv"), ("a.tab", "tsv"), ("a.jsonl", "jsonl"),
                      ("a.ndjson", "jsonl"), ("a.txt", "txt")):  # .txt: by its lines, here text
        (tmp_path / name).write_text("text\nhello\n")
        assert guess_format(tmp_path / name) == fmt


@pytest.mark.parametrize("name, content, match", [
    ("a.csv", "body,queue\nx,y\n", r"a\.csv: no column 'text' \(columns: body, queue\); name the text column"),
    ("b.csv", "text,queue\nx,y,z\n", r"b\.csv, line 2: 3 fields, but the header names 2"),
    ("c.csv", 'text,label\nfine,a\n"unclosed,b\n', r"c\.csv, line 3: malformed CSV"),
    ("d.csv", "", r"d\.csv: empty file: expected a header row"),
    ("e.jsonl", '{"text": "a"}\n\n{"text": "b",}\n', r"e\.jsonl, line 3: not JSON"),
    ("f.jsonl", '{"text": "a"}\n["b"]\n', r"f\.jsonl, line 2: expected a JSON object per line, found list"),
    ("g.jsonl", '{"text": "a", "label": "x"}\n{"label": "y"}\n', r"g\.jsonl, line 2: no 'text' field"),
    ("h.jsonl", '{"text": {"a": 1}}\n', r"h\.jsonl, line 1: the 'text' field is a dict, not text"),
    ("i.jsonl", '{"text": "a", "label": {"x": 1}}\n', r"i\.jsonl, line 1: a label is a string, a number, true or"),
    ("j.jsonl", '{"text": "a", "label": [["x"]]}\n', r"j\.jsonl, line 1: a label list may hold only"),
    ("k.jsonl", "\n\n", r"k\.jsonl: no rows"),
    ("l.tsv", "text,label\nx,y\n", r"l\.tsv: no column 'text', only the column 'text,label': the delimiter looks "
                                   r"wrong; the file looks comma-separated: read it with --format csv"),
    ("m.csv", "text\tlabel\nx\ty\n", r"m\.csv: no column 'text', only the column 'text\\tlabel': the delimiter "
                                     r"looks wrong; the file looks tab-separated: read it with --format tsv"),
    ("n.csv", "text;label\nx;y\n", r"n\.csv: .*the file looks separated by ';': save it comma-separated"),
    ("o.csv", "text,label\nfine,a\nonly one\n", r"o\.csv, line 3: 1 field, but the header names 2$"),
    ("p.csv", 'text,label\n"open, here,a\nnext,b\n\n', r"p\.csv, line 2: malformed CSV: a quote opened in the row "
                                                      r"starting on this line is never closed"),
])
def test_malformed_tables_name_file_line_and_problem(tmp_path, name, content, match):
    (tmp_path / name).write_text(content, encoding="utf-8")
    with pytest.raises(InputFormatError, match=match):
        read_corpus(tmp_path / name)


def test_other_malformed_tables(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes(b"text,label\nfine,a\ncaf\xe9,b\n")
    with pytest.raises(InputFormatError, match=r"latin\.csv, line 3: not UTF-8 text \(byte 21"):
        read_corpus(path)
    path = write_delimited(tmp_path / "t.csv", ",", ROWS, header=("id", "text", "label"))
    with pytest.raises(InputFormatError, match=r"no column 'queue' \(columns: id, text, label\)"):
        read_corpus(path, label_column="queue")
    with pytest.raises(InputFormatError, match=r"t\.csv: no column 'body', the text column asked for "
                                               r"\(columns: id, text, label\)$"):
        read_corpus(path, text_column="body")
    with pytest.raises(InputFormatError, match=r"t\.csv: no words left in its 6 documents after preprocessing "
                                               r"\(words of 3\+ letters in at least 3 documents"):
        read_corpus(path)  # min_df = 3, and no word is in three of these six rows
    bow = tmp_path / "d.txt"
    bow.write_text("a word:1\n")
    with pytest.raises(ValueError, match="text_column and label_column apply only to tables"):
        read_corpus(bow, label_column="x")
