"""The HTML report: its sections hold the model's numbers, every word and class name from the data is
escaped, nothing is fetched from elsewhere, and headless Chromium (Debian's package ``chromium``)
renders it with no console error into a page that is not blank."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from medlda import LDA, MedLDAClassifier, MedLDARegressor  # noqa: E402
from medlda.data.corpus import Corpus  # noqa: E402
from medlda.data.synthetic import make_supervised_corpus  # noqa: E402
from medlda.evaluation.metrics import evaluate  # noqa: E402
from medlda.reporting.html import report_html, write_report  # noqa: E402
from medlda.reporting.intertopic import topic_coordinates  # noqa: E402

HOSTILE_WORD = "<script>alert(1)</script>"
HOSTILE_CLASSES = ['<img src=x onerror=alert(1)>', 'a "quoted" & <b>bold</b> class', "$\\frac{1}{0$ plain"]
SECTIONS = ["Contents", "Topics", "Topics that weigh most for each class", "Inter-topic map", "Document map",
            "Precision and recall per class", "Confusion matrix", "Training curves"]
FAST = dict(alpha_sum=1.0, sampler="light", n_infer_burn=5, n_infer_avg=5, random_state=0)
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


class _Page(HTMLParser):
    """The elements (tags), the h2 headings, the attribute values and the text of a page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags, self.headings, self.attrs, self.text = [], [], [], []
        self._in_h2 = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, name, value) for name, value in attrs]
        self._in_h2 = tag == "h2"

    def handle_endtag(self, tag):
        self._in_h2 = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_h2:
            self.headings.append(data)


@pytest.fixture(scope="module")
def hostile():
    """A 3-class classifier (4 topics, 8 iterations, trace kept) whose vocabulary holds a script
    tag and whose class names hold markup, quotes and a malformed formula; its test documents and
    labels."""
    corpus, _ = make_supervised_corpus(260, 4, words_per_topic=8, doc_length=30, n_classes=3, random_state=5)
    vocabulary = corpus.vocabulary.tolist()
    vocabulary[np.bincount(corpus.word_ids).argmax()] = HOSTILE_WORD  # the most frequent: a top word
    names = np.array(HOSTILE_CLASSES)
    y = names[[int(lab[0]) for lab in corpus.labels]]
    corpus = Corpus(corpus.word_ids, corpus.doc_ptr, np.array(vocabulary))
    train, test = corpus.subset(np.arange(200)), corpus.subset(np.arange(200, 260))
    model = MedLDAClassifier(4, c=1.0, margin=1.0, max_iter=8, trace=True, **FAST).fit(train, y[:200])
    return model, test, y[200:]


@pytest.fixture(scope="module")
def page(hostile):
    model, test, y = hostile
    return report_html(model, test, y, title="report of <em>hostile</em> data", method="pca")


@pytest.mark.slow
def test_every_section_is_there_with_the_models_numbers(hostile, page):
    model, test, y = hostile
    parsed = _Page(page)
    assert parsed.headings == SECTIONS
    assert "report of <em>hostile</em> data" in "".join(parsed.text) and "em" not in parsed.tags
    text = " ".join(parsed.text)
    for k, pairs in enumerate(model.top_words(10)):  # the topics: words with their weights
        for word, weight in pairs:
            assert f"{word}{weight:.3g}" in "".join(parsed.text)
    shares = model.topic_word_counts_.sum(axis=1) / model.topic_word_counts_.sum()
    for share in shares:
        assert f"{share:.1%}" in text
    pred = model.predict(test)
    report = evaluate("classification", y, pred, model.classes_)
    for name, m in report["per_class"].items():  # precision and recall, each class by its full name
        assert f"{name}  {m['precision']:.3f}  {m['recall']:.3f}" in _rows(parsed)
    confusion = _rows(parsed).split("true \\ predicted", 1)[1]
    for name, row in zip(report["classes"], report["confusion"]):
        assert f"{name}  " + "  ".join(map(str, row)) in confusion


def _rows(parsed: _Page) -> str:
    """The page's text with cells two spaces apart (text nodes of whitespace dropped)."""
    return "  ".join(t.strip() for t in parsed.text if t.strip())


def test_words_and_class_names_from_the_data_are_escaped(page):
    parsed = _Page(page)
    assert set(parsed.tags) <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "nav", "ol", "li", "a",
                                "ul", "details", "summary", "p", "section", "div", "table", "thead", "tbody", "tr",
                                "th", "td", "span", "b", "figure", "img", "figcaption"}
    assert "script" not in parsed.tags and HOSTILE_WORD not in page and "<img src=x" not in page
    assert "<b>bold</b>" not in page and '"quoted"' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown as text, in the topics' words
    text = "".join(parsed.text)
    assert HOSTILE_WORD in text
    for name in HOSTILE_CLASSES:
        assert name in text
    assert not any(name == "onerror" for _, name, _ in parsed.attrs)


def test_the_page_fetches_nothing(page):
    """Self-contained: images are data URIs, links point inside the page, the style is inline."""
    parsed = _Page(page)
    sources = [value for tag, name, value in parsed.attrs if name == "src"]
    assert sources and all(v.startswith("data:image/png;base64,") for v in sources)
    assert all(v.startswith("#") for _, name, v in parsed.attrs if name == "href")
    assert "link" not in parsed.tags and "url(" not in page and "@import" not in page


def test_lda_and_regressor_reports_have_their_own_sections(tmp_path, hostile):
    _, test, y = hostile
    lda = LDA(4, max_iter=3, **FAST).fit(test)
    path = write_report(lda, test, y, tmp_path / "lda.html", method="pca")
    headings = _Page(path.read_text()).headings
    assert headings == ["Contents", "Topics", "Inter-topic map", "Document map", "Training curves"]
    response = np.linspace(0.0, 1.0, test.n_docs)
    regressor = MedLDARegressor(4, c=1.0, max_iter=3, **FAST).fit(test, response)
    headings = _Page(report_html(regressor)).headings
    assert headings == ["Contents", "Topics", "Topics that raise or lower the response", "Inter-topic map",
                        "Training curves"]
    with pytest.raises(ValueError, match="y has 3 labels for 60 documents"):
        report_html(lda, test, y[:3])


def test_topic_coordinates_follow_the_distances_between_topics():
    """Two near-identical topics lie close, a third apart; the sign of each axis is fixed."""
    phi = np.array([[0.7, 0.1, 0.1, 0.1], [0.68, 0.12, 0.1, 0.1], [0.05, 0.05, 0.1, 0.8], [0.1, 0.6, 0.2, 0.1]])
    xy = topic_coordinates(phi)
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    assert d[0, 1] < 0.2 * min(d[0, 2], d[0, 3], d[1, 2])
    assert np.array_equal(xy, topic_coordinates(phi))
    assert np.all(xy[np.argmax(np.abs(xy), axis=0), [0, 1]] > 0)


def _chromium(tmp_path, url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless=new", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr",
                           "--v=0", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,3000", *args, url],
                          capture_output=True, text=True, timeout=180)


def _console_messages(stderr: str) -> list[str]:
    """The page's console messages (log, error, uncaught exceptions) in Chromium's log."""
    return [line for line in stderr.splitlines() if re.search(r":CONSOLE[:(]", line)]


def _ink(png) -> tuple[float, float]:
    """(standard deviation of the grey levels, fraction of pixels that are not white) of a screenshot."""
    import matplotlib.image

    grey = matplotlib.image.imread(png)[..., :3].mean(axis=2)
    return float(grey.std()), float(np.mean(grey < 0.95))


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not found (Debian package 'chromium', "
                                              "/usr/bin/chromium; .ci/run installs it where apt-get can)")
def test_chromium_renders_the_report_without_console_errors(tmp_path, hostile):
    model, test, y = hostile
    path = write_report(model, test, y, tmp_path / "report.html", method="pca")
    shot = tmp_path / "report.png"
    done = _chromium(tmp_path, path.as_uri(), f"--screenshot={shot}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert _console_messages(done.stderr) == []
    spread, inked = _ink(shot)
    assert spread > 0.05 and inked > 0.03, (spread, inked)
    dom = _chromium(tmp_path, path.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    rendered = _Page(dom.stdout)
    assert rendered.headings == SECTIONS and "script" not in rendered.tags
    assert rendered.tags.count("img") == 3  # the inter-topic map, the document map, the training curves
    # the checks can fail: a page with a script error and almost no ink
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><p>x</p><script>console.error("bad"); nothing();</script></body></html>')
    done = _chromium(tmp_path, bad.as_uri(), f"--screenshot={tmp_path / 'bad.png'}")
    assert len(_console_messages(done.stderr)) == 2
    spread, inked = _ink(tmp_path / "bad.png")
    assert spread < 0.05 and inked < 0.03
