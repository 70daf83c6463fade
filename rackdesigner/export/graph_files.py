"""``export --graph``: the cabled topology as a graph file networkx (and Gephi, Graphviz) read.

Nodes are devices (id = device id) with ``kind``, ``model``, ``rack``, ``row``,
``position``, ``gpus``, ``power_w`` and, for switches, ``tier``; edges are cables
(a multigraph) or, with ``--aggregate``, one per device pair with ``cables`` and
summed ``bandwidth_bps``; every edge has ``a_port``, ``b_port``, ``media``,
``length_m`` and ``bandwidth_bps``. A value the layout does not give (the position
of a 0U device, an unknown draw) is left out rather than written as an empty
string or 0, so each attribute keeps one type and reads back as it was written.

The format follows the suffix. Node-link JSON and DOT are written directly as
text (networkx's pydot writer takes about 10 s on 150,000 edges); GraphML and
GEXF go through networkx's writers, which know those formats' schemas. Edges
keep the layout's orientation: ``source`` is the device of the link's ``a`` end.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.topology.structure import (
    Sketch,
    Wire,
    already,
    cabling,
    quick_links,
    sketches,
    wire_length,
)

if TYPE_CHECKING:
    from pathlib import Path

    import networkx as nx

    from rackdesigner.analysis import Analysis, DeviceFacts
    from rackdesigner.export.registry import ExportContext, Output

FORMATS = (".graphml", ".gexf", ".json", ".dot")
SCOPES = "fabric:<id>, rack:<id>, switches, storage or all"


@dataclass(slots=True)
class GraphData:
    """Nodes and edges in file order, attributes as plain numbers and strings."""

    multigraph: bool
    nodes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    edges: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


class ScopeError(ValueError):
    pass


# One cable as the graph reads it: (link, a device, b device, a port, b port, compute?,
# speed bit/s or None, length m or None), from the quick resolver or the link facts.
Cable = tuple[Any, "DeviceFacts", "DeviceFacts", str, str, bool, "float | None", "float | None"]


def _cables(analysis: Analysis, wires: list[Wire] | None) -> list[Cable]:
    """Every cable whose two devices are known, in layout order."""
    if wires is not None:
        cables: list[Cable] = []
        for wire in wires:
            _, _, _, _, _, ia, ib = wire
            sa, sb = ia[1], ib[1]
            speed = sb if sa is None else (sa if sb is None or sa <= sb else sb)
            compute = ia[0] and ib[0] and wire[1] is not wire[2]
            cables.append((*wire[:5], compute, speed, wire_length(analysis, wire)))
        return cables
    return [
        (
            link.link,
            link.a.device,
            link.b.device,
            link.a.port,
            link.b.port,
            link.compute and link.a.device is not link.b.device,
            link.speed,
            link.length,
        )
        for link in analysis.links
        if link.a.device is not None and link.b.device is not None
    ]


def _select(
    analysis: Analysis, scope: str | None, fabrics: list[Sketch], cables: list[Cable]
) -> tuple[list[Cable], list[DeviceFacts]]:
    """The cables and the devices a scope covers, in layout order."""
    if scope is not None and (scope == "all" or scope.startswith("rack:")):
        links, devices = _rack_cables(analysis, scope, cables)
    elif scope == "storage":
        links, devices = _storage_cables(analysis)
    else:
        links, devices = _fabric_cables(scope, fabrics, [c for c in cables if c[5]])
    ordered = [d for d in analysis.devices if d.id in devices]
    return links, ordered


def _fabric_cables(
    scope: str | None, fabrics: list[Sketch], compute: list[Cable]
) -> tuple[list[Cable], set[str]]:
    """The compute cables and devices of ``fabric`` (every fabric; no scope),
    ``fabric:NAME`` or ``switches`` (those between two switches)."""
    if not scope or scope == "fabric":
        return compute, {d.id for fabric in fabrics for d in fabric.devices}
    if scope.startswith("fabric:"):
        devices = {d.id for d in _fabric_named(scope, fabrics).devices}
        return [cable for cable in compute if cable[1].id in devices], devices
    if scope == "switches":
        links = [c for c in compute if c[1].kind == "switch" and c[2].kind == "switch"]
        return links, {d.id for f in fabrics for d in f.devices if d.kind == "switch"}
    raise ScopeError(f"--scope {scope}: expected {SCOPES}")


def _storage_cables(analysis: Analysis) -> tuple[list[Cable], set[str]]:
    """The storage fabric: the cables whose two ends are storage ports (docs/storage.md),
    with the devices at their ends."""
    from rackdesigner.analysis.storage import is_storage_link

    links = [
        (lf.link, lf.a.device, lf.b.device, lf.a.port, lf.b.port, False, lf.speed, lf.length)
        for lf in analysis.links
        if is_storage_link(lf) and lf.a.device is not None and lf.b.device is not None
    ]
    return links, {cable[1].id for cable in links} | {cable[2].id for cable in links}


def _fabric_named(scope: str, fabrics: list[Sketch]) -> Sketch:
    """``fabric:NAME``'s fabric: by its name or number, else the fabric holding a device of
    that id."""
    name = scope.partition(":")[2]
    chosen = [f for f in fabrics if f.name == name or str(f.index) == name]
    if not chosen:
        chosen = [f for f in fabrics if any(d.id == name for d in f.devices)]
    if not chosen:
        known = ", ".join(f.name for f in fabrics) or "none"
        raise ScopeError(f"--scope {scope}: no compute fabric {name!r} (fabrics: {known})")
    return chosen[0]


def _rack_cables(
    analysis: Analysis, scope: str, cables: list[Cable]
) -> tuple[list[Cable], set[str]]:
    """``all``: every cable between two devices; ``rack:ID``: those with an end in the
    rack; with the devices at their ends."""
    rack = scope.partition(":")[2] if scope.startswith("rack:") else None
    if rack is not None and not any(r.rack.id == rack for r in analysis.racks):
        raise ScopeError(f"--scope {scope}: no rack {rack!r}")
    links = []
    devices = set()
    for cable in cables:
        da, db = cable[1], cable[2]
        if da is db:
            continue
        if rack is not None and da.rack.id != rack and db.rack.id != rack:
            continue
        links.append(cable)
        devices.add(da.id)
        devices.add(db.id)
    return links, devices


def build_graph(analysis: Analysis, scope: str | None = None, aggregate: bool = False) -> GraphData:
    wires = None if already(analysis, "links") else quick_links(analysis)
    fabrics = sketches(analysis, cabling(analysis, leaves=False, wires=wires))
    links, devices = _select(analysis, scope, fabrics, _cables(analysis, wires))
    tiers: dict[str, int] = {}
    for fabric in fabrics:
        for sid, tier in fabric.tiers.items():
            if tier is not None:
                tiers[sid] = tier
    data = GraphData(multigraph=not aggregate)
    seen: set[str] = set()
    for dev in devices:
        if dev.id in seen:  # a duplicate id (PLC005): one node
            continue
        seen.add(dev.id)
        data.nodes.append((dev.id, _node_attrs(dev, tiers)))
    data.edges = _aggregated_edges(links) if aggregate else _cable_edges(links)
    return data


def _node_attrs(dev: DeviceFacts, tiers: dict[str, int]) -> dict[str, Any]:
    """A device's node attributes: kind, model, rack, row, position, GPUs, power, tier and
    (v1.2) the NVLink domain of a rack-scale tray's rack."""
    attrs: dict[str, Any] = {"kind": dev.kind or "unknown", "model": dev.device.model}
    attrs["rack"] = dev.rack.id
    if dev.rack.row is not None:
        attrs["row"] = dev.rack.row
    if dev.device.position is not None:
        attrs["position"] = int(dev.device.position)
    attrs["gpus"] = int(dev.gpus)
    if dev.power is not None:
        attrs["power_w"] = float(dev.power)
    if dev.id in tiers:
        attrs["tier"] = int(tiers[dev.id])
    if dev.kind == "storage" and dev.type is not None:
        # (v1.4) a storage appliance: its tier and the figures the storage rules read.
        attrs["storage_tier"] = dev.type.storage_tier or "parallel-fs"
        for figure in ("read_bandwidth", "write_bandwidth"):
            value = getattr(dev.type, figure)
            if value is not None:
                attrs[f"{figure}_bps"] = float(value)
    if dev.rack.nvlink_domain is not None and dev.type and dev.type.nvl_domain:
        attrs["nvlink_domain"] = dev.rack.nvlink_domain
    return attrs


def _cable_edges(links: list[Cable]) -> list[tuple[str, str, dict[str, Any]]]:
    """One edge per cable: its ports, media, length (m, to the mm) and bandwidth."""
    edges: list[tuple[str, str, dict[str, Any]]] = []
    rounded: dict[float, float] = {}  # lengths repeat across a regular hall
    append = edges.append
    for link, da, db, pa, pb, _, speed, length in links:
        attrs: dict[str, Any] = {"a_port": pa, "b_port": pb}
        if link.media:
            attrs["media"] = link.media
        if length is not None:
            value = rounded.get(length)
            if value is None:
                value = rounded[length] = round(float(length), 3)
            attrs["length_m"] = value
        if speed:
            attrs["bandwidth_bps"] = float(speed)
        append((da.id, db.id, attrs))
    return edges


def _aggregated_edges(links: list[Cable]) -> list[tuple[str, str, dict[str, Any]]]:
    """One edge per pair of devices: the ports of its cables (comma-separated, as from
    the first device), their media, count, longest length and summed bandwidth."""
    pairs: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {}
    for link, da, db, a_port, b_port, _, speed, length in links:
        a, b = da.id, db.id
        key = (a, b) if a <= b else (b, a)
        entry = pairs.get(key)
        if entry is None:
            entry = pairs[key] = (a, b, {"a_port": [], "b_port": [], "media": [], "cables": 0})
        u, _, attrs = entry
        if u != a:  # this cable runs the other way round
            a_port, b_port = b_port, a_port
        attrs["a_port"].append(a_port)
        attrs["b_port"].append(b_port)
        if link.media and link.media not in attrs["media"]:
            attrs["media"].append(link.media)
        attrs["cables"] += 1
        if length is not None:
            attrs["length_m"] = max(attrs.get("length_m", 0.0), round(float(length), 3))
        if speed:
            attrs["bandwidth_bps"] = attrs.get("bandwidth_bps", 0.0) + float(speed)
    edges = []
    for u, v, attrs in pairs.values():
        attrs["a_port"] = ",".join(attrs["a_port"])
        attrs["b_port"] = ",".join(attrs["b_port"])
        if attrs["media"]:
            attrs["media"] = ",".join(attrs["media"])
        else:
            del attrs["media"]
        edges.append((u, v, attrs))
    return edges


# -- writers --------------------------------------------------------------------------------


def to_node_link(data: GraphData) -> bytes:
    """networkx node-link JSON with the ``edges`` key (networkx ≥ 3.4's form)."""
    nodes = [{"id": node, **attrs} for node, attrs in data.nodes]
    edges = []
    if data.multigraph:
        keys: dict[tuple[str, str], int] = {}
        for u, v, attrs in data.edges:
            pair = (u, v) if u <= v else (v, u)
            key = keys.get(pair, 0)
            keys[pair] = key + 1
            edges.append({"source": u, "target": v, "key": key, **attrs})
    else:
        edges = [{"source": u, "target": v, **attrs} for u, v, attrs in data.edges]
    document = {
        "directed": False,
        "multigraph": data.multigraph,
        "graph": {},
        "nodes": nodes,
        "edges": edges,
    }
    return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


_DOT_ESCAPE = re.compile(r'["\\\n\r]')
_DOT_REPLACE = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r"}


def _dot_id(value: object) -> str:
    text = str(value)
    return '"' + _DOT_ESCAPE.sub(lambda m: _DOT_REPLACE[m.group()], text) + '"'


_DOT_NUMERAL = re.compile(r"^-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)$")


def _dot_value(value: object) -> str:
    """Numbers as DOT numerals where they are one (``3000.0``), everything else quoted."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        text = repr(value)
        if _DOT_NUMERAL.match(text):
            return text
    return _dot_id(value)


def to_dot(data: GraphData, name: str = "fabric") -> bytes:
    """Graphviz DOT, an undirected (multi)graph (``strict`` when aggregated). DOT has no
    types: values read back as strings, quoted ones with their quotes under pydot."""
    # Ids, ports and media repeat: quote each once. Keyed by type too: 2 and 2.0 are one
    # dict key but two texts.
    quoted: dict[tuple[type, object], str] = {}

    def value(item: object) -> str:
        key = (type(item), item)
        text = quoted.get(key)
        if text is None:
            text = quoted[key] = _dot_value(item)
        return text

    def attrs_text(attrs: dict[str, Any]) -> str:
        return ", ".join([f"{key}={value(item)}" for key, item in attrs.items()])

    keyword = "graph" if data.multigraph else "strict graph"
    lines = [f"{keyword} {_dot_id(name)} {{"]
    append = lines.append
    for node, attrs in data.nodes:
        append(f"  {value(node)} [{attrs_text(attrs)}];")
    for u, v, attrs in data.edges:
        append(f"  {value(u)} -- {value(v)} [{attrs_text(attrs)}];")
    append("}")
    return ("\n".join(lines) + "\n").encode()


def to_networkx(data: GraphData) -> nx.Graph:
    import networkx as nx

    graph: nx.Graph = nx.MultiGraph() if data.multigraph else nx.Graph()
    graph.add_nodes_from(data.nodes)
    graph.add_edges_from(data.edges)
    return graph


def to_graphml(data: GraphData) -> bytes:
    from networkx.readwrite.graphml import GraphMLWriter

    # The ElementTree writer, not write_graphml's lxml one where lxml happens to be
    # installed: the same bytes on every machine.
    writer = GraphMLWriter(graph=to_networkx(data), encoding="utf-8", prettyprint=True)
    out = io.BytesIO()
    writer.dump(out)
    return out.getvalue()


_GEXF_DATE = re.compile(rb' lastmodifieddate="[^"]*"')
_GEXF_CREATOR = re.compile(rb"<creator>[^<]*</creator>")


def to_gexf(data: GraphData, date: str | None = None) -> bytes:
    import networkx as nx

    out = io.BytesIO()
    nx.write_gexf(to_networkx(data), out, encoding="utf-8", prettyprint=True)
    # networkx stamps today's date; exports are deterministic unless --date is given.
    stamp = b"" if date is None else b' lastmodifieddate="' + date.encode() + b'"'
    text = _GEXF_DATE.sub(stamp, out.getvalue(), count=1)
    # Nor the networkx version: the same layout gives the same bytes after an upgrade.
    return _GEXF_CREATOR.sub(b"<creator>rackdesigner</creator>", text, count=1)


def render(data: GraphData, suffix: str, *, name: str = "fabric", date: str | None = None) -> bytes:
    if suffix == ".json":
        return to_node_link(data)
    if suffix == ".dot":
        return to_dot(data, name)
    if suffix == ".graphml":
        return to_graphml(data)
    if suffix == ".gexf":
        return to_gexf(data, date)
    raise ValueError(suffix)


def export_graph(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.registry import ExportError, Output

    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(f"--graph {path}: the format follows the suffix: {', '.join(FORMATS)}")
    from rackdesigner.model.progress import report

    report("building the graph", 0, 0)
    try:
        data = build_graph(
            context.analysis, context.setting("scope"), bool(context.setting("aggregate"))
        )
    except ScopeError as error:
        raise ExportError(str(error)) from None
    name = context.layout.name or "fabric"
    return [Output(path, render(data, suffix, name=name, date=context.setting("date")))]
