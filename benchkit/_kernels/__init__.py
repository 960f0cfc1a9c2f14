"""numba kernels (arrays in, arrays out, no validation, no pandas).

Modules
-------
pava
    Batched equal-weight isotonic regression: float rows (fits + blocks, scipy's pooling rule) and
    exact integer count rows (block sums and lengths).
lrt
    The likelihood-ratio statistic D of BSDProbe Eq. 7/16 for batches of count vectors, its Monte
    Carlo null for reference vectors (Eq. 19) and full enumeration for the exact mode.
boundary_unrolled
    Generated straight-line kernels for n <= 10 (see boundary_codegen).

Nothing here is compiled at import time: kernels compile (or load from numba's cache) on first
call. Every kernel has a slow numpy twin in tests/test_kernels_pava.py.
"""
