"""Kernels of blocked collapsed Gibbs (docs/mathematics.md §8): the sweep (``sweep``), the exact block
normalizers (``normalizers``) and the level tables of nested simulation (``levels``)."""
