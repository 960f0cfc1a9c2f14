"""benchkit: item-level diagnosis of LLM benchmarks.

The compute layers (everything but :mod:`benchkit.widgets` and :mod:`benchkit.charts`) import
nothing from Jupyter. Sub-packages load on first use: ``benchkit.datasets``, ``benchkit.io``,
``benchkit.simulate``, and the method modules. :func:`compare` and :func:`compare_all`
(:mod:`benchkit.paired`) compare models item by item; :func:`audit` (:mod:`benchkit.auditing`) runs
every method the data support and joins their verdicts per item.
"""
from benchkit._budget import resource_budget
from benchkit._validation import BenchkitError
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import BenchkitWarning
from benchkit._version import __version__
from benchkit.auditing import AuditResult
from benchkit.auditing import audit
from benchkit.paired import compare
from benchkit.paired import compare_all
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import AnswerCounts
from benchkit.response_set import CountMatrix
from benchkit.response_set import DropReport
from benchkit.response_set import ResponseSet

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
    "audit",
    "AuditResult",
    "compare",
    "compare_all",
    "resource_budget",
]


# Public sub-modules, imported on first attribute access (``benchkit.boundary``, ...). Exactly the
# public modules that exist, except ``widgets`` (``import benchkit.widgets``: it needs the Jupyter
# extra) and ``cli`` (the command line); tests/test_import_isolation.py keeps this list true.
_SUBMODULES = (
    "auditing",
    "boundary",
    "charts",
    "datasets",
    "dif",
    "io",
    "irt",
    "labels",
    "landscape",
    "measure",
    "model_names",
    "paired",
    "quality",
    "report",
    "simulate",
    "stats",
    "subsets",
)


def __getattr__(name):  # lazy sub-modules, so "import benchkit" stays light
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"benchkit.{name}")
    raise AttributeError(f"module 'benchkit' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_SUBMODULES])
