"""medlda: fast supervised topic models (MedLDA, gSLDA, LightMedLDA) with exact and linear-time samplers."""

import logging

from medlda._version import __version__
from medlda.data.corpus import Corpus
from medlda.data.readers import read_corpus
from medlda.io.model_file import load_model
from medlda.models.classifier import MedLDAClassifier
from medlda.models.lda import LDA
from medlda.models.regressor import MedLDARegressor

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["Corpus", "LDA", "MedLDAClassifier", "MedLDARegressor", "__version__", "load_model", "read_corpus"]
