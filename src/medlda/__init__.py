"""medlda: fast supervised topic models (MedLDA, gSLDA, LightMedLDA) with exact and linear-time samplers.

The public names are imported on first use (PEP 562), so that ``import medlda`` and the command
line's ``--help`` and ``--version`` start without NumPy, numba or scikit-learn; the first public
name used imports them all, which also registers the estimators that model files name.
"""

import importlib
import logging
from typing import TYPE_CHECKING

from medlda._version import __version__

if TYPE_CHECKING:  # the names as type checkers, IDEs and the API reference see them; imported lazily below
    from medlda.data.corpus import Corpus
    from medlda.data.readers import read_corpus
    from medlda.io.model_file import load_model, save_model
    from medlda.models.classifier import MedLDAClassifier
    from medlda.models.lda import LDA
    from medlda.models.regressor import MedLDARegressor

logging.getLogger(__name__).addHandler(logging.NullHandler())

# public name -> the module that defines it, in the order they are imported
_PUBLIC = {"Corpus": "medlda.data.corpus", "read_corpus": "medlda.data.readers", "load_model": "medlda.io.model_file",
           "save_model": "medlda.io.model_file",
           "MedLDAClassifier": "medlda.models.classifier", "LDA": "medlda.models.lda",
           "MedLDARegressor": "medlda.models.regressor"}

__all__ = ["Corpus", "LDA", "MedLDAClassifier", "MedLDARegressor", "__version__", "load_model", "read_corpus", "save_model"]


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for public, module in _PUBLIC.items():
        globals()[public] = getattr(importlib.import_module(module), public)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
