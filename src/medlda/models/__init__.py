"""The scikit-learn estimators: the shared base (``base``), ``LDA`` (``lda``),
``MedLDAClassifier`` (``classifier``, with one-vs-rest in ``ovr`` and label handling in
``labels``) and ``MedLDARegressor`` (``regressor``); every parameter is declared once in
``params``."""
