"""Evaluation: every metric (``metrics``), scoring a model on labeled documents (``scoring``),
topic coherence (``coherence``), per-topic explanations of a decision (``explain``) and the
calibration of predicted probabilities (``calibration``)."""
