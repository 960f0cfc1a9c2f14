"""benchkit: item-level diagnosis of LLM benchmarks.

The compute layers (everything but :mod:`benchkit.widgets` and :mod:`benchkit.charts`) import
nothing from Jupyter. Sub-packages load on first use: ``benchkit.datasets``, ``benchkit.io``,
``benchkit.simulate``, and the method modules.
"""
from benchkit._validation import BenchkitError, BenchkitTypeError, BenchkitValueError, BenchkitWarning
from benchkit._version import __version__
from benchkit.response_set import NO_ANSWER, AnswerCounts, CountMatrix, DropReport, ResponseSet

__all__ = [
    "__version__",
    "ResponseSet",
    "CountMatrix",
    "AnswerCounts",
    "DropReport",
    "NO_ANSWER",
    "BenchkitError",
    "BenchkitValueError",
    "BenchkitTypeError",
    "BenchkitWarning",
]


def __getattr__(name):  # lazy sub-packages, so "import benchkit" stays light
    import importlib

    if name in {"datasets", "io", "simulate", "irt", "measure", "boundary", "landscape", "dif",
                "quality", "charts", "model_names", "stats", "subsets"}:
        return importlib.import_module(f"benchkit.{name}")
    raise AttributeError(f"module 'benchkit' has no attribute {name!r}")
