"""The pieces of a self-contained HTML page (``medlda.reporting.html``): escaped text, tables,
figures as inline PNG images, sections, and the page with its style sheet. Nothing is loaded
from elsewhere: no script, font, style sheet or image outside the file.

Text is escaped by default: a cell, heading or note given as ``str`` is escaped
(``html.escape``, quotes included), so words, class names and file names from data or a model
cannot add markup; only ``Markup`` (built here from escaped parts) is written as it is.
"""

from __future__ import annotations

import base64
import html
import io
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Markup(str):
    """HTML that is written as it is: made by the functions of this module from escaped text.
    Adding text to it escapes the text; the sum is Markup."""

    def __add__(self, other) -> Markup:
        return Markup(str.__add__(self, escape(other)))

    def __radd__(self, other) -> Markup:
        return Markup(str.__add__(escape(other), self))


def escape(text) -> Markup:
    """``text`` (any value, as ``str``) escaped for HTML content and attribute values; Markup as it is."""
    return text if isinstance(text, Markup) else Markup(html.escape(str(text), quote=True))


def join(parts: Iterable) -> Markup:
    """The parts (text escaped, Markup as it is) one after another."""
    return Markup("".join(escape(p) for p in parts))


def element(tag: str, content="", cls: str | None = None, style: str | None = None) -> Markup:
    """``<tag class=... style=...>content</tag>``; ``tag``, ``cls`` and ``style`` are this
    package's own constants (never data), ``content`` text or Markup."""
    attrs = (f' class="{cls}"' if cls else "") + (f' style="{style}"' if style else "")
    return Markup(f"<{tag}{attrs}>{escape(content)}</{tag}>")


def table(header: Sequence, rows: Iterable[Sequence], cls: str | None = None,
          row_headers: bool = False) -> Markup:
    """A table: ``header`` cells, then ``rows`` (each cell text or Markup); with ``row_headers``
    each row's first cell is a header cell."""
    head = element("tr", join(element("th", h) for h in header))
    body = []
    for row in rows:
        cells = [element("th" if row_headers and i == 0 else "td", c) for i, c in enumerate(row)]
        body.append(element("tr", join(cells)))
    return element("div", element("table", element("thead", head) + element("tbody", join(body)), cls=cls),
                   cls="scroll")


def cell(content, style: str) -> Markup:
    """A table cell's content in a span with an inline ``style`` (this package's own, from numbers)."""
    return element("span", content, style=style)


def note(text) -> Markup:
    """A paragraph of explanation."""
    return element("p", text, cls="note")


def bullet_list(items: Iterable) -> Markup:
    return element("ul", join(element("li", item) for item in items))


def figure(fig: Figure, alt: str, caption=None, dpi: int = 100) -> Markup:
    """``fig`` as an inline PNG image (a data URI: nothing to fetch), with ``alt`` text and a
    caption; the figure is closed afterwards."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    image = Markup(f'<img src="data:image/png;base64,{data}" alt="{escape(alt)}">')
    return element("figure", image + (element("figcaption", caption) if caption is not None else Markup("")))


def section(anchor: str, heading, body: Markup) -> Markup:
    """A section with its heading (``h2``); ``anchor`` (this package's constant) is its id, for
    the contents' links."""
    return Markup(f'<section id="{anchor}">') + element("h2", heading) + body + Markup("</section>")


STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 1100px; padding: 1.5em 2em 4em; color: #222; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
nav ol { columns: 2; font-size: 0.95em; }
a { color: #1f5fa8; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
thead th { background: #f3f3f3; }
td.num, table.numbers td { text-align: right; font-variant-numeric: tabular-nums; }
table.confusion th, table.confusion td { padding: 0.15em 0.35em; }
table.confusion td { text-align: right; min-width: 2.2em; }
table.confusion.many thead th { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; }
table.confusion.many thead th:first-child { writing-mode: horizontal-tb; transform: none; vertical-align: bottom; }
.share { white-space: nowrap; }
.word { display: inline-block; margin: 0 0.7em 0.1em 0; white-space: nowrap; }
.weight { color: #777; font-size: 0.8em; margin-left: 0.2em; }
.bar { display: inline-block; height: 0.8em; background: #4c78a8; vertical-align: middle; margin-right: 0.4em; }
.empty { color: #999; font-style: italic; }
.note { color: #555; font-size: 0.92em; }
figure { margin: 0.8em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
details { margin: 0.5em 0; font-size: 0.9em; }
"""


def page(title, intro: Markup, sections: Sequence[tuple[str, str, Markup]]) -> str:
    """A whole HTML document: ``title`` as its title and first heading, ``intro`` under it, a list
    of contents linking each of ``sections`` ((anchor, heading, body) each), then the sections."""
    contents = element("ol", join(element("li", Markup(f'<a href="#{anchor}">') + escape(heading) + Markup("</a>"))
                                  for anchor, heading, _ in sections))
    body = join(section(anchor, heading, content) for anchor, heading, content in sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"{element('h1', title)}\n{intro}\n{element('nav', element('h2', 'Contents') + contents)}\n"
            f"{body}\n</body>\n</html>\n")
