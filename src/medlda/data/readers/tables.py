"""Tables of raw texts, one document per row: CSV and TSV (a header row names the columns) and
JSON Lines (one object per line), the forms in which tickets, reviews and papers usually come.

A row gives a document's text and, optionally, its labels: one label, several separated by commas
(multi-label; in JSON Lines also a list), or a number (regression); an empty cell means no label.
Malformed rows raise :class:`InputFormatError` naming the file and line.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from medlda.data.readers.paths import printable, utf8_error
from medlda.exceptions import InputFormatError

TABLE_FORMATS = ("csv", "tsv", "jsonl")
_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_FIELD_LIMIT = 2**31 - 1  # csv's default of 131,072 characters is shorter than some documents


def table_format(path: str | os.PathLike) -> str | None:
    """The table format a file name's suffix says ('csv', 'tsv', 'jsonl'), else None."""
    return _SUFFIXES.get(Path(path).suffix.lower())


def read_table(path: str | os.PathLike, format: str, text_column: str = "text",
               label_column: str | None = None) -> tuple[list[str], list[tuple[str, ...]] | None, list[str]]:
    """Texts, labels (None for an unlabeled table) and row names ('line N') of a table.
    ``label_column=None`` reads the column 'label' if the table has one, else no labels."""
    if format not in TABLE_FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, TABLE_FORMATS))}, not {format!r}")
    path = str(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            rows = _json_rows(fh, path) if format == "jsonl" else _csv_rows(fh, path, "," if format == "csv" else "\t")
            return _columns(rows, path, format, text_column, label_column)
    except UnicodeDecodeError:
        line, offset, reason = utf8_error(path)
        raise InputFormatError(path, line, f"not UTF-8 text (byte {offset}: {reason}); "
                               "save the table as UTF-8") from None


def _csv_rows(fh, path: str, delimiter: str):
    """(line, {column: cell}) per data row of a delimited file with a header row."""
    csv.field_size_limit(_FIELD_LIMIT)
    reader = csv.reader(fh, delimiter=delimiter, strict=True)
    line = 1  # where the row being read starts
    try:
        header = next(reader, None)
        if header is None:
            raise InputFormatError(path, None, "empty file: expected a header row naming the columns")
        yield 0, header
        line = reader.line_num + 1
        for cells in reader:
            if cells:  # blank lines are no rows
                if len(cells) != len(header):
                    raise InputFormatError(path, line, f"{_fields(len(cells))}, but the header names {len(header)}")
                yield line, dict(zip(header, cells))
            line = reader.line_num + 1
    except csv.Error as err:
        raise _csv_error(path, "CSV" if delimiter == "," else "TSV", err, line, reader.line_num) from None


def _shown(column) -> str:
    """A column name for a one-line message (a quoted CSV header may hold a newline)."""
    return printable(str(column))


def _fields(n: int) -> str:
    """"N fields", singular for one."""
    return f"{n} field" if n == 1 else f"{n} fields"


def _csv_error(path: str, kind: str, err: csv.Error, row_line: int, line: int) -> InputFormatError:
    """The error for a row the csv module cannot parse; a quote left open is reported at the line
    of the row holding it (the reader only notices at the end of the file)."""
    if "unexpected end of data" in str(err):
        return InputFormatError(path, row_line, f"malformed {kind}: a quote opened in the row starting on this "
                                                f"line is never closed")
    return InputFormatError(path, line, f"malformed {kind} ({err})")


def _json_rows(fh, path: str):
    """(line, object) per non-blank line of a JSON Lines file; first the keys of the first object."""
    first = True
    for line, text in enumerate(fh, 1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as err:
            raise InputFormatError(path, line, f"not JSON ({err.msg} at column {err.colno})") from None
        except RecursionError:
            raise InputFormatError(path, line, "not JSON this reader can take: values nested too deeply") from None
        except ValueError as err:  # e.g. an integer of more digits than Python converts
            raise InputFormatError(path, line, f"not JSON this reader can take ({err})") from None
        if not isinstance(row, dict):
            raise InputFormatError(path, line, f"expected a JSON object per line, found {type(row).__name__}")
        if first:
            yield 0, list(row)
            first = False
        yield line, row
    if first:
        raise InputFormatError(path, None, "no rows: expected one JSON object per line")


def _columns(rows, path: str, format: str, text_column: str, label_column: str | None):
    """Gather the text and label columns from ``rows`` (the first item: the column names)."""
    _, columns = next(rows)
    if text_column not in columns:
        raise InputFormatError(path, None, _missing_text_column(columns, format, text_column))
    if label_column is None:
        label_column = "label" if "label" in columns else None
    elif label_column not in columns:
        raise InputFormatError(path, None, f"no column {label_column!r} (columns: {', '.join(map(_shown, columns))})")
    texts, labels, names = [], [], []
    for line, row in rows:
        for column in (text_column, label_column):
            if column is not None and column not in row:
                raise InputFormatError(path, line, f"no {column!r} field")
        text = row[text_column]
        if not isinstance(text, str):
            if text is not None and not isinstance(text, (int, float)):
                raise InputFormatError(path, line, f"the {text_column!r} field is a {type(text).__name__}, not text")
            text = "" if text is None else str(text)
        texts.append(text)
        names.append(f"line {line}")
        if label_column is not None:
            labels.append(_labels(row[label_column], path, line))
    return texts, (labels if label_column is not None else None), names


def _missing_text_column(columns: list, format: str, text_column: str) -> str:
    """Why the text column is missing: a wrong delimiter (one column whose name holds another
    one), a --text-column naming no column, or the default 'text' absent."""
    names = f"columns: {', '.join(map(_shown, columns))}"
    other = _other_delimiter(columns, format)
    if other:
        return f"no column {text_column!r}, only the column {str(columns[0])!r}: the delimiter looks wrong; {other}"
    if text_column != "text":
        return f"no column {text_column!r}, the text column asked for ({names})"
    return f"no column 'text' ({names}); name the text column with text_column= (--text-column)"


def _other_delimiter(columns: list, format: str) -> str:
    """For a one-column header holding a comma, tab or semicolon: which format would split it; else ''."""
    if format == "jsonl" or len(columns) != 1:
        return ""
    name = str(columns[0])
    if "\t" in name and format != "tsv":
        return "the file looks tab-separated: read it with --format tsv (or name it .tsv)"
    if "," in name and format != "csv":
        return "the file looks comma-separated: read it with --format csv (or name it .csv)"
    if ";" in name:
        return "the file looks separated by ';': save it comma-separated (.csv) or tab-separated (.tsv)"
    return ""


def _labels(value, path: str, line: int) -> tuple[str, ...]:
    """A label cell as a tuple: 'a' or 'a,b' or a number (JSON: also true / false, a list, or null)."""
    if value is None:
        return ()
    if isinstance(value, bool):  # a yes/no label, e.g. {"spam": true}: the classes 'false' and 'true'
        return (str(value).lower(),)
    if isinstance(value, list):
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            raise InputFormatError(path, line, "a label list may hold only strings and numbers")
        return tuple(str(v) for v in value)
    if not isinstance(value, (str, int, float)):
        raise InputFormatError(path, line, f"a label is a string, a number, true or false, or a list, not "
                                           f"{json.dumps(value)[:40]}")
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return (str(value),)
