"""Count tables from assignments: n_dk, n_wk, n_k filled from z in one pass."""

from numba import njit


@njit(cache=True)
def fill_counts(word_ids, doc_ptr, z, n_dk, n_wk, n_k):
    """Zero and fill the counts; equals ``np.add.at`` on (doc, z), (w, z) and z."""
    n_dk[:] = 0
    n_wk[:] = 0
    n_k[:] = 0
    for d in range(doc_ptr.size - 1):
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            k = z[i]
            n_dk[d, k] += 1
            n_wk[word_ids[i], k] += 1
            n_k[k] += 1


@njit(cache=True)
def fill_doc_topic(doc_ptr, z, n_dk):
    """Zero and fill n_dk alone from z (a document's row is written while it is in cache)."""
    for d in range(doc_ptr.size - 1):
        n_dk[d, :] = 0
        for i in range(doc_ptr[d], doc_ptr[d + 1]):
            n_dk[d, z[i]] += 1
