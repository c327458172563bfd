"""Data: the ``Corpus`` (``corpus``), its readers (``readers``: one module per format behind
``read_corpus``), raw-text preprocessing (``text``), labels as task targets (``tasks``), the
benchmark data sets (``datasets``) and corpora drawn from the model itself (``synthetic``)."""
