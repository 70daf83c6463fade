"""Validation: load a layout, analyse it once, run the selected rules, collect diagnostics."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .analysis import Analysis
from .diagnostics import Diagnostic, LayoutError
from .layout_io.reader import load_text_with_map, read_text
from .model import Layout
from .rules.registry import Rule, selected, to_diagnostics


@dataclass(slots=True)
class FileResult:
    file: str
    layout: Layout | None = None
    analysis: Analysis | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def loaded(self) -> bool:
        return self.layout is not None


def rules_for(layout: Layout, select: Iterable[str] | None = None,
              ignore: Iterable[str] | None = None) -> list[Rule]:
    """The rules to run: the command line's select replaces the file's; ignores add up."""
    config = layout.rules
    file_select = config.select if config and config.select else None
    file_ignore = config.ignore if config and config.ignore else []
    chosen_select = list(select) if select else file_select
    return selected(chosen_select, [*file_ignore, *(ignore or [])])


def check(layout: Layout, *, file: str = "", select: Iterable[str] | None = None,
          ignore: Iterable[str] | None = None,
          timings: dict[str, float] | None = None) -> tuple[Analysis, list[Diagnostic]]:
    """Analyse ``layout`` and run its rules; diagnostics sorted by line."""
    start = time.perf_counter()
    analysis = Analysis(layout, file=file)
    if timings is not None:
        timings["analysis"] = timings.get("analysis", 0.0) + time.perf_counter() - start
    diagnostics: list[Diagnostic] = []
    for rule in rules_for(layout, select, ignore):
        began = time.perf_counter()
        diagnostics.extend(to_diagnostics(rule, rule.check(analysis), file))
        if timings is not None:
            # Cached analysis parts (links, fabrics) are built by the first rule that asks.
            timings["rules"] = timings.get("rules", 0.0) + time.perf_counter() - began
    diagnostics.sort(key=Diagnostic.sort_key)
    return analysis, diagnostics


def check_file(path: str | Path, *, select: Iterable[str] | None = None,
               ignore: Iterable[str] | None = None,
               timings: dict[str, float] | None = None) -> FileResult:
    file = str(path)
    result = FileResult(file)
    try:
        began = time.perf_counter()
        text, _ = read_text(file)
        if timings is not None:
            timings["read"] = timings.get("read", 0.0) + time.perf_counter() - began
        layout, _ = load_text_with_map(text, file=file, timings=timings)
    except LayoutError as error:
        result.diagnostics = error.diagnostics
        return result
    result.layout = layout
    result.analysis, result.diagnostics = check(layout, file=file, select=select, ignore=ignore,
                                                timings=timings)
    return result
