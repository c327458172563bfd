"""The news preprocessing's quote setting through a model file: kept, told back, validated, and
read as "quotes kept" where a file does not name it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from medlda import MedLDAClassifier
from medlda.data.text import make_vectorizer, vectorizer_settings
from medlda.exceptions import ModelFileError
from medlda.io.model_file import load_model, save_model

TEXTS = [f"Subject: {topic}\n\nIn article <a@b> c writes:\n> {quoted}\n{own}\n-- \nsig{i % 2}\n"
         for i, (topic, quoted, own) in enumerate(
             [("fruit", "engine brake", "apple banana mango"), ("cars", "mango apple", "wheel brake engine")] * 6)]
LABELS = ["fruit", "cars"] * 6
NEW = ["> apple banana apple\nwheel engine", "Subject: x\n\nmango\n-- \nwheel brake engine"]


@pytest.fixture(scope="module")
def pipeline():
    model = MedLDAClassifier(2, c=1.0, margin=1.0, max_iter=20, random_state=0)
    return make_pipeline(make_vectorizer(min_df=1), model).fit(TEXTS, LABELS)


def _metadata_changed(src, dst, change) -> None:
    with np.load(src, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = change(json.loads(arrays["__metadata__"].tobytes()))
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(dst, **arrays)


def test_the_quote_setting_survives_a_saved_model(tmp_path, pipeline):
    assert "sig" not in " ".join(pipeline[0].get_feature_names_out())  # signatures left out of the words
    save_model(pipeline, tmp_path / "m.npz")
    again = load_model(tmp_path / "m.npz")
    assert vectorizer_settings(again.vectorizer_)["quotes"] is True
    assert np.array_equal(again.transform(NEW), pipeline.transform(NEW))


def test_a_file_without_the_quote_setting_reads_quotes_as_kept(tmp_path, pipeline):
    save_model(pipeline, tmp_path / "m.npz")
    _metadata_changed(tmp_path / "m.npz", tmp_path / "bare.npz",
                      lambda meta: {**meta, "vectorizer": {k: v for k, v in meta["vectorizer"].items() if k != "quotes"}})
    again = load_model(tmp_path / "bare.npz")
    assert vectorizer_settings(again.vectorizer_)["quotes"] is False
    assert vectorizer_settings(again.vectorizer_)["news"] is True
    assert not np.array_equal(again.transform(NEW[:1]), pipeline.transform(NEW[:1]))  # the quoted words count


def test_a_bad_quote_setting_is_refused_in_one_line(tmp_path, pipeline):
    save_model(pipeline, tmp_path / "m.npz")
    _metadata_changed(tmp_path / "m.npz", tmp_path / "bad.npz",
                      lambda meta: {**meta, "vectorizer": {**meta["vectorizer"], "quotes": "yes"}})
    with pytest.raises(ModelFileError, match="vectorizer: quotes should be true or false") as info:
        load_model(tmp_path / "bad.npz")
    assert str(info.value).startswith(f"{tmp_path / 'bad.npz'}: ") and "\n" not in str(info.value)
