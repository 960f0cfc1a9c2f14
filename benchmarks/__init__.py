"""benchkit's benchmarks: ``python -m benchmarks [filter]`` (see :mod:`benchmarks._runner`)."""
