"""Validation: load a layout, analyse it once, run the selected rules, collect diagnostics.

:func:`check` is safe to call from any thread (the designer runs fabric rules in a
worker): it shares nothing mutable between calls and never forks.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rackdesigner.analysis import Analysis
from rackdesigner.check.suppressions import apply_ignores
from rackdesigner.layout_io.document import Document, load, loads
from rackdesigner.layout_io.sourcemap import SourceMap
from rackdesigner.model.diagnostics import Diagnostic, LayoutError
from rackdesigner.model.layout import Layout
from rackdesigner.model.refs import RULES, Ref, link_ids
from rackdesigner.rules.registry import Rule, selected, to_diagnostics, unknown_patterns


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


def rule_config_errors(document: Document, file: str | None = None) -> list[Diagnostic]:
    """E001 errors for codes in ``[rules] select`` or ``ignore``, or in an entity's
    ``ignore`` key, that match no rule.

    A load error like the loader's own (the file is refused, exit 2), found here because
    the loader imports no rule.
    """
    config = document.layout.rules
    errors: list[Diagnostic] = []
    for key in ("select", "ignore") if config is not None else ():
        unknown = unknown_patterns([c.strip().upper() for c in getattr(config, key) or ()])
        if unknown:
            errors.append(
                Diagnostic(
                    "E001",
                    "error",
                    f"{key}: no rule matches {', '.join(repr(c) for c in unknown)} "
                    "(`rackdesigner rules` lists them)",
                    entity="[rules]",
                    line=document.key_line(RULES, key),
                    file=document.path or file or "",
                )
            )
    errors.extend(_ignore_key_errors(document, file))
    return errors


@functools.lru_cache(maxsize=256)
def _unknown_codes(patterns: tuple[str, ...]) -> list[str]:
    # Cached: thousands of devices carry the same ignore key.
    return unknown_patterns([p.strip().upper() for p in patterns])


def _ignore_key_errors(document: Document, file: str | None) -> list[Diagnostic]:
    """E001 for an entity's ``ignore`` key naming no rule, at the key's line."""
    layout = document.layout
    found: list[tuple[Ref, str, list[str]]] = []
    for rack in layout.racks:
        if rack.ignore and _unknown_codes(tuple(rack.ignore)):
            found.append((Ref("rack", rack.id), f"rack {rack.id}", rack.ignore))
        for device in rack.devices:
            if device.ignore and _unknown_codes(tuple(device.ignore)):
                found.append((Ref("device", device.id), f"device {device.id}", device.ignore))
    for kind, entities in (("pathway", layout.pathways), ("trunk", layout.trunks)):
        for entity in entities:
            if entity.ignore and _unknown_codes(tuple(entity.ignore)):
                found.append((Ref(kind, entity.id), f"{kind} {entity.id}", entity.ignore))
    links = [link for link in layout.links if link.ignore]
    if links:
        ids = dict(zip(map(id, layout.links), link_ids(layout.links), strict=True))
        for link in links:
            assert link.ignore is not None
            if _unknown_codes(tuple(link.ignore)):
                ident, nth = ids[id(link)]
                found.append((Ref("link", ident, nth), f"link {link.name}", link.ignore))
    return [
        Diagnostic(
            "E001",
            "error",
            "ignore must name rules: no rule matches "
            f"{', '.join(repr(c) for c in _unknown_codes(tuple(codes)))} "
            "(codes or prefixes; `rackdesigner rules` lists them)",
            entity=entity,
            line=document.key_line(ref, "ignore"),
            file=document.path or file or "",
        )
        for ref, entity, codes in found
    ]


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
    errors = rule_config_errors(document, file)
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
