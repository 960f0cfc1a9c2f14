"""``python -m benchkit.cli``: the ``benchkit`` command line."""
from benchkit.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
