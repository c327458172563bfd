"""Numba kernels: flat NumPy arrays in, caller-allocated buffers filled, nothing from the API layers.

Layout conventions: ``word_ids`` int32 (N,), ``doc_ptr`` int64 (D+1,), ``z`` int32 (N,),
``n_wk`` int32 (V, K) with each word's row contiguous, ``n_dk`` int32 (D, K), ``n_k`` int64 (K,);
the token kernels take them grouped in the named tuples of ``records``.
Randomness comes from explicit xorshift states, one per block of ``DOCS_PER_STREAM`` documents,
so results do not depend on the number of threads.

An ``inline="always"`` helper called per token or per step reads and writes its array
arguments on every path (or takes none): numba wraps one that touches an array on some paths
only in atomic reference-count calls, which LLVM does not remove (``light.proposals.doc_token``).
"""
