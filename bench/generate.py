#!/usr/bin/env python3
"""Generate synthetic, valid rackdesigner layouts (format v1) for benchmarks.

    python bench/generate.py --gpus 100000 -o bench/out/gpus-100000.toml
    python bench/generate.py --all bench/out          # every preset as DIR/gpus-N.toml
    python bench/generate.py --gpus 1024 --stats      # counts on stderr

The output is deterministic (same arguments, same bytes) and built with plain
string joins, so the 100,000-GPU layout takes about a second. The module does
not import rackdesigner; other scripts use :func:`generate_layout_text` and
:func:`build_plan`.

The scheme, the same at every size:

* GPU nodes in liquid racks are liquid-cooled HGX H100 servers with cold plates
  (``sys-421ge-tnhr2-lcc``: 4U, 9 kW, ``liquid_fraction`` 0.7, ``ib1..ib8`` at
  400 Gbps): v1.1 gives cold plates only to types that declare them, and an
  air-only DGX in a liquid rack is COOL008. The one-node layout is air-cooled
  and uses NVIDIA DGX H100 (``dgx-h100``: 8U, 10.2 kW). Four nodes per 42U
  rack at U3, U11, U25 and U33; switches sit between them, in U19-U24 (the
  middle third of the rack, as PLC003 wants).
* Compute racks are liquid-cooled and name every CDU of their row
  (``coolit-chx750``, 42U, 750 kW, each in a rack of its own: one at the start
  of the row, the rest at its end). A row gets as many CDUs as its liquid heat
  needs plus one, so the row's group is N+1 (COOL009): two for up to 16 racks,
  three for 32 (806 kW). Only the one-node layout (8 GPUs) is air-cooled, with its
  open units blanked. A rack holds as many switches as keep its air heat
  (the 30 % of node heat the cold plates leave, plus all switch heat) under
  15 kW with 100 W to spare: three QM9700 or two XDR switches beside 4 nodes.
* Every rack has redundant 415 V 3-phase feeds on sides A and B, each side able
  to carry the whole rack: standard IEC 63 A circuits (36.2 kW usable), two a
  side on compute racks, one on CDU racks, each with its own circuit and
  exactly one 0U PDU (``pdu-3ph-415v-63a``, naming its feed; PWR014): left
  rail side A, right rail side B.
* Rows hold 32 compute racks (plus their CDU racks).
* The fabric is rail-optimised InfiniBand: a scalable unit (SU) of nodes has
  one leaf per rail, and rail r of every node of the SU goes to leaf r. Leaves
  are non-blocking (downlink bandwidth == uplink bandwidth) and go to spines;
  spines have no uplinks. When all leaves fit on one spine's ports the spines
  form one 2-tier Clos; otherwise each rail has its own spine plane (the
  nodes join the planes into one fabric, as in rail-optimised designs where
  cross-rail traffic goes over NVLink).

  - up to 1024 nodes (8192 GPUs): built-in ``qm9700`` (1U, 64 x 400G),
    SU = 32 nodes, leaf ports p1..p32 down and p33..p64 up;
  - above: two high-radix switch types defined in the layout's ``[catalog]``
    (``ib-xdr-leaf``: 128 x 400G down, 64 x 800G up; ``ib-xdr-spine``:
    144 x 800G), SU = 128 nodes = one row;
  - a single node (8 GPUs) or up to 8 nodes: one ``qm9700``, no spines.

* Cable media follow the geometry of layout-format.md: ``dac`` inside a rack
  (400G passive copper reaches 2 m, rules v1.1),
  ``mmf`` between racks up to its 50 m reach, ``smf`` beyond. Links carry no
  ``length`` (it is computed). Where the longest computed run exceeds the 5 m
  default of CAB001 (rail-optimised leaves serve a whole SU, spines the whole
  hall), the layout sets ``[rules.thresholds] cable_max`` to cover it, with a
  comment; ``--default-thresholds`` leaves it out.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

PRESETS = (8, 128, 1024, 8192, 100_000)

GPUS_PER_NODE = 8
RAILS = 8
NODES_PER_RACK = 4
RACK_HEIGHT_U = 42
COMPUTE_RACKS_PER_ROW = 32
NODE_MODEL = "sys-421ge-tnhr2-lcc"  # liquid racks: a node type with cold plates
NODE_HEIGHT_U = 4
AIR_NODE_MODEL = "dgx-h100"  # the one-node, air-cooled layout
AIR_NODE_HEIGHT_U = 8
NODE_POSITIONS = (3, 11, 25, 33)  # 3-10, 11-18 | switches 19-24 | 25-32, 33-40
NODE_PORT_SPEED_GBPS = 400
CDU_MODEL = "coolit-chx750"
CDU_CAPACITY_W = 750_000.0
PDU_MODEL = "pdu-3ph-415v-63a"
BLANK_MODEL = "blank-1u"

# Geometry (layout-format.md, "Geometry"); the [site] values written below.
RACK_UNIT_M = 0.04445
RACK_PITCH_M = 0.6
ROW_PITCH_M = 2.4
TRAY_RISE_M = 0.3
SLACK_M = 0.5
CABLE_MAX_DEFAULT_M = 5.0
REACH_DAC_M = 2.0  # rules v1.1: 400G passive copper
# 800G XDR InfiniBand (the synthetic XDR-class uplinks): NVIDIA sells linear active copper
# (MCA4K50, 3 m) and single-mode optics only: no DAC, no multimode (media.toml's XDR band).
REACH_ACC_XDR_M = 3.0
REACH_MMF_M = 50.0  # 400G SR4 on OM4 (no AOC exists at 400G: assets/catalog/media.toml)

# Assumed maximum draw, only to size [site] power_budget / cooling_capacity with
# headroom (the built-in catalog's own figures are what the rules use).
ASSUMED_POWER_W = {
    NODE_MODEL: 9_000.0,
    AIR_NODE_MODEL: 10_200.0,
    "qm9700": 1_720.0,
    "ib-xdr-leaf": 3_000.0,
    "ib-xdr-spine": 3_000.0,
    CDU_MODEL: 6_000.0,
    "ib-ndr-leaf-128": 2_500.0,
    "ib-ndr-spine-128": 2_500.0,
}
LIQUID_FRACTION = 0.7  # the share of the node type's heat its cold plates take
AIR_MAX_W = 15_000.0 - 100.0  # COOL001's default limit, less a margin
BUDGET_HEADROOM = 1.2


@dataclass(frozen=True)
class SwitchModel:
    key: str
    height_u: int
    down_group: str  # downlink ports are down_group1..down_groupN
    down_count: int
    down_speed_gbps: int
    up_group: str  # uplinks are up_group(up_first)..
    up_first: int
    up_count: int
    up_speed_gbps: int
    catalog_toml: str = ""  # a [catalog.KEY] table when the model is not built in


@dataclass(frozen=True)
class SpineModel:
    key: str
    height_u: int
    group: str
    count: int
    speed_gbps: int
    catalog_toml: str = ""


QM9700_LEAF = SwitchModel("qm9700", 1, "p", 32, 400, "p", 33, 32, 400)
QM9700_SINGLE = SwitchModel("qm9700", 1, "p", 64, 400, "p", 65, 0, 400)
QM9700_SPINE = SpineModel("qm9700", 1, "p", 64, 400)

XDR_LEAF = SwitchModel(
    "ib-xdr-leaf",
    2,
    "p",
    128,
    400,
    "up",
    1,
    64,
    800,
    catalog_toml="""\
[catalog.ib-xdr-leaf]
kind = "switch"
name = "Synthetic XDR-class leaf: 128 x 400G down (split ports), 64 x 800G up"
vendor = "synthetic"
height = "2 U"
power = "3 kW"
weight = "30 kg"
airflow = "front-to-rear"
role = "leaf"
ports = [
  { name = "p", count = 128, speed = "400 Gbps", tech = "infiniband" },
  { name = "up", count = 64, speed = "800 Gbps", tech = "infiniband" },
]
""",
)
XDR_SPINE = SpineModel(
    "ib-xdr-spine",
    2,
    "p",
    144,
    800,
    catalog_toml="""\
[catalog.ib-xdr-spine]
kind = "switch"
name = "Synthetic XDR-class spine: 144 x 800G"
vendor = "synthetic"
height = "2 U"
power = "3 kW"
weight = "30 kg"
airflow = "front-to-rear"
role = "spine"
ports = [
  { name = "p", count = 144, speed = "800 Gbps", tech = "infiniband" },
]
""",
)

SWITCH_POSITIONS = {1: (21, 20, 22, 19, 23, 24), 2: (21, 19, 23)}  # in U19-U24, best first

# The spread variant (--spread): 400G everywhere, 128-port switches, spines in rows of their
# own. At 100,352 GPUs: 1,568 leaves + 784 spines = 2,352 switches, 100,352 node cables and
# 100,352 leaf-spine cables = 200,704, leaf-spine runs up to about 500 m of smf.
WIDE_LEAF = SwitchModel(
    "ib-ndr-leaf-128",
    2,
    "p",
    64,
    400,
    "up",
    1,
    64,
    400,
    catalog_toml="""\
[catalog.ib-ndr-leaf-128]
kind = "switch"
name = "Synthetic 128-port NDR-class leaf: 64 x 400G down, 64 x 400G up"
vendor = "synthetic"
height = "2 U"
power = "2.5 kW"
weight = "28 kg"
airflow = "front-to-rear"
role = "leaf"
ports = [
  { name = "p", count = 64, speed = "400 Gbps", tech = "infiniband" },
  { name = "up", count = 64, speed = "400 Gbps", tech = "infiniband" },
]
""",
)
WIDE_SPINE = SpineModel(
    "ib-ndr-spine-128",
    2,
    "p",
    128,
    400,
    catalog_toml="""\
[catalog.ib-ndr-spine-128]
kind = "switch"
name = "Synthetic 128-port NDR-class spine: 128 x 400G"
vendor = "synthetic"
height = "2 U"
power = "2.5 kW"
weight = "28 kg"
airflow = "front-to-rear"
role = "spine"
ports = [
  { name = "p", count = 128, speed = "400 Gbps", tech = "infiniband" },
]
""",
)
SPREAD_ROW_PITCH_M = 4.5  # wide aisles: the spine rows end up about 500 m of cable away
SPINES_PER_NETWORK_RACK = 3  # at U19, U21, U23 (PLC003's middle third), 7.5 kW of air


# --------------------------------------------------------------------------- plan


@dataclass
class Rack:
    id: str
    row: str
    row_index: int
    slot: int
    kind: str  # "compute" | "cdu"
    nodes: list[str] = field(default_factory=list)
    cdu: str | None = None  # liquid racks: the CDU device id
    liquid: bool = False
    # (id, model, position, height in U)
    switches: list[tuple[str, str, int, int]] = field(default_factory=list)
    # Open units closed by `blanking = true` (v1.4) rather than a blank-1u device each
    blanking: bool = False


@dataclass
class Plan:
    gpus: int
    nodes: int
    racks: list[Rack]
    leaf_model: SwitchModel
    spine_model: SpineModel | None
    su_nodes: int
    leaves: int
    spines: int
    planes: str  # "single" | "global" | "per-rail"
    links: list[tuple[str, str, str]]  # (a, b, media)
    max_run_m: float
    max_node_run_m: float
    oversubscription: float
    power_w: float  # estimated, from ASSUMED_POWER_W
    row_pitch_m: float = ROW_PITCH_M
    variant: str = "standard"  # "standard" | "spread"
    storage: bool = False  # a parallel file system and storage fabric a row (add_storage)

    @property
    def devices(self) -> int:
        return sum(_device_count(r) for r in self.racks)

    @property
    def switches(self) -> int:
        return self.leaves + self.spines


def row_name(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA, ... (spreadsheet columns)."""
    name = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        name = chr(65 + rem) + name
    return name


def _centre_m(position: int, height_u: int) -> float:
    return (position - 1 + height_u / 2) * RACK_UNIT_M


def _compute_racks(nodes: int) -> tuple[list[Rack], list[Rack], list[str], list[Rack]]:
    """Rows of compute racks (4 nodes each) with their CDU racks: (every rack, the compute
    racks, node ids in order, each node's rack)."""
    node_ids: list[str] = []
    racks: list[Rack] = []
    compute: list[Rack] = []
    n_racks = math.ceil(nodes / NODES_PER_RACK)
    node_rack: list[Rack] = []
    for row_index, first in enumerate(range(0, n_racks, COMPUTE_RACKS_PER_ROW)):
        row = row_name(row_index)
        prefix = row.lower()
        in_row = min(COMPUTE_RACKS_PER_ROW, n_racks - first)
        counts = [min(NODES_PER_RACK, nodes - (first + j) * NODES_PER_RACK) for j in range(in_row)]
        liquid = nodes >= 2
        # N+1 (COOL009): the row's CDUs less the largest still carry its liquid heat.
        heat = sum(counts) * ASSUMED_POWER_W[NODE_MODEL] * LIQUID_FRACTION
        n_cdus = 0 if not liquid else math.ceil(heat / CDU_CAPACITY_W) + 1
        slot = 1
        cdu_ids = []
        if n_cdus:
            rid = f"{prefix}{slot:02d}"
            cdu_ids.append(f"{rid}-cdu")
            racks.append(Rack(rid, row, row_index, slot, "cdu"))
            slot += 1
        row_compute = []
        for count in counts:
            rid = f"{prefix}{slot:02d}"
            rack = Rack(rid, row, row_index, slot, "compute", liquid=liquid)
            for k in range(count):
                nid = f"{rid}-n{k + 1:02d}"
                rack.nodes.append(nid)
                node_ids.append(nid)
                node_rack.append(rack)
            racks.append(rack)
            row_compute.append(rack)
            slot += 1
        for _ in range(n_cdus - 1):
            rid = f"{prefix}{slot:02d}"
            cdu_ids.append(f"{rid}-cdu")
            racks.append(Rack(rid, row, row_index, slot, "cdu"))
            slot += 1
        for rack in row_compute:
            if rack.liquid:
                # Every rack on the row manifold, served by all of the row's CDUs together.
                rack.cdu = ", ".join(f'"{c}"' for c in cdu_ids)
        compute.extend(row_compute)

    return racks, compute, node_ids, node_rack


def build_plan(gpus: int, oversubscription: float = 1.0) -> Plan:
    if gpus < GPUS_PER_NODE or gpus % GPUS_PER_NODE:
        raise ValueError(f"--gpus must be a positive multiple of {GPUS_PER_NODE}, got {gpus}")
    if oversubscription < 1.0:
        raise ValueError("--oversubscription must be >= 1")
    nodes = gpus // GPUS_PER_NODE

    if nodes * RAILS <= QM9700_SINGLE.down_count:
        leaf_model, spine_model, su_nodes = QM9700_SINGLE, None, nodes
    elif nodes <= 1024:
        leaf_model, spine_model, su_nodes = QM9700_LEAF, QM9700_SPINE, 32
    else:
        leaf_model, spine_model, su_nodes = XDR_LEAF, XDR_SPINE, 128
    single = spine_model is None

    racks, compute, node_ids, node_rack = _compute_racks(nodes)

    # ---- switch placement: free switch slots per compute rack
    used: dict[str, int] = {r.id: 0 for r in compute}
    switch_w = ASSUMED_POWER_W[leaf_model.key]
    if spine_model is not None:
        switch_w = max(switch_w, ASSUMED_POWER_W[spine_model.key])
    room: dict[str, int] = {}  # switches a rack may hold: free positions and air heat
    for rack in compute:
        node_air = len(rack.nodes) * ASSUMED_POWER_W[_node_model(rack)]
        if rack.liquid:
            node_air *= 1 - LIQUID_FRACTION
        room[rack.id] = min(
            len(SWITCH_POSITIONS[leaf_model.height_u]),
            max(0, int((AIR_MAX_W - node_air) // switch_w)),
        )

    def place(rack: Rack, model: str, height: int, role: str) -> str:
        positions = SWITCH_POSITIONS[height]
        k = used[rack.id]
        used[rack.id] = k + 1
        n = sum(1 for s in rack.switches if s[0].rsplit("-", 1)[1].startswith(role)) + 1
        sid = f"{rack.id}-{role}{n}"
        rack.switches.append((sid, model, positions[k], height))
        return sid

    def network_rack() -> Rack:
        first = compute[0]
        slot = max(r.slot for r in racks if r.row_index == first.row_index) + 1
        rack = Rack(f"{first.row.lower()}{slot:02d}", first.row, first.row_index, slot, "compute")
        racks.append(rack)
        used[rack.id] = 0
        room[rack.id] = len(SWITCH_POSITIONS[spine_model.height_u if spine_model else 1])
        return rack

    def take(candidates: list[Rack]) -> Rack | None:
        for rack in candidates:
            if used[rack.id] < room[rack.id]:
                return rack
        return None

    # SUs: consecutive nodes; SU sizes are multiples of 4 and divide a row of 32 racks
    su_count = math.ceil(nodes / su_nodes)
    su_members = [
        list(range(k * su_nodes, min(nodes, (k + 1) * su_nodes))) for k in range(su_count)
    ]
    leaf_ids: list[list[str]] = []  # [su][rail] (single switch: [[id]])
    all_compute_sorted: list[Rack] | None = None
    for members in su_members:
        su_racks = []
        for i in members:
            if not su_racks or su_racks[-1] is not node_rack[i]:
                su_racks.append(node_rack[i])
        row_index = su_racks[0].row_index
        lo, hi = su_racks[0].slot, su_racks[-1].slot
        centre = (lo + hi) / 2
        row_racks = [r for r in compute if r.row_index == row_index]
        # best first: the rack whose farthest SU rack is nearest, then nearest the centre
        row_racks.sort(
            key=lambda r: (max(abs(r.slot - lo), abs(r.slot - hi)), abs(r.slot - centre), r.slot)
        )
        count = 1 if single else RAILS
        ids = []
        for _ in range(count):
            rack = take(row_racks)
            if rack is None:
                if all_compute_sorted is None:
                    all_compute_sorted = list(compute)
                rack = take(
                    sorted(
                        all_compute_sorted,
                        key=lambda r: (abs(r.row_index - row_index), abs(r.slot - centre), r.slot),
                    )
                )
            if rack is None:
                raise ValueError("no room for the leaf switches")
            ids.append(place(rack, leaf_model.key, leaf_model.height_u, "leaf"))
        leaf_ids.append(ids)

    # ---- links: nodes to leaves
    links: list[tuple[str, str, str]] = []
    ends: list[tuple[Rack, int, int, Rack, int, int]] = []  # geometry of each link
    sw_where: dict[str, tuple[Rack, int, int]] = {}
    for rack in compute:
        for sid, _, pos, h in rack.switches:
            sw_where[sid] = (rack, pos, h)
    for k, members in enumerate(su_members):
        for local, i in enumerate(members):
            nid = node_ids[i]
            rack = node_rack[i]
            npos = NODE_POSITIONS[rack.nodes.index(nid)]
            for r in range(1, RAILS + 1):
                if single:
                    sid, port = leaf_ids[k][0], f"{leaf_model.down_group}{local * RAILS + r}"
                else:
                    sid, port = leaf_ids[k][r - 1], f"{leaf_model.down_group}{local + 1}"
                links.append((f"{nid}:ib{r}", f"{sid}:{port}", ""))
                srack, spos, sh = sw_where[sid]
                ends.append((rack, npos, _node_height(rack), srack, spos, sh))
    n_node_links = len(links)

    # ---- spines
    n_spines = 0
    planes = "single"
    if not single:
        assert spine_model is not None
        up_ratio = leaf_model.down_speed_gbps / leaf_model.up_speed_gbps
        uplinks = [math.ceil(len(m) * up_ratio / oversubscription) for m in su_members]
        n_leaves = su_count * RAILS
        if n_leaves <= spine_model.count:
            planes = "global"
            plane_leaves = [[(k, r) for k in range(su_count) for r in range(RAILS)]]
        else:
            planes = "per-rail"
            if su_count > spine_model.count:
                raise ValueError(
                    f"{nodes} nodes need {su_count} leaves per rail, more than a "
                    f"{spine_model.key} has ports ({spine_model.count}); a core tier "
                    "is not implemented"
                )
            plane_leaves = [[(k, r) for k in range(su_count)] for r in range(RAILS)]
        plane_spine_counts = [
            math.ceil(sum(uplinks[k] for k, _ in pl) / spine_model.count) for pl in plane_leaves
        ]
        # place spines nearest the hall's centre, the planes interleaved
        cy = sum(r.row_index for r in compute) / len(compute) * ROW_PITCH_M
        cx = sum(r.slot for r in compute) / len(compute) * RACK_PITCH_M
        central = sorted(
            compute,
            key=lambda r: (
                abs(r.row_index * ROW_PITCH_M - cy) + abs(r.slot * RACK_PITCH_M - cx),
                r.row_index,
                r.slot,
            ),
        )
        spine_ids: list[list[str | None]] = [[None] * n for n in plane_spine_counts]
        order = [
            (p, j)
            for j in range(max(plane_spine_counts))
            for p in range(len(plane_leaves))
            if j < plane_spine_counts[p]
        ]
        cursor = 0
        for p, j in order:
            while cursor < len(central) and used[central[cursor].id] >= room[central[cursor].id]:
                cursor += 1
            if cursor == len(central):
                # Small fabrics: the liquid racks' air budget is spent on leaves (the cold
                # plates leave 30 % of 4 x 9 kW in the air), so the spines get an air-cooled
                # network rack of their own at the end of the first row.
                central.append(network_rack())
            rack = central[cursor]
            sid = place(rack, spine_model.key, spine_model.height_u, "spine")
            spine_ids[p][j] = sid
            sw_where[sid] = rack, rack.switches[-1][2], spine_model.height_u
        n_spines = sum(plane_spine_counts)
        for p, pl in enumerate(plane_leaves):
            s_count = plane_spine_counts[p]
            t = 0
            for k, r in pl:
                lid = leaf_ids[k][r]
                lrack, lpos, lh = sw_where[lid]
                for j in range(uplinks[k]):
                    sid = spine_ids[p][t % s_count]
                    port = t // s_count + 1
                    t += 1
                    links.append(
                        (
                            f"{lid}:{leaf_model.up_group}{leaf_model.up_first + j}",
                            f"{sid}:{spine_model.group}{port}",
                            "",
                        )
                    )
                    srack, spos, sh = sw_where[sid]
                    ends.append((lrack, lpos, lh, srack, spos, sh))

    xdr = leaf_model.up_speed_gbps > 400 and leaf_model.key.startswith("ib-")
    max_run, max_node_run = _media(links, ends, n_node_links, ROW_PITCH_M, xdr)

    power = sum(len(r.nodes) * ASSUMED_POWER_W[_node_model(r)] for r in compute)
    power += su_count * (1 if single else RAILS) * ASSUMED_POWER_W[leaf_model.key]
    if spine_model is not None:
        power += n_spines * ASSUMED_POWER_W[spine_model.key]
    power += sum(1 for r in racks if r.kind == "cdu") * ASSUMED_POWER_W[CDU_MODEL]
    return Plan(
        gpus,
        nodes,
        racks,
        leaf_model,
        spine_model,
        su_nodes,
        su_count * (1 if single else RAILS),
        n_spines,
        planes,
        links,
        max_run,
        max_node_run,
        oversubscription,
        power,
    )


def _node_model(rack: Rack) -> str:
    """Liquid racks hold nodes with cold plates; the air-cooled one-node rack a DGX H100."""
    return NODE_MODEL if rack.liquid else AIR_NODE_MODEL


def _node_height(rack: Rack) -> int:
    return NODE_HEIGHT_U if rack.liquid else AIR_NODE_HEIGHT_U


def build_spread_plan(gpus: int, oversubscription: float = 1.0) -> Plan:
    """The spread variant: 128-port 400G leaves in the compute rows (two per rail per row
    of 128 nodes), spines in network rows of their own after the compute rows, and wide
    aisles, so leaf-spine cables are long single-mode runs. A layout written by someone
    else's generator, for the benchmark's second case."""
    if gpus < GPUS_PER_NODE or gpus % GPUS_PER_NODE:
        raise ValueError(f"--gpus must be a positive multiple of {GPUS_PER_NODE}, got {gpus}")
    if oversubscription < 1.0:
        raise ValueError("--oversubscription must be >= 1")
    nodes = gpus // GPUS_PER_NODE
    if nodes < 2 * WIDE_LEAF.down_count:
        raise ValueError("--spread needs at least 128 nodes (1,024 GPUs)")
    leaf_model, spine_model = WIDE_LEAF, WIDE_SPINE
    su_nodes = NODES_PER_RACK * COMPUTE_RACKS_PER_ROW  # one row
    per_rail = math.ceil(su_nodes / leaf_model.down_count)
    racks, compute, node_ids, node_rack = _compute_racks(nodes)
    rows = max(r.row_index for r in racks) + 1
    su_members = [list(range(k, min(nodes, k + su_nodes))) for k in range(0, nodes, su_nodes)]

    # Leaves: in their SU's row, one per rack, from the middle of the row outwards.
    used: dict[str, int] = {r.id: 0 for r in compute}

    def place(rack: Rack, model: str, height: int, role: str, number: int) -> str:
        sid = f"{rack.id}-{role}{number}"
        rack.switches.append((sid, model, SWITCH_POSITIONS[height][used[rack.id]], height))
        used[rack.id] += 1
        return sid

    leaf_ids: list[list[list[str]]] = []  # [su][rail][k]
    leaf_nodes: dict[str, int] = {}  # leaf -> nodes cabled to it
    for members in su_members:
        su_racks: list[Rack] = []
        for i in members:
            if not su_racks or su_racks[-1] is not node_rack[i]:
                su_racks.append(node_rack[i])
        centre = (su_racks[0].slot + su_racks[-1].slot) / 2
        order = sorted(su_racks, key=lambda r: (abs(r.slot - centre), r.slot))
        slots = [rack for _ in range(2) for rack in order]  # at most two leaves per rack
        rails: list[list[str]] = []
        taken = 0
        for _rail in range(RAILS):
            ids = []
            for k in range(per_rail):
                if k * leaf_model.down_count >= len(members):
                    break
                rack = slots[taken]
                taken += 1
                sid = place(rack, leaf_model.key, leaf_model.height_u, "leaf", used[rack.id] + 1)
                ids.append(sid)
                leaf_nodes[sid] = min(
                    leaf_model.down_count, len(members) - k * leaf_model.down_count
                )
            rails.append(ids)
        leaf_ids.append(rails)

    # Spines: in network rows after the compute rows, three per air-cooled rack.
    up_ratio = leaf_model.down_speed_gbps / leaf_model.up_speed_gbps
    uplinks = {sid: math.ceil(n * up_ratio / oversubscription) for sid, n in leaf_nodes.items()}
    plane_leaves = [[ids for rails in leaf_ids for ids in rails[rail]] for rail in range(RAILS)]
    plane_spines = [
        math.ceil(sum(uplinks[lid] for lid in plane) / spine_model.count) for plane in plane_leaves
    ]
    network: list[Rack] = []
    spine_ids: list[list[str]] = [[] for _ in range(RAILS)]
    order = [(p, j) for j in range(max(plane_spines)) for p in range(RAILS) if j < plane_spines[p]]
    for number, (p, _) in enumerate(order):
        if number % SPINES_PER_NETWORK_RACK == 0:
            index = len(network)
            row_index = rows + index // COMPUTE_RACKS_PER_ROW
            row = row_name(row_index)
            slot = index % COMPUTE_RACKS_PER_ROW + 1
            rack = Rack(f"{row.lower()}{slot:02d}", row, row_index, slot, "network")
            network.append(rack)
            used[rack.id] = 0
        rack = network[-1]
        spine_ids[p].append(
            place(rack, spine_model.key, spine_model.height_u, "spine", used[rack.id] + 1)
        )
    racks.extend(network)

    where: dict[str, tuple[Rack, int, int]] = {}
    for rack in racks:
        for sid, _, pos, h in rack.switches:
            where[sid] = (rack, pos, h)
    links: list[tuple[str, str, str]] = []
    ends: list[tuple[Rack, int, int, Rack, int, int]] = []
    for k, members in enumerate(su_members):
        for local, i in enumerate(members):
            nid = node_ids[i]
            rack = node_rack[i]
            npos = NODE_POSITIONS[rack.nodes.index(nid)]
            leaf, port = divmod(local, leaf_model.down_count)
            for r in range(RAILS):
                sid = leaf_ids[k][r][leaf]
                links.append((f"{nid}:ib{r + 1}", f"{sid}:{leaf_model.down_group}{port + 1}", ""))
                srack, spos, sh = where[sid]
                ends.append((rack, npos, NODE_HEIGHT_U, srack, spos, sh))
    n_node_links = len(links)
    for p, plane in enumerate(plane_leaves):
        spines = spine_ids[p]
        t = 0
        for lid in plane:
            lrack, lpos, lh = where[lid]
            for j in range(uplinks[lid]):
                sid = spines[t % len(spines)]
                port = t // len(spines) + 1
                t += 1
                links.append(
                    (
                        f"{lid}:{leaf_model.up_group}{leaf_model.up_first + j}",
                        f"{sid}:{spine_model.group}{port}",
                        "",
                    )
                )
                srack, spos, sh = where[sid]
                ends.append((lrack, lpos, lh, srack, spos, sh))
    max_run, max_node_run = _media(links, ends, n_node_links, SPREAD_ROW_PITCH_M)
    n_leaves = len(leaf_nodes)
    n_spines = sum(plane_spines)
    power = nodes * ASSUMED_POWER_W[NODE_MODEL]
    power += (
        n_leaves * ASSUMED_POWER_W[leaf_model.key] + n_spines * ASSUMED_POWER_W[spine_model.key]
    )
    power += sum(1 for r in racks if r.kind == "cdu") * ASSUMED_POWER_W[CDU_MODEL]
    return Plan(
        gpus,
        nodes,
        racks,
        leaf_model,
        spine_model,
        su_nodes,
        n_leaves,
        n_spines,
        "per-rail",
        links,
        max_run,
        max_node_run,
        oversubscription,
        power,
        SPREAD_ROW_PITCH_M,
        "spread",
    )


def _media(
    links: list[tuple[str, str, str]],
    ends: list[tuple[Rack, int, int, Rack, int, int]],
    n_node_links: int,
    row_pitch: float,
    xdr_uplinks: bool = False,
) -> tuple[float, float]:
    """Set each link's media from its computed run (dac in a rack, mmf up to its reach, smf
    beyond; switch-to-switch links at 800G XDR acc in a rack, smf else); return the longest
    run and the longest node run."""
    top = RACK_HEIGHT_U * RACK_UNIT_M
    max_run = max_node_run = 0.0
    for i, (ra, pa, ha, rb, pb, hb) in enumerate(ends):
        za, zb = _centre_m(pa, ha), _centre_m(pb, hb)
        if ra is rb:
            run = abs(za - zb) + SLACK_M
            media = "dac"
        else:
            run = (
                (top - za)
                + TRAY_RISE_M
                + abs(ra.slot - rb.slot) * RACK_PITCH_M
                + abs(ra.row_index - rb.row_index) * row_pitch
                + TRAY_RISE_M
                + (top - zb)
                + SLACK_M
            )
            media = "mmf" if run <= REACH_MMF_M else "smf"
        if media == "dac" and run > REACH_DAC_M:
            media = "mmf"
        if xdr_uplinks and i >= n_node_links:
            media = "acc" if ra is rb and run <= REACH_ACC_XDR_M else "smf"
        a, b, _ = links[i]
        links[i] = (a, b, media)
        max_run = max(max_run, run)
        if i < n_node_links:
            max_node_run = max(max_node_run, run)

    return max_run, max_node_run


def _device_count(rack: Rack) -> int:
    if rack.kind == "cdu":
        return 1 + 2
    if rack.kind == "network":
        return len(rack.switches) + 2 + len(_blank_positions(rack))
    n = len(rack.nodes) + len(rack.switches) + 4
    if not rack.liquid:
        n += len(_blank_positions(rack))
    return n


def _blank_positions(rack: Rack) -> list[int]:
    if rack.blanking:
        return []
    taken = set()
    for k in range(len(rack.nodes)):
        taken.update(range(NODE_POSITIONS[k], NODE_POSITIONS[k] + _node_height(rack)))
    for _, _, pos, h in rack.switches:
        taken.update(range(pos, pos + h))
    return [u for u in range(1, RACK_HEIGHT_U + 1) if u not in taken]


# --------------------------------------------------------------------------- storage

# The storage tier (--storage): a storage rack at the end of every row of compute racks with
# two storage leaves (each node's eth1 on one, eth2 on the other: its two 400GbE storage
# ports) and two DDN AI400X2 Turbo appliances (80 GB/s each), four client ports on each leaf.
# Each row is a storage pod of its own (docs/storage.md); at NVIDIA's "good" level a row of
# 128 nodes (1,024 GPUs) asks 60 GB/s of reads, and gets 160 GB/s.
STORAGE_LEAF = "bench-storage-leaf"
STORAGE_APPLIANCE = "ddn-ai400x2t"
STORAGE_APPLIANCES_PER_ROW = 2
STORAGE_LEAF_PORTS = 160
STORAGE_LEAF_POSITIONS = (19, 21)  # 2U each, mid-rack
STORAGE_APPLIANCE_POSITIONS = (3, 5)
ASSUMED_POWER_W[STORAGE_LEAF] = 2_000.0
ASSUMED_POWER_W[STORAGE_APPLIANCE] = 2_500.0
STORAGE_CATALOG = f"""
# Synthetic 2U storage leaf: 160 x 400GbE storage ports (a row's 128 nodes on each of two).
[catalog.{STORAGE_LEAF}]
kind = "switch"
name = "Storage leaf, 160 x 400GbE (synthetic, bench)"
height = "2 U"
power = "2 kW"
airflow = "front-to-rear"
psus = 2
psus_required = 1
input_voltage = ["200 V", "240 V"]
psu_inlet = "c14"
ports = [
    {{ name = "p", count = {STORAGE_LEAF_PORTS}, speed = "400 Gbps", tech = "ethernet", role = "storage" }},
]

# The appliances ordered with 400GbE client ports, the storage leaves'.
[catalog.{STORAGE_APPLIANCE}]
ports = [
    {{ name = "ib", count = 8, speed = "400 Gbps", tech = "ethernet", role = "storage" }},
    {{ name = "mgmt", count = 1, speed = "1 Gbps", tech = "ethernet", role = "management" }},
]
"""  # noqa: E501 (a TOML inline table is one line)


def add_storage(plan: Plan) -> None:
    """A storage rack a row (its leaves and appliances) and the storage cables, in place."""
    rows: dict[int, list[Rack]] = {}
    for rack in plan.racks:
        if rack.nodes:
            rows.setdefault(rack.row_index, []).append(rack)
    links: list[tuple[str, str, str]] = []
    ends: list[tuple[Rack, int, int, Rack, int, int]] = []
    for row_index, compute in sorted(rows.items()):
        first = compute[0]
        slot = max(r.slot for r in plan.racks if r.row_index == row_index) + 1
        # Its open units blanked as rackdesigner new writes a storage rack (blanking = true),
        # not 34 blank-1u devices a rack.
        rack = Rack(
            f"{first.row.lower()}{slot:02d}", first.row, row_index, slot, "network", blanking=True
        )
        leaves = [f"{rack.id}-sleaf{k + 1}" for k in range(2)]
        for leaf, pos in zip(leaves, STORAGE_LEAF_POSITIONS, strict=True):
            rack.switches.append((leaf, STORAGE_LEAF, pos, 2))
        used = [0, 0]
        for k, pos in enumerate(STORAGE_APPLIANCE_POSITIONS[:STORAGE_APPLIANCES_PER_ROW]):
            appliance = f"{rack.id}-pfs{k + 1}"
            rack.switches.append((appliance, STORAGE_APPLIANCE, pos, 2))
            for port in range(8):
                side = port // 4
                used[side] += 1
                links.append((f"{appliance}:ib{port + 1}", f"{leaves[side]}:p{used[side]}", ""))
                ends.append((rack, pos, 2, rack, STORAGE_LEAF_POSITIONS[side], 2))
        for node_rack in compute:
            for k, node in enumerate(node_rack.nodes):
                pos, height = NODE_POSITIONS[k], _node_height(node_rack)
                for side in range(2):
                    used[side] += 1
                    links.append((f"{node}:eth{side + 1}", f"{leaves[side]}:p{used[side]}", ""))
                    ends.append((node_rack, pos, height, rack, STORAGE_LEAF_POSITIONS[side], 2))
        plan.racks.append(rack)
        plan.power_w += 2 * ASSUMED_POWER_W[STORAGE_LEAF]
        plan.power_w += STORAGE_APPLIANCES_PER_ROW * ASSUMED_POWER_W[STORAGE_APPLIANCE]
    longest, _ = _media(links, ends, 0, plan.row_pitch_m)
    plan.max_run_m = max(plan.max_run_m, longest)
    plan.links.extend(links)
    plan.storage = True


# --------------------------------------------------------------------------- text


def _quantity(watts: float) -> str:
    """A budget with a readable unit, rounded up."""
    if watts >= 10e6:
        return f"{math.ceil(watts / 1e6)} MW"
    if watts >= 1e6:
        return f"{math.ceil(watts / 1e5) / 10:g} MW"
    return f"{math.ceil(watts / 1e4) * 10} kW"


def _chain_text(plan: Plan) -> str:
    """(v1.4, --power-chain) A 2N power chain behind the feeds: one utility, per side a
    generator, an ATS (utility, then generator) and a switchboard, per row and side a UPS
    and a busway every feed of the row's side taps off. Ratings are generous (the bench
    measures the checks' cost, not a design): 3 MW UPSs, 6,000 A busways."""
    out = ['\n[[power.elements]]\nid = "utility-1"\nkind = "utility"\ncapacity = "500 MW"\n']
    for side in "ab":
        out.append(
            f'\n[[power.elements]]\nid = "gen-{side}"\nkind = "generator"\n'
            'capacity = "500 MW"\n'
            f'\n[[power.elements]]\nid = "ats-{side}"\nkind = "ats"\n'
            f'fed_by = ["utility-1", "gen-{side}"]\ncapacity = "500 MW"\n'
            f'\n[[power.elements]]\nid = "swbd-{side}"\nkind = "switchgear"\n'
            f'fed_by = ["ats-{side}"]\ncapacity = "500 MW"\n'
        )
    for row in dict.fromkeys(rack.row for rack in plan.racks):
        for side in "ab":
            out.append(
                f'\n[[power.elements]]\nid = "ups-{row}-{side}"\nkind = "ups"\n'
                f'fed_by = ["swbd-{side}"]\ncapacity = "3 MW"\nvoltage = "415 V"\n'
                f'\n[[power.elements]]\nid = "busway-{row}-{side}"\nkind = "busway"\n'
                f'fed_by = ["ups-{row}-{side}"]\ncurrent = "6000 A"\npositions = 200\n'
            )
    return "".join(out)


# (v1.4) The facility loop --loops writes: W32 water (judged at 32 °C), a plant as large as
# its CDUs together (750 kW each) and the water flow that carries it with a 10 K rise
# (4.154 MJ/m³K, docs/liquid-cooling.md).
WATER_J_PER_M3K = 994.1 * 4179.0


def with_loops(text: str, plan: Plan) -> str:
    """``text`` with a ``[[cooling.loops]]`` table feeding every CDU, written where the
    canonical form puts it: after the racks, before the links."""
    cdus = [f"{r.id}-cdu" for r in plan.racks if r.kind == "cdu"]
    if not cdus:
        return text
    capacity = len(cdus) * CDU_CAPACITY_W
    lpm = math.ceil(capacity / (WATER_J_PER_M3K * 10.0) * 60000 / 10) * 10
    table = (
        '\n[[cooling.loops]]\nid = "fws-1"\nashrae_class = "W32"\n'
        f'capacity = "{capacity / 1e3:g} kW"\nflow = "{lpm} L/min"\n'
        "devices = [" + ", ".join(f'"{c}"' for c in cdus) + "]\n"
    )
    at = text.find("\n[[links]]\n")
    return text + table if at < 0 else text[:at] + table + text[at:]


def render(
    plan: Plan, default_thresholds: bool = False, chain: bool = False, pathways: bool = False
) -> str:
    out: list[str] = []
    w = out.append
    lm, sm = plan.leaf_model, plan.spine_model
    fabric = {
        "single": "one switch",
        "global": "rail-optimised 2-tier Clos",
        "per-rail": "rail-optimised, one 2-tier spine plane per rail",
    }[plan.planes]
    if plan.variant == "spread":
        fabric += ", 128-port leaves in the compute rows, spines in rows of their own"
    ratio = "1:1" if plan.oversubscription == 1 else f"{plan.oversubscription:g}:1"
    w("format = 1\n")
    w(f'name = "bench-{plan.gpus}-gpus"\n')
    w(
        f'description = "Synthetic benchmark layout: {plan.gpus} x H100 SXM in {plan.nodes} '
        f"liquid-cooled HGX H100 nodes, NDR400 InfiniBand ({fabric}, {ratio}); made by "
        'bench/generate.py"\n'
    )
    w("\n[site]\n")
    budget = _quantity(plan.power_w * BUDGET_HEADROOM)
    w(f'power_budget = "{budget}"\n')
    w(f'cooling_capacity = "{budget}"\n')
    w(
        f'rack_pitch = "600 mm"\nrow_pitch = "{plan.row_pitch_m:g} m"\ntray_rise = "0.3 m"\n'
        'slack = "0.5 m"\n'
    )
    w("\n[workload]\n")
    w(
        'kind = "training"\nmodel_params = 70e9\nparallelism = "fsdp"\n'
        "steps_per_second = 0.5\nbytes_per_param = 2\n"
    )
    if plan.storage:
        w('storage_level = "good"\n')
    if plan.max_run_m > CABLE_MAX_DEFAULT_M and not default_thresholds:
        w("\n[rules.thresholds]\n")
        w(
            "# Rail-optimised: a leaf serves every rack of its scalable unit and a spine every\n"
            "# leaf of its plane, so some runs exceed the 5 m default. They are optical\n"
            "# (mmf, smf)\n"
            "# and bounded by the media's reach (CAB003); this covers the longest computed run.\n"
        )
        w(f'cable_max = "{math.ceil(plan.max_run_m)} m"\n')
    for model in (lm, sm):
        if model is not None and model.catalog_toml:
            w("\n")
            w(model.catalog_toml)
    if plan.storage:
        w(STORAGE_CATALOG)

    if chain:
        w(_chain_text(plan))
    feed = (
        '  {{ id = "{r}-{f}", side = "{s}", circuit = "RPP-{row}-{f}{slot:02d}", '
        'voltage = "415 V", phases = 3, current = "63 A"'
        + (', source = "busway-{row}-{side}"' if chain else "")
        + " }},\n"
    )
    for rack in plan.racks:
        rid = rack.id
        w("\n[[racks]]\n")
        w(f'id = "{rid}"\nrow = "{rack.row}"\nslot = {rack.slot}\nheight = "{RACK_HEIGHT_U} U"\n')
        if rack.liquid:
            w(f'cooling = "liquid"\ncdu = [{rack.cdu}]\n')
        else:
            w('cooling = "air"\n')
        if rack.blanking:
            w("blanking = true\n")
        # Standard 63 A circuits, one PDU each: two a side on compute racks.
        names = ("A1", "A2", "B1", "B2") if rack.kind == "compute" else ("A", "B")
        w("feeds = [\n")
        for name in names:
            w(
                feed.format(
                    r=rid, f=name, s=name[0], row=rack.row, slot=rack.slot, side=name[0].lower()
                )
            )
        w("]\n")
        for name in names:
            side = "left" if name[0] == "A" else "right"
            w(
                f'\n[[racks.devices]]\nid = "{rid}-pdu-{name.lower()}"\n'
                f'model = "{PDU_MODEL}"\nside = "{side}"\nfeed = "{rid}-{name}"\n'
            )
        if rack.kind == "cdu":
            w(f'\n[[racks.devices]]\nid = "{rid}-cdu"\nmodel = "{CDU_MODEL}"\nposition = 1\n')
            continue
        model = _node_model(rack)
        items = [(NODE_POSITIONS[k], nid, model) for k, nid in enumerate(rack.nodes)]
        items += [(pos, sid, model) for sid, model, pos, _ in rack.switches]
        if not rack.liquid:
            items += [(u, f"{rid}-blank{u:02d}", BLANK_MODEL) for u in _blank_positions(rack)]
        items.sort()
        for pos, did, model in items:
            w(f'\n[[racks.devices]]\nid = "{did}"\nmodel = "{model}"\nposition = {pos}\n')

    if pathways:
        _render_pathways(plan, w)
    for a, b, media in plan.links:
        w(f'\n[[links]]\na = "{a}"\nb = "{b}"\nmedia = "{media}"\n')
    return "".join(out)


# --pathways (v1.4): trays over every row and cross-aisle runs joining them, as `rackdesigner
# new` writes them (design/cable_plant.py): at both row ends and every 8 racks between.
# 900 x 150 mm trays (the widest common size at a ladder rack's depth); the fill is what
# CAB006 finds, not a target of the benchmark.
PATHWAY_CROSS_EVERY = 8


def _render_pathways(plan: Plan, w: Callable[[str], object]) -> None:
    rows: dict[str, int] = {}
    for rack in plan.racks:
        rows[rack.row] = max(rows.get(rack.row, 0), rack.slot)
    last = max(rows.values())
    size = 'width = "900 mm"\ndepth = "150 mm"\n'
    for row in rows:
        w(f'\n[[pathways]]\nid = "tray-{row.lower()}"\nrow = "{row}"\nslots = [0, {last + 1}]\n')
        w(size)
    if len(rows) < 2:
        return
    first, final = next(iter(rows)), list(rows)[-1]
    crossings = [0.0, *(k + 0.5 for k in range(PATHWAY_CROSS_EVERY, last, PATHWAY_CROSS_EVERY))]
    for position in [*crossings, float(last + 1)]:
        name = f"{position:g}".replace(".", "_")
        w(
            f'\n[[pathways]]\nid = "cross-{name}"\nrows = ["{first}", "{final}"]\n'
            f"slot = {position:g}\n"
        )
        w(size)


def generate_layout_text(
    gpus: int,
    oversubscription: float = 1.0,
    default_thresholds: bool = False,
    spread: bool = False,
    pathways: bool = False,
) -> str:
    """The layout for ``gpus`` GPUs as TOML text (format v1); ``spread``: the variant with
    spines in rows of their own (:func:`build_spread_plan`); ``pathways`` (v1.4): with trays
    over the rows and cross-aisle runs."""
    plan = (build_spread_plan if spread else build_plan)(gpus, oversubscription)
    return render(plan, default_thresholds, pathways)


def describe(plan: Plan, text: str) -> dict[str, object]:
    return {
        "gpus": plan.gpus,
        "nodes": plan.nodes,
        "racks": len(plan.racks),
        "compute_racks": sum(1 for r in plan.racks if r.kind == "compute"),
        "cdu_racks": sum(1 for r in plan.racks if r.kind == "cdu"),
        "rows": len({r.row for r in plan.racks}),
        "devices": plan.devices,
        "switches": plan.switches,
        "leaves": plan.leaves,
        "spines": plan.spines,
        "fabric": plan.planes,
        "variant": plan.variant,
        "links": len(plan.links),
        "bytes": len(text.encode()),
        "lines": text.count("\n"),
        "max_run_m": round(plan.max_run_m, 2),
        "max_node_run_m": round(plan.max_node_run_m, 2),
    }


def _write(path: str, text: str) -> None:
    """Write text to path, leaving an identical file untouched."""
    data = text.encode("utf-8")
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        pass
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Generate synthetic rackdesigner layouts for benchmarks.",
        epilog="presets: " + ", ".join(map(str, PRESETS)),
    )
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--gpus", type=int, help="GPU count, a multiple of 8 (8 .. 100000+)")
    what.add_argument("--all", metavar="DIR", help="write every preset as DIR/gpus-N.toml")
    ap.add_argument("-o", "--output", metavar="FILE", help="output file (default: stdout)")
    ap.add_argument(
        "--oversubscription",
        type=float,
        default=1.0,
        metavar="R",
        help="leaf downlink:uplink bandwidth ratio (default 1 = non-blocking; "
        "4 gives ~870 switches and ~112k links at 100k GPUs, but NET002 "
        "findings for training)",
    )
    ap.add_argument(
        "--default-thresholds",
        action="store_true",
        help="do not write [rules.thresholds] cable_max (expect CAB001 findings)",
    )
    ap.add_argument(
        "--spread",
        action="store_true",
        help="the variant with 128-port 400G leaves in the compute rows and spines in rows "
        "of their own, 4.5 m apart: at 100,352 GPUs 2,352 switches, 200,704 cables and "
        "leaf-spine runs up to about 500 m of smf",
    )
    ap.add_argument(
        "--power-chain",
        action="store_true",
        help="(v1.4) declare a 2N power chain behind the feeds (a UPS and a busway per row "
        "and side)",
    )
    ap.add_argument(
        "--loops",
        action="store_true",
        help="(v1.4) declare a W32 facility water loop feeding every CDU, sized for them all",
    )
    ap.add_argument(
        "--storage",
        action="store_true",
        help="a parallel file system a row: a storage rack with two storage leaves and two "
        "DDN AI400X2 Turbo, every node's two storage ports cabled (docs/storage.md)",
    )
    ap.add_argument(
        "--pathways",
        action="store_true",
        help="(v1.4) declare cable pathways: a tray over each row, cross-aisle runs at the "
        "row ends and every 8 racks (cables are routed along them)",
    )
    ap.add_argument("--stats", action="store_true", help="print counts and timing to stderr")
    args = ap.parse_args(argv)

    jobs = (
        [(g, os.path.join(args.all, f"gpus-{g}.toml")) for g in PRESETS]
        if args.all
        else [(args.gpus, args.output)]
    )
    for gpus, path in jobs:
        t0 = time.perf_counter()
        try:
            plan = (build_spread_plan if args.spread else build_plan)(gpus, args.oversubscription)
        except ValueError as e:
            ap.error(str(e))
        if args.storage:
            add_storage(plan)
        text = render(plan, args.default_thresholds, args.power_chain, args.pathways)
        if args.loops:
            text = with_loops(text, plan)
        elapsed = time.perf_counter() - t0
        if path:
            _write(path, text)
        else:
            sys.stdout.write(text)
        if args.stats or args.all:
            info = describe(plan, text)
            info["seconds"] = round(elapsed, 3)
            print(
                " ".join(f"{k}={v}" for k, v in info.items()) + (f" -> {path}" if path else ""),
                file=sys.stderr,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
