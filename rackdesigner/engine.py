"""Validation: load a layout, analyse it once, run the selected rules, collect diagnostics."""

from __future__ import annotations

import os
import pickle
import signal
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .analysis import Analysis
from .diagnostics import Diagnostic, LayoutError
from .layout_io.reader import load_text_with_map, read_text
from .model import Layout
from .rules.registry import Rule, selected, to_diagnostics
from .suppressions import apply_ignores


@dataclass(slots=True)
class FileResult:
    file: str
    layout: Layout | None = None
    analysis: Analysis | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

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


# Below this many cables a second process costs more than it saves.
PARALLEL_MIN_LINKS = 20_000


def _run(rules: Iterable[Rule], analysis: Analysis, file: str) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(to_diagnostics(rule, rule.check(analysis), file))
    return found


def _run_forked(rules: list[Rule], analysis: Analysis, file: str) -> Callable[[], list[Diagnostic]]:
    """Run ``rules`` in a forked child; return a function that waits for their diagnostics.

    The child shares the parent's analysis copy-on-write, so nothing is sent to it; only
    the (few) diagnostics come back through a pipe.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, leave without running the parent's cleanup
        try:
            # Ctrl-C reaches both processes: the parent stops the command (exit 130), the
            # child just ends, rather than report the interruption as a failed rule.
            if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.close(read_end)
            try:
                payload = pickle.dumps((True, _run(rules, analysis, file)))
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
) -> tuple[Analysis, list[Diagnostic]]:
    """Analyse ``layout`` and run its rules; diagnostics sorted by line.

    With ``parallel`` None, on a large layout the rules that do not read the fabric graph
    run in a forked second process while this one builds the graph and runs the rest: the
    graph is the longest single step, and machines have more than one core. Only a
    single-threaded caller (the command line) may ask for that; the default runs here.
    """
    start = time.perf_counter()
    analysis = Analysis(layout, file=file)
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
        wait = _run_forked([r for r in rules if not r.fabric], analysis, file)
        diagnostics = _run(fabric_rules, analysis, file)
        diagnostics.extend(wait())
    else:
        diagnostics = _run(rules, analysis, file)
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
    parallel: bool | None = False,
    text: str | None = None,
) -> FileResult:
    """Load and check the layout at ``path``; with ``text``, check that text and name it
    ``path`` (``<stdin>``)."""
    file = str(path)
    result = FileResult(file)
    try:
        began = time.perf_counter()
        if text is None:
            text, _ = read_text(file)
        if timings is not None:
            timings["read"] = timings.get("read", 0.0) + time.perf_counter() - began
        layout, _ = load_text_with_map(text, file=file, timings=timings)
    except LayoutError as error:
        result.diagnostics = error.diagnostics
        return result
    result.layout = layout
    result.analysis, result.diagnostics = check(
        layout, file=file, select=select, ignore=ignore, timings=timings, parallel=parallel
    )
    return result
