"""Kernels of the light sampler (LightMedLDA): proposals and their tables (``proposals``,
``exp_table``), the exact (``exact``) and collapsed (``collapsed``) sweeps, the moves log
(``moves``), the per-word hashed counts (``word_hash``) and the sweeps compiled per mode
(``sweeps``)."""
