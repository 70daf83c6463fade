"""Where each entity of a freshly read layout sits in its text, by entity reference.

The reader's :class:`~.linemap.LineMap` numbers entities by their position in
the file; the layout it built has them in the same order. Pairing the two gives
what the comment keeper and the source map need, computed in one place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rackdesigner.layout_io.linemap import LineMap
from rackdesigner.layout_io.sourcemap import SourceMap
from rackdesigner.model import layout as m
from rackdesigner.model.refs import RULES, SITE, WORKLOAD, Numbering, Ref, link_ids, shared_a_ends


def section_lines(lines: LineMap) -> dict[str, int]:
    """Lines of [site], [workload] and [rules] where they have a header of their own."""
    tables = lines.tables
    found: dict[str, int] = {key: tables[key] for key in ("site", "workload") if key in tables}
    rules = tables.get("rules") or tables.get("rules.thresholds")
    if rules:
        found["rules"] = rules
    return found


def placed(layout: m.Layout, lines: LineMap) -> Iterator[tuple[Any, int]]:
    """Each table-like entity of ``layout`` with its line (0 where the text has none).

    Sections, catalog entries, GPUs, power elements, racks (each followed by its
    devices) and links, in that order; feeds are left out (they are inline and carry
    no comments of their own).
    """
    sections = section_lines(lines)
    for name, section in (
        ("site", layout.site),
        ("workload", layout.workload),
        ("rules", layout.rules),
    ):
        if section is not None:
            yield section, sections.get(name, 0)
    for key, entry in layout.catalog.items():
        yield entry, lines.catalog.get(key, 1)
    for key, gpu in layout.gpus.items():
        yield gpu, lines.gpus.get(key, 1)
    for index, element in enumerate(layout.power_elements):
        yield element, LineMap.entity(lines.power_elements, index)
    for index, loop in enumerate(layout.cooling_loops):  # (v1.4)
        yield loop, LineMap.entity(lines.cooling_loops, index)
    for key, part in layout.transceivers.items():
        yield part, lines.transceivers.get(key, 1)
    for index, rack in enumerate(layout.racks):
        line = LineMap.entity(lines.racks, index)
        yield rack, line
        device_lines = lines.devices[index] if index < len(lines.devices) else []
        known = len(device_lines)
        for number, device in enumerate(rack.devices):
            yield device, device_lines[number] if number < known else line
    for index, pathway in enumerate(layout.pathways):
        yield pathway, LineMap.entity(lines.pathways, index)
    for index, trunk in enumerate(layout.trunks):
        yield trunk, LineMap.entity(lines.trunks, index)
    link_lines = lines.links
    known = len(link_lines)
    for index, link in enumerate(layout.links):
        yield link, link_lines[index] if index < known else 0


def source_map(layout: m.Layout, lines: LineMap) -> SourceMap:
    """The source map of ``layout`` as read, built when first asked.

    The entity lists are copied now (pointers only), so that edits made before the
    first look-up do not shift entities onto the wrong lines.
    """
    site, workload, rules = layout.site, layout.workload, layout.rules
    catalog = list(layout.catalog)
    gpus = list(layout.gpus)
    racks = [(rack, list(rack.feeds), list(rack.devices)) for rack in layout.racks]
    links = list(layout.links)
    elements = [element.id for element in layout.power_elements]
    loops = [loop.id for loop in layout.cooling_loops]
    plant = [
        *((Ref("pathway", p.id), i, lines.pathways) for i, p in enumerate(layout.pathways)),
        *((Ref("trunk", t.id), i, lines.trunks) for i, t in enumerate(layout.trunks)),
        *((Ref("transceiver", k), -1, None) for k in layout.transceivers),
    ]

    def build() -> tuple[dict[Ref, int], dict[str, int]]:
        found: dict[Ref, int] = {}
        tables = lines.tables
        if site is not None:
            found[SITE] = tables.get("site", 1)
        if workload is not None:
            found[WORKLOAD] = tables.get("workload", 1)
        if rules is not None:
            found[RULES] = tables.get("rules") or tables.get("rules.thresholds") or 1
        for key in catalog:
            found[Ref("catalog", key)] = lines.catalog.get(key, 1)
        for key in gpus:
            found[Ref("gpu", key)] = lines.gpus.get(key, 1)
        for index, ident in enumerate(elements):  # (v1.4)
            found.setdefault(Ref("power", ident), LineMap.entity(lines.power_elements, index))
        for index, ident in enumerate(loops):  # (v1.4)
            found.setdefault(Ref("loop", ident), LineMap.entity(lines.cooling_loops, index))
        for plant_ref, index, plant_lines in plant:
            if plant_lines is None:
                found[plant_ref] = lines.transceivers.get(plant_ref.id, 1)
            elif plant_ref not in found:
                found[plant_ref] = LineMap.entity(plant_lines, index)
        numbering = Numbering()
        ref = numbering.ref
        for index, (rack, feeds, devices) in enumerate(racks):
            line = LineMap.entity(lines.racks, index)
            found[ref("rack", rack.id)] = line
            feed_lines = lines.feeds[index] if index < len(lines.feeds) else []
            for number, feed in enumerate(feeds):
                found[ref("feed", feed.id)] = LineMap.entity(feed_lines, number) or line
            device_lines = lines.devices[index] if index < len(lines.devices) else []
            known = len(device_lines)
            for number, device in enumerate(devices):
                found[ref("device", device.id)] = device_lines[number] if number < known else line
        by_id: dict[str, int] = {}
        if len(lines.links) >= len(links) and not shared_a_ends(links):  # the common case
            # Each link's id is its a end. A loop, not dict(zip(...)): built in a worker
            # while the designer answers keys, one C call over 150,000 cables held the
            # interpreter for 60 ms.
            for link, line in zip(links, lines.links, strict=False):
                by_id[link.a] = line
            return found, by_id
        ids = link_ids(links)
        known = min(len(lines.links), len(ids))
        if known == len(ids) and all(nth == 0 for _, nth in ids):
            for (name, _), line in zip(ids, lines.links, strict=False):
                by_id[name] = line
        else:
            for (name, nth), line in zip(ids[:known], lines.links, strict=False):
                if nth == 0:
                    by_id[name] = line
                else:
                    found[Ref("link", name, nth)] = line
        return found, by_id

    return SourceMap(build=build)
