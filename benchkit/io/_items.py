"""Item metadata gathered across log files: the first file's entry, checked against every other's."""
from __future__ import annotations

from benchkit._validation import BenchkitValueError
from benchkit.response_set import NO_ANSWER

__all__ = ["record_item", "record_response"]


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


def record_response(rows: list, seen: dict, row: dict, where: str, *, what: str, label: str) -> None:
    """Append ``row`` (model, item, sample, correct, raw answer) to ``rows``, refusing a repeat.

    ``seen`` maps each (model, item, sample) to the place (``where``) it came from, so a second
    record of one response names both places; ``what`` and ``label`` say what a record and its
    sample are in the log format (e.g. "sample" and "epoch 1"). A missing or empty answer
    becomes :data:`~benchkit.NO_ANSWER`.
    """
    key = (row["model"], row["item"], row["sample"])
    if key in seen:
        raise BenchkitValueError(
            f"duplicate {what}: model {row['model']!r}, item {row['item']!r}, {label} appears in "
            f"{seen[key]} and {where}"
        )
    seen[key] = where
    answer = row["answer"]
    row["answer"] = NO_ANSWER if answer is None or str(answer) == "" else str(answer)
    rows.append(row)
