"""Item metadata gathered across log files: the first file's entry, checked against every other's."""
from __future__ import annotations

from benchkit._validation import BenchkitValueError

__all__ = ["record_item"]


def record_item(items: dict, where_of: dict, entry: dict, where: str, fields: tuple[str, ...]) -> None:
    """Keep ``entry`` for ``entry["item"]``, or check that ``fields`` agree with the kept one.

    Two logs of one benchmark that disagree on an item's target, answer key or options (a changed
    dataset, a mixed-up file) cannot both be right: the error names the item, the field, both
    values and both places (file and record).
    """
    item = entry["item"]
    kept = items.get(item)
    if kept is None:
        items[item] = entry
        where_of[item] = where
        return
    for field in fields:
        if entry.get(field) != kept.get(field):
            raise BenchkitValueError(
                f"item {item!r} has {field} {kept.get(field)!r} in {where_of[item]} but "
                f"{entry.get(field)!r} in {where}; the logs of one benchmark must agree on each item"
            )
