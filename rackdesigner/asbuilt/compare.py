"""The design against the scan, port by port: the work order.

:func:`compare` is pure: a :class:`~rackdesigner.asbuilt.design.Design` and a
:class:`~rackdesigner.asbuilt.scan.Scan` in, a list of :class:`Finding` out.

1. Each scanned node is matched to a designed device by name: the node-name map's name
   for its GUID, else its NodeDescription (``a01-n01 mlx5_0`` names host and adapter,
   ``MF0;a05-leaf1:MQM9700/U1`` a managed switch), else the LLDP system name. A node no
   name matches is an **unknown device**; where most of its cables lead where a designed
   device's should (same port numbers), it is taken for that device (a switch whose name
   was mistyped), and its cables are compared as that device's.
2. Each seen link becomes a pair of designed ports where both ends are known; a designed
   cable seen between the same two ports is right.
3. The rest form short paths and cycles (a port holds one cable): a designed cable and a
   seen link that share one port are one cable with its other end elsewhere, **miswired**
   (a maximum matching; where two readings are equally good, the cable's ``a`` end is
   taken as the one that stayed). Two miswired cables whose far ends sit in each other's
   ports are one **swapped** pair. A designed cable left over is **missing**; a seen link
   left over is **extra**.
4. A right cable whose scan says it runs slower or narrower than designed is **speed**.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rackdesigner.asbuilt.design import Cable, Design, DesignedDevice, EndKey, Port
from rackdesigner.asbuilt.scan import Scan, SeenLink, SeenNode

__all__ = ["KINDS", "Finding", "compare"]

KINDS = ("missing", "miswired", "swapped", "extra", "unknown-device", "speed")

# Per-lane data rates (Gb/s), as the InfiniBand generations name them.
LANE_GBPS = {
    "SDR": 2.5,
    "DDR": 5.0,
    "QDR": 10.0,
    "FDR10": 10.0,
    "FDR": 14.0,
    "EDR": 25.0,
    "HDR": 50.0,
    "NDR": 100.0,
    "XDR": 200.0,
}


@dataclass(slots=True)
class Finding:
    """One line of the work order."""

    kind: str  # one of KINDS
    message: str
    at: Port  # where to work: the end to move, the port to fill, the device to name
    cable: str = ""  # the designed cable's id ("a01-n01:ib3"); "" for an extra one
    found: str = ""  # where it is
    should: str = ""  # where it should go
    ends: list[Port] = field(default_factory=list)  # every port it is about
    other: str = ""  # a second cable id (swapped)
    route: str = ""  # (v1.4) the pathways the cable runs in (asbuilt/routes.py)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rack": self.at.rack,
            "unit": self.at.unit,
            "face": self.at.face,
            "device": self.at.device,
            "port": self.at.port,
            "label": self.at.label,
            "cable": self.cable,
            "other_cable": self.other,
            "found": self.found,
            "should": self.should,
            "route": self.route,
            "message": self.message,
            "ends": [f"{p.device}:{p.port}" for p in self.ends],
        }


# A seen end: a designed port, or the scan's own words for a port no design names.
Seen = EndKey | str


@dataclass(slots=True)
class _Identity:
    device: str | None  # designed device id
    adapter: str | None = None  # a CA's RDMA device ("mlx5_0")
    name: str = ""  # the name the scan gives it


class _Resolver:
    """Seen (node, port) -> designed port, with the inverse port tables built once per
    device model."""

    def __init__(self, design: Design, scan: Scan, names: dict[str, str]) -> None:
        self.design = design
        self.scan = scan
        self.ids: dict[str, _Identity] = {}
        self._inverse: dict[tuple[str, str], dict[Any, str]] = {}
        for key, node in scan.nodes.items():
            self.ids[key] = self.identify(node, names.get(key))

    def identify(self, node: SeenNode, mapped: str | None) -> _Identity:
        text = (mapped if mapped is not None else node.description).strip()
        adapter = None
        if ";" in text and ":" in text.partition(";")[2]:
            name = text.partition(";")[2].partition(":")[0]
        else:
            words = text.split()
            name = words[0] if words else ""
            if node.kind == "ca" and len(words) > 1:
                adapter = words[1]
        if not name and node.kind == "host":
            name = node.key
        device = self.design.device_named(name) if name else None
        return _Identity(device, adapter, name or node.key)

    def inverse(self, designed: DesignedDevice, kind: str) -> dict[Any, str]:
        """(adapter, port) / port number / interface name -> designed port name."""
        cache_key = (designed.facts.device.model + "|" + ",".join(designed.groups), kind)
        table = self._inverse.get(cache_key)
        if table is None:
            table = {}
            ports = designed.ports
            for group, count in designed.groups.items():
                for index in range(1, count + 1):
                    name = f"{group}{index}"
                    if kind == "switch":
                        table.setdefault(ports.number(group, index), name)
                    elif kind == "ca":
                        table.setdefault(ports.adapter(group, index), name)
                    else:
                        table.setdefault(ports.ifname(group, index), name)
                        table.setdefault(name, name)
            self._inverse[cache_key] = table
        return table

    def end(self, key: str, port: int | str, identity: _Identity | None = None) -> Seen:
        node = self.scan.nodes.get(key)
        ident = identity or self.ids.get(key)
        if node is None or ident is None or ident.device is None:
            name = ident.name if ident else key
            return _raw(name, key, port, node)
        designed = self.design.devices.get(ident.device)
        if designed is None:  # a designed device with no cable of this fabric
            return _raw(ident.name, key, port, node)
        if self.scan.tech == "ethernet":
            found = self.inverse(designed, "host").get(str(port))
        elif designed.switch:
            found = self.inverse(designed, "switch").get(port)
        else:
            found = self.inverse(designed, "ca").get((ident.adapter, port))
        if found is None:
            what = f"{ident.adapter} port {port}" if ident.adapter else f"port {port}"
            return f"{designed.id} {what} (no designed port)"
        return (designed.id, found)


def _raw(name: str, key: str, port: int | str, node: SeenNode | None) -> str:
    guid = f" ({key})" if node is not None and key != name and key.startswith("0x") else ""
    return f"{name}{guid} port {port}"


def _text(design: Design, end: Seen) -> str:
    if isinstance(end, str):
        return end
    return design.port(*end).where()


def compare(
    design: Design,
    scan: Scan,
    names: dict[str, str] | None = None,
    *,
    speed: bool = True,
) -> list[Finding]:
    """The findings of ``scan`` against ``design``, in the order of the work: by rack, unit
    and port. ``names`` is a node-name map (GUID -> name); ``speed=False`` compares the
    width only (ibsim simulates SDR to QDR, never the designed rate)."""
    resolver = _Resolver(design, scan, names or {})
    findings: list[Finding] = []
    findings += _identify_unknown(design, scan, resolver)
    # -- 2. seen links as designed ends --------------------------------------------------
    seen_links: list[tuple[Seen, Seen, SeenLink]] = []
    scope = _scope(design, scan, resolver)
    for link in scan.links:
        a = resolver.end(*link.a)
        b = resolver.end(*link.b)
        if isinstance(a, str) and isinstance(b, str):
            continue  # between two unknown devices: the unknown-device findings cover it
        seen_links.append((a, b, link))
    cables = [c for c in design.cables if scope is None or _in_scope(c, scope)]
    by_pair: dict[frozenset, int] = {}
    for index, (a, b, _) in enumerate(seen_links):
        by_pair[frozenset((a, b))] = index
    matched_seen: set[int] = set()
    rest: list[Cable] = []
    for cable in cables:
        index = by_pair.get(frozenset((cable.a.key, cable.b.key)))
        if index is None or index in matched_seen:
            rest.append(cable)
            continue
        matched_seen.add(index)
        link = seen_links[index][2]
        problem = _speed_problem(cable, link, speed)
        if problem:
            findings.append(
                Finding(
                    "speed",
                    f"cable {cable.id} runs at {problem}",
                    cable.a,
                    cable.id,
                    found=f"{link.width}x{link.rate}",
                    should=_expected(cable),
                    ends=[cable.a, cable.b],
                )
            )
    # -- 3. the rest: paths and cycles ---------------------------------------------------
    open_seen = [i for i in range(len(seen_links)) if i not in matched_seen]
    findings += _rewire(design, rest, [(i, *seen_links[i][:2]) for i in open_seen])
    findings.sort(key=_order)
    return findings


def _scope(design: Design, scan: Scan, resolver: _Resolver) -> set[str] | None:
    """Ethernet: only cables with an end on a host the tables were collected on (LLDP
    sees a host's own neighbours, nothing beyond)."""
    if scan.tech != "ethernet":
        return None
    hosts: set[str] = set()
    for host in scan.collected:
        ident = resolver.ids.get(host)
        if ident is not None and ident.device is not None:
            hosts.add(ident.device)
    return hosts


def _in_scope(cable: Cable, scope: set[str]) -> bool:
    return cable.a.device in scope or cable.b.device in scope


def _identify_unknown(design: Design, scan: Scan, resolver: _Resolver) -> list[Finding]:
    """Unknown nodes: one finding each; a node cabled like a designed device that the
    scan does not show becomes that device."""
    unknown = [key for key, ident in resolver.ids.items() if ident.device is None]
    if not unknown:
        return []
    present = {(i.device, i.adapter) for i in resolver.ids.values() if i.device is not None}
    links_of: dict[str, list[tuple[int | str, str, int | str]]] = {k: [] for k in unknown}
    for link in scan.links:
        for (key, port), (other, other_port) in ((link.a, link.b), (link.b, link.a)):
            if key in links_of:
                links_of[key].append((port, other, other_port))
    findings: list[Finding] = []
    remaining = list(unknown)
    progress = True
    while progress:  # a spine is recognised once the leaves below it are
        progress = False
        for key in list(remaining):
            found = _recognise(design, scan, resolver, key, links_of[key], present)
            if found is not None:
                findings.append(found)
                remaining.remove(key)
                progress = True
    for key in remaining:
        node = scan.nodes[key]
        ident = resolver.ids[key]
        what = "switch" if node.kind == "switch" else "device"
        guid = f" (GUID {key})" if key.startswith("0x") else ""
        findings.append(
            Finding(
                "unknown-device",
                f"{what} {ident.name!r}{guid} is not in the design ({len(links_of[key])} cables)",
                Port(ident.name, ""),
                found=ident.name,
            )
        )
    return findings


def _recognise(
    design: Design,
    scan: Scan,
    resolver: _Resolver,
    key: str,
    links: list[tuple[int | str, str, int | str]],
    present: set[tuple[str | None, str | None]],
) -> Finding | None:
    """The designed device an unknown node is cabled like (most of its cables lead where
    that device's should, on the same port numbers), as a finding; None if none is."""
    node = scan.nodes[key]
    ident = resolver.ids[key]
    votes: dict[tuple[str, str | None], int] = {}
    for port, other, other_port in links:
        end = resolver.end(other, other_port)
        if isinstance(end, str):
            continue
        cable = design.by_end.get(end)
        if cable is None:
            continue
        far = cable.b if cable.a.key == end else cable.a
        designed = design.devices.get(far.device)
        if designed is None:
            continue
        group, index = _split(far.port)
        adapter: str | None = None
        if scan.tech == "ethernet":
            hit = str(port) in (designed.ports.ifname(group, index), far.port)
        elif designed.switch:
            hit = node.kind == "switch" and designed.ports.number(group, index) == port
        else:
            adapter, number = designed.ports.adapter(group, index)
            hit = node.kind == "ca" and number == port
        if hit:
            votes[(far.device, adapter)] = votes.get((far.device, adapter), 0) + 1
    total = len(links)
    best = max(sorted(votes, key=str), key=lambda k: votes[k], default=None)
    if best is None or best in present or 2 * votes[best] <= total:
        return None
    device, adapter = best
    present.add(best)
    resolver.ids[key] = _Identity(device, adapter, ident.name)
    what = "switch" if node.kind == "switch" else "device"
    guid = f" (GUID {key})" if key.startswith("0x") else ""
    place = design.port(device, "")
    return Finding(
        "unknown-device",
        f"{what} {ident.name!r}{guid} is not in the design; it is cabled like {device} "
        f"({votes[best]} of {total} cables): rename it {device!r} or map its GUID in the "
        "node-name map",
        Port(device, "", place.rack, place.unit, place.face, ""),
        found=ident.name,
        should=device,
    )


def _split(port: str) -> tuple[str, int]:
    digits = len(port) - len(port.rstrip("0123456789"))
    return port[: len(port) - digits], int(port[len(port) - digits :] or 0)


def _expected(cable: Cable) -> str:
    if not cable.speed:
        return ""
    gbps = cable.speed / 1e9
    for rate in ("NDR", "HDR", "EDR", "XDR"):
        lanes = gbps / LANE_GBPS[rate]
        if lanes in (1, 2, 4, 8):
            return f"{int(lanes)}x{rate}"
    return f"{gbps:g} Gb/s"


def _speed_problem(cable: Cable, link: SeenLink, speed: bool) -> str | None:
    if link.width is None or link.rate is None:
        return None
    if link.width < 4 and (cable.speed is None or cable.speed >= 100e9):
        want = _expected(cable) or "4x"
        return f"{link.width}x{link.rate}: a lane is down or the cable is wrong ({want} designed)"
    if not speed or not cable.speed:
        return None
    seen = link.width * LANE_GBPS.get(link.rate, 0.0) * 1e9
    if seen < 0.9 * cable.speed:
        return (
            f"{link.width}x{link.rate} ({seen / 1e9:g} Gb/s), designed "
            f"{cable.speed / 1e9:g} Gb/s ({_expected(cable)})"
        )
    return None


_Vertex = tuple[str, int]  # ("c", i) designed cable i; ("s", j) seen link j
_Adjacency = dict[_Vertex, list[tuple[_Vertex, Seen]]]


def _rewire(
    design: Design, cables: list[Cable], seen: list[tuple[int, Seen, Seen]]
) -> list[Finding]:
    """Miswired, swapped, missing and extra among what did not match exactly."""
    matched = _matched(cables, seen)
    findings = _moved(design, cables, seen, matched)
    for i, cable in enumerate(cables):
        if i not in matched:
            findings.append(
                Finding(
                    "missing",
                    f"cable {cable.id} is not seen: {cable.a.where()} to {cable.b.where()}",
                    cable.a,
                    cable.id,
                    should=f"{cable.a.device}:{cable.a.port} to {cable.b.device}:{cable.b.port}",
                    ends=[cable.a, cable.b],
                )
            )
    used_seen = {j for j, _ in matched.values()}
    for j, (_, a, b) in enumerate(seen):
        if j in used_seen:
            continue
        ends = [design.port(*e) for e in (a, b) if not isinstance(e, str)]
        at = ends[0] if ends else Port(str(a), "")
        findings.append(
            Finding(
                "extra",
                f"a cable not in the design: {_text(design, a)} to {_text(design, b)}",
                at,
                found=f"{_text(design, a)} to {_text(design, b)}",
                ends=ends,
            )
        )
    return findings


def _matched(
    cables: list[Cable], seen: list[tuple[int, Seen, Seen]]
) -> dict[int, tuple[int, Seen]]:
    """Designed cables paired with seen links that share a port with them: cable -> (seen
    link, the shared end), matched along each path or cycle of the graph whose edges are
    shared ports."""
    by_end = {}
    for i, cable in enumerate(cables):
        by_end[cable.a.key] = i
        by_end[cable.b.key] = i
    adjacency: _Adjacency = {}
    for i in range(len(cables)):
        adjacency[("c", i)] = []
    for j, (_, a, b) in enumerate(seen):
        adjacency[("s", j)] = []
        for end in (a, b):
            i = by_end.get(end) if not isinstance(end, str) else None
            if i is not None:
                adjacency[("s", j)].append((("c", i), end))
                adjacency[("c", i)].append((("s", j), end))
    matched: dict[int, tuple[int, Seen]] = {}
    done: set[_Vertex] = set()
    for start in sorted(adjacency):
        if start in done:
            continue
        component = _component(start, adjacency)
        done.update(component)
        for i, j, end in _match(component, adjacency, cables):
            matched[i] = (j, end)
    return matched


def _moved(
    design: Design,
    cables: list[Cable],
    seen: list[tuple[int, Seen, Seen]],
    matched: dict[int, tuple[int, Seen]],
) -> list[Finding]:
    """Each matched cable whose other end is elsewhere: two such that took each other's
    place are swapped, any other is miswired."""
    moves: dict[tuple[EndKey, Seen], int] = {}
    for i, (j, end) in matched.items():
        cable = cables[i]
        _, a, b = seen[j]
        found = b if a == end else a
        should = cable.b if cable.a.key == end else cable.a
        moves[(should.key, found)] = i
    findings: list[Finding] = []
    paired: set[int] = set()
    for (should, found), i in sorted(moves.items(), key=lambda item: item[1]):
        if i in paired:
            continue
        partner = moves.get((found, should)) if not isinstance(found, str) else None
        cable = cables[i]
        j, end = matched[i]
        kept = cable.a if cable.a.key == end else cable.b
        wrong = design.port(*should)
        if partner is not None and partner != i and partner not in paired:
            paired.update((i, partner))
            findings.append(_swapped(design, cable, cables[partner], wrong, found))
            continue
        findings.append(
            Finding(
                "miswired",
                f"cable {cable.id}: the end at {kept.device}:{kept.port} is right; the other "
                f"end is in {_text(design, found)}, it should go to {wrong.where()}",
                wrong,
                cable.id,
                found=_text(design, found),
                should=wrong.where(),
                ends=[kept, wrong],
            )
        )
    return findings


def _swapped(design: Design, cable: Cable, other: Cable, wrong: Port, found: Seen) -> Finding:
    """Two cables crossed: each has the end the other should have."""
    there = design.port(*found)
    return Finding(
        "swapped",
        f"cables {cable.id} and {other.id} are crossed: the ends in "
        f"{wrong.device}:{wrong.port} and {there.device}:{there.port} are swapped",
        wrong,
        cable.id,
        found=_text(design, found),
        should=wrong.where(),
        ends=[wrong, there],
        other=other.id,
    )


def _component(
    start: tuple[str, int], adjacency: dict[tuple[str, int], list[tuple[tuple[str, int], Seen]]]
) -> list[tuple[str, int]]:
    """The vertices of ``start``'s path or cycle, in walking order (a path from one end)."""
    # Walk to one end first (a vertex of degree < 2), or around a cycle.
    order = [start]
    seen = {start}
    stack = [start]
    while stack:
        vertex = stack.pop()
        for other, _ in adjacency[vertex]:
            if other not in seen:
                seen.add(other)
                order.append(other)
                stack.append(other)
    ends = [v for v in order if len(adjacency[v]) < 2]
    first = min(ends) if ends else min(order)
    walk = [first]
    visited = {first}
    current = first
    while True:
        step = next((o for o, _ in adjacency[current] if o not in visited), None)
        if step is None:
            break
        walk.append(step)
        visited.add(step)
        current = step
    return walk


def _match(
    walk: list[tuple[str, int]],
    adjacency: dict[tuple[str, int], list[tuple[tuple[str, int], Seen]]],
    cables: list[Cable],
) -> list[tuple[int, int, Seen]]:
    """A maximum matching of a path or cycle (``walk`` in order), preferring edges where
    the shared port is the cable's ``a`` end: (cable, seen link, shared end)."""
    if len(walk) < 2:
        return []

    def edge(u: tuple[str, int], v: tuple[str, int]) -> tuple[float, tuple[int, int, Seen]] | None:
        for other, end in adjacency[u]:
            if other == v:
                cable, link = (u, v) if u[0] == "c" else (v, u)
                prefer = 1 if cables[cable[1]].a.key == end else 0
                return 1000.0 + prefer, (cable[1], link[1], end)
        return None

    edges = [edge(walk[k], walk[k + 1]) for k in range(len(walk) - 1)]
    cycle = len(walk) > 2 and edge(walk[-1], walk[0]) is not None
    if cycle:
        closing = edge(walk[-1], walk[0])
        options = []
        for offset in (0, 1):
            ring = [*edges, closing]
            picked = [ring[k] for k in range(offset, len(ring), 2)]
            options.append(picked)
        best = max(options, key=lambda p: sum(e[0] for e in p if e))
        return [e[1] for e in best if e]
    # A path: weighted matching by dynamic programming over its edges.
    n = len(edges)
    score = [0.0] * (n + 1)  # best over edges[:k]
    take = [False] * (n + 1)
    for k in range(1, n + 1):
        weight = edges[k - 1][0] if edges[k - 1] else 0.0
        with_it = weight + (score[k - 2] if k >= 2 else 0.0)
        if edges[k - 1] and with_it > score[k - 1]:
            score[k], take[k] = with_it, True
        else:
            score[k] = score[k - 1]
    picked: list[tuple[int, int, Seen]] = []
    k = n
    while k > 0:
        if take[k]:
            found = edges[k - 1]
            assert found is not None
            picked.append(found[1])
            k -= 2
        else:
            k -= 1
    return picked


def _order(finding: Finding) -> tuple[Any, ...]:
    at = finding.at
    group, index = _split(at.port)
    unit = at.unit if at.unit is not None else -1
    return (at.rack, unit, at.device, group, index, KINDS.index(finding.kind), finding.message)
