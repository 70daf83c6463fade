"""Validation: load a layout, analyse it once, run the selected rules, collect diagnostics.

:func:`check` is safe to call from any thread (the designer runs fabric rules in a
worker): it shares nothing mutable between calls and never forks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rackdesigner.analysis import Analysis
from rackdesigner.check.rule_codes import rule_code_errors
from rackdesigner.check.suppressions import apply_ignores
from rackdesigner.layout_io.document import Document, load, loads
from rackdesigner.layout_io.sourcemap import SourceMap
from rackdesigner.model.diagnostics import Diagnostic, LayoutError
from rackdesigner.model.layout import Layout
from rackdesigner.model.refs import Ref
from rackdesigner.rules.registry import Rule, selected, to_diagnostics


@dataclass(slots=True)
class FileResult:
    file: str
    layout: Layout | None = None
    analysis: Analysis | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    document: Document | None = None

    @property
    def loaded(self) -> bool:
        return self.layout is not None

    @property
    def reported(self) -> list[Diagnostic]:
        """The diagnostics that count: those no ignore key or baseline suppresses."""
        return [d for d in self.diagnostics if not d.suppressed]


def rules_for(
    layout: Layout, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None
) -> list[Rule]:
    """The rules to run: the command line's select replaces the file's; ignores add up."""
    config = layout.rules
    file_select = config.select if config and config.select else None
    file_ignore = config.ignore if config and config.ignore else []
    chosen_select = list(select) if select else file_select
    return selected(chosen_select, [*file_ignore, *(ignore or [])])


Locate = Callable[[Ref], int]


def locator(source_map: SourceMap | None, analysis: Analysis) -> Locate | None:
    """The line of a finding's subject: from the source map, else the nearest enclosing
    entity's (a device added since the file was read: its rack's)."""
    if source_map is None:
        return None
    locate, enclosing, get = source_map.locate, analysis.enclosing, source_map.line

    def line_of(ref: Ref) -> int:
        line = get(ref)
        return line if line is not None else locate(ref, enclosing)

    return line_of


def run_rules(
    rules: Iterable[Rule], analysis: Analysis, file: str = "", locate: Locate | None = None
) -> list[Diagnostic]:
    """Run ``rules`` over ``analysis``, unsorted (a caller may run them in parts)."""
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(to_diagnostics(rule, rule.check(analysis), file, locate))
    return found


def check(
    layout: Layout,
    *,
    file: str = "",
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    timings: dict[str, float] | None = None,
    source_map: SourceMap | None = None,
) -> tuple[Analysis, list[Diagnostic]]:
    """Analyse ``layout`` and run its rules; diagnostics sorted by line.

    Each diagnostic names its subject; its line comes from ``source_map`` (a document's),
    an entity the map does not know being reported at its nearest enclosing one. Without
    a map every line is 0.
    """
    start = time.perf_counter()
    analysis = Analysis(layout, file=file)
    if timings is not None:
        timings["analysis"] = timings.get("analysis", 0.0) + time.perf_counter() - start
    began = time.perf_counter()
    rules = rules_for(layout, select, ignore)
    diagnostics = run_rules(rules, analysis, file, locator(source_map, analysis))
    if timings is not None:
        # Cached analysis parts (links, fabrics) are built by the first rule that asks.
        timings["rules"] = timings.get("rules", 0.0) + time.perf_counter() - began
    diagnostics.sort(key=Diagnostic.sort_key)
    # Findings about an entity whose ignore key names their code stay listed, suppressed.
    apply_ignores(layout, diagnostics)
    return analysis, diagnostics


def check_file(
    path: str | Path,
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    timings: dict[str, float] | None = None,
    text: str | None = None,
) -> FileResult:
    """Load and check the layout at ``path``; with ``text``, check that text and name it
    ``path`` (``<stdin>``)."""
    file = str(path)
    result = FileResult(file)
    try:
        if text is None:
            document = load(file, timings=timings)
        else:
            # Standard input (``validate -``): the text is named ``<stdin>`` and has no path
            # a save could write back to.
            document = loads(text, file=file, timings=timings)
    except LayoutError as error:
        result.diagnostics = error.diagnostics
        return result
    return check_document(document, select=select, ignore=ignore, timings=timings, file=file)


def check_document(
    document: Document,
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    timings: dict[str, float] | None = None,
    file: str | None = None,
) -> FileResult:
    """Check a loaded document; diagnostics carry the lines of its source map.

    ``file`` names a document that has no path (``<stdin>``). Unknown codes in the file's
    ``[rules]`` make it a file that does not load (its E001 diagnostics, no layout), as
    the command line has always reported them.
    """
    file = document.path or file or ""
    errors = rule_code_errors(document, file)
    if errors:
        return FileResult(file, diagnostics=errors, document=document)
    result = FileResult(file, document.layout, document=document)
    result.analysis, result.diagnostics = check(
        document.layout,
        file=file,
        select=select,
        ignore=ignore,
        timings=timings,
        source_map=document.source_map,
    )
    return result
