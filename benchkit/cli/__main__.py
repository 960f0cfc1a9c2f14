"""``python -m benchkit.cli``: the ``benchkit`` command line."""
from benchkit.cli import main

raise SystemExit(main())
