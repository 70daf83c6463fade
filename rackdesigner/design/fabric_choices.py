"""What the designer's Generate fabric dialog offers and shows, without widgets.

The nodes a fabric is for (a selection's GPU nodes, else all of them), the generators and
which of their options each takes, the switch models of the catalog that fit those nodes
(a compute port group on the nodes' technology), a ratio typed as ``2:1``, and a plan's
preview counts (switches by tier, cables by medium, racks added). The dialog runs the same
generators as ``rackdesigner generate`` and applies the plan with
:func:`rackdesigner.design.generators.apply.to_batch` (one undoable step).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rackdesigner.design.generators import FABRICS, FabricPlan
from rackdesigner.design.generators.base import default_switch, fabric_group
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import DeviceType, Layout
from rackdesigner.model.wording import first_of

# Which request fields each generator reads (fabrics.md). ``redundant``: each node's ports
# over two leaves or more and two spines or more (on by default, as on the command line).
OPTIONS: dict[str, tuple[str, ...]] = {
    "rail": ("leaf", "spine", "core", "oversubscription", "su_nodes", "redundant"),
    "leaf-spine": ("leaf", "spine", "oversubscription", "redundant"),
    "dragonfly": ("leaf", "spine", "oversubscription"),
    "direct": (),
}

SUMMARIES = {
    "rail": "rail-optimised fat tree (InfiniBand/RoCE training)",
    "leaf-spine": "two tiers, any oversubscription (inference, storage)",
    "dragonfly": "Dragonfly+ groups (128+ GPUs)",
    "direct": "node to node, no switch (1-2 nodes)",
}


@dataclass(frozen=True, slots=True)
class Nodes:
    """The GPU nodes a fabric is for, and the compute ports they have."""

    ids: tuple[str, ...]
    gpus: int
    tech: str | None
    speed: float  # bit/s of their compute ports (0 when unknown)
    from_selection: bool
    ignored: tuple[str, ...] = ()  # selected devices that are no GPU nodes


def gpu_nodes(layout: Layout, catalog: Catalog, selection: Iterable[str] = ()) -> Nodes:
    """The selected GPU nodes in layout order, or every GPU node when none is selected."""
    chosen = set(selection)
    ids: list[str] = []
    every: list[str] = []
    gpus = 0
    every_gpus = 0
    tech: str | None = None
    speed = 0.0
    seen_types: dict[str, DeviceType] = {}
    for _, device in layout.devices():
        dtype = catalog.devices.get(device.model)
        if dtype is None or dtype.kind != "gpu-node":
            continue
        every.append(device.id)
        every_gpus += int(dtype.gpus or 0)
        if device.id in chosen:
            ids.append(device.id)
            gpus += int(dtype.gpus or 0)
        seen_types.setdefault(device.id, dtype)
    from_selection = bool(ids)
    if not from_selection:
        ids, gpus = every, every_gpus
    if ids:
        group = fabric_group(seen_types[ids[0]])
        if group is not None:
            tech, speed = group.tech, float(group.speed or 0.0)
    ignored = tuple(sorted(chosen - set(every)))
    return Nodes(tuple(ids), gpus, tech, speed, from_selection, ignored)


def default_fabric(nodes: Nodes) -> str:
    """fabrics.md's default: direct up to 16 GPUs on 1-2 nodes, one switch (leaf-spine) up to
    64 GPUs, rail above."""
    if len(nodes.ids) <= 2 and nodes.gpus <= 16:
        return "direct"
    return "leaf-spine" if nodes.gpus <= 64 else "rail"


@dataclass(frozen=True, slots=True)
class SwitchOption:
    key: str
    name: str
    ports: int
    speed: float
    tech: str | None
    height: float

    def describe(self) -> str:
        """``qm8700 · 40 × 200 Gbps infiniband · 1 U``"""
        return (
            f"{self.key} · {self.ports} × {self.speed / 1e9:g} Gbps {self.tech or 'ethernet'}"
            f" · {self.height:g} U"
        )


def fitting_switches(catalog: Catalog, tech: str | None) -> list[SwitchOption]:
    """The catalog's switches with compute ports on ``tech`` (the nodes' fabric
    technology), fastest first, then by key: the ones a generator can cable the nodes to."""
    want = tech or "infiniband"
    out = []
    for key, dtype in catalog.devices.items():
        if dtype.kind != "switch":
            continue
        group = fabric_group(dtype)
        if group is None or group.count < 1:
            continue
        if (group.tech or "infiniband") != want:
            continue
        out.append(
            SwitchOption(
                key,
                dtype.name or key,
                group.count,
                float(group.speed or 0.0),
                group.tech,
                float(dtype.height_u),
            )
        )
    out.sort(key=lambda s: (-s.speed, s.key))
    return out


def speeds(switches: Iterable[SwitchOption]) -> list[float]:
    """The distinct port speeds of ``switches``, fastest first."""
    return sorted({s.speed for s in switches}, reverse=True)


def default_leaf(switches: list[SwitchOption], nodes: Nodes, speed: float | None) -> str | None:
    """The generators' default switch for the nodes where the list (filtered by ``speed``)
    holds it, else the list's first."""
    shown = [s for s in switches if speed is None or s.speed == speed]
    if not shown:
        return None
    wanted = default_switch(nodes.tech, nodes.speed)
    if any(s.key == wanted for s in shown):
        return wanted
    # The switch matching the nodes' port speed, else the fastest.
    same = [s for s in shown if s.speed == nodes.speed]
    return (same or shown)[0].key


_RATIO = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(?::\s*([0-9]*\.?[0-9]+)\s*)?$")


def parse_ratio(text: str) -> float:
    """``2:1``, ``2`` or ``1.5`` as a number at least 1; ValueError with the reason."""
    match = _RATIO.match(text or "")
    if match is None:
        raise ValueError(f"{text.strip() or '(empty)'!s} is not a ratio (e.g. 1:1, 2:1, 4)")
    head = float(match[1])
    tail = float(match[2]) if match[2] else 1.0
    if tail == 0:
        raise ValueError(f"{text.strip()}: the second number cannot be 0")
    value = head / tail
    if value < 1.0:
        raise ValueError(
            f"{text.strip()} is below 1:1 (downlink ÷ uplink bandwidth; 1:1 is non-blocking)"
        )
    return value


SHOWN = 8  # rack ids named in the preview's racks line
NOTES_SHOWN = 4  # notes shown; the rest are counted


@dataclass(frozen=True, slots=True)
class Preview:
    """A plan's counts as the dialog shows them."""

    nodes: int
    leaves: int
    spines: int
    cores: int
    cables: int
    media: tuple[tuple[str, int], ...]  # (medium, cables), most first
    racks_added: tuple[str, ...]
    switch_racks: tuple[tuple[str, int], ...]  # (rack, switches placed there), in plan order
    removed_links: int
    notes: tuple[str, ...]
    warnings: tuple[str, ...]

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores

    def lines(self) -> list[str]:
        """The preview as a few lines of text."""
        tiers = ", ".join(
            f"{n:,} {name}"
            for n, name in (
                (self.leaves, "leaves" if self.leaves != 1 else "leaf"),
                (self.spines, "spines" if self.spines != 1 else "spine"),
                (self.cores, "cores" if self.cores != 1 else "core"),
            )
            if n
        )
        switches = f"{self.switches:,} switch{'es' if self.switches != 1 else ''}"
        media = ", ".join(f"{count:,} {name}" for name, count in self.media) or "none"
        # At most a few names of each list: 100,000 GPUs add 566 racks, with a note each.
        named = first_of(self.racks_added, SHOWN)
        racks = f"{len(self.racks_added):,} added ({named})" if self.racks_added else "none added"
        where = first_of([f"{rack} ({n})" for rack, n in self.switch_racks], 6, more="more racks")
        out = [
            f"nodes {self.nodes:,} · {switches}"
            + (f" ({tiers})" if tiers else "")
            + (f" in {where}" if where else ""),
            f"cables {self.cables:,}: {media}",
            f"racks {racks}",
        ]
        if self.removed_links:
            out.append(f"replaces {self.removed_links:,} existing links")
        out.extend(self.notes[:NOTES_SHOWN])
        if len(self.notes) > NOTES_SHOWN:
            out.append(f"and {len(self.notes) - NOTES_SHOWN:,} more notes like these")
        out.extend(f"⚠ {w}" for w in self.warnings)
        return out


def preview(plan: FabricPlan, catalog: Catalog) -> Preview:
    """The counts of ``plan``; ``catalog`` tells its switches from the blanking panels it
    adds to new air-cooled racks."""
    counts = plan.counts
    media = Counter(link.media or "unknown" for link in plan.links)
    types = catalog.devices
    racks = Counter(
        rack
        for rack, d in plan.devices
        if (dtype := types.get(d.model)) is not None and dtype.kind == "switch"
    )
    return Preview(
        nodes=counts.get("nodes", 0),
        leaves=counts.get("leaves", 0),
        spines=counts.get("spines", 0),
        cores=counts.get("cores", 0),
        cables=len(plan.links),
        media=tuple(media.most_common()),
        racks_added=tuple(r.id for r in plan.new_racks),
        switch_racks=tuple(racks.items()),
        removed_links=len(plan.remove_links),
        notes=tuple(plan.notes),
        warnings=tuple(plan.warnings),
    )


# The generators speak the command line's language (``--leaf``, ``--replace``); the dialog
# names its own fields instead.
_WORDING = (
    ("rerun with --replace", "tick Replace existing links"),
    ("--replace", "Replace existing links"),
    ("--no-new-racks", "Allow new racks off"),
    ("--su-nodes", "SU nodes"),
    ("--fabric ", "generator "),
    ("--nodes", "a selection (space in the racks view)"),
    ("--leaf", "leaf"),
    ("--spine", "spine"),
    ("--core", "core"),
    ("--strict-cables", "strict cables"),
    ("--no-redundant", "redundant off"),
    ("--redundant", "redundant"),
    ("--oversubscription", "oversub."),
)


def dialog_wording(message: str) -> str:
    for old, new in _WORDING:
        message = message.replace(old, new)
    return message


__all__ = [
    "FABRICS",
    "OPTIONS",
    "Nodes",
    "Preview",
    "SwitchOption",
    "default_fabric",
    "default_leaf",
    "dialog_wording",
    "fitting_switches",
    "gpu_nodes",
    "parse_ratio",
    "preview",
]
