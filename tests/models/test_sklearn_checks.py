"""scikit-learn's estimator checks. They feed real-valued toy data, and a topic model reads word
counts (it refuses anything else), so the checks run with their floats rounded to counts
(``round(3 x)``; negative values stay negative, so the checks that want them refused still see
them). Every check named here must pass; the rest fail for reasons of the data or of the model:

- check_sample_weight_equivalence_*: a weight scales a document's c (its pull on eta), while
  repeating a document repeats its words in the topics too;
- check_dtype_object: object arrays of non-integer floats are not rounded here;
- check_class_weight_classifiers, check_decision_proba_consistency: their data are negative;
- check_dict_unchanged: the first prediction caches phi (V x K) on the model.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import check_estimator

import medlda.models.base as estimators
from medlda import LDA, MedLDAClassifier, MedLDARegressor

COMMON = {
    "check_complex_data", "check_do_not_raise_errors_in_init_or_set_params", "check_dont_overwrite_parameters",
    "check_estimator_cloneable", "check_estimator_repr", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_empty_data_messages", "check_estimators_fit_returns_self", "check_estimators_nan_inf",
    "check_estimators_overwrite_params", "check_estimators_pickle", "check_estimators_unfitted",
    "check_f_contiguous_array_estimator", "check_fit1d", "check_fit2d_1feature", "check_fit2d_1sample",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_non_negative",
    "check_fit_score_takes_y", "check_get_params_invariance", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_mixin_order", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_no_attributes_set_in_init", "check_parameters_default_constructible",
    "check_pipeline_consistency", "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_set_params", "check_transformer_data_not_an_array", "check_transformer_general",
    "check_transformer_n_iter", "check_transformer_preserve_dtypes", "check_transformers_unfitted",
}
SUPERVISED = COMMON | {
    "check_all_zero_sample_weights_error", "check_requires_y_none", "check_sample_weights_list",
    "check_sample_weights_not_an_array", "check_sample_weights_not_overwritten", "check_sample_weights_shape",
    "check_supervised_y_2d", "check_supervised_y_no_nan", "check_non_transformer_estimators_n_iter",
}
CLASSIFIER = SUPERVISED | {
    "check_classifier_data_not_an_array", "check_classifiers_classes", "check_classifiers_one_label",
    "check_classifiers_one_label_sample_weights", "check_classifiers_regression_target", "check_classifiers_train",
}
REGRESSOR = SUPERVISED | {"check_regressor_data_not_an_array", "check_regressors_int",
                          "check_regressors_no_decision_function", "check_regressors_train"}


def _rounded(check):
    """``check_count_matrix`` that first rounds real-valued input to counts (3 x, to the nearest)."""
    def as_counts(X):
        if sp.issparse(X) and X.dtype.kind == "f":
            X = sp.csr_matrix(X, copy=True)
            X.data = np.rint(3 * X.data)
        elif not sp.issparse(X) and np.asarray(X).dtype.kind == "f" and np.asarray(X).ndim == 2:
            X = np.rint(3 * np.asarray(X))
        return check(X)
    return as_counts


@pytest.mark.parametrize("estimator, expected", [
    (LDA(3, max_iter=3, random_state=0), COMMON),
    (MedLDAClassifier(3, max_iter=3, random_state=0), CLASSIFIER),
    (MedLDAClassifier(3, max_iter=3, loss="logistic", random_state=0), CLASSIFIER),
    (MedLDARegressor(3, max_iter=3, random_state=0), REGRESSOR),
], ids=["lda", "classifier-hinge", "classifier-logistic", "regressor"])
def test_scikit_learn_estimator_checks_pass_on_counts(monkeypatch, estimator, expected):
    monkeypatch.setattr(estimators, "check_count_matrix", _rounded(estimators.check_count_matrix))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, on_fail=None)
    failed = {}
    for r in results:
        if r["check_name"] in expected and r["status"] == "failed":
            failed.setdefault(r["check_name"], str(r["exception"]).strip().splitlines()[:2])
    assert not failed
    assert len({r["check_name"] for r in results} & expected) >= 0.9 * len(expected)  # the checks still run
