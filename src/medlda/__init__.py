"""medlda: fast supervised topic models (MedLDA, gSLDA, LightMedLDA) with exact and linear-time samplers."""

import logging

from .corpus import Corpus
from .estimators import LDA, MedLDAClassifier
from .regression import MedLDARegressor

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["Corpus", "LDA", "MedLDAClassifier", "MedLDARegressor", "__version__"]
