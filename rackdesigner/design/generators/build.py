"""The builder generators share: nodes to cable, switches placed on the floor, cables with
media from their computed length, trees closed above the leaves, and the cable-limit policy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.reach import SPLIT, STRAIGHT, MediaChooser, link_tech
from rackdesigner.design.generators.base import (
    FabricPlan,
    FabricRequest,
    GenerateError,
    NodePorts,
    SwitchModel,
    default_switch,
    fabric_group,
    switch_model,
)
from rackdesigner.design.generators.floor import Floor, Spot
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.layout_io.catalog import for_layout as catalog_for
from rackdesigner.model.layout import Device, DeviceType, Layout, Link
from rackdesigner.model.wording import first_of
from rackdesigner.topology.sizing import spines_for


@dataclass(slots=True, eq=False)
class Switch:
    id: str
    model: SwitchModel
    spot: Spot
    role: str
    next_port: int = 1  # the next free port of its fabric group
    down: int = 0  # ports cabled to the tier below (or to nodes)
    up: int = 0  # ports cabled to the tier above, or global ports (Dragonfly+)
    want_up: int = 0  # uplinks it is to get

    def port(self) -> str:
        """The next free port's name (``p33``)."""
        return self.end()[len(self.id) + 1 :]

    def end(self) -> str:
        """The next free port as a link end (``a01-leaf1:p33``), and take it."""
        number = self.next_port
        if number > self.model.ports:
            raise GenerateError(
                f"{self.id} ({self.model.key}) would need more than its {self.model.ports} "
                f"{self.model.group} ports"
            )
        self.next_port = number + 1
        return f"{self.id}:{self.model.group}{number}"


class Builder:
    """One generator run: the floor, the placed switches and the cables, then the plan."""

    def __init__(
        self,
        layout: Layout,
        request: FabricRequest,
        *,
        catalog: Catalog | None = None,
    ):
        request.check()
        self.layout = layout
        self.request = request
        self.catalog = catalog or catalog_for(layout)
        # The fabric being replaced, found by _nodes: the nodes' compute links, the switches
        # only it uses, and the ids of those links and of the switches' other links.
        self.removed: list[Link] = []
        self.removed_devices: set[str] = set()
        self.removed_ids: set[int] = set()
        self.nodes = self._nodes()
        # The floor as it is once the replaced fabric is gone: its switches free their units.
        view = layout
        if self.removed_devices:
            gone = self.removed_devices
            view = replace(
                layout,
                racks=[
                    replace(rack, devices=[d for d in rack.devices if d.id not in gone])
                    for rack in layout.racks
                ],
                links=[link for link in layout.links if id(link) not in self.removed_ids],
            )
        self.analysis = Analysis(view)
        self.thresholds = self.analysis.thresholds
        self.overrides = dict(layout.rules.thresholds) if layout.rules else {}
        self.floor = Floor(view, self.analysis, allow_new_racks=request.new_racks)
        self.plan = FabricPlan(request.fabric)
        self.links: list[Link] = []
        self.switches: list[Switch] = []
        self._longest = (0.0, "")
        self._choosers: dict[tuple[float, str, str | None], MediaChooser] = {}
        self._unknown_length = 0
        self._limit = float(self.thresholds["cable_max"]) + 1e-9
        self._over = 0
        self._over_shown: list[tuple[str, float]] = []
        # Runs above this are noted: a new longest run, and past the limit while the first
        # few are being collected for --strict-cables.
        self._watch = 0.0
        geometry = self.floor.geometry
        self._slack = geometry.slack
        self._tray = geometry.tray_rise
        # A run between racks: up to the top, the tray rise twice, along the tray, slack.
        self._fixed = 2 * geometry.tray_rise + geometry.slack

    # -- nodes ------------------------------------------------------------------------

    def _nodes(self) -> NodePorts:
        wanted = set(self.request.nodes) if self.request.nodes is not None else None
        ids: list[str] = []
        racks: list[int] = []
        group_name = None
        rails = 0
        speed = 0.0
        tech = None
        types = self.catalog.devices
        for index, rack in enumerate(self.layout.racks):
            for dev in rack.devices:
                if wanted is not None and dev.id not in wanted:
                    continue
                dtype = types.get(dev.model)
                if dtype is None or dtype.kind != "gpu-node":
                    if wanted is not None:
                        raise GenerateError(f"{dev.id} is not a GPU node ({dev.model})")
                    continue
                group = fabric_group(dtype)
                if group is None:
                    raise GenerateError(
                        f"{dev.id} ({dev.model}) has no compute-fabric ports to cable"
                    )
                if group_name is None:
                    group_name, rails, speed, tech = (
                        group.name,
                        group.count,
                        float(group.speed or 0.0),
                        group.tech,
                    )
                elif (group.name, group.count) != (group_name, rails):
                    raise GenerateError(
                        f"{dev.id} has {group.count} compute ports {group.name}*, the other "
                        f"nodes {rails} {group_name}*: cable nodes of one kind per fabric "
                        "(--nodes)"
                    )
                ids.append(dev.id)
                racks.append(index)
        if wanted is not None:
            missing = sorted(wanted - set(ids))
            if missing:
                raise GenerateError(f"no GPU node {missing[0]} in the layout")
        if not ids:
            raise GenerateError("no GPU nodes to cable")
        assert group_name is not None
        nodes = NodePorts(tuple(ids), tuple(racks), group_name, rails, speed, tech)
        self._existing_links(nodes)
        return nodes

    def _existing_links(self, nodes: NodePorts) -> None:
        ports = {node: nodes.group for node in nodes.ids}
        existing: list[Link] = []
        for link in self.layout.links:
            for end in (link.a, link.b):
                device, _, port = end.partition(":")
                group = ports.get(device)
                if group is not None and port.rstrip("0123456789") == group:
                    existing.append(link)
                    break
        if existing and not self.request.replace:
            shown = existing[0].a + " -> " + existing[0].b
            raise GenerateError(
                f"{len(existing):,} compute links already end at these nodes (first: {shown}); "
                "rerun with --replace to remove them first"
            )
        self.removed = existing
        self.removed_devices = self._old_switches(nodes, existing) if existing else set()
        if self.removed_devices:
            doomed = self.removed_devices
            kept = {id(link) for link in existing}
            for link in self.layout.links:
                if id(link) not in kept and (
                    link.a.partition(":")[0] in doomed or link.b.partition(":")[0] in doomed
                ):
                    existing.append(link)
                    kept.add(id(link))
        self.removed_ids = {id(link) for link in existing}

    def _old_switches(self, nodes: NodePorts, node_links: list[Link]) -> set[str]:
        """The switches of the fabric being replaced: those reached from the nodes' compute
        links through switch-to-switch cables, when they serve no other GPU node (a fabric
        shared with nodes left out keeps its switches; only the nodes' links go)."""
        types = self.catalog.devices
        model = {d.id: types.get(d.model) for _, d in self.layout.devices()}
        kind = {key: (t.kind if t is not None else None) for key, t in model.items()}

        def compute(end: str) -> bool:
            device, _, port = end.partition(":")
            dtype = model.get(device)
            if dtype is None:
                return False
            group = dtype.port_group(port.rstrip("0123456789"))
            return group is not None and group.effective_role(dtype.kind) == "compute"

        selected = set(nodes.ids)
        by_device: dict[str, list[str]] = {}
        for link in self.layout.links:
            if not (compute(link.a) and compute(link.b)):
                continue  # storage and management cabling is no part of the fabric
            a, b = link.a.partition(":")[0], link.b.partition(":")[0]
            by_device.setdefault(a, []).append(b)
            by_device.setdefault(b, []).append(a)
        todo = [
            other
            for link in node_links
            for other in (link.a.partition(":")[0], link.b.partition(":")[0])
            if kind.get(other) == "switch"
        ]
        seen: set[str] = set(todo)
        while todo:
            switch = todo.pop()
            for other in by_device.get(switch, ()):
                what = kind.get(other)
                if what == "gpu-node" and other not in selected:
                    return set()
                if what == "switch" and other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    def node_spot(self, index: int) -> Spot:
        return self.floor.spots[self.nodes.rack_index[index]]

    # -- switches ---------------------------------------------------------------------

    def model(self, key: str | None, what: str, fallback: SwitchModel | None = None) -> SwitchModel:
        chosen = key is None and fallback is None
        if key is None:
            if fallback is not None:
                return fallback
            key = default_switch(self.nodes.tech, self.nodes.speed)
        model = switch_model(self.catalog, key, what)
        if chosen and model.speed != self.nodes.speed:
            raise GenerateError(
                f"no default switch matches the nodes' {self.nodes.speed / 1e9:g} Gbps "
                f"{self.nodes.tech or 'infiniband'} compute ports ({key} runs "
                f"{model.speed / 1e9:g} Gbps): give --{what} MODEL"
            )
        if model.speed != self.nodes.speed and what == "leaf" and not self._run_nodes_at(model):
            self.plan.warnings.append(
                f"{key} ports run {model.speed / 1e9:g} Gbps, the nodes' "
                f"{self.nodes.speed / 1e9:g} Gbps: those links run at the slower rate (CAB004)"
            )
        if (model.tech or "infiniband") != (self.nodes.tech or "infiniband"):
            raise GenerateError(
                f"--{what} {key} is {model.tech or 'infiniband'}; the nodes' compute ports "
                f"are {self.nodes.tech or 'infiniband'} (a link cannot join the two)"
            )
        return model

    def switch_models(self, tiers: int) -> list[SwitchModel]:
        """The models of the lowest ``tiers`` tiers (leaf, spine, core) as the request
        names them, each defaulting to the one below it. Read :attr:`nodes` after: a leaf
        slower than the nodes' ports may set them to its rate."""
        request = self.request
        models = [self.model(request.leaf, "leaf")]
        for key, what in ((request.spine, "spine"), (request.core, "core"))[: tiers - 1]:
            models.append(self.model(key, what, models[-1]))
        return models

    def _run_nodes_at(self, leaf: SwitchModel) -> bool:
        """Where ``leaf`` runs slower than the nodes' compute ports and every device of the
        nodes' models is being cabled, set those models' compute port group to the leaf's
        rate in the layout's catalog (the plan's ``catalog``), as a ConnectX-7 runs HDR 200G
        on a QM8700, so the links are no speed mismatch (CAB004); True where it did."""
        nodes = self.nodes
        if not 0 < leaf.speed < nodes.speed:
            return False
        chosen = set(nodes.ids)
        models = {d.model for _, d in self.layout.devices() if d.id in chosen}
        if any(d.model in models and d.id not in chosen for _, d in self.layout.devices()):
            return False  # other nodes of the model keep their rate: CAB004 says so
        for key in sorted(models):
            dtype = self.catalog.devices[key]
            ports = [
                replace(g, speed=leaf.speed) if g.name == nodes.group else g
                for g in dtype.ports or ()
            ]
            own = self.layout.catalog.get(key)
            note = (
                f" Compute ports ({nodes.group}) at {leaf.speed / 1e9:g} Gbps, the rate they "
                f"run at on the {leaf.key} fabric (set by rackdesigner; CAB004)."
            )
            if own is not None:
                entry = replace(own, ports=ports)
            else:
                entry = DeviceType(key, ports=ports, comment=note)
            self.plan.catalog[key] = entry
        self.plan.notes.append(
            f"{', '.join(sorted(models))} compute ports set to {leaf.speed / 1e9:g} Gbps, the "
            f"{leaf.key}'s rate (the adapters run at it; no speed mismatch, CAB004)"
        )
        self.nodes = replace(nodes, speed=leaf.speed)
        return True

    def centre(self, spots: Sequence[Spot]) -> tuple[float, float]:
        xs = [s.x for s in spots if s.x is not None]
        x = sum(xs) / len(xs) if xs else 0.0
        return (x, sum(s.y for s in spots) / len(spots) if spots else 0.0)

    def switch(
        self,
        model: SwitchModel,
        role: str,
        target: tuple[float, float],
        near: frozenset[str] | None,
        label: str | None = None,
    ) -> Switch:
        device_id, spot, position = self.floor.place(model, role, target, near)
        self.plan.devices.append(
            (spot.rack.id, Device(device_id, model.key, position=position, label=label))
        )
        switch = Switch(device_id, model, spot, role)
        self.switches.append(switch)
        return switch

    # -- cables -----------------------------------------------------------------------

    def chooser(self, speed: float, form: str = STRAIGHT, tech: str | None = None) -> MediaChooser:
        """The media table's choice at ``speed`` on ``tech`` for a link of ``form``:
        ``split`` from a switch to a node's adapter, ``straight`` between switches (or node
        to node); 800G InfiniBand gets XDR's parts, 800G Ethernet the 100G-PAM4 ones."""
        key = (speed, form, tech)
        found = self._choosers.get(key)
        if found is None:
            found = self._choosers[key] = MediaChooser(speed or None, self.overrides, form, tech)
        return found

    def cable(
        self, a: str, a_port: str, b: str, b_port: str, speed: float, tech: str | None = None
    ) -> None:
        self.cable_ends(a, f"{a}:{a_port}", b, f"{b}:{b_port}", self.chooser(speed, tech=tech))

    def cable_ends(self, a: str, a_end: str, b: str, b_end: str, chooser: MediaChooser) -> None:
        """One cable between devices ``a`` and ``b`` (ends ``a_end``, ``b_end``), its media
        the cheapest that reaches its computed run (the hot path: 300,000 calls at 100k)."""
        where = self.floor.where
        spot_a, height_a, drop_a = where[a]
        spot_b, height_b, drop_b = where[b]
        if spot_a is spot_b:
            length = abs(height_a - height_b) + self._slack
        elif spot_a.x is None or spot_b.x is None:
            self._unknown_length += 1
            self.links.append(Link(a_end, b_end, media=chooser.farthest))
            return
        else:
            length = (
                drop_a + drop_b + abs(spot_a.x - spot_b.x) + abs(spot_a.y - spot_b.y) + self._fixed
            )
        media = chooser(length)
        if media is None:
            raise GenerateError(
                f"{a_end} -> {b_end} runs {length:.1f} m, beyond the reach of every "
                "medium; place the racks closer"
            )
        if length > self._limit:
            self._over += 1
        if length > self._watch:
            self._note_length(a_end, b_end, length, media)
        self.links.append(Link(a_end, b_end, media))

    def node_to_switch(self, node: int, rail: int, switch: Switch) -> None:
        self.attach(range(node, node + 1), rail, switch)

    def attach(self, members: Sequence[int], rail: int, switch: Switch) -> None:
        """Port ``rail`` of each of ``members`` (node indexes) to the next free ports of
        ``switch``: the hot loop of every generator (100,000 cables at 100k GPUs)."""
        n = self.nodes
        count = len(members)
        first = switch.next_port
        if first + count - 1 > switch.model.ports:
            switch.next_port = switch.model.ports + 1
            switch.end()  # raises: more cables than ports
        switch.next_port = first + count
        switch.down += count
        chooser = self.chooser(
            min(n.speed, switch.model.speed), SPLIT, link_tech(n.tech, switch.model.tech)
        )
        where = self.floor.where
        spot_b, height_b, drop_b = where[switch.id]
        prefix = f"{switch.id}:{switch.model.group}"
        port = f":{n.group}{rail + 1}"
        ids = n.ids
        slack, fixed, limit = self._slack, self._fixed, self._limit
        links = self.links
        bx, by = spot_b.x, spot_b.y
        over = 0
        for k, node in enumerate(members):
            node_id = ids[node]
            spot_a, height_a, drop_a = where[node_id]
            a_end = node_id + port
            b_end = f"{prefix}{first + k}"
            if spot_a is spot_b:
                length = abs(height_a - height_b) + slack
            elif spot_a.x is None or bx is None:
                self._unknown_length += 1
                links.append(Link(a_end, b_end, media=chooser.farthest))
                continue
            else:
                length = drop_a + drop_b + abs(spot_a.x - bx) + abs(spot_a.y - by) + fixed
            media = chooser(length)
            if length > limit:
                over += 1
            if media is None or length > self._watch:
                self._note_length(a_end, b_end, length, media)
            links.append(Link(a_end, b_end, media))
        self._over += over

    def _note_length(self, a_end: str, b_end: str, length: float, media: str | None) -> None:
        if media is None:
            raise GenerateError(
                f"{a_end} -> {b_end} runs {length:.1f} m, beyond the reach of every "
                "medium; place the racks closer"
            )
        if length > self._limit and len(self._over_shown) < 5:
            self._over_shown.append((f"{a_end} -> {b_end}", length))
        if length > self._longest[0]:
            self._longest = (length, f"{a_end} -> {b_end}")
        longest = self._longest[0]
        self._watch = longest if len(self._over_shown) >= 5 else min(self._limit, longest)

    def connect(self, lower: Switch, upper: Switch, count: int) -> None:
        """``count`` parallel cables from ``lower``'s next free ports to ``upper``'s: one
        length and one medium for all of them."""
        if count <= 0:
            return
        for switch in (lower, upper):
            if switch.next_port + count - 1 > switch.model.ports:
                switch.next_port = switch.model.ports + 1
                switch.end()  # raises: more cables than ports
        a_first, b_first = lower.next_port, upper.next_port
        lower.next_port += count
        upper.next_port += count
        lower.up += count
        upper.down += count
        where = self.floor.where
        spot_a, height_a, drop_a = where[lower.id]
        spot_b, height_b, drop_b = where[upper.id]
        a_prefix = f"{lower.id}:{lower.model.group}"
        b_prefix = f"{upper.id}:{upper.model.group}"
        if spot_a is spot_b:
            length: float | None = abs(height_a - height_b) + self._slack
        elif spot_a.x is None or spot_b.x is None:
            length = None
        else:
            length = (
                drop_a + drop_b + abs(spot_a.x - spot_b.x) + abs(spot_a.y - spot_b.y) + self._fixed
            )
        chooser = self.chooser(
            min(lower.model.speed, upper.model.speed),
            tech=link_tech(lower.model.tech, upper.model.tech),
        )
        if length is None:
            media: str | None = chooser.farthest
            self._unknown_length += count
        else:
            media = chooser(length)
        links = self.links
        if length is not None:
            if length > self._limit:
                self._over += count
            if media is None or length > self._watch:
                self._note_length(f"{a_prefix}{a_first}", f"{b_prefix}{b_first}", length, media)
        for k in range(count):
            links.append(Link(f"{a_prefix}{a_first + k}", f"{b_prefix}{b_first + k}", media))

    def round_robin(self, lower: Switch, uppers: Sequence[Switch], want: int, offset: int) -> None:
        """``want`` uplinks from ``lower`` spread over ``uppers`` as evenly as they go (the
        first ``want mod len(uppers)`` from ``offset`` get one more), grouped by switch."""
        count = len(uppers)
        base, extra = divmod(want, count)
        if base != 1 or extra or lower.next_port + want - 1 > lower.model.ports:
            for t in range(count):
                self.connect(lower, uppers[(t + offset) % count], base + (1 if t < extra else 0))
            return
        # One cable to each switch above (three-tier and large two-tier trees): one pass.
        where = self.floor.where
        spot_a, height_a, drop_a = where[lower.id]
        a_prefix = f"{lower.id}:{lower.model.group}"
        first = lower.next_port
        lower.next_port += count
        lower.up += count
        links = self.links
        slack, fixed, limit = self._slack, self._fixed, self._limit
        ax, ay = spot_a.x, spot_a.y
        speed = lower.model.speed
        choosers: dict[str, MediaChooser] = {}
        over = 0
        for t in range(count):
            upper = uppers[(t + offset) % count]
            number = upper.next_port
            if number > upper.model.ports:
                upper.end()  # raises: more cables than ports
            upper.next_port = number + 1
            upper.down += 1
            spot_b, height_b, drop_b = where[upper.id]
            a_end = f"{a_prefix}{first + t}"
            b_end = f"{upper.id}:{upper.model.group}{number}"
            if spot_a is spot_b:
                length = abs(height_a - height_b) + slack
            elif ax is None or spot_b.x is None:
                self._unknown_length += 1
                far = self.chooser(
                    min(speed, upper.model.speed),
                    tech=link_tech(lower.model.tech, upper.model.tech),
                ).farthest
                links.append(Link(a_end, b_end, far))
                continue
            else:
                length = drop_a + drop_b + abs(ax - spot_b.x) + abs(ay - spot_b.y) + fixed
            model = upper.model
            chooser = choosers.get(model.key)
            if chooser is None:
                chooser = choosers[model.key] = self.chooser(
                    min(speed, model.speed), tech=link_tech(lower.model.tech, model.tech)
                )
            media = chooser(length)
            if length > limit:
                over += 1
            if media is None or length > self._watch:
                self._note_length(a_end, b_end, length, media)
            links.append(Link(a_end, b_end, media))
        self._over += over

    def uplinks_for(
        self, down_ports: int, down_speed: float, leaf: SwitchModel, upper: SwitchModel
    ) -> int:
        """Uplinks that carry ``down_ports`` at ``down_speed`` at the requested ratio."""
        up_speed = min(leaf.speed, upper.speed) or 1.0
        return max(
            1,
            math.ceil(down_ports * down_speed / (up_speed * self.request.oversubscription) - 1e-9),
        )

    # -- closing trees above the leaves -----------------------------------------------

    def two_tier(
        self,
        leaves: Sequence[Switch],
        uplinks: int,
        spine: SwitchModel,
        target: tuple[float, float],
        near: frozenset[str] | None,
        label: str,
        role: str = "spine",
        minimum: int = 1,
        spread: Sequence[tuple[float, float]] = (),
    ) -> list[Switch]:
        """Spines above ``leaves`` (``uplinks`` each at most), every leaf cabled round-robin;
        at least ``minimum`` of them. With ``spread``, spine j aims at its j-th place in
        turn (the racks the spines should not share) instead of ``target``."""
        count = spines_for(len(leaves), uplinks, spine.ports, minimum)
        if count is None:
            raise GenerateError(
                f"{len(leaves)} leaves of {uplinks} uplinks do not fit one tier of "
                f"{spine.ports}-port {spine.key}"
            )
        spines = [
            self.switch(
                spine,
                role,
                spread[j % len(spread)] if spread else target,
                near,
                f"{label} {role} {j + 1}".strip(),
            )
            for j in range(count)
        ]
        for index, leaf in enumerate(leaves):
            self.round_robin(leaf, spines, leaf.want_up, index)
        return spines

    def three_tier(
        self,
        leaves: Sequence[Switch],
        uplinks: int,
        pod_leaves: int,
        spine: SwitchModel,
        core: SwitchModel,
        label: str,
    ) -> tuple[list[Switch], list[Switch], int]:
        """Pods of ``pod_leaves`` leaves with their own spines (half their ports down, half
        up), and core groups: spine j of every pod to core group j. Returns spines, cores and
        the number of pods."""
        half = spine.ports // 2
        per_pod = spines_for(pod_leaves, uplinks, half)
        if per_pod is None:
            raise GenerateError(
                f"a pod of {pod_leaves} leaves does not fit {spine.key} spines ({half} ports down)"
            )
        spine_up = pod_leaves * math.ceil(uplinks / per_pod)  # a full pod's spine: down = up
        pods = [leaves[i : i + pod_leaves] for i in range(0, len(leaves), pod_leaves)]
        per_group = spines_for(len(pods), spine_up, core.ports)
        if per_group is None:
            raise GenerateError(
                f"{len(pods)} pods need more than three tiers of {core.ports}-port {core.key}"
            )
        all_spines: list[Switch] = []
        pod_spines: list[list[Switch]] = []
        for p, pod in enumerate(pods):
            spots = [leaf.spot for leaf in pod]
            target = self.centre(spots)
            near = self.floor.rows_of(spots)
            spines = [
                self.switch(spine, "spine", target, near, f"{label}pod {p + 1} spine {j + 1}")
                for j in range(per_pod)
            ]
            for index, leaf in enumerate(pod):
                self.round_robin(leaf, spines, leaf.want_up, index)
            pod_spines.append(spines)
            all_spines.extend(spines)
        hall = self.floor.centre
        cores: list[Switch] = []
        for j in range(per_pod):
            group = [
                self.switch(core, "core", hall, None, f"{label}core group {j + 1} core {c + 1}")
                for c in range(per_group)
            ]
            cores.extend(group)
            for p, spines in enumerate(pod_spines):
                lower = spines[j]
                # 1:1 at the spine: as many uplinks as it has downlinks
                want = math.ceil(
                    lower.down * lower.model.speed / (min(lower.model.speed, core.speed) or 1.0)
                    - 1e-9
                )
                self.round_robin(lower, group, want, p)
        return all_spines, cores, len(pods)

    # -- the plan ---------------------------------------------------------------------

    def _blank_new_air_racks(self) -> None:
        """Blanking panels over the open front units of a new air-cooled network rack, as
        its neighbours have them (PLC006)."""
        if "blank-1u" not in self.catalog.devices:
            return
        for spot in self.floor.spots:
            if not spot.new or spot.rack.cooling_mode != "air":
                continue
            for unit in range(1, spot.height + 1):
                if not spot.front[unit]:
                    device_id = f"{spot.rack.id}-blank{unit:02d}"
                    if device_id in self.floor.device_ids:
                        continue
                    self.floor.device_ids.add(device_id)
                    self.plan.devices.append(
                        (spot.rack.id, Device(device_id, "blank-1u", position=unit))
                    )

    def finish(self, counts: dict[str, int], notes: Sequence[str]) -> FabricPlan:
        plan = self.plan
        plan.links = self.links
        plan.remove_links = self.removed
        plan.remove_devices = sorted(self.removed_devices)
        plan.new_racks = list(self.floor.new_racks)
        self._blank_new_air_racks()
        plan.counts = dict(counts)
        plan.counts.setdefault("cables", len(self.links))
        plan.notes = [*notes, *self.floor.notes]
        limit = float(self.thresholds["cable_max"])
        longest, name = self._longest
        if name:
            plan.longest = (name, longest)
        plan.long_runs = self._over
        plan.cable_limit = limit
        if self._over:
            if self.request.strict_cables:
                shown = [f"{lk} {ln:.1f} m" for lk, ln in self._over_shown]
                raise GenerateError(
                    f"--strict-cables: {self._over:,} cables are longer than cable_max "
                    f"{limit:g} m: {first_of(shown, 5, sep='; ', total=self._over)}"
                )
            # The layout keeps the limit the user set (never a threshold they did not ask
            # for): CAB001 warns about each longer run, with the latency it adds.
            plan.notes.append(long_runs_text(self._over, len(self.links), limit, name, longest))
        if self._unknown_length:
            plan.warnings.append(
                f"{self._unknown_length:,} cables end in racks without a slot: their length is "
                "unknown, so they are the medium that reaches farthest"
            )
        return plan


def long_runs_text(over: int, cables: int, limit: float, name: str, longest: float) -> str:
    """The summary line of the runs longer than ``cable_max`` (CAB001 warns about each)."""
    return (
        f"{over:,} of {cables:,} cables run longer than {limit:g} m (the longest, {name}, "
        f"{longest:.1f} m): CAB001 warns, about 5 ns of latency per metre"
    )
