"""How a topic model reads raw text: the words and vectorizer it keeps from a fit on texts, what
a model file keeps of them, and the message for texts a model cannot read."""

from __future__ import annotations

import numpy as np

from medlda.data.corpus import Corpus, is_id_vocabulary
from medlda.data.text import vectorizer_for, vectorizer_settings


def remember_words(model, corpus: Corpus, fit_input) -> None:
    """``vocabulary_`` and ``vectorizer_`` of ``model`` fitted on ``corpus`` (read from
    ``fit_input``, what fit was given): its words if the input had words (a Corpus, lists of
    tokens; else None), and, for texts (``Corpus.from_texts``, the readers), the preprocessing
    that counted them, over those words (else None)."""
    words = isinstance(fit_input, Corpus)
    model.vocabulary_ = corpus.vocabulary if words else None
    source = corpus.vectorizer if words else None
    model.vectorizer_ = None if source is None else vectorizer_for(corpus.vocabulary, vectorizer=source)


def text_preprocessing(model, vectorizer) -> tuple[dict | None, np.ndarray | None]:
    """(settings, words) of ``vectorizer`` for the fitted ``model`` (``TopicModel.text_preprocessing``;
    None or False: (None, the model's own words))."""
    if vectorizer is None or vectorizer is False:
        return None, model.vocabulary_
    settings = vectorizer_settings(vectorizer)
    try:
        words = np.asarray(vectorizer.get_feature_names_out(), dtype=str)
    except (AttributeError, ValueError) as exc:  # scikit-learn's NotFittedError is a ValueError
        raise ValueError(f"the vectorizer has no words yet (fit it, or give it the vocabulary): {exc}") from None
    if words.size != model.n_features_in_:
        raise ValueError(f"the vectorizer has {words.size} words, the model {model.n_features_in_}: it is not "
                         "the vectorizer the model was fitted through")
    vocab = model.vocabulary_
    if vocab is not None and not is_id_vocabulary(vocab) and not np.array_equal(vocab, words):
        raise ValueError("the vectorizer's words are not the model's vocabulary_ (same number, other words or "
                         "order): it is not the vectorizer the model was fitted through")
    return settings, words


def no_text_hint(model) -> str:
    """Why raw texts cannot be read by ``model`` (it keeps no vectorizer), and what to do."""
    name = type(model).__name__
    vocab = getattr(model, "vocabulary_", None)
    if vocab is None or is_id_vocabulary(vocab):
        return (f"X holds text, not word counts, and this {name} was fitted on a count matrix without words: give "
                "it counts over the same columns (the transform of the vectorizer that made them), or fit it "
                "through make_pipeline(medlda.data.text.make_vectorizer(), model) or on Corpus.from_texts(texts)")
    return (f"X holds text, not word counts, and this {name} keeps no text preprocessing (it was fitted on "
            "counted words): count the texts over its words, e.g. Corpus.from_texts(texts, "
            "vocabulary=model.vocabulary_) or medlda.data.text.make_vectorizer(vocabulary=model.vocabulary_)"
            ".transform(texts)")
