"""A failed layout's fabrics derived from the layout's, without building them again.

``whatif --each rack --findings`` checks the fabric rules on every failed layout; building
each failed layout's fabric (its graph, tiers, switch bandwidths, single points of failure)
and walking its cables for the crossed rails and scalable units costs the whole fabric per
failure. A failure that takes a few nodes and switches out of a fabric changes little of
it. :class:`FabricDerivation` keeps what every failure of one layout shares and gives the
failed analysis its fabrics (``Analysis(..., like=Like(..., fabrics=...))``), each the
fabric before less what went down, with only what the failure touches worked out again:

- **Devices, nodes, cables**: the lists before less what went (the failed analysis's own
  facts where a rack's facts are made anew; the cables are the failed analysis's, slices
  of its list between the cables removed).
- **Tiers** stay where every switch next to what went keeps a neighbour one tier below
  (tiers only grow when parts go); **bandwidths** (each node's, each switch's down, up and
  lateral) are summed again, in the order a build sums them, for the devices next to what
  went; the injection and bisection are summed again over the nodes and switches left.
- **Connectivity and single points of failure** on the twin classes (devices with the same
  neighbours; twins are never cabled to each other): a device with a twin left is no
  articulation point (its twin carries every path through it), and with three classes or
  more left the fabric is connected, less one device of a class of one, exactly where the
  class graph is less that class. So the fabric left is connected and has no articulation
  point where the class graph of the classes left (three or more) is connected and none
  of its articulation classes is down to one device. The fabric before must have none
  (the usual well-built fabric).
- **Crossed rails and scalable units** (NET008, NET007) are each rail group's own: those
  of the groups the failure touches are found again from their cables, the others kept.
- **Cabled ports per node** (NET003, NET004) and the **technologies** less the cables that
  went; the **kinds of node** the bus figures read (NET003, NET007: each kind's first node)
  with the nodes removed or next to what went taken out of theirs and put in the one they
  are now, and each scalable unit's lowest figure kept for the units the failure leaves.
- **Storage facts** (the storage rules of fabric scope): the layout's less the devices
  down where none of them is on a storage cable (:func:`~rackdesigner.analysis.storage.
  storage_facts` from the facts before).

Where a failure would change what this rests on (a cable failed on its own, a tier, a part
cut off or made a single point of failure, lateral links or groups, a fabric emptied or
reordered) it returns None and the failed analysis builds its fabrics as any analysis
does: the fabrics are always those a build gives, figure for figure
(``tests/whatif/test_fabric_derived.py`` holds them to it, and
``tests/whatif/test_incremental.py`` the findings to a full check).
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

from rackdesigner.analysis.fabric_graph import Fabric, SwitchFacts, SwitchRatios
from rackdesigner.analysis.grouping import Groups
from rackdesigner.analysis.lateral import CrossedRail, crossed_rails
from rackdesigner.analysis.storage import StorageFacts, storage_facts
from rackdesigner.topology.collectives import (
    Best,
    NodeKey,
    intra_nodes,
    node_key,
    node_kinds,
    scalable_units,
    unit_best,
    units_of,
    within_units,
)

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts, LinkFacts
    from rackdesigner.whatif.failed import Cables

__all__ = ["FabricDerivation"]


class FabricDerivation:
    """The fabrics of one layout's failed layouts, derived from the layout's fabrics
    (``before``: its analysis; ``cables``: its :func:`~rackdesigner.whatif.failed.
    cables_of`)."""

    def __init__(self, before: Analysis, cables: Cables) -> None:
        self.before = before
        self.cables = cables
        self._bases: list[_Base] | None = None
        self._node_ids: Counter[str] | None = None  # the storage facts' GPU nodes' ids

    def bases(self) -> list[_Base]:
        if self._bases is None:
            adj: dict[str, dict[str, float]] = {}
            for (a, b), data in self.before.compute_edges.items():
                adj.setdefault(a, {})[b] = data["bandwidth"]
                adj.setdefault(b, {})[a] = data["bandwidth"]
            efficiency = self.before.thresholds["nccl_efficiency"]
            self._bases = [_Base(fabric, adj, efficiency) for fabric in self.before.fabrics]
        return self._bases

    def storage(self, down: Iterable[str]) -> StorageFacts | None:
        """The failed layout's storage facts, where the devices ``down`` are on no storage
        cable: the layout's less the nodes and appliances down (its storage fabric, flow
        and the nodes it reaches are the layout's); else None (built)."""
        before = self.before.storage
        gone = frozenset(down)
        if before.fabric.touched_by(gone, ()):
            return None
        if not before.fabric.edges and not before.pfs.devices and not before.objects.devices:
            # No storage cable or appliance: all that changes is the GPU nodes that work
            # (the rules then read how many: listed only if read).
            if self._node_ids is None:
                self._node_ids = Counter(dev.id for dev in before.nodes)
            count = len(before.nodes) - sum(self._node_ids.get(d, 0) for d in gone)
            return dataclasses.replace(
                before,
                nodes=_NodesLeft(before.nodes, gone, count),
                node_bandwidth=dict(before.node_bandwidth),
                reached=set(before.reached),
                failed=gone,
                _pods=None,
            )
        return storage_facts(self.before, gone, before=before)

    def fabrics(
        self, failed: Analysis, down: Iterable[str], fresh: Iterable[str]
    ) -> list[Fabric] | None:
        """``failed``'s fabrics, where its layout is the layout less the cables of the
        devices ``down`` (and nothing else), and its devices' facts are the layout's but
        in the racks ``fresh``; None where they must be built."""
        bases = self.bases()
        down = set(down)
        cut = {n for d in down for n in self.cables.get(d, ())}
        change = _Change(failed, down, set(fresh), sorted(cut), self.before.links, self.cables)
        out: list[Fabric] = []
        for base in bases:
            fabric = base.derive(change)
            if fabric is None:
                return None
            out.append(fabric)
        if len(out) > 1 and [f.devices[0].order for f in out] != sorted(
            f.devices[0].order for f in out
        ):
            return None  # the fabrics' order (by their first device) changed
        return out


class _NodesLeft(Sequence["DeviceFacts"]):
    """The GPU nodes ``before`` less those ``gone`` (``count`` of them), listed when first
    read past how many there are."""

    __slots__ = ("_before", "_count", "_gone", "_list")

    def __init__(self, before: Sequence[DeviceFacts], gone: frozenset[str], count: int) -> None:
        self._before = before
        self._gone = gone
        self._count = count
        self._list: list[DeviceFacts] | None = None

    def _listed(self) -> list[DeviceFacts]:
        if self._list is None:
            self._list = [dev for dev in self._before if dev.id not in self._gone]
        return self._list

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> DeviceFacts: ...
    @overload
    def __getitem__(self, index: slice) -> list[DeviceFacts]: ...
    def __getitem__(self, index: int | slice) -> DeviceFacts | list[DeviceFacts]:
        return self._listed()[index]

    def __iter__(self) -> Iterator[DeviceFacts]:
        return iter(self._listed())


@dataclasses.dataclass(slots=True)
class _Change:
    """One failure: the failed analysis, the devices down, the racks whose devices' facts
    it made anew, and the layout indexes of the cables removed (sorted)."""

    failed: Analysis
    down: set[str]
    fresh: set[str]
    gone: list[int]
    before: list[LinkFacts]  # the layout's cables' facts
    cables: Cables  # the layout's cables of each device

    def link(self, index: int) -> LinkFacts:
        """The failed analysis's facts of the layout's cable at ``index`` (kept)."""
        return self.failed.links[index - bisect_left(self.gone, index)]


class _Base:
    """What every failure of one fabric shares."""

    def __init__(self, fabric: Fabric, adj: dict[str, dict[str, float]], efficiency: float) -> None:
        self.fabric = fabric
        self.efficiency = efficiency
        self.position = {d.id: i for i, d in enumerate(fabric.devices)}
        self.node_position = {n.id: i for i, n in enumerate(fabric.nodes)}
        self.nodes = {n.id: n for n in fabric.nodes}
        self.rack_devices: dict[str, list[str]] = {}
        for dev in fabric.devices:
            self.rack_devices.setdefault(dev.rack.id, []).append(dev.id)
        self.adj = {d: adj.get(d, {}) for d in self.position}
        self.tier: dict[str, int] = dict.fromkeys(self.node_position, 0)
        for sid, switch in fabric.switches.items():
            if switch.tier is not None:
                self.tier[sid] = switch.tier
        self.tops = sum(1 for s in fabric.switches.values() if s.tier == fabric.max_tier)
        self.switch_place = {ident: i for i, ident in enumerate(fabric.switches)}
        self.leaf_model: dict[str, str | None] = {}  # each leaf's model, and its leaves
        self.model_leaves: dict[str | None, list[str]] = {}
        for ident, switch in fabric.switches.items():
            if switch.tier == 1:
                model = self.leaf_model[ident] = switch.device.device.model
                self.model_leaves.setdefault(model, []).append(ident)
        # Whether every device's bandwidths sum exactly in whole units (then a failure's
        # are the fabric's less what it took: :meth:`_lost`).
        self.whole = _whole(v for row in self.adj.values() for v in row.values()) is not None
        self.whole = (
            self.whole
            and all(
                value.is_integer()
                for s in fabric.switches.values()
                for value in (s.down, s.up, s.lateral)
            )
            and all(value.is_integer() for value in fabric.node_bandwidth.values())
        )
        # The nodes' bandwidths and each tier's uplinks below the top, where they sum
        # exactly (whole numbers, a common power of two): then a failure's sums are these
        # less what it changed, the same in any order (a build's).
        self.sums = [_whole(fabric.node_bandwidth.values())] + [
            _whole(s.up for s in fabric.switches.values() if s.tier == level)
            for level in range(1, fabric.max_tier)
        ]
        self.ratios = SwitchRatios.of(fabric.switches)
        self.ok = (
            not fabric.groups
            and not fabric.cut_switches
            and not fabric.cut_links
            and len(fabric.nodes) >= 3
            and all(s.lateral == 0 for s in fabric.switches.values())
        )
        self._runs()
        if not self.ok:
            return
        self._classes()
        self._rail_groups()
        self.ports = dict(fabric.ports_by_node())
        self.techs: Counter[str] = Counter()
        for link in fabric.links:
            self.techs.update(_techs(link))

    # -- what the failures share -----------------------------------------------------------

    def _runs(self) -> None:
        """The fabric's cables as runs of consecutive layout indexes [start, end)."""
        runs: list[list[int]] = []
        for link in self.fabric.links:
            if runs and runs[-1][1] == link.index:
                runs[-1][1] += 1
            else:
                runs.append([link.index, link.index + 1])
        self.runs = [(a, b) for a, b in runs]

    def _classes(self) -> None:
        """Twin classes (the same neighbours) and the class graph; the fabric before must
        have no articulation point (a class of one that is an articulation class)."""
        keys: dict[frozenset[str], int] = {}
        self.of: dict[str, int] = {}
        self.size: list[int] = []
        for dev in self.position:
            c = keys.setdefault(frozenset(self.adj[dev]), len(keys))
            if c == len(self.size):
                self.size.append(0)
            self.size[c] += 1
            self.of[dev] = c
        self.links: dict[int, set[int]] = {c: set() for c in range(len(self.size))}
        for dev, c in self.of.items():
            if self.size[c] and dev in self.adj:
                self.links[c].update(self.of[n] for n in self.adj[dev])
        connected, cut = _articulation(self.links, set())
        self.cut = cut
        if not connected or len(self.size) < 3 or any(self.size[c] == 1 for c in cut):
            self.ok = False

    def _rail_groups(self) -> None:
        """The rail groups (GPU nodes joined through the leaves they are cabled to), each
        with its node-to-leaf cables, crossed rails and scalable units."""
        fabric = self.fabric
        cables = fabric.node_leaf_cables()
        groups = Groups()
        for node, _, leaf, _ in cables:
            groups.join(node, leaf)
        self.group = {member: groups.find(member) for c in cables for member in (c[0], c[2])}
        self.group_cables: dict[object, list[tuple[str, str, str, int]]] = {}
        for node, port, leaf, link in cables:
            self.group_cables.setdefault(self.group[node], []).append(
                (node, port, leaf, link.index)
            )
        self.crossed: dict[object, list[CrossedRail]] = {}
        for crossed in fabric.crossed_rails:
            self.crossed.setdefault(self.group[crossed.node], []).append(crossed)
        units = fabric.units
        if units is None:
            units = fabric.units = scalable_units(fabric)
        within_units(fabric, self.efficiency)  # each unit's lowest figure
        assert fabric.unit_bests is not None
        # The units in order, each one's lowest figure and first node's place, and each
        # rail group's units (their indexes in that order).
        self.all_units = list(units)
        self.bests = list(fabric.unit_bests[1])
        self.unit_places = [self.node_position[unit[0].id] for unit in units]
        self.units: dict[object, list[int]] = {}
        for at, unit in enumerate(units):
            self.units.setdefault(self.group[unit[0].id], []).append(at)
        # Each kind of node (what the bus figures read of it) and its nodes, in order.
        node_kinds(fabric)
        self.key_of: dict[str, NodeKey] = {}
        self.members: dict[NodeKey, list[DeviceFacts]] = {}
        for dev in fabric.nodes:
            key = node_key(dev, fabric.node_bandwidth.get(dev.id, 0.0))
            self.key_of[dev.id] = key
            self.members.setdefault(key, []).append(dev)

    # -- one failure ----------------------------------------------------------------------

    def derive(self, change: _Change) -> Fabric | None:
        """The fabric less what ``change`` took, or None where it must be built."""
        fabric = self.fabric
        removed = {d for d in change.down if d in self.position}
        fresh = [d for r in change.fresh for d in self.rack_devices.get(r, ())]
        if not removed and not fresh:
            return self._relinked(change)
        near = {n for d in removed for n in self.adj[d] if n not in removed}
        if not self.ok or not self._holds(removed, near):
            return None
        by_id = change.failed.device_by_id
        remap = {d: by_id[d] for d in fresh if d not in removed}
        nodes = _less(fabric.nodes, self.node_position, removed, remap)
        switches, bandwidth = self._bandwidths(removed, remap, near)
        sums = self._sums_left(removed, near | remap.keys(), switches, bandwidth)
        if sums is None:
            sums = _injection_bisection(fabric.max_tier, switches, bandwidth)
        injection, bisection = sums
        links = self._links(change)
        ports, techs = self._ports(removed, change)
        touched = {self.group[d] for d in removed if d in self.group}
        cables = self._cables_left(touched, removed)
        units, bests = self._units(touched, cables, remap, bandwidth)
        return Fabric(
            fabric.index,
            _less(fabric.devices, self.position, removed, remap),
            links,
            nodes=nodes,
            switches=switches,
            techs=techs,
            gpus=fabric.gpus - sum(self.nodes[d].gpus for d in removed if d in self.nodes),
            max_tier=fabric.max_tier,
            injection=injection,
            bisection=bisection if nodes else 0.0,
            node_bandwidth=bandwidth,
            units=units,
            crossed=self._crossed(touched, cables, change),
            node_ports=ports,
            kinds=self._kinds(removed, near, remap, bandwidth),
            unit_bests=(self.efficiency, bests),
            switch_ratios=self._ratios(removed, near | remap.keys(), switches),
            leaf_models=self._leaf_models(removed, remap),
        )

    def _leaf_models(
        self, removed: set[str], remap: dict[str, DeviceFacts]
    ) -> dict[str | None, tuple[int, DeviceFacts]]:
        """The leaves' models left: the fabric's less the leaves removed, each model's
        first the first of its leaves left (the failed analysis's facts of it)."""
        models = dict(self.fabric.models_of_leaves())
        for model in {self.leaf_model[d] for d in removed if d in self.leaf_model}:
            left = [d for d in self.model_leaves[model] if d not in removed]
            if left:
                models[model] = (len(left), self.fabric.switches[left[0]].device)
            else:
                del models[model]
        for ident, dev in remap.items():
            if ident not in self.leaf_model:
                continue
            model = self.leaf_model[ident]
            if model in models and models[model][1].id == ident:
                models[model] = (models[model][0], dev)
        return models

    def _ratios(
        self, removed: set[str], touched: Iterable[str], switches: dict[str, SwitchFacts]
    ) -> SwitchRatios:
        """The switches' ratios: the fabric's less the switches removed or ``touched``,
        and those touched that are left worked out again (their places the fabric's)."""
        place = self.switch_place
        extra: list[tuple[float, int, str]] = []
        skip = {d for d in removed if d in place}
        for ident in touched:
            if ident not in place:
                continue
            skip.add(ident)
            ratio = switches[ident].oversubscription
            if ratio is not None:
                extra.append((-ratio, place[ident], ident))
        extra.sort()
        return SwitchRatios(self.ratios.base, frozenset(skip), extra)

    def _sums_left(
        self,
        removed: set[str],
        touched: Iterable[str],
        switches: dict[str, SwitchFacts],
        bandwidth: dict[str, float],
    ) -> tuple[float, float] | None:
        """The injection and bisection left (as :func:`_injection_bisection` sums them),
        from the fabric's sums less what the devices ``removed`` and ``touched`` changed;
        None where a sum is not exact in whole units (summed anew)."""
        if any(found is None for found in self.sums):
            return None
        fabric = self.fabric
        totals = [found[0] for found in self.sums if found is not None]
        units = [found[1] for found in self.sums if found is not None]
        before, unit = fabric.node_bandwidth, units[0]
        for dev in {*removed, *touched}:
            if dev in before:
                totals[0] -= int(before[dev])
                after = bandwidth.get(dev)
                if after is not None:
                    if not after.is_integer() or int(after) % unit:
                        return None
                    totals[0] += int(after)
            switch = fabric.switches.get(dev)
            if switch is None or switch.tier is None or not 1 <= switch.tier < fabric.max_tier:
                continue
            totals[switch.tier] -= int(switch.up)
            now = switches.get(dev)
            if now is not None:
                if not now.up.is_integer() or int(now.up) % units[switch.tier]:
                    return None
                totals[switch.tier] += int(now.up)
        return float(totals[0]), min(float(t) for t in totals) / 2

    def _links(self, change: _Change) -> list[LinkFacts]:
        """The failed analysis's facts of the fabric's cables left: slices of its list."""
        failed, gone = change.failed.links, change.gone
        if len(self.runs) == 1:  # the usual: the fabric's cables in one stretch
            ((start, end),) = self.runs
            if start == 0 and end == len(change.before):
                return failed  # every cable is the fabric's (the lists are never changed)
            return failed[_shift(gone, start) : _shift(gone, end)]
        links: list[LinkFacts] = []
        for start, end in self.runs:
            links.extend(failed[_shift(gone, start) : _shift(gone, end)])
        return links

    def _relinked(self, change: _Change) -> Fabric:
        """The fabric, none of whose devices the failure touched, with the failed
        analysis's facts of its cables (a cable's reference may be numbered anew)."""
        fabric = self.fabric
        return dataclasses.replace(
            fabric,
            links=self._links(change),
            cut_links=[(change.link(link.index), n) for link, n in fabric.cut_links],
            crossed=[_on(c, change.link(c.link.index)) for c in fabric.crossed_rails],
        )

    def _holds(self, removed: set[str], near: set[str]) -> bool:
        """Whether the fabric less ``removed`` (``near``: the devices next to them) keeps
        every tier, stays connected and has no articulation point."""
        return self._tiers_hold(removed, near) and self._classes_hold(removed)

    def _tiers_hold(self, removed: set[str], near: set[str]) -> bool:
        """Whether every device next to what went keeps a cable, and every switch its tier
        (a neighbour one tier below), a switch of the top tier is left and three nodes."""
        tier = self.tier
        adj = self.adj
        for dev in near:
            level = tier.get(dev)
            if level is None or level == 0:
                if not any(n not in removed for n in adj[dev]):
                    return False  # left with no cable: cut off
                continue
            if not any(n not in removed and tier.get(n) == level - 1 for n in adj[dev]):
                return False  # its tier would grow
        top = self.fabric.max_tier
        if top and self.tops <= sum(
            1 for d in removed if d in self.fabric.switches and tier.get(d) == top
        ):
            return False  # no switch of the top tier left
        return len(self.node_position) - sum(1 for d in removed if d in self.node_position) >= 3

    def _classes_hold(self, removed: set[str]) -> bool:
        """Whether the class graph less what went is connected, with three classes or more,
        and none of its articulation classes is down to one device."""
        left: dict[int, int] = {}
        for dev in removed:
            c = self.of[dev]
            left[c] = left.get(c, self.size[c]) - 1
        emptied = {c for c, count in left.items() if count == 0}
        cut = self.cut
        if len(self.size) - len(emptied) < 3:
            return False  # two classes: one of one device holds the other's together
        if emptied:
            connected, cut = _articulation(self.links, emptied)
            if not connected:
                return False
        return not any(left.get(c, self.size[c]) == 1 for c in cut)

    def _bandwidths(
        self, removed: set[str], remap: dict[str, DeviceFacts], near: set[str]
    ) -> tuple[dict[str, SwitchFacts], dict[str, float]]:
        """The switches left (those next to what went with their bandwidths summed again)
        and each node's bandwidth, as a build sums them (in the cables' order)."""
        fabric, adj, tier = self.fabric, self.adj, self.tier
        switches = dict(fabric.switches)
        bandwidth = dict(fabric.node_bandwidth)
        for dev in removed:
            switches.pop(dev, None)
            bandwidth.pop(dev, None)
        lost = self._lost(removed) if self.whole else None
        for dev in near:
            if dev in bandwidth:
                if lost is not None:
                    bandwidth[dev] = float(int(bandwidth[dev]) - lost[dev][0])
                    continue
                total = 0.0
                for other, value in adj[dev].items():
                    if other not in removed:
                        total += value
                bandwidth[dev] = total
        for sid in near | remap.keys():
            before = switches.get(sid)
            if before is None:
                continue
            after = SwitchFacts(remap.get(sid, before.device), before.tier)
            after.top = before.top
            if sid not in near or before.tier is None:
                after.down, after.up, after.lateral = before.down, before.up, before.lateral
            elif lost is not None:
                _, down, up, lateral = lost[sid]
                after.down = float(int(before.down) - down)
                after.up = float(int(before.up) - up)
                after.lateral = float(int(before.lateral) - lateral)
            else:
                for other, value in adj[sid].items():
                    if other in removed:
                        continue
                    level = tier.get(other)
                    if level is None:
                        if other in fabric.switches:
                            continue  # a switch no GPU node reaches
                        level = 0
                    if level == before.tier:
                        after.lateral += value
                    elif level < before.tier:
                        after.down += value
                    else:
                        after.up += value
            switches[sid] = after
        return switches, bandwidth

    def _lost(self, removed: set[str]) -> dict[str, list[int]]:
        """What each device next to those ``removed`` loses to them, in whole bit/s: in
        all, and (a switch) of its down, up and lateral bandwidth, as a build counts them
        (a switch no GPU node reaches is not counted). Exact where :attr:`whole`."""
        adj, tier, switches = self.adj, self.tier, self.fabric.switches
        lost: dict[str, list[int]] = {}
        for dev in removed:
            level = tier.get(dev)
            if level is None and dev in switches:
                level = -1  # counted by no switch
            elif level is None:
                level = 0
            for other, value in adj[dev].items():
                if other in removed:
                    continue
                row = lost.setdefault(other, [0, 0, 0, 0])
                row[0] += int(value)
                mine = tier.get(other)
                if mine is None or level < 0:
                    continue
                row[3 if level == mine else 1 if level < mine else 2] += int(value)
        return lost

    def _ports(self, removed: set[str], change: _Change) -> tuple[dict[str, int], set[str]]:
        """Each node's cabled ports and the fabric's technologies, less the cables of the
        devices ``removed``."""
        ports = dict(self.ports)
        techs = dict(self.techs)
        for number in {n for d in removed for n in change.cables.get(d, ())}:
            link = change.before[number]
            a, b = link.a.device, link.b.device
            if not link.compute or a is None or b is None or a is b:
                continue  # not a fabric cable
            for tech in _techs(link):
                techs[tech] -= 1
            for end in (a, b):
                count = ports.get(end.id)
                if count is not None:
                    if count > 1:
                        ports[end.id] = count - 1
                    else:
                        del ports[end.id]
        for dev in removed:
            ports.pop(dev, None)
        return ports, {tech for tech, count in techs.items() if count > 0}

    def _units(
        self,
        touched: set[object],
        cables: list[tuple[str, str, str, int]],
        remap: dict[str, DeviceFacts],
        bandwidth: dict[str, float],
    ) -> tuple[list[list[DeviceFacts]], list[Best | None]]:
        """The scalable units left, in the order of their first node, and each one's lowest
        figure: those of the rail groups the failure leaves alone (their nodes keep their
        bandwidths), and those the touched groups' cables left make, put in their places
        (the others are not looked at: a failure costs the units it touches)."""
        units, bests = list(self.all_units), list(self.bests)
        for group in self.groups_of(remap) - touched:  # a device whose facts are new
            for at in self.units.get(group, ()):
                unit, best = units[at], bests[at]
                if any(n.id in remap for n in unit):
                    units[at] = [remap.get(n.id, n) for n in unit]
                    if best is not None:
                        bests[at] = (best[0], remap.get(best[1].id, best[1]), best[2])
        if not touched:
            return units, bests
        places = list(self.unit_places)
        for at in sorted(
            (at for group in touched for at in self.units.get(group, ())), reverse=True
        ):
            del units[at], bests[at], places[at]
        nodes = sorted({c[0] for c in cables}, key=self.node_position.__getitem__)
        by_id = {n: remap.get(n, self.nodes[n]) for n in nodes}
        inside_of = intra_nodes(self.efficiency)
        for unit in units_of([c[:3] for c in cables], by_id):
            place = self.node_position[unit[0].id]
            at = bisect_left(places, place)
            places.insert(at, place)
            units.insert(at, unit)
            bests.insert(at, unit_best(unit, bandwidth, self.efficiency, inside_of))
        return units, bests

    def groups_of(self, devices: dict[str, DeviceFacts]) -> set[object]:
        """The rail groups of these devices."""
        group = self.group
        return {group[d] for d in devices if d in group}

    def _kinds(
        self,
        removed: set[str],
        near: set[str],
        remap: dict[str, DeviceFacts],
        bandwidth: dict[str, float],
    ) -> dict[NodeKey, tuple[int, DeviceFacts]]:
        """Each kind of node left and its first node (its index among the nodes left): the
        kinds before, the nodes removed or next to what went (their bandwidth changed)
        taken out of theirs and those next to it put in the kind they are now."""
        position = self.node_position
        changed = {d for d in removed | near if d in position}
        kinds = {key: (position[node.id], node) for key, (_, node) in self.fabric.kinds.items()}  # type: ignore[union-attr]
        for key in {self.key_of[d] for d in changed}:
            first = next((n for n in self.members[key] if n.id not in changed), None)
            if first is None:
                del kinds[key]
            else:
                kinds[key] = (position[first.id], first)
        for ident in changed - removed:
            node = self.nodes[ident]
            key = node_key(remap.get(ident, node), bandwidth.get(ident, 0.0))
            if key not in kinds or position[ident] < kinds[key][0]:
                kinds[key] = (position[ident], node)
        # Indexes among the nodes left (each less the nodes removed before it), the
        # failed analysis's facts of each node.
        gone = sorted(position[d] for d in removed if d in position)
        return {
            key: (at - bisect_left(gone, at), remap.get(node.id, node))
            for key, (at, node) in kinds.items()
        }

    def _crossed(
        self, touched: set[object], cables: list[tuple[str, str, str, int]], change: _Change
    ) -> list[CrossedRail]:
        """The crossed rails left, in cable order: those of the rail groups the failure
        leaves alone, and those of the touched groups' cables left."""
        out = [
            (crossed.link.index, _on(crossed, change.link(crossed.link.index)))
            for group, found in self.crossed.items()
            if group not in touched
            for crossed in found
        ]
        if touched:
            # Found on the layout's indexes, so that both kinds sort by them (the failed
            # layout's index of a cable is less by the cables cut before it).
            out.extend((c.link, _on(c, change.link(c.link))) for c in crossed_rails(cables))
        out.sort(key=lambda item: item[0])
        return [crossed for _, crossed in out]

    def _cables_left(
        self, touched: set[object], removed: set[str]
    ) -> list[tuple[str, str, str, int]]:
        """The node-to-leaf cables left in the rail groups ``touched``, in cable order
        (their layout indexes)."""
        cables = [
            cable
            for group in touched
            for cable in self.group_cables.get(group, ())
            if cable[0] not in removed and cable[2] not in removed
        ]
        cables.sort(key=lambda cable: cable[3])
        return cables


def _injection_bisection(
    top: int, switches: dict[str, SwitchFacts], bandwidth: dict[str, float]
) -> tuple[float, float]:
    """The nodes' fabric bandwidth and the bisection (half the least of it and each tier's
    uplinks below the top), summed as a build sums them."""
    injection = 0.0
    for value in bandwidth.values():
        injection += value
    crossing = [injection]
    for level in range(1, top):
        crossing.append(sum(s.up for s in switches.values() if s.tier == level))
    return injection, min(crossing) / 2


def _on(crossed: CrossedRail, link: LinkFacts) -> CrossedRail:
    """The crossed rail on the failed layout's facts of its cable (``dataclasses.replace``
    costs several times this, once per crossed rail kept, per failure)."""
    c = crossed
    return CrossedRail(c.node, c.port, c.leaf, c.rail_leaf, link, c.nodes, c.on_rail)


def _whole(values: Iterable[float]) -> tuple[int, int] | None:
    """The total of ``values`` and the largest power of two that divides each, where every
    one is a whole number at least 0 and the total at most 2**53 of that unit: every sum of
    some of them is then exact, in any order. None otherwise."""
    total = low = 0
    for value in values:
        if not (value >= 0 and value.is_integer()):  # NaN too
            return None
        number = int(value)
        total += number
        low |= number
    unit = low & -low or 1
    return (total, unit) if total <= (1 << 53) * unit else None


def _less(
    devices: list[DeviceFacts],
    position: dict[str, int],
    removed: set[str],
    remap: dict[str, DeviceFacts],
) -> list[DeviceFacts]:
    """``devices`` less those ``removed``, those in ``remap`` replaced (``position``: each
    one's index in ``devices``)."""
    out = list(devices)
    for ident, dev in remap.items():
        at = position.get(ident)
        if at is not None:
            out[at] = dev
    for at in sorted((position[d] for d in removed if d in position), reverse=True):
        del out[at]
    return out


def _shift(gone: list[int], index: int) -> int:
    """The index in the failed layout's cables of the layout's cable ``index`` (or of the
    first kept after it)."""
    return index - bisect_left(gone, index)


def _techs(link: LinkFacts) -> list[str]:
    """The technologies a fabric cable adds to its fabric (as a build counts them)."""
    return [
        end.group.tech
        for end in (link.a, link.b)
        if end.group is not None and end.group.tech is not None
    ]


def _articulation(links: dict[int, set[int]], skip: set[int]) -> tuple[bool, set[int]]:
    """Whether the graph ``links`` less the vertices ``skip`` is connected, and its
    articulation points (an iterative depth-first search: low points)."""
    vertices = [v for v in links if v not in skip]
    if not vertices:
        return False, set()
    root = vertices[0]
    order = {root: 0}
    low = {root: 0}
    cut: set[int] = set()
    children = 0
    stack = [(root, -1, iter(links[root]))]
    while stack:
        vertex, parent, rest = stack[-1]
        for other in rest:
            if other in skip or other == parent:
                continue
            if other in order:
                low[vertex] = min(low[vertex], order[other])
                continue
            order[other] = low[other] = len(order)
            stack.append((other, vertex, iter(links[other])))
            break
        else:
            stack.pop()
            if parent == -1:
                continue
            low[parent] = min(low[parent], low[vertex])
            if parent == root:
                children += 1
            elif low[vertex] >= order[parent]:
                cut.add(parent)
    if children > 1:
        cut.add(root)
    return len(order) == len(vertices), cut
