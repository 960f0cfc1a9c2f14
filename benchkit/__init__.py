"""benchkit: item-level diagnosis of LLM benchmarks.

The compute layers (everything but :mod:`benchkit.widgets`) import nothing from Jupyter.
"""
from benchkit._version import __version__

__all__ = ["__version__"]
