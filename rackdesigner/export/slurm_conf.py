"""Slurm beyond the topology: the GPU nodes' ``NodeName`` and ``PartitionName`` lines, and
their ``gres.conf``.

``export --slurm-conf FILE`` writes FILE, a slurm.conf fragment to ``Include`` (slurm.conf
also needs ``GresTypes=gpu``), and ``gres.conf`` beside it. Every GPU node of the layout
gets a node line with what the catalog says of its type:

- ``CPUs``: the type's ``cpu_cores`` (physical cores: slurmd on a node with SMT reports
  twice as many logical CPUs, which Slurm accepts; it drains a node reporting fewer);
- ``RealMemory``: the type's ``memory`` in MiB, rounded down (Slurm's unit; "2 TB" is
  1,907,348 MiB, below the 2,097,152 MiB of 32 × 64 GiB DIMMs, so a node's kernel reserve
  does not drain it);
- ``Gres=gpu:N``: its GPUs;
- ``Features``: the GPU model's key and the node type's (``--constraint=h100-sxm``).

Nodes whose lines would be alike share one line with a compressed hostlist
(``a01-n[01-04]``), so a 12,500-node hall is a handful of lines. A type without
``cpu_cores`` or ``memory`` gets no ``CPUs`` / ``RealMemory`` (Slurm's defaults: one CPU,
1 MiB) and the header says which. One partition per compute fabric (a job cannot span
two), the first the default; without a fabric, one partition ``gpu`` of every GPU node.

``gres.conf`` names each node's GPU devices: ``/dev/nvidia0`` … for NVIDIA GPUs, and
``AutoDetect=rsmi`` (ROCm SMI) for AMD ones, whose render nodes are not numbered one per
GPU on every system.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.export.slurm import (
    SlurmNameError,
    _check_names,
    _continued,
    compress,
)
from rackdesigner.model.wording import plural
from rackdesigner.topology.structure import sketches

if TYPE_CHECKING:
    from pathlib import Path

    from rackdesigner.analysis import Analysis, DeviceFacts
    from rackdesigner.export.registry import ExportContext, Output

MIB = 8 * 1024 * 1024  # bits in a MiB: catalog memory is held in bits
GRES_FILE = "gres.conf"
# Slurm's partition names and feature names: no spaces, commas or '=' (they separate
# fields and lists); anything else is replaced.
_WORD = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True, slots=True)
class NodeKind:
    """What one node line says; nodes alike in all of it share the line."""

    cpus: int | None
    memory_mib: int | None
    gpus: int
    gpu: str  # the GPU model's key, "" if the type names none
    vendor: str  # the GPU's vendor, lower case: nvidia | amd | ...
    model: str  # the node's catalog key

    @property
    def features(self) -> list[str]:
        return [_WORD.sub("_", word) for word in (self.gpu, self.model) if word]


def node_kind(dev: DeviceFacts) -> NodeKind:
    dtype = dev.type
    assert dtype is not None
    memory = dtype.memory
    return NodeKind(
        cpus=dtype.cpu_cores,
        memory_mib=None if memory is None else int(memory // MIB),
        gpus=dev.gpus,
        gpu=dtype.gpu or "",
        vendor=((dev.gpu.vendor if dev.gpu is not None else None) or "").lower(),
        model=dtype.key,
    )


def _partitions(analysis: Analysis) -> list[tuple[str, list[DeviceFacts]]]:
    """(partition name, GPU nodes in layout order): ``gpu`` for the only compute fabric (or
    every GPU node where there is none); with several, one partition per fabric, named
    after it (a job cannot span two fabrics)."""
    with_nodes = [f for f in sketches(analysis) if f.nodes]
    if with_nodes:
        groups = [(f.name, [d for d in f.nodes if d.gpus]) for f in with_nodes]
    else:
        groups = [("gpu", [d for d in analysis.devices if d.is_gpu_node and d.gpus])]
    groups = [(name, nodes) for name, nodes in groups if nodes]
    if len(groups) == 1:
        groups = [("gpu", groups[0][1])]
    out: list[tuple[str, list[DeviceFacts]]] = []
    taken: set[str] = set()
    for name, nodes in groups:
        word = _WORD.sub("_", name) or "gpu"
        base, n = word, 2
        while word in taken:
            word, n = f"{base}_{n}", n + 1
        taken.add(word)
        ordered = sorted(nodes, key=lambda d: (d.rack_index, d.device.position or 10**6, d.order))
        out.append((word, ordered))
    return out


def _node_lines(kinds: dict[NodeKind, list[str]]) -> list[str]:
    lines: list[str] = []
    for kind, names in kinds.items():
        fields = [f"NodeName={compress(names)}"]
        if kind.cpus is not None:
            fields.append(f"CPUs={kind.cpus}")
        if kind.memory_mib is not None:
            fields.append(f"RealMemory={kind.memory_mib}")
        fields.append(f"Gres=gpu:{kind.gpus}")
        if kind.features:
            fields.append(f"Features={','.join(kind.features)}")
        fields.append("State=UNKNOWN")
        lines += _continued(" ".join(fields))
    return lines


def _gres_lines(kinds: dict[NodeKind, list[str]]) -> list[str]:
    lines: list[str] = []
    for kind, names in kinds.items():
        hosts = compress(names)
        if kind.vendor == "nvidia":
            last = kind.gpus - 1
            devices = "/dev/nvidia0" if last == 0 else f"/dev/nvidia[0-{last}]"
            lines += _continued(f"NodeName={hosts} Name=gpu File={devices}")
        elif kind.vendor == "amd":
            lines += _continued(f"NodeName={hosts} AutoDetect=rsmi Name=gpu")
        else:
            lines.append(
                f"# {hosts}: {plural(kind.gpus, 'GPU')} of an unknown vendor; name their "
                "device files here (File=...)"
            )
            lines += _continued(f"NodeName={hosts} Name=gpu Count={kind.gpus}")
    return lines


def slurm_conf(analysis: Analysis) -> tuple[str, str]:
    """The node and partition lines, and the gres.conf text."""
    partitions = _partitions(analysis)
    if not partitions:
        raise SlurmNameError("the layout has no GPU node")
    nodes = [d for _, members in partitions for d in members]
    names = _check_names(nodes)
    kinds: dict[NodeKind, list[str]] = {}
    seen: set[str] = set()
    for dev in nodes:
        if dev.id in seen:  # a node on two fabrics is one Slurm node
            continue
        seen.add(dev.id)
        kinds.setdefault(node_kind(dev), []).append(names[dev.id])
    layout = analysis.layout
    gpus = sum(d.gpus for d in nodes if d.id in seen)
    header = [
        f"# Slurm nodes and partitions of {layout.name!r}, written by rackdesigner:",
        f"# {plural(len(seen), 'GPU node')}, {plural(gpus, 'GPU')}. Include this file from "
        "slurm.conf, which also",
        f"# needs GresTypes=gpu; the nodes' GPU devices are in {GRES_FILE} beside it.",
        "# CPUs are the catalog's cpu_cores (physical cores), RealMemory its memory in MiB.",
    ]
    header += _missing(kinds)
    lines = [*header, "", *_node_lines(kinds), ""]
    for number, (partition, members) in enumerate(partitions):
        default = "YES" if number == 0 else "NO"
        lines += _continued(
            f"PartitionName={partition} Nodes={compress([names[d.id] for d in members])} "
            f"Default={default} MaxTime=INFINITE State=UP"
        )
    gres = [
        f"# GPU devices of the Slurm nodes of {layout.name!r}, written by rackdesigner",
        "",
        *_gres_lines(kinds),
    ]
    return "\n".join(lines) + "\n", "\n".join(gres) + "\n"


def _missing(kinds: dict[NodeKind, list[str]]) -> list[str]:
    lines = []
    for what, attribute in (("cpu_cores", "cpus"), ("memory", "memory_mib")):
        models = sorted({k.model for k in kinds if getattr(k, attribute) is None})
        if models:
            lines.append(
                f"# {', '.join(models)}: no {what} in the catalog, so no "
                f"{'CPUs' if attribute == 'cpus' else 'RealMemory'} (set it in the layout's "
                "[catalog])"
            )
    return lines


def gres_path(path: Path) -> Path:
    return path.with_name(GRES_FILE)


def export_slurm_conf(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.registry import ExportError, Output

    gres = gres_path(path)
    if path.name == GRES_FILE:
        raise ExportError(
            f"--slurm-conf {path}: {GRES_FILE} is written beside it; name the node file "
            "otherwise (nodes.conf)"
        )
    try:
        nodes, gres_text = slurm_conf(context.analysis)
    except SlurmNameError as error:
        raise ExportError(f"--slurm-conf {path}: {error}") from None
    return [Output(path, nodes.encode()), Output(gres, gres_text.encode())]
