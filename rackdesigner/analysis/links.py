"""Facts per link: each end resolved to a device and port, the speed, the fabric's edges.

Links are resolved together, in file order, because a port's second cable is a
problem of the later link; the result is a pure function of the links, the
devices' facts and the site geometry.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.facts import DeviceFacts, End, LinkFacts, LinkRefs, PortPair
from rackdesigner.analysis.geometry import SiteGeometry
from rackdesigner.analysis.reach import shape_of
from rackdesigner.layout_io.schema import ENDPOINT
from rackdesigner.model.layout import Link, PortGroup

if TYPE_CHECKING:
    from rackdesigner.analysis.pathways import PathwayGraph

# (a, b) with a < b -> {"links": [LinkFacts], "count": cables, "bandwidth": bit/s}
Edges = dict[tuple[str, str], dict[str, Any]]

_COMPUTE = ("compute", "compute")


def resolve_links(
    links: Sequence[Link],
    device_by_id: dict[str, DeviceFacts],
    geometry: SiteGeometry,
    router: PathwayGraph | None = None,
) -> tuple[list[LinkFacts], Edges]:
    """Each link's facts, and the compute fabric's cabled device pairs: ``(a, b)`` with
    ``a < b`` -> ``{"links": [LinkFacts], "count": cables, "bandwidth": bit/s}``.

    A port takes one cable: a second link on it gets a CAB005 problem on that end and is
    left out of the fabric.
    """
    result: list[LinkFacts] = []
    used: dict[str, int] = {}  # port ("device:group7") -> first link using it
    edges: Edges = {}
    suggestions = [0]
    # A port's text after the colon ("p17") -> (group name, index), or None where it is not
    # that plain shape: 300,000 ends name a few hundred distinct ports.
    ports: dict[str, tuple[str, int] | None] = {}
    # What depends only on the two ends' port groups and device types, once per pair.
    pairs: dict[tuple[int, int, int, int], PortPair] = {}

    by_id = device_by_id

    def resolve(text: str) -> End:
        # The common case, "device:group7", without a regular expression; anything
        # else goes the slow way, which also says what is wrong.
        device_id, colon, port = text.partition(":")
        if port in ports:
            plain = ports[port]
        else:
            plain = ports[port] = _plain_port(port)
        if colon and plain is not None:
            device = by_id.get(device_id)
            if device is not None:
                name, index = plain
                group = device.ports.get(name)
                if group is not None and index <= group.count:
                    return End(text, device, group, index, None, text)
        return _end_problem(text, suggestions, by_id)

    append = result.append
    claim = used.setdefault
    refs = LinkRefs(links)
    for index, link in enumerate(links):
        a = resolve(link.a)
        b = resolve(link.b)
        facts = LinkFacts(link, index, a, b, None, False, geometry, refs, router)
        append(facts)
        # Each port takes one cable: a second one is a CAB005 problem on that end.
        if a.key and (first := claim(a.key, index)) != index:
            a.clash = first
            a.problem = f"port {a.text} is already used by link {links[first].name}"
        if b.key and b.key == a.key:
            b.problem = f"both ends are port {a.key}: a cable needs two ports"
        elif b.key and (first := claim(b.key, index)) != index:
            b.clash = first
            b.problem = f"port {b.text} is already used by link {links[first].name}"

        ga, gb = a.group, b.group
        if ga is not None and gb is not None:
            da, db = a.device, b.device
            assert da is not None and db is not None
            key = (id(ga), id(da.type), id(gb), id(db.type))
            pair = pairs.get(key)
            if pair is None:
                pair = pairs[key] = port_pair(ga, da, gb, db)
            facts.pair = pair
            facts.speed = pair.speed
            # A doubly used port is a CAB005 problem; that cable is not part of a fabric.
            if pair.roles == _COMPUTE and a.problem is None and b.problem is None:
                facts.compute = True
                if da is not db:
                    _add_edge(edges, facts, da, db)
    return result, edges


def _plain_port(port: str) -> tuple[str, int] | None:
    """``("p", 17)`` for ``"p17"``: a group name and an index without a leading zero;
    None for anything else (which the slow way explains)."""
    name = port.rstrip("0123456789")
    digits = port[len(name) :]
    if not name or not digits or digits[0] == "0" or ":" in port:
        return None
    return name, int(digits)


def port_pair(ga: PortGroup, da: DeviceFacts, gb: PortGroup, db: DeviceFacts) -> PortPair:
    """What a cable's ends' port groups and device types decide: its speed (the slower
    end's), each end's role (a cable of two compute ports is part of a fabric) and its
    shape."""
    sa, sb = ga.speed, gb.speed
    speed = sb if sa is None else (sa if sb is None or sa <= sb else sb)
    ka, kb = da.kind, db.kind
    roles = (ga.effective_role(ka), gb.effective_role(kb))
    return PortPair(speed, roles, shape_of(ga, ka, gb, kb))


def edges_of(links: Sequence[LinkFacts]) -> Edges:
    """The compute fabric's edges of these cables' facts, as :func:`resolve_links` counts
    them (resolved facts: a cable is a compute one only where both ends are clean)."""
    edges: Edges = {}
    for facts in links:
        da, db = facts.a.device, facts.b.device
        if facts.compute and da is not db:
            _add_edge(edges, facts, da, db)  # type: ignore[arg-type]
    return edges


def _add_edge(edges: Edges, facts: LinkFacts, da: DeviceFacts, db: DeviceFacts) -> None:
    """Count a compute cable into its device pair's fabric edge: cables between the same
    two devices collapse into one."""
    pair = (da.id, db.id) if da.id < db.id else (db.id, da.id)
    edge = edges.get(pair)
    if edge is None:
        edges[pair] = {"links": [facts], "count": 1, "bandwidth": facts.speed or 0.0}
    else:
        edge["links"].append(facts)
        edge["count"] += 1
        edge["bandwidth"] += facts.speed or 0.0


def derive_links(
    before: Sequence[LinkFacts],
    kept: Sequence[int],
    links: Sequence[Link],
    device_by_id: dict[str, DeviceFacts],
    geometry: SiteGeometry,
    router: PathwayGraph | None = None,
) -> tuple[list[LinkFacts], Edges] | None:
    """What :func:`resolve_links` gives for ``links``, the cables ``kept`` (indexes into
    ``before``, in order) of a layout whose cables' facts are ``before``, with the same
    devices (a failed layout: what-if), without resolving an end again: each end is the
    one before, on ``device_by_id``'s device of its id. None where that would not be
    exact: a kept cable with an end that did not resolve cleanly before (a port's second
    cable, whose first may be gone, is one), or a device not there as it was.

    Resolving an end reads only the link's text and its device's port groups, and a
    subsequence of clean cables claims no port twice; so every end resolves as before."""
    result: list[LinkFacts] = []
    edges: Edges = {}
    refs = LinkRefs(links)
    append = result.append
    get = device_by_id.get
    for index, number in enumerate(kept):
        old = before[number]
        link = links[index]
        before_a, before_b = old.a, old.b
        if old.link is not link or before_a.problem is not None or before_b.problem is not None:
            return None
        da, db = before_a.device, before_b.device
        # The common case inline (300,000 cables): both ends' devices are the same facts.
        a = before_a if da is not None and get(da.id) is da else _same_end(before_a, device_by_id)
        b = before_b if db is not None and get(db.id) is db else _same_end(before_b, device_by_id)
        if a is None or b is None:
            return None
        facts = LinkFacts(link, index, a, b, old.speed, old.compute, geometry, refs, router)
        facts.pair = _pair_again(old, a, b)
        append(facts)
        if old.compute and a.device is not b.device:
            _add_edge(edges, facts, a.device, b.device)  # type: ignore[arg-type]
    return result, edges


def derive_link(
    old: LinkFacts,
    index: int,
    link: Link,
    device_by_id: dict[str, DeviceFacts],
    geometry: SiteGeometry,
    refs: LinkRefs,
    router: PathwayGraph | None = None,
) -> LinkFacts | None:
    """One cable's facts as :func:`derive_links` gives them (at ``index`` of the cables
    ``refs`` numbers), from its facts ``old``, where every cable kept with it resolved
    cleanly before; None where that would not be exact."""
    if old.link is not link or old.a.problem is not None or old.b.problem is not None:
        return None
    a, b = _same_end(old.a, device_by_id), _same_end(old.b, device_by_id)
    if a is None or b is None:
        return None
    facts = LinkFacts(link, index, a, b, old.speed, old.compute, geometry, refs, router)
    facts.pair = _pair_again(old, a, b)
    return facts


def _pair_again(old: LinkFacts, a: End, b: End) -> PortPair | None:
    """``old``'s port pair for the same cable with ends ``a`` and ``b``: the same where the
    ends are, else asked again (an end on another device's facts: the same port group,
    its type asked again)."""
    pair = old.pair
    if pair is not None and (a is not old.a or b is not old.b):
        pair = port_pair(a.group, a.device, b.group, b.device)  # type: ignore[arg-type]
    return pair


def _same_end(end: End, device_by_id: dict[str, DeviceFacts]) -> End | None:
    """``end`` on ``device_by_id``'s device of its id (itself where that is its device),
    or None where it did not resolve cleanly or the device's port group is not the same."""
    if end.problem is not None or end.clash is not None or end.group is None:
        return None
    before = end.device
    assert before is not None
    device = device_by_id.get(before.id)
    if device is before:
        return end
    if device is None or device.ports.get(end.group.name) is not end.group:
        return None
    return End(end.text, device, end.group, end.index, None, end.key)


def resolve_port(text: str, device_by_id: dict[str, DeviceFacts]) -> End:
    """One port reference resolved as a link's end is (a channel's panel ports, v1.4)."""
    return _end_problem(text, [0], device_by_id)


def _end_problem(text: str, suggestions: list[int], device_by_id: dict[str, DeviceFacts]) -> End:
    """Resolve an end the fast path could not, saying what is wrong with it."""
    end = End(text)
    match = ENDPOINT.match(text)
    if match is None:
        end.problem = f'"{text}" is not a port reference "<device id>:<port group><index>"'
        return end
    device = device_by_id.get(match["device"])
    if device is None:
        near = ""
        suggestions[0] += 1
        if suggestions[0] <= 20:  # difflib over thousands of ids is slow; hint the first few
            close = difflib.get_close_matches(match["device"], list(device_by_id), n=1)
            near = f" (did you mean {close[0]}?)" if close else ""
        end.problem = f"unknown device {match['device']}{near}"
        return end
    end.device = device
    if device.type is None:
        end.problem = f"device {device.id} has an unknown model"
        return end
    group = device.ports.get(match["group"])
    if group is None:
        names = [g.name for g in device.type.ports or ()]
        known = ", ".join(names) if names else "none"
        end.problem = (
            f"{device.device.model} has no port group '{match['group']}' (its groups: {known})"
        )
        return end
    index = int(match["index"])
    if not 1 <= index <= group.count:
        end.problem = (
            f"{device.device.model} has ports {group.name}1..{group.name}"
            f"{group.count}, not {group.name}{index}"
        )
        return end
    end.group = group
    end.index = index
    end.key = f"{device.id}:{group.name}{index}"
    return end
