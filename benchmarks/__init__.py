"""toolwire's benchmarks: ratios against the floors, the vendor SDKs and the peers.

Not tests and not part of the package. Run them with ``./dev bench`` or ``python -m
benchmarks`` (``--quick`` to check they still run). The per-vendor modules
(``bench_<vendor>.py``) hold the recorded-shape streams and the SDK's own parse.
"""
