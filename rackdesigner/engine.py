"""Validation: load a layout, analyse it once, run the selected rules, collect diagnostics."""

from __future__ import annotations

import os
import pickle
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .analysis import Analysis
from .diagnostics import Diagnostic, LayoutError
from .document import Document, load
from .model import Layout
from .refs import Ref
from .rules.registry import Rule, selected, to_diagnostics
from .sourcemap import SourceMap


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


def rules_for(
    layout: Layout, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None
) -> list[Rule]:
    """The rules to run: the command line's select replaces the file's; ignores add up."""
    config = layout.rules
    file_select = config.select if config and config.select else None
    file_ignore = config.ignore if config and config.ignore else []
    chosen_select = list(select) if select else file_select
    return selected(chosen_select, [*file_ignore, *(ignore or [])])


# Below this many cables a second process costs more than it saves.
PARALLEL_MIN_LINKS = 20_000


Locate = Callable[[Ref], int] | None


def _locator(source_map: SourceMap | None, analysis: Analysis) -> Locate:
    if source_map is None:
        return None
    locate, enclosing = source_map.locate, analysis.enclosing
    lines = source_map.lines
    get = lines.get

    def line_of(ref: Ref) -> int:
        line = get(ref)
        return line if line is not None else locate(ref, enclosing)

    return line_of


def _run(rules: Iterable[Rule], analysis: Analysis, file: str, locate: Locate) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(to_diagnostics(rule, rule.check(analysis), file, locate))
    return found


def _run_forked(
    rules: list[Rule], analysis: Analysis, file: str, locate: Locate
) -> Callable[[], list[Diagnostic]]:
    """Run ``rules`` in a forked child; return a function that waits for their diagnostics.

    The child shares the parent's analysis copy-on-write, so nothing is sent to it; only
    the (few) diagnostics come back through a pipe.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, leave without running the parent's cleanup
        try:
            os.close(read_end)
            try:
                payload = pickle.dumps((True, _run(rules, analysis, file, locate)))
            except BaseException:
                payload = pickle.dumps((False, traceback.format_exc()))
            with os.fdopen(write_end, "wb") as stream:
                stream.write(payload)
        finally:
            os._exit(0)
    os.close(write_end)

    def wait() -> list[Diagnostic]:
        with os.fdopen(read_end, "rb") as stream:
            data = stream.read()
        os.waitpid(pid, 0)
        if not data:
            raise RuntimeError("the rule process ended without a result")
        ok, result = pickle.loads(data)
        if not ok:
            raise RuntimeError(f"a rule failed in the rule process:\n{result}")
        return result

    return wait


def check(
    layout: Layout,
    *,
    file: str = "",
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    timings: dict[str, float] | None = None,
    parallel: bool | None = False,
    source_map: SourceMap | None = None,
) -> tuple[Analysis, list[Diagnostic]]:
    """Analyse ``layout`` and run its rules; diagnostics sorted by line.

    Each diagnostic names its subject; its line comes from ``source_map`` (a document's),
    an entity the map does not know being reported at its nearest enclosing one. Without
    a map every line is 0.

    With ``parallel`` None, on a large layout the rules that do not read the fabric graph
    run in a forked second process while this one builds the graph and runs the rest: the
    graph is the longest single step, and machines have more than one core. Only a
    single-threaded caller (the command line) may ask for that; the default runs here.
    """
    start = time.perf_counter()
    analysis = Analysis(layout, file=file)
    locate = _locator(source_map, analysis)
    if timings is not None:
        timings["analysis"] = timings.get("analysis", 0.0) + time.perf_counter() - start
    began = time.perf_counter()
    rules = rules_for(layout, select, ignore)
    fabric_rules = [r for r in rules if r.fabric]
    if parallel is None:
        parallel = len(layout.links) >= PARALLEL_MIN_LINKS
    if parallel and fabric_rules and hasattr(os, "fork"):
        # Both halves need the resolved cables: resolve them once, before forking. The
        # fabric is then the longer path: keep it here (the graph stays available to the
        # caller); the child runs the other rules.
        analysis.links  # noqa: B018
        if source_map is not None:
            source_map.lines  # noqa: B018  (built once, shared with the child)
        wait = _run_forked([r for r in rules if not r.fabric], analysis, file, locate)
        diagnostics = _run(fabric_rules, analysis, file, locate)
        diagnostics.extend(wait())
    else:
        diagnostics = _run(rules, analysis, file, locate)
    if timings is not None:
        # Cached analysis parts (links, fabrics) are built by the first rule that asks.
        timings["rules"] = timings.get("rules", 0.0) + time.perf_counter() - began
    diagnostics.sort(key=Diagnostic.sort_key)
    return analysis, diagnostics


def check_file(
    path: str | Path,
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    timings: dict[str, float] | None = None,
    parallel: bool | None = False,
) -> FileResult:
    file = str(path)
    result = FileResult(file)
    try:
        document = load(file, timings=timings)
    except LayoutError as error:
        result.diagnostics = error.diagnostics
        return result
    return check_document(
        document, select=select, ignore=ignore, timings=timings, parallel=parallel
    )


def check_document(
    document: Document,
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    timings: dict[str, float] | None = None,
    parallel: bool | None = False,
) -> FileResult:
    """Check a loaded document; diagnostics carry the lines of its source map."""
    file = document.path or ""
    result = FileResult(file, document.layout, document=document)
    result.analysis, result.diagnostics = check(
        document.layout,
        file=file,
        select=select,
        ignore=ignore,
        timings=timings,
        parallel=parallel,
        source_map=document.source_map,
    )
    return result
