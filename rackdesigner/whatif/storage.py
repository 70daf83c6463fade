"""What a failure does to the storage: the parallel file system's read and write left as
the GPU nodes get them, against NVIDIA's level for the GPUs still running; the GPU nodes
cut off from it; the checkpoint's time after (docs/storage.md, docs/whatif.md).

A failure touches the storage when it takes a storage appliance (``storage:ID``), a switch
or GPU node of the storage fabric (``switch:ID``, a rack, a power failure that takes them
down) or a storage cable (``link:``). What is left is derived from the storage facts before
(:func:`rackdesigner.analysis.storage.storage_facts` with ``before``): the storage fabric's
graph less what failed, its maximum flow again. A GPU node **cut off** reached the
parallel file system before and reaches it no more, though it still runs: its jobs can
neither read their data from it nor copy their checkpoints to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.checkpoint import checkpoint_of
from rackdesigner.analysis.storage import (
    Requirement,
    StorageFacts,
    is_storage_link,
    level_of,
    requirement,
    storage_facts,
)
from rackdesigner.model.units import BYTE_RATE, INFORMATION, fmt
from rackdesigner.model.wording import duration, name_list, plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

EPSILON = 1e-6  # bit/s: below this a difference is rounding


@dataclass(frozen=True, slots=True)
class StorageImpact:
    """The parallel file system before and after a failure (bit/s, bit, s; None where the
    appliances give no figure or the layout says too little to time a checkpoint)."""

    appliances: int  # parallel-fs appliances before
    appliances_lost: int
    objects: int  # object-tier appliances before
    objects_lost: int
    switches: int  # the storage fabric's switches before
    switches_lost: int
    cables: int
    cables_lost: int
    read: float | None  # what the GPU nodes read, before
    read_left: float | None
    write: float | None
    write_left: float | None
    read_given: bool  # the appliances give a read rate (else: what the fabric carries)
    write_given: bool
    usable: float | None  # usable capacity before
    usable_left: float | None
    level: str  # NVIDIA's level (docs/storage.md)
    level_declared: bool
    gpus: int  # GPUs of the GPU nodes before
    gpus_left: int  # of the GPU nodes still running
    need_read: float  # the level's aggregate for gpus_left
    need_write: float
    cut_off: list[str] = field(default_factory=list)  # running GPU nodes that reached it
    gpus_cut_off: int = 0
    # The least cabled running GPU node's storage cables, before and after, and what the
    # level asks of one node of its GPUs (STO005's figures).
    node: str | None = None
    node_cables: float = 0.0
    node_cables_left: float = 0.0
    need_node: float = 0.0
    checkpoint: float | None = None  # s to write one, before
    checkpoint_left: float | None = None  # s after; None: it cannot be written there
    checkpoint_size: float | None = None  # bit
    interval: float | None = None  # s between checkpoints

    @property
    def read_ratio(self) -> float | None:
        """The read left as a share of before (what ``--each`` ranks by after GPUs)."""
        if self.read is None or self.read <= 0:
            return None
        return (self.read_left or 0.0) / self.read

    @property
    def read_per_gpu(self) -> float | None:
        if self.read_left is None or not self.gpus_left:
            return None
        return self.read_left / self.gpus_left

    @property
    def write_per_gpu(self) -> float | None:
        if self.write_left is None or not self.gpus_left:
            return None
        return self.write_left / self.gpus_left

    @property
    def harmless(self) -> bool:
        """Nothing of the storage lost: no part, no cable, no bandwidth, no node cut off."""
        lost = self.appliances_lost or self.objects_lost or self.switches_lost or self.cables_lost
        return not (lost or self.cut_off) and _same(self.read, self.read_left)


def _same(before: float | None, after: float | None) -> bool:
    if before is None or after is None:
        return before is after
    return abs(before - after) <= EPSILON


class StorageLosses:
    """The storage side of one layout's failures; keeps the facts before."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self._touching: set[str] | None = None

    def touching(self) -> set[str]:
        """Every device whose loss changes the storage: the appliances and the storage
        fabric's devices (its switches, the GPU nodes cabled to it)."""
        if self._touching is None:
            facts = self.analysis.storage
            self._touching = (
                set(facts.fabric.edges)
                | {d.id for d in facts.pfs.devices}
                | {d.id for d in facts.objects.devices}
            )
        return self._touching

    def impact(self, removed: set[str], links: set[int]) -> StorageImpact | None:
        """What the devices ``removed`` and the cables at the indexes ``links`` leave of the
        storage; None where they touch none of it (or the layout has none)."""
        before = self.analysis.storage
        if not before.pfs.devices and not before.objects.devices:
            return None
        gone = removed & self.touching()
        cut = self._cut(links, removed)
        if not gone and not cut:
            return None
        after = storage_facts(self.analysis, gone, cut=cut, before=before)
        return _compare(self.analysis, before, after, removed)

    def _cut(self, links: set[int], removed: set[str]) -> list[tuple[str, str, float]]:
        """The storage cables at the indexes ``links`` (a converged fabric's compute cables
        too) whose two devices are still there."""
        out = []
        converged = self.analysis.storage.fabric.converged
        for number in sorted(links):
            lf = self.analysis.links[number]
            a, b = lf.a.device, lf.b.device
            if a is None or b is None or a.id in removed or b.id in removed:
                continue
            if is_storage_link(lf) or (converged and lf.compute):
                out.append((a.id, b.id, lf.speed or 0.0))
        return out


def _compare(
    analysis: Analysis, before: StorageFacts, after: StorageFacts, removed: set[str]
) -> StorageImpact:
    level, declared = level_of(analysis.workload)
    need = requirement(level, after.gpus)
    was = checkpoint_of(analysis.workload, before)
    now = checkpoint_of(analysis.workload, after)
    reaches = bool(after.path_write()) and bool(after.reached)
    cut_off = [d.id for d in after.nodes if d.id in before.reached and d.id not in after.reached]
    by_id = analysis.device_by_id
    return StorageImpact(
        appliances=len(before.pfs.devices),
        appliances_lost=len(before.pfs.devices) - len(after.pfs.devices),
        objects=len(before.objects.devices),
        objects_lost=len(before.objects.devices) - len(after.objects.devices),
        switches=len(before.switches),
        switches_lost=sum(1 for s in before.switches if s in removed),
        cables=before.fabric.links,
        cables_lost=before.fabric.links - after.fabric.links,
        read=before.path_read(),
        read_left=after.path_read() or 0.0,
        write=before.path_write(),
        write_left=after.path_write() or 0.0,
        read_given=before.pfs.read_known,
        write_given=before.pfs.write_known,
        usable=_usable(before),
        usable_left=_usable(after),
        level=level.name,
        level_declared=declared,
        gpus=before.gpus,
        gpus_left=after.gpus,
        need_read=need.read,
        need_write=need.write,
        cut_off=cut_off,
        gpus_cut_off=sum(by_id[n].gpus for n in cut_off),
        **_least_cabled(before, after, need),
        checkpoint=was.seconds if was is not None else None,
        checkpoint_left=now.seconds if now is not None and reaches else None,
        checkpoint_size=was.size if was is not None else None,
        interval=was.interval if was is not None else None,
    )


def _least_cabled(before: StorageFacts, after: StorageFacts, need: Requirement) -> dict[str, Any]:
    """The running GPU node whose storage cables lost the most, with its cables before and
    after and the level's single-node read for its GPUs; nothing where no node lost any."""
    worst, lost = None, EPSILON
    for dev in after.nodes:
        was = before.node_bandwidth.get(dev.id, 0.0)
        drop = was - after.node_bandwidth.get(dev.id, 0.0)
        if drop > lost:
            worst, lost = dev, drop
    if worst is None:
        return {}
    return {
        "node": worst.id,
        "node_cables": before.node_bandwidth.get(worst.id, 0.0),
        "node_cables_left": after.node_bandwidth.get(worst.id, 0.0),
        "need_node": need.node(worst.gpus)[0],
    }


def _usable(facts: StorageFacts) -> float | None:
    tier = facts.pfs
    if tier.devices and tier.usable_unknown == len(tier.devices):
        return None
    return tier.usable


# -- for people and tools -------------------------------------------------------------------


def _rate(value: float | None) -> str:
    return "not given" if value is None else fmt(value, BYTE_RATE)


def storage_lines(s: StorageImpact) -> list[str]:
    """The storage after a failure, a line per fact, as ``whatif --fail`` prints it."""
    parts = []
    if s.appliances_lost:
        parts.append(f"{s.appliances_lost} of {plural(s.appliances, 'appliance')}")
    if s.objects_lost:
        parts.append(f"{s.objects_lost} of {plural(s.objects, 'object node')}")
    if s.switches_lost:
        parts.append(f"{s.switches_lost} of {plural(s.switches, 'switch', 'switches')}")
    parts.append(f"{s.cables_lost} of {plural(s.cables, 'cable')}")
    out = [f"  storage: {name_list(parts, 4)} lost"]
    if s.read is not None:
        out += _rates(s)
    if s.node is not None:
        out.append(
            f"    least cabled GPU node {s.node}: {fmt(s.node_cables_left, BYTE_RATE)} of storage "
            f"cables (was {fmt(s.node_cables, BYTE_RATE)}); the level asks "
            f"{fmt(s.need_node, BYTE_RATE)} a node"
        )
    if s.usable is not None and s.usable_left is not None and s.usable_left < s.usable:
        out.append(
            f"    usable capacity {fmt(s.usable_left, INFORMATION)} of "
            f"{fmt(s.usable, INFORMATION)} (the data on what failed is out of reach)"
        )
    if s.cut_off:
        out.append(
            f"    cut off from the parallel file system: {plural(len(s.cut_off), 'GPU node')} "
            f"({plural(s.gpus_cut_off, 'GPU')}): {name_list(s.cut_off, 12)}"
        )
    if s.checkpoint is not None:
        after = (
            "it cannot reach the parallel file system"
            if s.checkpoint_left is None
            else f"written in {duration(s.checkpoint_left)}"
        )
        interval = f", every {duration(s.interval)}" if s.interval else ""
        out.append(f"    checkpoint: {after} (was {duration(s.checkpoint)}{interval})")
    return out


def _rates(s: StorageImpact) -> list[str]:
    """The parallel file system's read and write left, a GPU's share, against the level."""
    per_gpu = s.read_per_gpu
    each = f" ({fmt(per_gpu, BYTE_RATE)} a GPU)" if per_gpu is not None else ""
    verdict = ""
    if s.read_left is not None and s.gpus_left:
        short = (s.read_left < s.need_read - EPSILON) or (
            s.write_given and (s.write_left or 0.0) < s.need_write - EPSILON
        )
        verdict = ": below it" if short else ": meets it"
    fabric = "" if s.read_given else " (no read rate given: what the fabric carries)"
    writes = f"writes {_rate(s.write_left)} of {_rate(s.write)}"
    if not s.write_given:
        writes = (
            f"no write rate given, the fabric carries {_rate(s.write_left)} of {_rate(s.write)}"
        )
    default = "" if s.level_declared else ", the default"
    return [
        f"    parallel file system reads {_rate(s.read_left)} of {_rate(s.read)}{each}{fabric}; "
        + writes,
        f"    NVIDIA level {s.level}{default} for {plural(s.gpus_left, 'GPU')} running: read "
        f"{fmt(s.need_read, BYTE_RATE)}, write {fmt(s.need_write, BYTE_RATE)}{verdict}",
    ]


def storage_summary(s: StorageImpact) -> str:
    """The storage in one phrase, for the ranking and the report's single failures:
    ``storage reads 50% left, 2 GPU nodes cut off``; "" when nothing of it is lost."""
    parts = []
    ratio = s.read_ratio
    if ratio is not None and ratio < 1 - 1e-9:
        parts.append(f"storage reads {ratio:.0%} left")
    if s.cut_off:
        parts.append(f"{plural(len(s.cut_off), 'GPU node')} cut off from storage")
    return ", ".join(parts)


def storage_data(s: StorageImpact | None) -> dict[str, Any] | None:
    """The storage after a failure as plain data (JSON): SI units."""
    if s is None:
        return None
    return {
        "appliances": s.appliances,
        "appliances_lost": s.appliances_lost,
        "object_nodes": s.objects,
        "object_nodes_lost": s.objects_lost,
        "switches": s.switches,
        "switches_lost": s.switches_lost,
        "cables": s.cables,
        "cables_lost": s.cables_lost,
        "read": s.read,
        "read_left": s.read_left,
        "write": s.write,
        "write_left": s.write_left,
        "read_given": s.read_given,
        "write_given": s.write_given,
        "read_per_gpu_left": s.read_per_gpu,
        "write_per_gpu_left": s.write_per_gpu,
        "usable": s.usable,
        "usable_left": s.usable_left,
        "level": {
            "name": s.level,
            "declared": s.level_declared,
            "gpus": s.gpus_left,
            "read": s.need_read,
            "write": s.need_write,
        },
        "cut_off": s.cut_off,
        "gpus_cut_off": s.gpus_cut_off,
        "least_cabled_node": None
        if s.node is None
        else {
            "id": s.node,
            "cables": s.node_cables,
            "cables_left": s.node_cables_left,
            "level_read": s.need_node,
        },
        "checkpoint_size": s.checkpoint_size,
        "checkpoint_interval": s.interval,
        "checkpoint_seconds": s.checkpoint,
        "checkpoint_seconds_left": s.checkpoint_left,
    }
