"""(v1.4) Whether a layout's cable plant holds together, checked when it is read (E001).

What the rules cannot judge because the plant would not even be drawn: a pathway with no
place on the hall's grid or no size, pathways that do not connect, an id used twice, a
trunk between devices that are not patch panels, a channel whose panels no trunk joins,
a transceiver part nobody defines. Each problem names its entity, line and key, as every
load error does (docs/layout-format.md, Errors).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass

from rackdesigner.layout_io.assets import builtin_device_kinds, builtin_transceiver_keys
from rackdesigner.layout_io.linemap import LineMap
from rackdesigner.model import hall_grid
from rackdesigner.model.hall_grid import Extent, Problem
from rackdesigner.model.layout import Layout, Link, Pathway


@dataclass(frozen=True, slots=True)
class PlantProblem:
    entity: str
    message: str
    line: int
    key: str | None = None
    hint: str | None = None


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _near(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def plant_problems(layout: Layout, lines: LineMap) -> list[PlantProblem]:
    """Every problem of the cable plant, in file order of its parts."""
    problems: list[PlantProblem] = []
    problems.extend(_pathway_problems(layout, lines))
    kinds = _device_kinds(layout)
    problems.extend(_trunk_problems(layout, lines, kinds))
    problems.extend(_link_problems(layout, lines, kinds))
    return problems


def _device_kinds(layout: Layout) -> dict[str, str | None]:
    """Each device id's kind as far as the loader knows it (its model's, the layout's
    catalog first); None where the model is unknown (PLC005 says so later)."""
    builtin = builtin_device_kinds()
    out: dict[str, str | None] = {}
    for _, device in layout.devices():
        entry = layout.catalog.get(device.model)
        kind = entry.kind if entry is not None and entry.kind else builtin.get(device.model)
        out.setdefault(device.id, kind)
    return out


def _pathway_problems(layout: Layout, lines: LineMap) -> Iterator[PlantProblem]:
    rows = hall_grid.row_indexes(layout.racks)
    spans = hall_grid.row_spans(layout.racks)
    rack_ids = frozenset(r.id for r in layout.racks)
    seen: dict[str, int] = {}
    extents: list[Extent] = []
    for index, pathway in enumerate(layout.pathways):
        line = LineMap.entity(lines.pathways, index)
        entity = f"pathway {pathway.id}"
        if pathway.id in seen:
            yield PlantProblem(
                entity,
                f"pathway id {pathway.id} is used twice (first on line {seen[pathway.id]})",
                line,
                "id",
            )
            continue
        seen[pathway.id] = line
        found = hall_grid.extent_of(index, pathway, rows, spans, rack_ids)
        if isinstance(found, Problem):
            yield PlantProblem(entity, found.message, line, found.key, found.hint)
            continue
        extents.append(found)
        missing = [key for key in ("width", "depth") if getattr(pathway, key) is None]
        if missing:
            yield PlantProblem(
                entity,
                f"{_article(pathway.kind_name)} {pathway.kind_name} needs its size for the "
                "fill check (CAB006): "
                f"missing {' and '.join(missing)}",
                line,
                None,
                'give its inside width and usable depth, e.g. width = "300 mm", depth = "100 mm"',
            )
        if pathway.kind_name == "riser" and pathway.length is None:
            yield PlantProblem(
                entity,
                "a riser needs length = its vertical run between the overhead and under-floor "
                "pathways",
                line,
                None,
            )
    yield from _disconnected(layout, lines, extents)


def _disconnected(layout: Layout, lines: LineMap, extents: list[Extent]) -> Iterator[PlantProblem]:
    """One problem for each group of pathways that meets none of the largest group."""
    groups = hall_grid.components(extents)
    if len(groups) < 2:
        return
    main = ", ".join(e.id for e in groups[0][:4]) + (" ..." if len(groups[0]) > 4 else "")
    for group in groups[1:]:
        first = group[0]
        pathway: Pathway = layout.pathways[first.index]
        names = ", ".join(e.id for e in group[:4]) + (" ..." if len(group) > 4 else "")
        where = _where(pathway)
        yield PlantProblem(
            f"pathway {pathway.id}",
            f"pathways do not connect: {names} ({where}) meet{'s' if len(group) == 1 else ''} "
            f"none of {main}; a cable could not run between them",
            LineMap.entity(lines.pathways, first.index),
            None,
            "extend a run so the two share a point (a row's tray over the slot of a "
            "cross-aisle run: slots = [0, 33]), add a cross-aisle run or a riser between them",
        )


def _where(pathway: Pathway) -> str:
    if pathway.row is not None and pathway.slot is not None:
        return f"a riser in row {pathway.row} at slot {pathway.slot:g}"
    if pathway.row is not None:
        span = f" from slot {pathway.slots[0]:g} to {pathway.slots[1]:g}" if pathway.slots else ""
        return f"along row {pathway.row}{span}"
    if pathway.rows is not None and pathway.slot is not None:
        return f"across rows {pathway.rows[0]} to {pathway.rows[1]} at slot {pathway.slot:g}"
    return pathway.kind_name


def _panel_problem(name: str, kinds: dict[str, str | None], key: str) -> str | None:
    if name not in kinds:
        return f'{key} = "{name}" names no device of the layout{_near(name, list(kinds))}'
    kind = kinds[name]
    if kind is not None and kind != "patch-panel":
        return f'{key} = "{name}" is a {kind}, not a patch panel'
    return None


def _trunk_problems(
    layout: Layout, lines: LineMap, kinds: dict[str, str | None]
) -> Iterator[PlantProblem]:
    seen: set[str] = set()
    for index, trunk in enumerate(layout.trunks):
        line = LineMap.entity(lines.trunks, index)
        entity = f"trunk {trunk.id}"
        if trunk.id in seen:
            yield PlantProblem(entity, f"trunk id {trunk.id} is used twice", line, "id")
        seen.add(trunk.id)
        for key in ("a", "b"):
            problem = _panel_problem(getattr(trunk, key), kinds, key)
            if problem:
                yield PlantProblem(
                    entity,
                    f"a trunk runs between patch panels: {problem}",
                    line,
                    key,
                    "name two devices of kind patch-panel",
                )
        if trunk.a == trunk.b:
            yield PlantProblem(entity, f"both ends are panel {trunk.a}", line, "b")


def _link_problems(
    layout: Layout, lines: LineMap, kinds: dict[str, str | None]
) -> Iterator[PlantProblem]:
    trunks: dict[str, tuple[str, str]] = {t.id: (t.a, t.b) for t in layout.trunks}
    joined: dict[frozenset[str], list[str]] = {}
    for trunk in layout.trunks:
        joined.setdefault(frozenset((trunk.a, trunk.b)), []).append(trunk.id)
    parts = builtin_transceiver_keys() | frozenset(layout.transceivers)
    for index, link in enumerate(layout.links):
        if not (link.via or link.trunk or link.a_transceiver or link.b_transceiver):
            continue
        line = LineMap.entity(lines.links, index)
        for problem in _channel_problems(link, kinds, trunks, joined):
            yield PlantProblem(f"link {link.name}", problem[0], line, problem[1], problem[2])
        for key in ("a_transceiver", "b_transceiver"):
            part = getattr(link, key)
            if part is not None and part not in parts:
                yield PlantProblem(
                    f"link {link.name}",
                    f'{key} = "{part}" is no transceiver part{_near(part, sorted(parts))}',
                    line,
                    key,
                    "use a built-in part (docs/cable-plant.md lists them) or define it in "
                    "[transceivers.PART]",
                )


def _channel_problems(
    link: Link,
    kinds: dict[str, str | None],
    trunks: dict[str, tuple[str, str]],
    joined: dict[frozenset[str], list[str]],
) -> Iterator[tuple[str, str, str | None]]:
    """(message, key, hint) for each way a link's channel parts do not join."""
    if link.via is None:
        if link.trunk is not None:
            yield (
                "trunk names the trunk a channel runs through; the link has no via",
                "trunk",
                'add via = ["<panel>:<port>", "<panel>:<port>"], or remove trunk',
            )
        return
    panels = []
    for end in link.via:
        device, colon, port = end.partition(":")
        if not colon or not port or not port[-1].isdigit():
            yield (
                f'via "{end}" is not a panel port "<panel id>:<port group><index>"',
                "via",
                None,
            )
            return
        problem = _panel_problem(device, kinds, "via")
        if problem:
            yield (f"a channel runs through patch panels: {problem}", "via", None)
            return
        panels.append(device)
    if panels[0] == panels[1]:
        yield (
            f"both via ports are on panel {panels[0]}: a channel runs from one panel "
            "through a trunk to another",
            "via",
            None,
        )
        return
    pair = frozenset(panels)
    if link.trunk is not None:
        ends = trunks.get(link.trunk)
        if ends is None:
            yield (
                f'trunk = "{link.trunk}" names no trunk{_near(link.trunk, list(trunks))}',
                "trunk",
                None,
            )
        elif frozenset(ends) != pair:
            yield (
                f"trunk {link.trunk} joins {ends[0]} and {ends[1]}, not the channel's panels "
                f"{panels[0]} and {panels[1]}",
                "trunk",
                None,
            )
        return
    if pair not in joined:
        yield (
            f"no trunk joins panels {panels[0]} and {panels[1]}: the channel's parts do not join",
            "via",
            "add a [[trunks]] table between the two panels, or route the link through "
            "panels a trunk joins",
        )
