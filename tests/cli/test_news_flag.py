"""``medlda train --news``: what of news messages a folder's training text drops (all by default,
headers only, or none); the saved model keeps it and reads new text the same way."""

from __future__ import annotations

import json

import pytest
from cli_helpers import FAST, option_help, run

from files import make_folder
from medlda.data.text import vectorizer_settings
from medlda.io.model_file import load_model

MESSAGE = ("From: kim@uni.edu\nSubject: {label} post\nOrganization: Uni\n\nIn article <a@b> lee@corp.com writes:\n"
           "> quotedword {other}\n{label} talk about {label} things\n-- \nsigword\n")


def _folder(root):
    files = {}
    for label, other in (("apple", "brake"), ("brake", "apple")):
        for i in range(4):
            files[f"{label}/{i}.txt"] = MESSAGE.format(label=label, other=other)
    return make_folder(root, files)


def test_news_flag_chooses_what_a_folder_drops_and_the_model_keeps_it(capsys, tmp_path):
    folder = _folder(tmp_path / "news")
    expected = {None: (True, True), "all": (True, True), "headers": (True, False), "none": (False, False)}
    vocabularies = {}
    for flag, (news, quotes) in expected.items():
        model = tmp_path / f"{flag}.npz"
        code, _, err = run(capsys, "train", "--train", folder, "--out", model, "--min-df", "1", "--quiet", *FAST,
                           *(["--news", flag] if flag else []))
        assert code == 0, err
        fitted = load_model(model)
        settings = vectorizer_settings(fitted.vectorizer_)
        assert (settings["news"], settings["quotes"]) == (news, quotes), flag
        vocabularies[flag] = set(fitted.vocabulary_)
    assert not {"quotedword", "sigword", "writes", "organization"} & vocabularies[None]
    assert vocabularies["all"] == vocabularies[None]
    assert {"quotedword", "sigword", "writes"} <= vocabularies["headers"]
    assert "organization" not in vocabularies["headers"] and "organization" in vocabularies["none"]
    # predicting with the headers-only model reads the folder as it was trained: its quoted words count
    code, out, err = run(capsys, "transform", "--model", tmp_path / "headers.npz", "--input", folder, "--json")
    assert code == 0 and "quotes and signatures kept" in err
    assert len(json.loads(out)["proportions"]) == 8


def test_news_flag_is_offered_with_its_choices(capsys, tmp_path):
    assert "headers (only the header block" in option_help("train", "--news")
    with pytest.raises(SystemExit) as stop:
        run(capsys, "train", "--train", _folder(tmp_path / "n"), "--news", "quotes")
    assert stop.value.code == 2 and "argument --news: invalid choice: 'quotes'" in capsys.readouterr().err
