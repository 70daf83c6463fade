"""An analysis kept current by edits: per rack, per link, and a fabric graph updated by edge.

:class:`LiveAnalysis` is an :class:`~rackdesigner.analysis.Analysis` that, told which
racks and links an edit touched, recomputes only their facts: the touched racks' devices,
load, heat, feeds and phases; the links of those devices and the links sharing a port
with them; the compute fabric's edges between the devices those links join (and the
networkx graph, edge by edge). The result is the same analysis a fresh one would give;
the session's stateful test checks it finding by finding.
"""

from __future__ import annotations

import copy
from bisect import insort
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis import Analysis, DeviceFacts, End, LinkFacts, RackFacts
from ..geometry import rack_places
from ..model import Layout, Link, PortGroup, Rack
from .index import LayoutIndex

if TYPE_CHECKING:
    import networkx as nx

    from ..topology.graph import Fabric

# The full analysis suggests a near device id for the first 20 unknown ones only (difflib
# over thousands of ids is slow); past that, counting which end is which needs every link.
_SUGGESTED_ENDS = 20


@dataclass(slots=True)
class Refreshed:
    """What a refresh recomputed: the racks (by ``id(rack)``) and links (by ``id(link)``)
    whose rules must re-run, and whether the compute fabric changed."""

    racks: dict[int, RackFacts] = field(default_factory=dict)
    removed_racks: set[int] = field(default_factory=set)
    links: dict[int, LinkFacts] = field(default_factory=dict)
    removed_links: set[int] = field(default_factory=set)
    # The link entities ("link a -> b") whose findings are out of date, before and after.
    entities: set[str] = field(default_factory=set)
    fabric: bool = False


def _names(value: Any) -> set[str]:
    if value is None:
        return set()
    return {value} if isinstance(value, str) else set(value)


class LiveAnalysis(Analysis):
    """An analysis that :meth:`refresh` keeps equal to a fresh one after each edit."""

    def __init__(self, layout: Layout, *, file: str = ""):
        super().__init__(layout, file=file)
        self._rack_facts: dict[int, RackFacts] = {id(f.rack): f for f in self.racks}
        self._graph: nx.Graph | None = None
        self._fabrics: list[Fabric] | None = None
        self._index_links()

    def _index_links(self) -> None:
        links = self.links  # the base class resolves every link once, fast
        self._link_facts: dict[int, LinkFacts] = {id(lf.link): lf for lf in links}
        # port -> the links using it, in file order (the first one keeps it: CAB005)
        self._users: dict[str, list[LinkFacts]] = defaultdict(list)
        # the compute fabric's edge each link is part of, and each edge's links
        self._pair_of: dict[int, tuple[str, str]] = {}  # id(LinkFacts) -> pair
        self._members: dict[tuple[str, str], dict[int, LinkFacts]] = defaultdict(dict)
        self._roles: dict[tuple[int, str | None], bool] = {}
        self._unknown_ends = 0
        for lf in links:
            self._claim(lf)
        for pair, edge in self.compute_edges.items():
            for lf in edge["links"]:
                self._pair_of[id(lf)] = pair
                self._members[pair][id(lf)] = lf

    # -- the fabric -------------------------------------------------------------------------

    @property
    def fabrics(self) -> list[Fabric]:  # type: ignore[override]
        if self._fabrics is None:
            from ..topology.graph import build_fabrics

            self._fabrics = build_fabrics(self, self.graph())
        return self._fabrics

    def graph(self) -> nx.Graph:
        """The fabric graph, built once and then updated edge by edge."""
        if self._graph is None:
            from ..topology.graph import fabric_graph

            self._graph = fabric_graph(self)
        return self._graph

    def snapshot(self) -> LiveAnalysis:
        """A copy whose containers are its own, for a worker thread to read while edits go
        on here (the facts objects are shared: edits replace them rather than change them,
        and a job that overlapped an edit is discarded anyway)."""
        other = copy.copy(self)
        other.racks = list(self.racks)
        other.devices = list(self.devices)
        other.device_by_id = dict(self.device_by_id)
        other.types_used = defaultdict(list, {k: list(v) for k, v in self.types_used.items()})
        other.compute_edges = dict(self.compute_edges)
        other.__dict__["links"] = list(self.links)
        other.__dict__.pop("cdu_loads", None)
        other._graph = None  # built from the copied edges, in the worker
        other._fabrics = None
        return other

    @property
    def link_facts(self) -> dict[int, LinkFacts]:
        """The facts of each link, by ``id(link)``."""
        return self._link_facts

    def adopt_fabrics(self, fabrics: list[Fabric]) -> None:
        self._fabrics = fabrics

    # -- refresh ----------------------------------------------------------------------------

    def refresh(
        self, racks: Iterable[Rack], links: Iterable[Link], index: LayoutIndex
    ) -> Refreshed:
        """Recompute the facts of these racks and links (and of what depends on them)."""
        done = Refreshed()
        layout = self.layout
        present = {id(rack) for rack in layout.racks}
        touched = {id(rack): rack for rack in racks}
        # Racks whose cdu or door names a device of a touched rack read its facts.
        names: set[str] = set()
        for key, rack in touched.items():
            old = self._rack_facts.get(key)
            if old is not None:
                names.update(d.id for d in old.devices)
            if key in present:
                names.update(d.id for d in rack.devices)
        if names:
            for rack in layout.racks:
                if id(rack) not in touched and (
                    _names(rack.cdu) & names or (rack.door is not None and rack.door in names)
                ):
                    touched[id(rack)] = rack
        device_ids: set[str] = set(names)
        for key in list(self._rack_facts):
            if key not in present:
                del self._rack_facts[key]
                done.removed_racks.add(key)
        places = rack_places(layout)
        for number, rack in enumerate(layout.racks):
            facts = self._rack_facts.get(id(rack))
            if facts is None or id(rack) in touched:
                facts = RackFacts(rack, number, places[id(rack)])
                for device in rack.devices:
                    dev = self._device(device, rack, number)
                    dev.place = facts.place
                    facts.devices.append(dev)
                self._rack_facts[id(rack)] = facts
                done.racks[id(rack)] = facts
            elif facts.index != number:
                facts.index = number
                for dev in facts.devices:
                    dev.rack_index = number
        if done.racks or done.removed_racks:
            self.racks = [self._rack_facts[id(rack)] for rack in layout.racks]
            self.devices = [dev for facts in self.racks for dev in facts.devices]
            by_id: dict[str, DeviceFacts] = {}
            used: dict[str, list[DeviceFacts]] = defaultdict(list)
            for dev in self.devices:
                by_id.setdefault(dev.id, dev)
                if dev.type is not None:
                    used[dev.device.model].append(dev)
            self.device_by_id = by_id
            self.types_used = used
            for facts in done.racks.values():
                self._rack_power(facts)
            self.site_load = sum(r.load for r in self.racks)
            self.site_load_unknown = any(r.load_unknown for r in self.racks)
            self.total_gpus = sum(r.gpus for r in self.racks)
            self.__dict__.pop("cdu_loads", None)
        # Links: those the edit named, and every link of a device whose facts are new.
        todo: dict[int, Link] = {id(link): link for link in links}
        for facts in done.racks.values():
            device_ids.update(d.id for d in facts.devices)
        for device_id in device_ids:
            for link in index.links_of(device_id):
                todo[id(link)] = link
        if todo:
            self._refresh_links(todo, index, done)
        return done

    def _refresh_links(self, todo: dict[int, Link], index: LayoutIndex, done: Refreshed) -> None:
        facts_of = self._link_facts
        kept = {key: link for key, link in todo.items() if _in_layout(link, index)}
        membership = any((key in facts_of) != (key in kept) for key in todo)
        if membership:
            # A cable added or removed: positions after it move, and the list follows the
            # layout's order.
            positions = {id(link): number for number, link in enumerate(self.layout.links)}
        ports: set[str] = set()
        pairs: set[tuple[str, str]] = set()
        places: dict[int, int] = {}
        for key in todo:
            old = facts_of.pop(key, None)
            if old is not None:
                places[key] = old.index
                ports.update(self._unclaim(old))
                pairs.update(self._leave_edge(old))
                done.entities.add(f"link {old.a.text} -> {old.b.text}")
            if key not in kept:
                done.removed_links.add(key)
        if membership:
            for lf in facts_of.values():
                lf.index = positions[id(lf.link)]
        for key, link in kept.items():
            # Without cables added or removed, a link keeps its place.
            number = positions[key] if membership else places[key]
            lf = self._resolve(link, number)
            facts_of[key] = lf
            ports.update(self._claim(lf))
            done.links[key] = lf
        if membership:
            self.__dict__["links"] = [facts_of[id(link)] for link in self.layout.links]
        else:
            listed = self.links
            for lf in done.links.values():
                listed[lf.index] = lf
        # Who claims a port is decided in file order: re-derive every user of a touched port.
        affected: dict[int, LinkFacts] = dict(done.links)
        for port in ports:
            for lf in self._users.get(port, ()):
                affected[id(lf)] = lf
        for lf in affected.values():
            self._derive_problems(lf)
        for lf in affected.values():
            pairs.update(self._leave_edge(lf))
            new = self._classify(lf)
            if new is not None:
                self._pair_of[id(lf)] = new
                self._members[new][id(lf)] = lf
                pairs.add(new)
            done.links.setdefault(id(lf.link), lf)
            done.entities.add(lf.entity)
        done.fabric |= self._rebuild_edges(pairs)
        if self._unknown_ends > _SUGGESTED_ENDS:
            self._relink_all(done)

    def _leave_edge(self, lf: LinkFacts) -> tuple[tuple[str, str], ...]:
        pair = self._pair_of.pop(id(lf), None)
        if pair is None:
            return ()
        members = self._members.get(pair)
        if members is not None:
            members.pop(id(lf), None)
        return (pair,)

    def _relink_all(self, done: Refreshed) -> None:
        """Resolve every link again (many unknown devices: whose end gets a suggestion
        depends on all of them)."""
        self.__dict__.pop("links", None)
        self.compute_edges = {}
        self._index_links()
        done.links = {id(lf.link): lf for lf in self.links}
        done.entities.update(lf.entity for lf in self.links)
        done.fabric = True
        self._graph = None

    # -- one link ---------------------------------------------------------------------------

    def _resolve(self, link: Link, number: int) -> LinkFacts:
        suggestions = [0]
        a = self._end(link.a, suggestions)
        b = self._end(link.b, suggestions)
        lf = LinkFacts(link, number, a, b, None, False, self.geometry)
        ga, gb = a.group, b.group
        if ga is not None and gb is not None:
            sa, sb = ga.speed, gb.speed
            lf.speed = sb if sa is None else (sa if sb is None or sa <= sb else sb)
        return lf

    def _end(self, text: str, suggestions: list[int]) -> End:
        device_id, colon, port = text.partition(":")
        group_name = port.rstrip("0123456789")
        digits = port[len(group_name) :]
        if colon and group_name and digits and digits[0] != "0":
            device = self.device_by_id.get(device_id)
            if device is not None:
                group = device.ports.get(group_name)
                if group is not None and ":" not in port:
                    number = int(digits)
                    if number <= group.count:
                        return End(text, device, group, number, None, text)
        return self._end_problem(text, suggestions)

    def _claim(self, lf: LinkFacts) -> set[str]:
        """Register the ports this link's resolved ends use; return them."""
        ports: set[str] = set()
        for end in (lf.a, lf.b):
            if end.key and end.key not in ports:
                insort(self._users[end.key], lf, key=_by_index)
                ports.add(end.key)
            if end.device is None and end.problem and end.problem.startswith("unknown device"):
                self._unknown_ends += 1
        return ports

    def _unclaim(self, lf: LinkFacts) -> set[str]:
        ports: set[str] = set()
        for end in (lf.a, lf.b):
            if end.key and end.key not in ports:
                users = self._users.get(end.key)
                if users:
                    users[:] = [u for u in users if u is not lf]
                    if not users:
                        del self._users[end.key]
                ports.add(end.key)
            if end.device is None and end.problem and end.problem.startswith("unknown device"):
                self._unknown_ends -= 1
        return ports

    def _derive_problems(self, lf: LinkFacts) -> None:
        """An end's port is used by an earlier link, or both ends are one port (CAB005), as
        the full analysis decides it: the first link in file order keeps the port."""
        a, b = lf.a, lf.b
        if a.key:
            a.problem = self._taken(a, lf)
        if b.key:
            if b.key == a.key:
                b.problem = f"both ends are port {a.key}: a cable needs two ports"
            else:
                b.problem = self._taken(b, lf)

    def _taken(self, end: End, lf: LinkFacts) -> str | None:
        users = self._users.get(end.key)
        if not users:
            return None
        first = users[0]
        if first is lf:
            return None
        return f"port {end.text} is already used by the link on line {first.link.line}"

    def _classify(self, lf: LinkFacts) -> tuple[str, str] | None:
        """Whether the link is part of the compute fabric; the device pair it joins."""
        a, b = lf.a, lf.b
        ga, gb = a.group, b.group
        lf.compute = False
        if ga is None or gb is None:
            return None
        da, db = a.device, b.device
        assert da is not None and db is not None
        lf.compute = (
            a.problem is None
            and b.problem is None
            and self._is_compute(ga, da.kind)
            and self._is_compute(gb, db.kind)
        )
        if not lf.compute or da is db:
            return None
        return (da.id, db.id) if da.id < db.id else (db.id, da.id)

    def _rebuild_edges(self, pairs: set[tuple[str, str]]) -> bool:
        """Recompute these fabric edges from their links, in file order; True if any
        changed."""
        if not pairs:
            return False
        members = {
            pair: sorted(self._members.get(pair, {}).values(), key=_by_index) for pair in pairs
        }
        changed = False
        graph = self._graph
        for pair, found in members.items():
            old = self.compute_edges.get(pair)
            if not found:
                if old is not None:
                    del self.compute_edges[pair]
                    changed = True
                    if graph is not None and graph.has_edge(*pair):
                        graph.remove_edge(*pair)
                        for node in pair:
                            if graph.degree(node) == 0:
                                graph.remove_node(node)
                self._members.pop(pair, None)
                continue
            bandwidth = 0.0
            for number, lf in enumerate(found):
                bandwidth = (lf.speed or 0.0) if number == 0 else bandwidth + (lf.speed or 0.0)
            edge = {"links": found, "count": len(found), "bandwidth": bandwidth}
            if old is None or old["links"] != found or old["bandwidth"] != bandwidth:
                changed = True
            self.compute_edges[pair] = edge
            if graph is not None:
                if graph.has_edge(*pair):
                    data = graph.edges[pair]
                    data.clear()
                    data.update(edge)
                else:
                    graph.add_edge(*pair, **edge)
        if changed:
            self._fabrics = None
        return changed

    def _is_compute(self, group: PortGroup, kind: str | None) -> bool:
        key = (id(group), kind)
        known = self._roles.get(key)
        if known is None:
            known = self._roles[key] = group.effective_role(kind) == "compute"
        return known

    def invalidate_fabric(self) -> None:
        self._fabrics = None


def _in_layout(link: Link, index: LayoutIndex) -> bool:
    return any(candidate is link for candidate in index.links_on_port(link.a))


def _by_index(lf: LinkFacts) -> int:
    return lf.index
