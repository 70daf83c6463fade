"""Output formats of ``rackdesigner validate``: each turns results into text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine import FileResult


@dataclass(frozen=True, slots=True)
class Options:
    strict: bool = False
    quiet: bool = False
    color: bool = False
    totals: str = "auto"  # auto | always | never
    select: tuple[str, ...] = ()  # the command line's, for formats that list the rules run
    ignore: tuple[str, ...] = ()
    group_by: str | None = None  # "code": one line per code (text format)


Renderer = Callable[[Sequence[FileResult], Options], str]


def renderer(name: str) -> Renderer:
    if name == "text":
        from .text import render
    elif name == "json":
        from .json_format import render
    elif name == "sarif":
        from .sarif import render
    elif name == "junit":
        from .junit import render
    elif name == "github":
        from .github import render
    else:
        raise ValueError(f"unknown format {name}")
    return render


def counts(results: Sequence[FileResult]) -> dict[str, int]:
    """Findings by severity; suppressed ones (ignore keys, a baseline) do not count."""
    tally = {"errors": 0, "warnings": 0, "info": 0}
    names = {"error": "errors", "warning": "warnings", "info": "info"}
    for result in results:
        for diagnostic in result.diagnostics:
            if not diagnostic.suppressed:
                tally[names[diagnostic.severity]] += 1
    return tally
