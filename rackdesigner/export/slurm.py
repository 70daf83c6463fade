"""What the scheduler and MPI read: Slurm's topology (tree) and OpenMPI hostfiles.

``topology.conf`` (plugin ``topology/tree``) names each leaf with the GPU nodes
under it and each upper switch with the switches under it, as compressed hostlists
(``a01-n[01-04]``). Slurm wants a tree, so every GPU node is under exactly one leaf:
the leaf its lowest-numbered compute port is cabled to (a rail-optimised node,
cabled to one leaf per rail, goes under its first rail's leaf). Switches that end
up with nothing under them are left out: Slurm refuses a switch without children.
Upper switches are listed by tier, then by name (``spine9`` before ``spine10``). Where
no switch reaches every node although the fabric is one connected part (a Dragonfly+:
its groups' spines are joined by global links, not by a switch), one switch that is no
device, ``<fabric>-global``, goes above the tops, as Slurm's topology guide describes a
dragonfly for ``topology/tree`` (leaves plus one top-level switch, with
``TopologyParam=dragonfly``): without it slurmctld warns that no switch can reach all
nodes, and no job spans two groups.
``topology.yaml`` is the same tree in Slurm 25.05's YAML form. Names are the
devices' ``hostname`` where given, else their ids.

With ``--slurm-plugin block`` (``topology/block``) each NVLink domain (v1.2, a rack's
``nvlink_domain``) is a block of its compute trays, ``BlockName=<domain> Nodes=...``,
and ``BlockSizes`` is NVIDIA Topograph's advice, ``D, 2D, ... 2^k D`` (k = floor(log2
blocks)); the YAML form writes the block topology as the cluster's default and the tree
alongside where the layout has a switched compute fabric.

The hostfile is OpenMPI's ``host slots=GPUs`` per GPU node, in layout order; with
several compute fabrics there is one per fabric (``FILE.<fabric>``), since one MPI
job cannot span two fabrics.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.model.wording import natural, plural
from rackdesigner.topology.structure import Sketch, cabling, sketches

if TYPE_CHECKING:
    from pathlib import Path

    from rackdesigner.analysis import Analysis, DeviceFacts
    from rackdesigner.export.registry import ExportContext, Output

MAX_NAME = 64  # Slurm's limit on node and switch names
_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
_TRAILING = re.compile(r"^(.*?[^0-9])([0-9]+)$")
# topology.conf lines longer than this are continued with a backslash (older Slurm
# releases read at most 1024 characters a line).
LINE_WIDTH = 1000


class SlurmNameError(ValueError):
    """A device whose name Slurm or a hostfile cannot take."""


def host_name(dev: DeviceFacts) -> str:
    """The name the cluster's software knows a device by: its ``hostname``, else its id."""
    return dev.device.hostname or dev.id


def compress(names: list[str]) -> str:
    """A Slurm hostlist of ``names``: runs of the same prefix and digit width as ranges.

    ``a01-n01, a01-n02, a01-n03, a01-n05`` → ``a01-n[01-03,05]``. Numbers keep their
    width, so a group never mixes ``n9`` and ``n10`` (Slurm would read ``n[9-10]``
    back the same, but a padded ``n[09-10]`` not); names without a trailing number
    are listed as they are.
    """
    groups: dict[tuple[str, int], list[int]] = {}
    order: list[tuple[str, int] | str] = []
    for name in names:
        match = _TRAILING.match(name)
        if match is None:
            order.append(name)
            continue
        key = (match.group(1), len(match.group(2)))
        numbers = groups.get(key)
        if numbers is None:
            numbers = groups[key] = []
            order.append(key)
        numbers.append(int(match.group(2)))
    parts = []
    for item in order:
        if isinstance(item, str):
            parts.append(item)
            continue
        prefix, width = item
        numbers = sorted(set(groups[item]))
        if len(numbers) == 1:
            parts.append(f"{prefix}{numbers[0]:0{width}d}")
            continue
        ranges = []
        start = previous = numbers[0]
        for number in [*numbers[1:], None]:
            if number is not None and number == previous + 1:
                previous = number
                continue
            if start == previous:
                ranges.append(f"{start:0{width}d}")
            else:
                ranges.append(f"{start:0{width}d}-{previous:0{width}d}")
            if number is not None:
                start = previous = number
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(parts)


@dataclass(slots=True)
class Tree:
    """One fabric's Slurm tree: leaves with their nodes, upper switches with children."""

    fabric: str  # its name, as the report gives it
    gpus: int
    nodes: int
    leaves: list[tuple[str, list[str]]] = field(default_factory=list)
    uppers: list[tuple[str, int, list[str]]] = field(default_factory=list)  # name, tier, kids
    unplaced: list[str] = field(default_factory=list)  # GPU nodes cabled to no leaf
    dragonfly_groups: int = 0
    root: str | None = None  # an added top switch (no device) joining the tree's tops


def _check_names(devices: list[DeviceFacts]) -> dict[str, str]:
    """Each device's Slurm name; refuse names Slurm cannot take, and two devices on one."""
    names: dict[str, str] = {}
    owner: dict[str, str] = {}
    for dev in devices:
        name = host_name(dev)
        source = "hostname" if name != dev.id else "id"
        if len(name) > MAX_NAME:
            raise SlurmNameError(
                f"device {dev.id}: its {source} {name!r} has {len(name)} characters; Slurm "
                f"takes at most {MAX_NAME} (give the device a shorter `hostname`)"
            )
        if not _NAME.match(name):
            raise SlurmNameError(
                f"device {dev.id}: its {source} {name!r} is not a host name (letters, digits, "
                "'.', '_' and '-' only); give the device a `hostname`"
            )
        other = owner.get(name)
        if other is not None and other != dev.id:
            raise SlurmNameError(f"devices {other} and {dev.id} are both named {name!r}")
        owner[name] = dev.id
        names[dev.id] = name
    return names


def build_trees(analysis: Analysis) -> tuple[list[Tree], dict[str, str]]:
    """The Slurm tree of every fabric that has a leaf, and every device's name."""
    wiring = cabling(analysis)
    found = sketches(analysis, wiring)
    adj = wiring.adjacency
    devices = [d for f in found for d in f.devices if d.is_gpu_node or d.kind == "switch"]
    names = _check_names(devices)
    trees: list[Tree] = []
    for sketch in found:
        if sketch.nodes and 1 in sketch.tiers.values():
            trees.append(_tree(sketch, adj, names, trees))
    return trees, names


def _tree(
    sketch: Sketch, adj: dict[str, dict[str, float]], names: dict[str, str], before: list[Tree]
) -> Tree:
    """One fabric's tree: its leaves with their nodes, the switches above them tier by
    tier, and an added top where no switch reaches every leaf (``before``: the trees
    already made, whose switch names the added top's must differ from)."""
    tier = sketch.tiers
    tree = Tree(sketch.name, sum(n.gpus for n in sketch.nodes), len(sketch.nodes))
    order = [d.id for d in sketch.devices if d.id in tier]
    included = _leaves(tree, sketch, names, order)
    reach, parents = _uppers(tree, sketch, adj, names, order, included)
    tree.dragonfly_groups = _dragonfly_groups(sketch, adj)
    tops = [sid for sid in order if sid in included and sid not in parents]
    leaves = {sid for sid in included if tier[sid] == 1}
    if len(tops) > 1 and not any(reach[sid] >= leaves for sid in tops):
        # One fabric is one connected part, but its tree has no common top: a
        # Dragonfly+, whose groups' spines are joined by global links, not by a switch
        # above them. Slurm then spans no job over two groups ("no switch can reach
        # all nodes through its descendants"); one switch above the tops stands for
        # the links that join them, as Slurm's topology guide describes a dragonfly
        # (leaf switches plus one top-level switch, with TopologyParam=dragonfly).
        taken = set(names.values()) | {name for t in before for name, _, _ in t.uppers}
        tree.root = _root_name(names.get(sketch.name, sketch.name), taken)
        top_level = max(tier[sid] or 1 for sid in tops) + 1
        kids = sorted((names[sid] for sid in tops), key=natural)
        tree.uppers.append((tree.root, top_level, kids))
    return tree


def _leaves(tree: Tree, sketch: Sketch, names: dict[str, str], order: list[str]) -> set[str]:
    """Add to ``tree`` its leaves with their nodes (in layout order) and the nodes cabled
    to no leaf; returns the leaves that have a node."""
    under: dict[str, list[str]] = {}
    for node in sketch.nodes:
        leaf = sketch.leaf_of.get(node.id)
        if leaf is None:
            tree.unplaced.append(names[node.id])
        else:
            under.setdefault(leaf, []).append(names[node.id])
    included = {sid for sid in order if sketch.tiers[sid] == 1 and sid in under}
    for sid in order:
        if sid in included:
            tree.leaves.append((names[sid], under[sid]))
    return included


def _uppers(
    tree: Tree,
    sketch: Sketch,
    adj: dict[str, dict[str, float]],
    names: dict[str, str],
    order: list[str],
    included: set[str],
) -> tuple[dict[str, set[str]], set[str]]:
    """Add to ``tree`` the switches above its leaves, tier by tier: each switch with a
    child in the tier below (``included`` grows by them). Returns the leaves below each
    included switch and the switches that have a parent."""
    tier = sketch.tiers
    reach: dict[str, set[str]] = {sid: {sid} for sid in included}
    parents: set[str] = set()
    for level in range(2, sketch.max_tier + 1):
        # The tier below, each switch's places in it: a switch's children are its
        # neighbours there, in that order (asking every switch below of every switch above
        # was spines × leaves, not the cables between them).
        below: dict[str, list[int]] = {}
        for place, sid in enumerate(s for s in order if tier[s] == level - 1 and s in included):
            below.setdefault(sid, []).append(place)
        uppers = []
        for sid in order:
            if tier[sid] != level:
                continue
            found = sorted((p, n) for n in adj[sid] if n in below for p in below[n])
            children = [n for _, n in found]
            if children:
                included.add(sid)
                parents.update(children)
                reach[sid] = set().union(*(reach[n] for n in children))
                kids = sorted((names[n] for n in children), key=natural)
                uppers.append((names[sid], level, kids))
        tree.uppers += sorted(uppers, key=lambda upper: natural(upper[0]))
    return reach, parents


def _root_name(base: str, taken: set[str]) -> str:
    """A switch name for a fabric's added top: ``<fabric>-global``, at most 64 characters,
    unlike any device's or another fabric's switch name."""
    suffix = "-global"
    name = base[: MAX_NAME - len(suffix)] + suffix
    number = 2
    while name in taken:
        tail = f"{suffix}-{number}"
        name = base[: MAX_NAME - len(tail)] + tail
        number += 1
    return name


def _dragonfly_groups(sketch: Sketch, adj: dict[str, dict[str, float]]) -> int:
    """How many groups global links (top-tier lateral links, above the leaves) join."""
    top = sketch.max_tier
    if top < 2:
        return 0
    tops = {sid for sid, t in sketch.tiers.items() if t == top}
    removed = {(a, b) for a in tops for b in adj[a] if b in tops}
    if not removed:
        return 0
    group: dict[str, int] = {}
    count = 0
    for dev in sketch.devices:
        if dev.id in group:
            continue
        group[dev.id] = count
        stack = [dev.id]
        while stack:
            current = stack.pop()
            for neighbour in adj.get(current, ()):
                if neighbour not in group and (current, neighbour) not in removed:
                    group[neighbour] = count
                    stack.append(neighbour)
        count += 1
    joined = any(group[a] != group[b] for a, b in removed)
    return count if joined and count >= 2 else 0


def _header(analysis: Analysis, trees: list[Tree], comment: str = "#") -> list[str]:
    layout = analysis.layout
    lines = [
        f"{comment} Slurm network topology (topology/tree) of {layout.name!r}, "
        "written by rackdesigner.",
        f"{comment} Every GPU node is under exactly one leaf: the leaf its lowest-numbered "
        "compute port",
        f"{comment} is cabled to (a node cabled to several leaves, as in a rail-optimised "
        "fabric, goes",
        f"{comment} under its first port's leaf). Switches with no GPU node below them are "
        "left out.",
    ]
    for tree in trees:
        lines.append(
            f"{comment} fabric {tree.fabric}: {plural(tree.gpus, 'GPU')} on "
            f"{plural(tree.nodes, 'node')}, under {len(tree.leaves)} "
            f"{'leaf' if len(tree.leaves) == 1 else 'leaves'} and {len(tree.uppers)} upper "
            f"{'switch' if len(tree.uppers) == 1 else 'switches'}"
        )
        if tree.unplaced:
            lines.append(
                f"{comment}   not under any leaf (cabled to no switch): {compress(tree.unplaced)}"
            )
        if tree.dragonfly_groups >= 2:
            lines.append(
                f"{comment}   a Dragonfly+ of {tree.dragonfly_groups} groups joined by global "
                "links between spines:"
            )
            lines.append(f"{comment}   set TopologyParam=dragonfly in slurm.conf")
        if tree.root is not None:
            lines.append(
                f"{comment}   {tree.root} is no device: it stands for the links between the "
                "tops of the"
            )
            lines.append(
                f"{comment}   tree (the global links of a Dragonfly+), so that a job can span "
                "all of them"
            )
    if len(trees) > 1:
        lines.append(f"{comment} {len(trees)} fabrics: a job cannot span two of them.")
    return lines


def _continued(line: str) -> list[str]:
    """Split an over-long line at commas, ending each part but the last with a backslash."""
    if len(line) <= LINE_WIDTH:
        return [line]
    parts: list[str] = []
    rest = line
    while len(rest) > LINE_WIDTH:
        cut = rest.rfind(",", 0, LINE_WIDTH)
        if cut <= 0:
            break
        parts.append(rest[: cut + 1] + "\\")
        rest = rest[cut + 1 :]
    parts.append(rest)
    return parts


def topology_conf(analysis: Analysis) -> str:
    trees, _ = build_trees(analysis)
    if not trees:
        raise SlurmNameError(
            "no compute fabric with a switch: Slurm's topology/tree has nothing to describe"
        )
    lines = _header(analysis, trees)
    for tree in trees:
        lines.append("")
        lines.append(f"# fabric {tree.fabric}")
        for leaf, nodes in tree.leaves:
            lines += _continued(f"SwitchName={leaf} Nodes={compress(nodes)}")
        for switch, _, children in tree.uppers:
            lines += _continued(f"SwitchName={switch} Switches={compress(children)}")
    return "\n".join(lines) + "\n"


def topology_yaml(analysis: Analysis, name: str = "tree") -> str:
    trees, _ = build_trees(analysis)
    if not trees:
        raise SlurmNameError(
            "no compute fabric with a switch: Slurm's topology/tree has nothing to describe"
        )
    lines = _header(analysis, trees)
    lines += [
        "---",
        f"- topology: {json.dumps(name)}",
        "  cluster_default: true",
        "  tree:",
        "    switches:",
    ]
    for tree in trees:
        for leaf, nodes in tree.leaves:
            lines.append(f"      - switch: {json.dumps(leaf)}")
            lines.append(f"        nodes: {json.dumps(compress(nodes))}")
        for switch, _, children in tree.uppers:
            lines.append(f"      - switch: {json.dumps(switch)}")
            lines.append(f"        children: {json.dumps(compress(children))}")
    return "\n".join(lines) + "\n"


# -- topology/block: one block per NVLink domain ------------------------------------------


@dataclass(slots=True)
class Blocks:
    """The NVLink domains as Slurm blocks: (domain id, node names) and the BlockSizes."""

    blocks: list[tuple[str, list[str]]]
    sizes: list[int]
    uneven: bool  # the domains do not all hold the base block's node count


def block_sizes(base: int, count: int) -> list[int]:
    """Topograph's advice for ``BlockSizes``: ``[D, 2D, 4D, ... 2^k D]`` with
    ``k = floor(log2 count)`` (D nodes a block, ``count`` blocks); docs/rack-scale.md."""
    k = max(0, count.bit_length() - 1)
    return [base << i for i in range(k + 1)]


def build_blocks(analysis: Analysis) -> Blocks:
    from rackdesigner.analysis.rack_scale import domains

    found, _ = domains(analysis.racks)
    with_nodes = [d for d in found if d.compute]
    if not with_nodes:
        raise SlurmNameError(
            "no NVLink domain with compute trays (a rack's nvlink_domain): topology/block "
            "has nothing to describe; use --slurm-plugin tree"
        )
    names = _check_names([dev for d in with_nodes for dev in d.compute])
    blocks = []
    for domain in with_nodes:
        nodes = sorted(
            domain.compute, key=lambda d: (d.rack_index, d.device.position or 10**6, d.order)
        )
        blocks.append((domain.id, [names[d.id] for d in nodes]))
    for name, _ in blocks:
        if not _NAME.match(name) or len(name) > MAX_NAME:
            raise SlurmNameError(f"NVLink domain {name!r}: not a name Slurm takes for a block")
    counts = [len(nodes) for _, nodes in blocks]
    base = min(counts)
    return Blocks(blocks, block_sizes(base, len(blocks)), uneven=len(set(counts)) > 1)


def _block_header(analysis: Analysis, blocks: Blocks, comment: str = "#") -> list[str]:
    gpus = sum(dev.gpus for dev in analysis.devices if dev.is_gpu_node)
    lines = [
        f"{comment} Slurm network topology (topology/block) of {analysis.layout.name!r}, "
        "written by rackdesigner.",
        f"{comment} One block per NVLink domain (a rack's nvlink_domain), its compute trays "
        "as nodes:",
        f"{comment} {plural(len(blocks.blocks), 'block')} of "
        f"{blocks.sizes[0]} nodes ({plural(gpus, 'GPU')} in all).",
        f"{comment} BlockSizes: D, 2D, ... 2^k D with k = floor(log2 blocks) (NVIDIA "
        "Topograph's advice).",
    ]
    if blocks.uneven:
        lines.append(
            f"{comment} The domains hold different numbers of trays: the base block is the "
            "smallest."
        )
    lines.append(f"{comment} slurm.conf: TopologyPlugin=topology/block")
    return lines


def topology_block_conf(analysis: Analysis) -> str:
    blocks = build_blocks(analysis)
    lines = _block_header(analysis, blocks)
    lines.append("")
    for name, nodes in blocks.blocks:
        lines += _continued(f"BlockName={name} Nodes={compress(nodes)}")
    lines.append(f"BlockSizes={','.join(str(n) for n in blocks.sizes)}")
    return "\n".join(lines) + "\n"


def topology_block_yaml(analysis: Analysis) -> str:
    """Slurm 25.05's topology.yaml: the block topology (the cluster's default) and, where
    the layout has a switched compute fabric, the tree alongside (``topology: tree``)."""
    blocks = build_blocks(analysis)
    lines = _block_header(analysis, blocks)
    lines += [
        "---",
        '- topology: "block"',
        "  cluster_default: true",
        "  block:",
        "    block_sizes:",
    ]
    lines += [f"      - {n}" for n in blocks.sizes]
    lines.append("    blocks:")
    for name, nodes in blocks.blocks:
        lines.append(f"      - block: {json.dumps(name)}")
        lines.append(f"        nodes: {json.dumps(compress(nodes))}")
    trees, _ = build_trees(analysis)
    if trees:
        tree = topology_yaml(analysis).split("---\n", 1)[1]
        lines += tree.replace("cluster_default: true", "cluster_default: false").splitlines()
    return "\n".join(lines) + "\n"


# -- hostfiles ----------------------------------------------------------------------------

_FILE_CHARS = re.compile(r"[^A-Za-z0-9._-]")


def hostfiles(analysis: Analysis) -> list[tuple[str | None, str]]:
    """(fabric name, or None for the only file; text) per hostfile."""
    with_nodes = [f for f in sketches(analysis) if f.nodes]
    if with_nodes:
        groups = [(f.name, f.nodes) for f in with_nodes]
    else:
        # No fabric: a single node's GPUs still make an MPI job (nccl-tests inside a node).
        groups = [("", [d for d in analysis.devices if d.is_gpu_node and d.gpus])]
    # Layout order: racks as listed, devices by position (0U devices, which take none, last).
    groups = [
        (
            name,
            sorted(nodes, key=lambda d: (d.rack_index, d.device.position or 10**6, d.order)),
        )
        for name, nodes in groups
    ]
    names = _check_names([d for _, nodes in groups for d in nodes])
    files: list[tuple[str | None, str]] = []
    for fabric, nodes in groups:
        gpus = sum(d.gpus for d in nodes)
        where = f"fabric {fabric}" if fabric else "the layout (no compute fabric)"
        lines = [
            f"# OpenMPI hostfile of {where}: {plural(gpus, 'GPU')} on "
            f"{plural(len(nodes), 'node')}, in layout order",
        ]
        lines += [f"{names[d.id]} slots={d.gpus}" for d in nodes if d.gpus]
        files.append((fabric if len(groups) > 1 else None, "\n".join(lines) + "\n"))
    return files


def hostfile_name(base: str, fabric: str | None) -> str:
    """The file a fabric's hostfile goes to: ``base`` alone, or ``base.<fabric>``."""
    return base if fabric is None else f"{base}.{_FILE_CHARS.sub('_', fabric)}"


# -- export entry points ------------------------------------------------------------------


def export_topology(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.registry import ExportError, Output

    block = context.setting("slurm_plugin", "tree") == "block"
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            text = (topology_block_yaml if block else topology_yaml)(context.analysis)
        else:
            text = (topology_block_conf if block else topology_conf)(context.analysis)
    except SlurmNameError as error:
        raise ExportError(f"--slurm-topology {path}: {error}") from None
    return [Output(path, text.encode())]


def export_hostfile(context: ExportContext, path: Path) -> list[Output]:
    from pathlib import Path

    from rackdesigner.export.registry import ExportError, Output

    try:
        files = hostfiles(context.analysis)
    except SlurmNameError as error:
        raise ExportError(f"--hostfile {path}: {error}") from None
    if not files or not any(text.count("\n") > 1 for _, text in files):
        raise ExportError(f"--hostfile {path}: the layout has no GPU node")
    names = [hostfile_name(str(path), fabric) for fabric, _ in files]
    if len(set(names)) != len(names):
        raise ExportError(f"--hostfile {path}: two fabrics map to one file name")
    return [Output(Path(name), text.encode()) for name, (_, text) in zip(names, files, strict=True)]
