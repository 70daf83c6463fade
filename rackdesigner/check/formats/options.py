"""What every output format shares: the command line's options and the summary counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rackdesigner.check.engine import FileResult


@dataclass(frozen=True, slots=True)
class Options:
    strict: bool = False
    quiet: bool = False
    color: bool = False
    totals: str = "auto"  # auto | always | never
    select: tuple[str, ...] = ()  # the command line's, for formats that list the rules run
    ignore: tuple[str, ...] = ()
    group_by: str | None = None  # "code": one line per code (text format)


def counts(results: Sequence[FileResult]) -> dict[str, int]:
    """Findings by severity; suppressed ones (ignore keys, a baseline) do not count."""
    tally = {"errors": 0, "warnings": 0, "info": 0}
    names = {"error": "errors", "warning": "warnings", "info": "info"}
    for result in results:
        for diagnostic in result.diagnostics:
            if not diagnostic.suppressed:
                tally[names[diagnostic.severity]] += 1
    return tally
