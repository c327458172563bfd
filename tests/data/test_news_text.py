"""The news preprocessing's rules on crafted messages: quoted lines, attribution lines, the
signature, a message that is all quote, CRLF line ends; and the settings that tell it."""

from __future__ import annotations

import pytest

from medlda.data.text import (
    PAPERS,
    SIGNATURE_LINES,
    make_vectorizer,
    strip_news_headers,
    strip_quotes,
    strip_signature,
    vectorizer_for,
    vectorizer_settings,
)

MESSAGE = """From: kim@uni.edu (Kim)
Subject: Re: orbit of mars
Organization: Uni

In article <1993Apr5.1@uni.edu> lee@corp.com (Lee) writes:
>Mars takes longer quotedword
>> deeper quotedword
| bar quotedword
Lee wrote:
  > indented quotedword
Mars needs 687 days, owntext.
The jury wrote: many words on it.

-- 
Kim  sigword  kim@uni.edu
"""


def words(**settings) -> list[str]:
    return list(make_vectorizer(min_df=1, stop_words=None, **settings).fit([MESSAGE]).get_feature_names_out())


def test_quotes_attribution_lines_and_signature_are_dropped_and_the_writers_text_kept():
    kept = words()
    assert "quotedword" not in kept and "sigword" not in kept and "article" not in kept and "writes" not in kept
    assert {"owntext", "mars", "orbit", "jury", "days"} <= set(kept)  # the Subject and the sender's lines
    assert "organization" not in kept  # the header block
    assert {"quotedword", "sigword", "article", "writes"} <= set(words(**PAPERS))  # headers only
    assert {"quotedword", "organization"} <= set(words(news=False))
    assert "quotedword" not in words(news=False, quotes=True)  # quotes without the header rule


def test_attribution_lines_are_those_that_introduce_a_quote():
    text = "In article <x@y> z writes:\nIn article <a@b>\n  someone writes:\nLee wrote:  \nhe writes: fine\nIn articles we trust"
    assert strip_quotes(text) == "he writes: fine\nIn articles we trust"


def test_a_message_that_is_all_quote_leaves_nothing_but_its_subject():
    message = "Subject: Re: x\n\nIn article <a@b> c writes:\n> all of it\n>quoted\n"
    assert make_vectorizer().build_preprocessor()(message).split() == ["re:", "x"]
    assert strip_quotes("> one\n| two\n") == ""
    from medlda.data.corpus import Corpus

    corpus = Corpus.from_texts(["> only quoted words here\n> more quoted", "apple pear apple"],
                               vectorizer=make_vectorizer(min_df=1))
    assert list(corpus.doc_lengths) == [0, 3] and list(corpus.vocabulary) == ["apple", "pear"]


def test_crlf_messages_read_as_lf_ones():
    crlf = MESSAGE.replace("\n", "\r\n")
    preprocess = make_vectorizer().build_preprocessor()
    assert preprocess(crlf) == preprocess(MESSAGE)
    assert "\r" not in preprocess(crlf) and "owntext" in preprocess(crlf)


def test_the_signature_is_the_short_block_after_the_last_delimiter():
    assert strip_signature("body\n-- \nsig\n") == "body"
    assert strip_signature("a\n--\nmiddle\n--\nsig") == "a\n--\nmiddle"  # the last delimiter
    assert strip_signature("body\n---\nnot a delimiter") == "body\n---\nnot a delimiter"
    long_tail = "body\n--\n" + "\n".join(f"line {i}" for i in range(SIGNATURE_LINES + 1))
    assert strip_signature(long_tail) == long_tail  # text after a separator, not a signature
    at_limit = "body\n--\n" + "\n".join(f"line {i}" for i in range(SIGNATURE_LINES))
    assert strip_signature(at_limit) == "body"


@pytest.mark.parametrize("settings", [dict(news=True, quotes=True), dict(news=True, quotes=False),
                                      dict(news=False, quotes=True), dict(news=False, quotes=False)])
def test_each_setting_is_told_back_and_rebuilt(settings):
    told = vectorizer_settings(make_vectorizer(**settings))
    assert {k: told[k] for k in settings} == settings
    rebuilt = vectorizer_for(["mars"], told).build_preprocessor()
    assert rebuilt(MESSAGE) == make_vectorizer(**settings).build_preprocessor()(MESSAGE)


def test_quotes_follow_news_unless_given_and_settings_without_them_mean_kept():
    assert vectorizer_settings(make_vectorizer())["quotes"] is True
    assert vectorizer_settings(make_vectorizer(news=False))["quotes"] is False
    told = vectorizer_settings(make_vectorizer())
    del told["quotes"]  # settings that do not name it: quotes kept
    assert "quotedword" in vectorizer_for(["x"], told).build_preprocessor()(MESSAGE)


def test_load_20newsgroups_removes_quotes_and_signatures_on_request(tmp_path):
    from files import make_tar
    from medlda.data.datasets import load_20newsgroups

    archive = make_tar(tmp_path / "n.tar.gz", {"20news-bydate-train/sci.space/1": MESSAGE})
    assert load_20newsgroups(archive, remove_headers=True).data == [strip_news_headers(MESSAGE)]
    bare = load_20newsgroups(archive, remove_headers=True, remove_quotes=True).data[0]
    assert "quotedword" not in bare and "sigword" not in bare and "Organization" not in bare
    assert bare.startswith("Re: orbit of mars") and "owntext" in bare
    assert "Organization" in load_20newsgroups(archive, remove_quotes=True).data[0]
