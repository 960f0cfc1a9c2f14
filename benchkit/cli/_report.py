"""``benchkit report`` and ``benchkit audit`` (placeholder while the pieces land)."""
from __future__ import annotations


def add_audit_command(sub, make) -> None:
    return None


def add_report_command(sub, make) -> None:
    return None


def run_report(args, parser, out) -> int:  # pragma: no cover
    raise NotImplementedError


def run_audit(args, parser, out) -> int:  # pragma: no cover
    raise NotImplementedError
