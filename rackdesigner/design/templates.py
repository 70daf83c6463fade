"""Complete layouts from a few parameters: ``rackdesigner new`` (fabrics.md, "Templates").

:func:`build` turns :class:`NewOptions` into a layout: racks of GPU nodes filled up to the
cooling limit (a rear door's capacity, 15 kW of air, or a CDU's share) and the power a rack's
feeds can carry, the fabric the generators build, then feeds, PDUs and blanking panels sized
for each rack's final load. Every figure comes from the catalog; nothing here is checked by
hand: the command validates the result with the rules.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rackdesigner.analysis.cords import INLET_OF
from rackdesigner.analysis.power_sides import (
    INLET_RATING,
    SQRT3,
    feed_power,
    psu_draw,
    psus_kept,
)
from rackdesigner.analysis.rack_scale import SU_DOMAINS
from rackdesigner.design import nvl_networks
from rackdesigner.design.generators import FabricPlan, FabricRequest, GenerateError, generate
from rackdesigner.design.generators.apply import apply_plan
from rackdesigner.design.generators.base import (
    catalog_entry,
    default_switch,
    fabric_group,
    switch_model,
)
from rackdesigner.design.liquid_plan import LoopPlan, plan_loops, plan_text
from rackdesigner.design.model_flow import guide_flow
from rackdesigner.design.storage_fabric import (
    DEFAULT_APPLIANCE,
    POD_SUS,
    StorageCounts,
    StorageRequest,
    appliance_count,
    pfs_appliance,
    plan_storage,
    storage_group,
)
from rackdesigner.layout_io.catalog import Catalog, builtin, standard_circuits
from rackdesigner.layout_io.catalog import for_layout as catalog_for
from rackdesigner.model.layout import (
    Device,
    DeviceType,
    Feed,
    Layout,
    PortGroup,
    Q,
    Rack,
    Site,
    Workload,
)
from rackdesigner.model.wording import a_form_factor, plural

DERATE = 0.8
MAX_FEEDS_PER_SIDE = 2
SIDES = "ABCD"
MAX_SIDES = len(SIDES)
SINGLE_PHASE_MAX = 8e3  # W: rules v1.1 single_phase_max
RACK_HEIGHT = 42
RACKS_PER_ROW = 32
MIN_GPUS, MAX_GPUS = 8, 131_072
NVL_SU_RACKS = SU_DOMAINS  # DGX SuperPOD GB200 RA: an SU is 8 DGX GB200 racks (576 GPUs)
NVL_RACK_GPUS = 72
NVL_MAX_SUS = MAX_GPUS // (NVL_SU_RACKS * NVL_RACK_GPUS)
DOOR_MODEL = "rear-door-hx"
CDU_MODEL = "coolit-chx750"
CDU_MODELS = ("coolit-chx80", "coolit-chx750")  # smallest first
CDUS_PER_ROW = 2  # N+1 (COOL009): either CDU carries the row's loop alone
DEFAULT_GPU = "h100-sxm"
DEFAULT_SWITCH = "qm9700"  # fabrics.md: InfiniBand 400G switches default to the QM9700
AIR_MAX = 15e3  # W: rules v1.1 air_cooling_max (COOL001)
LEAVES_PER_LIQUID_RACK = 2
# Nodes a rack where an NVIDIA RA racks them fuller than the generator's rule (4 U left for
# switches): the DGX SuperPOD B300 XDR RA (RA-11339), Architecture, puts "four DGX B300
# within a single rack ... ~56kW ... each with three (3) 2U rack PDUs" (4 x 10 U = 40 U;
# the PDUs here are 0 U), its leaves and spines in racks of their own.
RA_NODES_PER_RACK = {"dgx-b300": 4}
# Feed sides where an RA gives a rack more PDUs than its PSUs need: the B300 XDR RA's three
# PDUs a rack ("for maximum redundancy"), a feed each: 4 x 14.5 kW = 58 kW on three 415 V
# 63 A sides (415 x 63 x 0.8 x sqrt 3 = 36.2 kW usable each) is 29 kW a side with one lost.
RA_SIDES = {"dgx-b300": 3}
# The catalog's PDUs by supply (line-to-line V, phases). A feed gets a standard breaker
# rating for its region (circuits.toml) at which one of these PDUs' plugs is rated
# (`input_current`), and exactly one PDU (PWR014): the circuit sizes `new` uses are the
# ratings both lists share. No rack PDU steps 480 V down to 240 V: the 480 V PDU has 277 V
# outlets (wye), for PSUs rated to 277 V only.
IEC_3PH_PDUS = ("pdu-3ph-415v-16a", "pdu-3ph-415v-32a", "pdu-3ph-415v-63a")
PDUS: dict[tuple[float, int], tuple[str, ...]] = {
    (415.0, 3): IEC_3PH_PDUS,
    (400.0, 3): IEC_3PH_PDUS,
    (380.0, 3): IEC_3PH_PDUS,
    (208.0, 3): ("pdu-3ph-208v-30a", "pdu-3ph-208v-50a", "pdu-3ph-208v-60a"),
    (208.0, 1): ("pdu-1ph-208v-30a",),
    (480.0, 3): ("pdu-3ph-480v-60a",),
}


@dataclass(frozen=True, slots=True)
class Circuit:
    """A circuit size ``new`` may give a feed: a standard rating and the PDU made for it."""

    current: int  # A, the breaker rating
    pdu: str  # catalog key of the PDU whose plug is rated ``current``
    capacity: float  # W one feed and its PDU carry: min(V × I × derate (× √3), PDU rating)


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    summary: str
    settings: dict[str, object] = field(default_factory=dict)


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template(
            "small",
            "16 x H100 SXM in 2 DGX H100 (rear door), cabled directly port to port (no switch)",
            {"gpus": 16, "fabric": "direct", "cooling": "rear-door"},
        ),
        Template(
            "medium",
            "64 x H100 SXM in 8 DGX H100 on two QM9700 leaves (each node on both) and two "
            "spines (full bisection, no single point of failure)",
            {"gpus": 64, "fabric": "leaf-spine", "cooling": "rear-door"},
        ),
        Template(
            "large",
            "256 x H100 SXM in 32 DGX H100 on a balanced Dragonfly+ (2 groups)",
            {"gpus": 256, "fabric": "dragonfly", "cooling": "rear-door"},
        ),
        Template(
            "training-128",
            "the guide's training cluster: 128 x H100 SXM in 16 liquid-cooled HGX H100 "
            "(SYS-421GE-TNHR2-LCC, N+1 CDUs), NDR400 rail fabric 1:1",
            {"gpus": 128, "fabric": "rail", "workload": "training", "model_params": 70e9},
        ),
        Template(
            "inference-32",
            "the guide's inference cluster: 32 x B200 in 4 DGX B200 on 200 Gb/s HDR "
            "InfiniBand, QM8700 leaves (each node on both) and spines at 2:1, rear doors",
            {
                "gpus": 32,
                "gpu": "b200",
                "fabric": "leaf-spine",
                "workload": "inference",
                "cooling": "rear-door",
                "link_speed": 200e9,
                "oversubscription": 2.0,
            },
        ),
        Template(
            "superpod",
            "DGX H100 SuperPOD: --sus N scalable units of 32 DGX H100, rail-optimised NDR400, "
            "an NDR400 storage fabric (QM9700) to the parallel file system",
            {"fabric": "rail", "su_nodes": 32, "node": "dgx-h100", "storage_switch": "qm9700"},
        ),
        Template(
            "gb200-superpod",
            "DGX SuperPOD GB200: --sus N scalable units of 8 NVL72 racks (576 GPUs), one "
            "NVLink domain a rack, power shelves on 415 V feeds, N+1 CDUs, rail-optimised NDR400",
            {"node": "gb200-compute-tray", "fabric": "rail"},
        ),
        Template(
            "gb300-superpod",
            "GB300 NVL72 SuperPOD: --sus N scalable units of 8 NVL72 racks (576 GPUs), as "
            "gb200-superpod with GB300 trays, their ConnectX-8 at 800G XDR on Quantum-X800 "
            "Q3400 leaves and spines",
            {"node": "gb300-compute-tray", "fabric": "rail"},
        ),
    )
}
# The rack-scale templates (docs/rack-scale.md): an SU is 8 NVL72 racks.
RACK_SCALE_TEMPLATES = ("gb200-superpod", "gb300-superpod")


@dataclass(slots=True)
class NewOptions:
    gpus: int | None = None
    gpu: str | None = None
    node: str | None = None
    gpus_per_node: int | None = None
    cooling: str | None = None
    fabric: str | None = None
    leaf: str | None = None
    spine: str | None = None
    core: str | None = None
    oversubscription: float = 1.0
    # bit/s the compute links run at; None: the nodes' ports' rate. Picks the leaf (and so
    # the spines) that runs it; nodes faster than it run at it (a ConnectX-7 at HDR 200G).
    link_speed: float | None = None
    su_nodes: int | None = None  # None: half the leaf's ports (the rail generator's SU)
    voltage: float = 415.0
    voltage_text: str = "415 V"
    phases: int = 3
    workload: str = "training"
    model_params: float | None = None
    strict_cables: bool = False
    rail_planes: bool = False
    redundant: bool | None = None  # None: the generators' default (on for 2+ nodes)
    template: str | None = None
    sus: int | None = None
    name: str | None = None
    # (v1.4) the power chain behind the feeds (design/power_chain.py), and the transient
    # peak factor it is sized for ([workload] peak_factor; None: none declared)
    power_redundancy: str = "2n"
    peak_factor: float | None = None
    # (v1.4) The parallel file system and its storage fabric (docs/storage.md): None builds
    # them for training and fine-tuning; the level they are sized to, the appliance, how many
    # (None: the fewest that meet the level) and the storage switch (None: the default for
    # the nodes' storage ports).
    storage: bool | None = None
    storage_level: str = "good"
    storage_model: str | None = None
    storage_appliances: int | None = None
    storage_switch: str | None = None
    storage_pod_sus: int = POD_SUS  # SUs a storage pod (a storage fabric of its own) spans

    @property
    def wants_storage(self) -> bool:
        if self.storage is not None:
            return self.storage
        return self.workload in ("training", "fine-tuning")

    # (v1.4) p2p: every link one cable; structured: switch-to-switch fibre through patch
    # panels and trunks (design/cable_plant.py)
    cabling: str = "p2p"


@dataclass(slots=True)
class Built:
    layout: Layout
    plan: FabricPlan
    node_type: DeviceType
    nodes: int
    racks: int
    summary: str
    notes: tuple[str, ...] = ()  # what the command chose for the user, said once


def with_template(options: NewOptions) -> NewOptions:
    """``options`` with the template's settings where the command line left the default."""
    if options.template is None:
        return options
    template = TEMPLATES.get(options.template)
    if template is None:
        raise GenerateError(
            f"unknown template {options.template!r}: choose one of {', '.join(TEMPLATES)} "
            "(rackdesigner new --list)"
        )
    changes: dict[str, object] = {}
    defaults = NewOptions()
    for key, value in template.settings.items():
        if getattr(options, key) == getattr(defaults, key):
            changes[key] = value
    if template.name == "superpod":
        if options.gpus is not None:
            raise GenerateError(
                "--template superpod counts scalable units: give --sus N, not --gpus"
            )
        sus = options.sus or 1
        if sus < 1:
            raise GenerateError(f"--sus must be at least 1, got {sus}")
        changes["gpus"] = sus * 32 * 8
    elif template.name in RACK_SCALE_TEMPLATES:
        if options.gpus is not None:
            raise GenerateError(
                f"--template {template.name} counts scalable units: give --sus N, not --gpus"
            )
        sus = options.sus if options.sus is not None else 1
        if not 1 <= sus <= NVL_MAX_SUS:
            raise GenerateError(f"--sus must be from 1 to {NVL_MAX_SUS}, got {sus}")
        changes["sus"] = sus
        changes["gpus"] = sus * NVL_SU_RACKS * NVL_RACK_GPUS
    elif options.sus is not None:
        raise GenerateError("--sus is for --template superpod, gb200-superpod or gb300-superpod")
    return replace(options, **changes)


def _node_type(catalog: Catalog, options: NewOptions, cooling: str | None) -> DeviceType:
    """The GPU node the layout is built of: ``--node`` checked against the other options,
    else the catalog's node of ``--gpus-per-node`` x ``--gpu`` for the cooling."""
    if options.node is not None:
        return _named_node(catalog, options.node, options)
    return _node_for_gpu(catalog, options.gpu or DEFAULT_GPU, options.gpus_per_node or 8, cooling)


def _named_node(catalog: Catalog, key: str, options: NewOptions) -> DeviceType:
    """``--node KEY``: a GPU node of the catalog that agrees with ``--gpus-per-node`` and
    ``--gpu``, whose chassis can hold its GPU (CMP008)."""
    dtype = catalog_entry(catalog, key, "node")
    if dtype.kind != "gpu-node":
        raise GenerateError(f"--node {key} is a {dtype.kind or 'device'}, not a GPU node")
    if options.gpus_per_node is not None and dtype.gpus != options.gpus_per_node:
        raise GenerateError(
            f"--node {key} holds {dtype.gpus} GPUs, not --gpus-per-node {options.gpus_per_node}"
        )
    if options.gpu is not None and dtype.gpu is not None and dtype.gpu != options.gpu:
        raise GenerateError(f"--node {key} carries {dtype.gpu}, not {options.gpu}")
    if dtype.gpu is None and options.gpu is None:
        raise GenerateError(f"--node {key} takes the GPU a layout sets: add --gpu (e.g. h100-pcie)")
    gpu = catalog.gpus.get(dtype.gpu or options.gpu or "")
    if gpu is not None and _form_factors_differ(dtype, gpu.form_factor):
        # CMP008: the layout could not be built (an SXM module in a PCIe slot).
        chassis = dtype.form_factor or ""
        raise GenerateError(
            f"--node {key} is {a_form_factor(chassis)} chassis and {gpu.key} "
            f"{a_form_factor(gpu.form_factor or '')} GPU: it cannot be built; choose "
            f"{a_form_factor(chassis)} GPU (CMP008)"
        )
    return dtype


def _node_for_gpu(catalog: Catalog, gpu: str, count: int, cooling: str | None) -> DeviceType:
    """The catalog's first GPU node of ``count`` x ``gpu``: with cold plates where the
    cooling is liquid or left to choose and one has them, else one without."""
    if gpu not in catalog.gpus:
        near = catalog.nearest_gpu(gpu)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise GenerateError(f"--gpu {gpu}: no such GPU in the catalog{hint}")
    matches = [d for d in catalog.devices.values() if d.kind == "gpu-node" and d.gpu == gpu]
    sized = [d for d in matches if d.gpus == count]
    if not sized:
        have = sorted({f"{d.gpus} ({d.key})" for d in matches})
        raise GenerateError(
            f"no GPU node in the catalog holds {count} x {gpu}"
            + (f"; it has {', '.join(have)}" if have else "")
            + " (rackdesigner catalog lists them; --node picks one)"
        )
    return _node_for_cooling(sized, cooling, f"{count} x {gpu}")


def _node_for_cooling(sized: list[DeviceType], cooling: str | None, what: str) -> DeviceType:
    """Of the nodes that fit (``what``: "8 x h100-sxm"), the first with cold plates where
    the cooling is liquid or left open and one has them, else the first without."""
    plated = [d for d in sized if (d.liquid_fraction or 0.0) > 0]
    if cooling == "liquid" and not plated:
        raise GenerateError(
            f"--cooling liquid: no {what} node in the catalog has cold plates "
            f"({', '.join(d.key for d in sized)} are air-cooled); use rear-door or air"
        )
    # fabrics.md: liquid where the node type has cold plates, so without --cooling a GPU
    # that has a cold-plate node gets it (and liquid racks); under air or a rear door a
    # cold-plate node would need its loop, so those take the first node without one.
    if cooling in (None, "liquid") and plated:
        return plated[0]
    air = [d for d in sized if not (d.liquid_fraction or 0.0) > 0]
    return (air or sized)[0]


def _form_factors_differ(dtype: DeviceType, gpu_form_factor: str | None) -> bool:
    """The chassis and its GPU both give a form factor, and not the same one."""
    return (
        dtype.form_factor is not None
        and gpu_form_factor is not None
        and dtype.form_factor != gpu_form_factor
    )


def _power(dtype: DeviceType, catalog: Catalog) -> float:
    if dtype.power is not None:
        return float(dtype.power)
    gpu = catalog.gpus.get(dtype.gpu or "")
    if gpu is None or not gpu.tdp or not dtype.gpus:
        return 0.0
    return float(gpu.tdp) * dtype.gpus * 1.8  # host_overhead 0.8 (PWR006's estimate)


def leaf_for_speed(catalog: Catalog, dtype: DeviceType, options: NewOptions) -> str | None:
    """The leaf that runs ``options.link_speed`` (None: the generator's default for the
    nodes' ports, or ``--leaf``): the default switch of the nodes' technology at that rate
    (qm8700 at 200G InfiniBand), else the first catalog switch that runs it. A rate above
    the nodes' ports, or a ``--leaf`` at another rate, is refused."""
    speed = options.link_speed
    if speed is None:
        return options.leaf
    group = fabric_group(dtype)
    if group is None:
        return options.leaf  # the generator says the node has no compute ports
    shown = f"{speed / 1e9:g} Gbps"
    if speed > float(group.speed or 0.0) + 1e-3:
        raise GenerateError(
            f"--link-speed {shown}: {dtype.key}'s compute ports ({group.name}) run at most "
            f"{float(group.speed or 0.0) / 1e9:g} Gbps"
        )
    tech = group.tech or "infiniband"
    if options.leaf is not None:
        leaf = switch_model(catalog, options.leaf, "leaf")
        if abs(leaf.speed - speed) > 1e-3:
            raise GenerateError(
                f"--leaf {options.leaf} runs {leaf.speed / 1e9:g} Gbps, not --link-speed {shown}"
            )
        return options.leaf
    rates: dict[str, float] = {}
    for key in (default_switch(tech, speed), *sorted(catalog.devices)):
        entry = catalog.devices.get(key)
        found = fabric_group(entry) if entry is not None and entry.kind == "switch" else None
        if found is None or (found.tech or "infiniband") != tech:
            continue
        rates[key] = float(found.speed or 0.0)
        if abs(rates[key] - speed) <= 1e-3:
            return key
    offered = sorted({f"{r / 1e9:g}" for r in rates.values()}, key=float)
    raise GenerateError(
        f"--link-speed {shown}: no {tech} switch in the catalog runs it (they run "
        f"{', '.join(offered) or 'none'} Gbps); give --leaf MODEL"
    )


def _feed_capacity(voltage: float, phases: int, current: float) -> float:
    return feed_power(voltage, current, phases, derate=DERATE)


def _default_fabric(gpus: int, nodes: int) -> str:
    if gpus <= 16 and nodes <= 2:
        return "direct"
    return "leaf-spine" if gpus <= 64 else "rail"


def build(
    options: NewOptions,
    command: str = "rackdesigner new",
    timings: dict[str, float] | None = None,
) -> Built:
    """The complete layout for ``options`` (a :class:`GenerateError` says why not).

    ``timings`` gets the seconds of each phase: ``racks``, ``fabric`` (the generator, with
    placement and media) and ``power`` (feeds, PDUs, blanks)."""
    began = time.perf_counter()
    options = with_template(options)
    if options.template in RACK_SCALE_TEMPLATES:
        if options.link_speed is not None:
            raise GenerateError(
                "--link-speed is for clusters of servers: an NVL72 hall's links run at its "
                "trays' rate (pick the rate with --leaf)"
            )
        return build_rack_scale(options, command, timings)
    gpus = _cluster_gpus(options)
    catalog = builtin()
    options, flow_note = _with_model_flow(options, catalog)
    dtype = _node_type(catalog, options, options.cooling)
    nodes = _node_count(dtype, gpus)
    cooling = _cooling_for(dtype, options.cooling)
    fabric = options.fabric or _default_fabric(gpus, nodes)
    _check_outlets(dtype, options)
    sizes = circuit_sizes(catalog, options.voltage, options.phases, options.voltage_text)
    per_rack = _per_rack(dtype, options, catalog, cooling, sizes)
    layout, dtype = _new_layout(options, catalog, dtype)
    _racks(layout, dtype, nodes, per_rack, cooling, catalog, _power(dtype, catalog))
    request = _fabric_request(catalog, dtype, options, fabric)
    racks_done = time.perf_counter()
    cpu = time.process_time()
    # The racks' feeds and PDUs before the fabric, as large as a rack may have them
    # (the power limit its nodes were counted by): the generator places switches by what
    # they carry and what the PDUs draw, exactly as it does for a layout in the designer;
    # they are sized again for the final load below.
    _power_and_furniture(layout, options, catalog, sizes, ahead=True)
    plan = generate(layout, request)
    fabric_cpu = time.process_time() - cpu
    fabric_done = time.perf_counter()
    apply_plan(layout, plan)
    storage = _storage_or_warning(
        layout,
        plan,
        options,
        dtype,
        lambda racks: _power_and_furniture(
            Layout("", racks=racks), options, catalog, sizes, ahead=True
        ),
    )
    merged = catalog_for(layout)  # with the layout's own entries (a server's GPU)
    side_counts = _power_and_furniture(layout, options, merged, sizes)
    if timings is not None:
        _record(timings, began, racks_done, fabric_done, fabric_cpu)
    _power_budget(layout, merged)
    plant = _install_plant(layout, plan, options)
    chain = _chain(layout, options)
    loops = plan_loops(layout)
    layout.description, header = _header(
        command, layout, plan, options, dtype, (nodes, per_rack, cooling, fabric), side_counts
    )
    layout.comment = _comment(header, plant, chain, loops)
    notes = _closing_notes(layout, plan, options, storage, flow_note)
    return Built(layout, plan, dtype, nodes, len(layout.racks), layout.description, notes)


def _cluster_gpus(options: NewOptions) -> int:
    """The GPU count a cluster of servers is built for; its cooling checked."""
    if options.gpus is None:
        raise GenerateError("--gpus is required without --template")
    if options.cooling not in (None, "air", "liquid", "rear-door"):
        raise GenerateError(f"--cooling {options.cooling}: choose air, liquid or rear-door")
    return options.gpus


def _storage_or_warning(
    layout: Layout,
    plan: FabricPlan,
    options: NewOptions,
    dtype: DeviceType,
    furnish: Callable[[list[Rack]], object],
) -> StorageCounts | None:
    """The storage tier and fabric, or the plan's warning why none was built. ``furnish``
    gives the storage racks their feeds and PDUs before their switches are placed."""
    storage = _storage(layout, options, options.su_nodes or 32, furnish)
    if storage is None and options.wants_storage:
        plan.warnings.append(
            f"{dtype.key} has no storage ports: no parallel file system or storage fabric was "
            "built (STO004); give the node type a storage NIC, or pass --no-storage"
        )
    return storage


def _closing_notes(
    layout: Layout,
    plan: FabricPlan,
    options: NewOptions,
    storage: StorageCounts | None,
    flow_note: str | None,
) -> tuple[str, ...]:
    """The storage tier's and the node choice's words, in the file's comment and the
    plan's notes; the notes ``new`` prints."""
    comment = layout.comment or ""
    if storage is not None:
        comment += "\n" + _storage_text(storage, options)
        plan.notes.append(_storage_text(storage, options).strip())
    if flow_note is not None:
        comment += f"\n Node size and cooling: {flow_note}."
    layout.comment = comment
    return (f"node size and cooling: {flow_note}",) if flow_note else ()


def _with_model_flow(options: NewOptions, catalog: Catalog) -> tuple[NewOptions, str | None]:
    """With ``--model-params`` and no ``--node``: the node size and cooling the guide's flow
    picks for the model (those the options leave open), and its note; else as they are."""
    if options.model_params is None or options.node is not None:
        return options, None
    flow = guide_flow(
        options.model_params,
        options.gpu or DEFAULT_GPU,
        catalog,
        options.cooling,
        options.gpus_per_node,
    )
    options = replace(
        options,
        gpus_per_node=flow.gpus_per_node,
        cooling=options.cooling or flow.cooling,
    )
    return options, flow.note


def _new_layout(
    options: NewOptions, catalog: Catalog, dtype: DeviceType
) -> tuple[Layout, DeviceType]:
    """The empty layout, named, with its site and workload; and the node type, its GPU set
    where it takes the one the layout sets (a server: said in the layout's catalog)."""
    gpu_key = dtype.gpu or options.gpu or ""
    gpu_name = (catalog.gpus[gpu_key].name if gpu_key in catalog.gpus else None) or gpu_key
    default_name = f"{options.template}: " if options.template else ""
    layout = Layout(name=options.name or f"{default_name}{options.gpus or 0:,} x {gpu_name}")
    if dtype.gpu is None:
        # A server that takes the GPU the layout sets: say which, in the layout's catalog.
        layout.catalog[dtype.key] = DeviceType(dtype.key, gpu=options.gpu)
        dtype = replace(dtype, gpu=options.gpu)
    layout.site = Site()
    layout.workload = Workload(
        kind=options.workload,
        model_params=options.model_params,
        peak_factor=options.peak_factor,
    )
    return layout, dtype


def _fabric_request(
    catalog: Catalog, dtype: DeviceType, options: NewOptions, fabric: str
) -> FabricRequest:
    return FabricRequest(
        fabric=fabric,
        leaf=leaf_for_speed(catalog, dtype, options),
        spine=options.spine,
        core=options.core,
        oversubscription=options.oversubscription,
        su_nodes=options.su_nodes,
        strict_cables=options.strict_cables,
        rail_planes=options.rail_planes,
        redundant=options.redundant,
    )


def _comment(header: str, plant: str, chain: list[str], loops: LoopPlan | None) -> str:
    """The file's header comment: what was built and sized, then the cable plant, the power
    chain and the water loops."""
    return "\n".join(
        [header, f" Cable plant: {plant}.", *chain, *(f" {line}" for line in plan_text(loops))]
    )


def _chain(layout: Layout, options: NewOptions) -> list[str]:
    """(v1.4) The power chain behind the feeds, its header lines (a GenerateError names a
    redundancy ``new`` does not build)."""
    from rackdesigner.design.power_chain import ChainError, add_power_chain

    try:
        return add_power_chain(layout, options.power_redundancy)
    except ChainError as error:
        raise GenerateError(str(error)) from None


def _storage(
    layout: Layout,
    options: NewOptions,
    su_nodes: int,
    furnish: Callable[[list[Rack]], object] | None = None,
) -> StorageCounts | None:
    """The parallel file system and its storage fabric for a training cluster (storage
    racks, leaves, spines, cables; docs/storage.md), its level written in the workload."""
    if not options.wants_storage:
        return None
    request = StorageRequest(
        level=options.storage_level,
        appliance=options.storage_model or DEFAULT_APPLIANCE,
        appliances=options.storage_appliances,
        su_nodes=su_nodes,
        pod_sus=options.storage_pod_sus,
        switch=options.storage_switch,
        furnish=furnish,
    )
    if not _storage_ports(layout):
        return None  # no storage NIC to cable: STO004 says so; the header too
    counts = plan_storage(layout, request)
    if layout.workload is not None:
        layout.workload.storage_level = options.storage_level
    return counts


def _storage_ports(layout: Layout) -> bool:
    """Whether a GPU node of the layout has storage ports (a PCIe server's one scale-out NIC
    is its compute ports: no storage fabric can be cabled to it)."""
    catalog = catalog_for(layout)
    return any(
        storage_group(catalog.devices[d.model]) is not None
        for _, d in layout.devices()
        if catalog.devices[d.model].kind == "gpu-node"
    )


def _storage_text(counts: StorageCounts, options: NewOptions) -> str:
    """The header's lines on the storage tier."""
    model = options.storage_model or DEFAULT_APPLIANCE
    pods = f" in {count(counts.pods, 'pod', 'pods')}" if counts.pods > 1 else ""
    return (
        f" Storage: {count(counts.appliances, 'appliance', 'appliances')} ({model}) "
        f"sized for storage level {options.storage_level} (docs/storage.md), on a storage "
        f"fabric of its own{pods}: {count(counts.node_leaves, 'node leaf', 'node leaves')}, "
        f"{count(counts.storage_leaves, 'storage leaf', 'storage leaves')}, "
        f"{count(counts.spines, 'spine', 'spines')}, {count(counts.cables, 'cable', 'cables')}."
    )


def _install_plant(layout: Layout, plan: FabricPlan, options: NewOptions) -> str:
    """The layout's cable plant (pathways, structured cabling, media by route), and the
    plan's count of long runs made the routed one (CAB001 warns as many); the header's
    words for it."""
    from rackdesigner.design.cable_plant import install
    from rackdesigner.design.generators.build import long_runs_text

    if options.cabling not in ("p2p", "structured"):
        raise GenerateError(f"--cabling {options.cabling}: choose p2p or structured")
    done = install(layout, options.cabling, frozenset(id(link) for link in plan.links))
    # The generator counted its runs by the row-and-slot model; the routed count replaces it.
    plan.notes = [n for n in plan.notes if "CAB001 warns" not in n]
    plan.long_runs = done.long_runs
    if done.long_runs and done.longest is not None:
        name, longest = done.longest
        plan.longest = done.longest
        plan.notes.append(
            long_runs_text(done.long_runs, len(plan.links), plan.cable_limit, name, longest)
        )
    plan.notes.extend(done.notes)
    trays = sum(1 for p in layout.pathways if p.row is not None)
    crossings = len(layout.pathways) - trays
    text = (
        f"{count(trays, 'overhead tray', 'overhead trays')} over the rows"
        + (f", {count(crossings, 'cross-aisle tray', 'cross-aisle trays')}" if crossings else "")
        + ", each sized to a 40 % fill; cables routed along them"
    )
    if done.channels:
        text += (
            f"; structured: {done.channels:,} switch-to-switch links through "
            f"{count(done.panels, 'patch panel', 'patch panels')} and "
            f"{count(done.trunks, 'trunk', 'trunks')}"
        )
    return text


def _node_count(dtype: DeviceType, gpus: int) -> int:
    per_node = int(dtype.gpus or 0)
    if per_node < 1:
        raise GenerateError(f"{dtype.key} declares no GPU count")
    if gpus % per_node or not MIN_GPUS <= gpus <= MAX_GPUS:
        raise GenerateError(
            f"--gpus {gpus}: a multiple of {per_node} (the GPUs of one {dtype.key}) from "
            f"{MIN_GPUS} to {MAX_GPUS:,}"
        )
    return gpus // per_node


def _cooling_for(dtype: DeviceType, asked: str | None) -> str:
    """The racks' cooling: ``asked``, else liquid for a node with cold plates, else a rear
    door; refused where it cannot cool the node (COOL010)."""
    cooling = asked or ("liquid" if (dtype.liquid_fraction or 0) > 0 else "rear-door")
    if cooling == "liquid" and not (dtype.liquid_fraction or 0) > 0:
        raise GenerateError(
            f"--cooling liquid: {dtype.key} has no cold plates (the catalog gives it no "
            "liquid_fraction); use rear-door or air"
        )
    if cooling in ("air", "rear-door") and (dtype.liquid_fraction or 0) > 0:
        # COOL010: no loop would reach the node's cold plates.
        raise GenerateError(
            f"--cooling {cooling}: {dtype.key} has cold plates (liquid_fraction "
            f"{float(dtype.liquid_fraction or 0):g}) that need a liquid loop; use --cooling "
            "liquid (COOL010)"
        )
    return cooling


def _check_outlets(dtype: DeviceType, options: NewOptions) -> None:
    """Refuses a supply whose outlets the node's PSUs do not take."""
    voltage, phases = options.voltage, options.phases
    outlet = voltage / SQRT3 if phases == 3 and voltage > 240 else voltage
    low, high = dtype.input_voltage or (200.0, 240.0)
    if not low - 1e-6 <= outlet <= high + 1e-6:
        if phases == 3 and voltage > 240 and low <= 240.0 <= high:
            # No rack PDU steps down: a 480Y/277 V hall feeds its GPU racks 415Y/240 V
            # through a transformer, which the layout then shows as 415 V feeds.
            raise GenerateError(
                f"--voltage {options.voltage_text} 3-phase wye gives {outlet:.0f} V outlets "
                f"and {dtype.key} PSUs take {low:.0f}-{high:.0f} V; no rack PDU steps down. "
                "Feed the racks 415Y/240 V from a transformer (--voltage 415V), or pick a "
                f"node whose PSUs take {outlet:.0f} V (--node)"
            )
        raise GenerateError(
            f"--voltage {options.voltage_text} gives {outlet:.0f} V outlets; {dtype.key} "
            f"PSUs take {low:.0f}-{high:.0f} V"
        )
    if outlet < 200:
        raise GenerateError(
            f"--voltage {options.voltage_text} gives {outlet:.0f} V outlets: GPU nodes need "
            "200 V or more (PWR002)"
        )


def _per_rack(
    dtype: DeviceType, options: NewOptions, catalog: Catalog, cooling: str, sizes: list[Circuit]
) -> int:
    """The nodes a rack takes: by space, cooling and what its feeds carry (two of the
    largest circuit a side), or as an RA racks them (RA_NODES_PER_RACK)."""
    if dtype.gpu is None:
        node_power = _power(replace(dtype, gpu=options.gpu), catalog)
    else:
        node_power = _power(dtype, catalog)
    power_limit = MAX_FEEDS_PER_SIDE * sizes[-1].capacity
    cool_limit = _cool_limit(dtype, options, catalog, cooling)
    phases = options.phases
    if phases == 1:
        # Single phase carries a small GPU rack only (PWR002: above 8 kW it needs 35 A+).
        power_limit = min(power_limit, SINGLE_PHASE_MAX)
    height = max(1, math.ceil(dtype.height_u))
    # Nodes leave 4 U for the switches that go between them, unless an RA racks them fuller.
    by_space = max(0, (RACK_HEIGHT - 4) // height)
    if dtype.key in RA_NODES_PER_RACK:
        by_space = min(RA_NODES_PER_RACK[dtype.key], RACK_HEIGHT // height)
    per_rack = min(by_space, int(min(cool_limit, power_limit) // max(node_power, 1.0)))
    if per_rack < 1:
        if power_limit < cool_limit:
            raise GenerateError(
                f"one {dtype.key} ({node_power / 1e3:.3g} kW) draws more than "
                f"{options.voltage_text} {phases}-phase feeds carry "
                f"({power_limit / 1e3:.3g} kW a rack); use 3-phase feeds"
            )
        raise GenerateError(
            f"one {dtype.key} ({node_power / 1e3:.3g} kW) exceeds what a {cooling}-cooled rack "
            f"takes ({cool_limit / 1e3:.3g} kW); choose another --cooling"
        )
    return per_rack


def _cool_limit(dtype: DeviceType, options: NewOptions, catalog: Catalog, cooling: str) -> float:
    """W of node a rack's cooling takes: a rear door's capacity, room air, or (liquid) the
    air the cold plates leave, keeping air for two leaves."""
    if cooling == "rear-door":
        return float(catalog.devices[DOOR_MODEL].capacity or 0.0) - float(
            catalog.devices[DOOR_MODEL].power or 0.0
        )
    if cooling == "air":
        return AIR_MAX
    # The loop takes the cold plates' share; the rest, and all of a switch's heat, goes
    # to the room air. Keep air for two leaves a rack so the fabric's switches sit
    # among the nodes they serve (and spines in the middle of the hall), not in
    # network racks at the end of the row.
    lf = float(dtype.liquid_fraction or 0.0)
    leaf = catalog.devices.get(options.leaf or DEFAULT_SWITCH)
    if leaf is None or leaf.kind != "switch":
        leaf = catalog.devices[DEFAULT_SWITCH]  # the generator says why it is wrong
    leaf_power = float(leaf.power or 0.0)
    air = max(0.0, AIR_MAX - LEAVES_PER_LIQUID_RACK * leaf_power)
    return air / max(1e-9, 1.0 - lf) if lf < 1 else math.inf


def _header(
    command: str,
    layout: Layout,
    plan: FabricPlan,
    options: NewOptions,
    dtype: DeviceType,
    shape: tuple[int, int, str, str],
    side_counts: set[int],
) -> tuple[str, str]:
    """The layout's description and the file's header comment."""
    nodes, _, cooling, fabric = shape
    gpus = options.gpus or 0
    counts = plan.counts
    switches = counts.get("leaves", 0) + counts.get("spines", 0) + counts.get("cores", 0)
    fabric_text = plan.notes[0] if plan.notes else fabric
    description = (
        f"{gpus:,} x {dtype.gpu or options.gpu} in {nodes:,} {dtype.key}, {cooling} cooling, "
        f"{fabric} fabric: {count(switches, 'switch', 'switches')}, "
        f"{count(len(plan.links), 'cable', 'cables')}"
    )
    comment = "\n".join(
        [
            f" Made by: {command}",
            f" {description}.",
            f" {len(layout.racks):,} racks of 42 U, "
            f"{_nodes_text(_per_rack_text(layout, dtype.key))} per compute rack; "
            f"{options.voltage_text} {options.phases}-phase feeds on "
            f"{' or '.join(str(k) for k in sorted(side_counts))} sides (any one may be lost), "
            "sized for each rack's load.",
            f" Fabric: {fabric_text}.",
            f" Cables: {CABLES_NOTE}",
        ]
    )
    return description, comment


def _per_rack_text(layout: Layout, node: str) -> str:
    """``2`` or ``2 to 3``: the nodes the compute racks hold (spread evenly)."""
    counts = [sum(d.model == node for d in r.devices) for r in layout.racks]
    counts = [c for c in counts if c]
    low, high = (min(counts), max(counts)) if counts else (0, 0)
    return f"{low}" if low == high else f"{low} to {high}"


def _nodes_text(count: str) -> str:
    """``1 node``, ``2 nodes``, ``2 to 3 nodes``."""
    return f"{count} {'node' if count == '1' else 'nodes'}"


# The header's word on cable lengths. How many run long, and the longest, are figures every
# move changes: ``new`` prints them when it writes the file, CAB001 names each run as the
# layout stands; a header keeping them would be wrong after the first edit.
CABLES_NOTE = (
    "a run longer than cable_max is a CAB001 warning (about 5 ns of latency per metre); "
    "`rackdesigner validate` lists them as the layout stands."
)


def count(number: int, one: str, many: str) -> str:
    """``count(1, "switch", "switches") == "1 switch"``; thousands separated."""
    return f"{number:,} {one if number == 1 else many}"


def _row_name(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        name = chr(65 + rem) + name
    return name


def _positions(count: int, height: int) -> list[int]:
    """Node positions: half from U1 up, the rest from the top down; switches go between."""
    below = (count + 1) // 2
    above = count - below
    low = [1 + k * height for k in range(below)]
    high = [RACK_HEIGHT - height + 1 - k * height for k in range(above)]
    return low + sorted(high)


def _spread(items: int, bins: int) -> list[int]:
    """``items`` over ``bins`` as evenly as can be, the larger shares first."""
    base, extra = divmod(items, bins)
    return [base + (1 if k < extra else 0) for k in range(bins)]


def _racks(
    layout: Layout,
    dtype: DeviceType,
    nodes: int,
    per_rack: int,
    cooling: str,
    catalog: Catalog,
    node_power: float,
) -> None:
    racks_needed = math.ceil(nodes / per_rack)
    # Rows of whole SUs where they fit, at most RACKS_PER_ROW compute racks.
    per_row = min(RACKS_PER_ROW, racks_needed)
    cdu_model = CDU_MODEL
    if cooling == "liquid":
        # Each row's loop has two CDUs that all its racks name together (COOL009: N+1, so
        # one CDU carries the row alone); the smallest CDU that does so.
        rack_heat = per_rack * node_power * float(dtype.liquid_fraction or 0.0)
        cdu_model = next(
            (
                key
                for key in CDU_MODELS
                if float(catalog.devices[key].capacity or 0.0) >= per_row * rack_heat
            ),
            CDU_MODELS[-1],
        )
        per_cdu = max(1, int(float(catalog.devices[cdu_model].capacity or 0.0) // rack_heat))
        per_row = min(per_row, per_cdu)
    cdu_height = math.ceil(catalog.devices[cdu_model].height_u)
    height = math.ceil(dtype.height_u)
    # The nodes spread evenly over the racks they need (4 nodes, 3 a rack: 2 + 2, not
    # 3 + 1), so the racks draw alike and take the same feeds.
    counts = iter(_spread(nodes, racks_needed))
    left = nodes
    row_index = 0
    while left > 0:
        row = _row_name(row_index)
        prefix = row.lower()
        slot = 1
        cdu_ids: list[str] = []
        if cooling == "liquid":
            # Both CDUs in one rack where they fit, else a rack each (a 42 U CHx750).
            per_cdu_rack = max(1, (RACK_HEIGHT - 2) // cdu_height)
            for k in range(CDUS_PER_ROW):
                if k % per_cdu_rack == 0:
                    cdu_rack = Rack(
                        f"{prefix}{slot:02d}", row=row, slot=slot, cooling="air", label="CDU"
                    )
                    layout.racks.append(cdu_rack)
                    slot += 1
                cdu_id = f"{cdu_rack.id}-cdu{k % per_cdu_rack + 1}"
                position = 1 + (k % per_cdu_rack) * cdu_height
                cdu_rack.devices.append(Device(cdu_id, cdu_model, position=position))
                cdu_ids.append(cdu_id)
        for _ in range(per_row):
            if left <= 0:
                break
            rack_id = f"{prefix}{slot:02d}"
            rack = Rack(rack_id, row=row, slot=slot, cooling=cooling)
            if cooling == "rear-door":
                rack.door = f"{rack_id}-door"
                rack.devices.append(Device(rack.door, DOOR_MODEL))
            elif cooling == "liquid":
                rack.cdu = list(cdu_ids)
            count = next(counts)
            spots = _positions(count, height)
            for k in range(count):
                rack.devices.append(Device(f"{rack_id}-n{k + 1:02d}", dtype.key, position=spots[k]))
            left -= count
            layout.racks.append(rack)
            slot += 1
        row_index += 1


def circuit_sizes(
    catalog: Catalog, voltage: float, phases: int, voltage_text: str | None = None
) -> list[Circuit]:
    """The circuits ``new`` may give a feed of ``voltage`` and ``phases``, smallest first:
    each standard rating of the region (``circuits.toml``) that a catalog PDU's plug is
    rated for (a :class:`GenerateError` says why there is none)."""
    shown = voltage_text or f"{voltage:g} V"
    row = standard_circuits(voltage, phases)
    if row is None:
        raise GenerateError(
            f"--voltage {shown} --phases {phases}: no standard circuit table names this supply "
            "(assets/catalog/circuits.toml); use 415V, 400V or 208V 3-phase"
        )
    out = []
    for key in PDUS.get((voltage, phases), ()):
        dtype = catalog.devices.get(key)
        if dtype is None or dtype.input_current is None or dtype.capacity is None:
            continue
        current = float(dtype.input_current)
        if not row.standard(current):
            continue
        feed = _feed_capacity(voltage, phases, current)
        out.append(Circuit(round(current), key, min(feed, float(dtype.capacity))))
    if not out:
        raise GenerateError(
            f"--voltage {shown} --phases {phases}: the catalog has no PDU for a standard "
            f"{row.region} circuit at this supply; use 415V, 400V or 208V 3-phase"
        )
    return sorted(out, key=lambda c: c.current)


def _circuit_for(sizes: list[Circuit], load: float) -> tuple[int, Circuit]:
    """Feeds per side and the smallest circuit with which they carry ``load`` (W a side
    carries with another side lost): the fewest feeds the largest circuit needs, then the
    smallest circuit that many carry."""
    per_side = max(1, math.ceil(load / sizes[-1].capacity - 1e-9))
    circuit = next(c for c in sizes if per_side * c.capacity >= load - 1e-6 or c is sizes[-1])
    return per_side, circuit


def _circuits_on(
    sides: int, load: float, sizes: list[Circuit], devices: dict[str, DeviceType]
) -> tuple[int, int, Circuit]:
    """Feeds a side and their circuit for ``load`` on ``sides`` sides: with a side lost
    each other side carries load / (k - 1) (rules v1.1)."""
    share = 1.0 / (sides - 1)
    # The PDUs draw a little themselves: size again with their draw until it settles.
    pdu_draw = 0.0
    for _ in range(4):
        per_side, circuit = _circuit_for(sizes, (load + pdu_draw) * share)
        draw = sides * per_side * float(devices[circuit.pdu].power or 0.0)
        if draw <= pdu_draw:
            break
        pdu_draw = draw
    return sides, per_side, circuit


def _sides_for(rack: Rack, catalog: Catalog, outlet: Outlet) -> int:
    """How many redundant sides the rack's feeds take: two, or the fewest up to MAX_SIDES
    with which every device keeps ``psus_required`` PSUs when the side holding most of its
    PSUs is lost (PWR008: a DGX H100's 6 PSUs, 4 needed, run degraded on 3 + 3 and keep 4 on
    2 + 2 + 2), and those PSUs draw no more than their inlets take at the ``outlet``
    (PWR030: a 9 kW node on 2 + 2 C20 PSUs draws 18.8 A a PSU at 240 V with a side lost,
    12.5 A on four sides). Where no count up to MAX_SIDES suffices, two: more sides would
    not help. A node an RA racks on more sides (RA_SIDES) gets them."""
    need = 2
    for device in rack.devices:
        need = max(need, RA_SIDES.get(device.model, 2))
        dtype = catalog.devices[device.model]
        if not dtype.psus or not dtype.psus_required:
            continue
        fit = next((k for k in range(2, MAX_SIDES + 1) if _holds(dtype, k, outlet)), 2)
        need = max(need, fit)
    return need


@dataclass(frozen=True, slots=True)
class Outlet:
    """What a rack's outlets give its PSUs: the voltage (V) and the inlet ratings' region."""

    volts: float
    region: str

    @classmethod
    def of(cls, voltage: float, phases: int) -> Outlet:
        """415 V 3-phase: 240 V outlets (wye), IEC; 208 V 3-phase: 208 V (delta)."""
        wiring = Feed("x", voltage=voltage, phases=phases).effective_wiring
        row = standard_circuits(voltage, phases)
        region = row.region if row is not None and row.region in INLET_RATING else "IEC"
        return cls(voltage / SQRT3 if wiring == "wye" else voltage, region)


def _holds(dtype: DeviceType, sides: int, outlet: Outlet) -> bool:
    """Whether a device of ``dtype`` on ``sides`` sides keeps the PSUs it needs with one
    lost, each drawing within its inlet's rating."""
    kept = psus_kept(dtype.psus or 0, sides)
    if kept < (dtype.psus_required or 0):
        return False
    inlet = INLET_OF.get(str(dtype.psu_inlet or "").lower())
    if inlet is None or not dtype.power or kept < 1:
        return True
    rating = float(dtype.psu_rating) if dtype.psu_rating else None
    amps = psu_draw(float(dtype.power), kept, rating) / outlet.volts
    return amps <= INLET_RATING[outlet.region][inlet] + 1e-9


def _power_and_furniture(
    layout: Layout,
    options: NewOptions,
    catalog: Catalog,
    sizes: list[Circuit],
    *,
    ahead: bool = False,
) -> set[int]:
    """Feeds on k sides, each a standard circuit with exactly one PDU rated for it, for
    every rack (replacing the feeds and PDUs it had); the side counts used. ``ahead``:
    before the fabric, the most a rack may have (MAX_FEEDS_PER_SIDE of the largest
    circuit a side), and no blanking yet."""
    voltage, phases = options.voltage, options.phases
    devices = catalog.devices
    outlet = Outlet.of(float(voltage), int(phases))
    used: set[int] = set()
    for rack in layout.racks:
        rack.devices = [d for d in rack.devices if devices[d.model].kind != "pdu"]
        base = _rack_load(rack, catalog)
        sides, per_side, circuit = _circuits_on(
            _sides_for(rack, catalog, outlet), base, sizes, devices
        )
        if ahead:
            per_side, circuit = MAX_FEEDS_PER_SIDE, sizes[-1]
        used.add(sides)
        feeds = []
        pdus = []
        for label in SIDES[:sides]:
            rail = "left" if SIDES.index(label) % 2 == 0 else "right"
            for k in range(per_side):
                suffix = f"{label}{k + 1}" if per_side > 1 else label
                feed = Feed(
                    f"{rack.id}-{suffix}",
                    voltage=Q(voltage, options.voltage_text),
                    phases=phases,
                    current=Q(float(circuit.current), f"{circuit.current} A"),
                    side=label,
                    circuit=f"RPP-{rack.row}-{suffix}-{rack.id}",
                )
                feeds.append(feed)
                # One PDU per circuit, its plug rated for the breaker (PWR014).
                pdus.append(
                    Device(
                        f"{rack.id}-pdu-{suffix.lower()}1",
                        circuit.pdu,
                        side=rail,
                        feed=feed.id,
                    )
                )
        rack.feeds = feeds
        rack.devices[0:0] = pdus
        if rack.cooling_mode == "air" and not ahead:
            _blanks(rack, catalog)
    return used


def _rack_load(rack: Rack, catalog: Catalog) -> float:
    return sum(_power(catalog.devices[d.model], catalog) for d in rack.devices)


def _site_load(layout: Layout, catalog: Catalog) -> float:
    return sum(_rack_load(rack, catalog) for rack in layout.racks)


def _record(
    timings: dict[str, float], began: float, racks: float, fabric: float, fabric_cpu: float
) -> None:
    """``new``'s phases (bench/fabric.py reads them): racks, fabric (wall and CPU), power."""
    timings["racks"] = racks - began
    timings["fabric"] = fabric - racks
    timings["fabric_cpu"] = fabric_cpu
    timings["power"] = time.perf_counter() - fabric


def _power_budget(layout: Layout, catalog: Catalog) -> None:
    """The site's power budget the hall needs: its load and 10 %, up to the next 10 kW."""
    assert layout.site is not None
    budget_kw = math.ceil(_site_load(layout, catalog) * 1.1 / 10e3) * 10
    layout.site.power_budget = Q(budget_kw * 1e3, f"{budget_kw:,} kW".replace(",", ""))


def _blanks(rack: Rack, catalog: Catalog) -> None:
    """Blanking panels over every open front unit of an air-cooled rack (PLC006), declared
    on the rack (``blanking = true``) rather than listed as a device a unit: moves and
    new devices then need no panel taken out first."""
    rack.blanking = True


# -- rack-scale templates (gb200-superpod, gb300-superpod) ------------------------------
#
# docs/rack-scale.md cites every figure: a DGX GB200 rack is 18 compute trays and 9 NVLink
# switch trays (one NVL72 NVLink domain), 8 power shelves of 33 kW on a DC busbar; an SU is
# 8 racks. The compute fabric is the rail generator's over the trays: port k of every tray
# on a rail-k leaf, 32 trays a leaf, 1:1 up (the GB200 RA's own switch table was not found;
# docs/rack-scale.md says what is and is not reproduced).

NVL_SHELVES = 8
# Network racks before the k-th NVL72 rack of a row: two after every two NVL72 racks
# (15 kW of air each: the SU's 8 SN5600 storage leaves, 20 leaves and 11 spines).
NETWORK_RACKS_BEFORE = {2: 2, 4: 2, 6: 2}
NVL_COMPUTE_LOW = 10  # compute trays below the switch trays, the rest above
NVL_SWITCH_TRAYS = 9
NVL_TRAYS = 18
NVL_SHELF = "nvl72-power-shelf"
NVL_SWITCH = "nvl72-switch-tray"
NVL_BUSBAR = "nvl72-busbar"
# DGX GB200 NVL72: 1.36 t (3,000 lb) for the rack as built, trays, shelves and busbar
# included (ServeTheHome and The Register from GTC 2024; docs/rack-scale.md): the rack's
# declared weight (PLC004, PLC008 count it as the built system's, rules/placement).
NVL_RACK_WEIGHT = 1360.0  # kg


def _nvl_rack(rack_id: str, row: str, slot: int, tray: str, cdus: list[str]) -> Rack:
    """One NVL72 rack: shelves at the bottom, compute trays either side of the switch trays
    (as the DGX GB200 rack is built), the busbar on the rear face; one NVLink domain."""
    rack = Rack(rack_id, row=row, slot=slot, cooling="liquid", nvlink_domain=f"nvl-{rack_id}")
    rack.weight = Q(NVL_RACK_WEIGHT, f"{NVL_RACK_WEIGHT:g} kg")
    rack.cdu = list(cdus)
    position = 1
    for k in range(NVL_SHELVES):
        rack.devices.append(Device(f"{rack_id}-ps{k + 1}", NVL_SHELF, position=position))
        position += 1
    order = (
        [("c", k) for k in range(NVL_COMPUTE_LOW)]
        + [("s", k) for k in range(NVL_SWITCH_TRAYS)]
        + [("c", k) for k in range(NVL_COMPUTE_LOW, NVL_TRAYS)]
    )
    for kind, k in order:
        if kind == "c":
            rack.devices.append(Device(f"{rack_id}-c{k + 1:02d}", tray, position=position))
        else:
            rack.devices.append(Device(f"{rack_id}-s{k + 1}", NVL_SWITCH, position=position))
        position += 1
    rack.devices.append(Device(f"{rack_id}-bus", NVL_BUSBAR, face="rear"))
    # The residual air heat (the trays' fans, NICs and drives, the switch trays) is
    # above what room air takes a rack (COOL001): a rear-door coil on the same facility
    # water takes it (v1.3: a liquid rack's door), as the RA's hybrid cooling needs.
    rack.door = f"{rack_id}-door"
    rack.devices.append(Device(rack.door, DOOR_MODEL))
    return rack


@dataclass(frozen=True, slots=True)
class NvlPower:
    """How ``new`` feeds an NVL72 rack's power shelves (docs/rack-scale.md, Power)."""

    sides: int  # feed sides: the fewest whose shelves, any one side lost, carry the DC load
    per_side: int  # feeds a side: the fewest with which each feed carries its shelves
    current: float  # A, the largest standard circuit of the supply
    dc_load: float  # W on the busbar
    share: float  # W one shelf delivers with a side lost (the load over the shelves left)


def build_rack_scale(
    options: NewOptions, command: str, timings: dict[str, float] | None = None
) -> Built:
    """``new --template gb200-superpod --sus N`` (or gb300): N rows of 8 NVL72 racks."""
    began = time.perf_counter()
    catalog = builtin()
    tray_key, tray = _nvl_tray(options, catalog)
    sus = options.sus or 1
    sample = _nvl_rack("x01", "X", 1, tray_key, [])
    sample.devices.extend(nvl_networks.tor_devices(sample))
    power = _nvl_power(sample, catalog, options)  # refuses a supply the shelves cannot take
    loop_heat = NVL_SU_RACKS * _cold_plate_heat(sample, catalog)
    cdu = catalog.devices[CDU_MODEL]
    # COOL009: the row's loop with one CDU lost (N+1).
    cdus_per_row = math.ceil(loop_heat / float(cdu.capacity or 1.0) - 1e-9) + 1
    layout = _nvl_layout(options, catalog, tray, sus)
    ethernet = [_nvl_row(layout, s, tray_key, cdus_per_row) for s in range(sus)]
    layout.catalog[nvl_networks.STORAGE_LEAF] = nvl_networks.storage_leaf_type(catalog)
    leaves_per_row = NVL_SU_RACKS // nvl_networks.RACKS_PER_STORAGE_PAIR * 2
    layout.catalog[nvl_networks.STORAGE_SPINE] = nvl_networks.storage_spine_type(
        catalog, leaves_per_row
    )
    racks_done = time.perf_counter()
    cpu = time.process_time()
    plan = generate(layout, _nvl_fabric_request(options))
    fabric_cpu = time.process_time() - cpu
    fabric_done = time.perf_counter()
    apply_plan(layout, plan)
    merged = catalog_for(layout)
    _network_racks_on_air(layout, merged)
    arrays = _nvl_storage(layout, options, ethernet, trays_per_su=NVL_SU_RACKS * NVL_TRAYS)
    merged = catalog_for(layout)
    extra = _nvl_ethernet(layout, merged, ethernet, plan.cable_limit)
    if extra.over:  # said when the file is written (``new`` prints the notes), not kept
        plan.notes.append(
            f"storage and out-of-band: {extra.over:,} of "
            f"{plural(extra.total_cables, 'cable')} run longer than {plan.cable_limit:g} m"
        )
    transformed = 0
    for rack in layout.racks:
        transformed += _nvl_feeds(rack, merged, options, power)
    if timings is not None:
        _record(timings, began, racks_done, fabric_done, fabric_cpu)
    _power_budget(layout, merged)
    plant = _install_plant(layout, plan, options)
    floor = _nvl_floor_rating(layout, merged)
    facts = _NvlFacts(sus, tray_key, tray, power, loop_heat, cdus_per_row, floor, transformed)
    chain = _chain(layout, options)
    layout.description = _nvl_description(facts, plan)
    loops = plan_loops(layout)
    header = _nvl_comment(command, layout, facts, plan, extra, merged, options)
    layout.comment = _comment(header, plant, chain, loops)
    if arrays:
        text = _nvl_storage_text(options, arrays, sus)
        layout.comment += "\n" + text
        plan.notes.append(text.strip())
    trays = sus * NVL_SU_RACKS * NVL_TRAYS
    return Built(layout, plan, tray, trays, len(layout.racks), layout.description)


def _nvl_layout(options: NewOptions, catalog: Catalog, tray: DeviceType, sus: int) -> Layout:
    """The hall's empty layout: its name, site and workload."""
    template = options.template or "gb200-superpod"
    layout = Layout(
        name=options.name
        or f"{template}: {sus * NVL_SU_RACKS * NVL_RACK_GPUS:,} x "
        f"{catalog.gpus[tray.gpu or ''].name or tray.gpu}"
    )
    layout.site = Site()
    layout.workload = Workload(
        kind=options.workload, model_params=options.model_params, peak_factor=options.peak_factor
    )
    return layout


def _nvl_floor_rating(layout: Layout, catalog: Catalog) -> float:
    """The heaviest NVL72 rack's floor load (kg/m²); the site's floor rating written as it
    rounded up to the next 100 kg/m²."""
    floor = max(_nvl_floor_load(rack, catalog) for rack in layout.racks if rack.nvlink_domain)
    rating = math.ceil(floor / 100.0 - 1e-9) * 100
    assert layout.site is not None
    layout.site.floor_load_max = Q(float(rating), f"{rating} kg/m^2")
    return floor


def _nvl_storage_text(options: NewOptions, arrays: int, sus: int) -> str:
    return (
        f" Storage: {count(arrays * sus, 'appliance', 'appliances')} "
        f"({options.storage_model or DEFAULT_APPLIANCE}), {arrays} a SU in a storage rack at "
        f"the end of its row, sized for storage level {options.storage_level} "
        "(docs/storage.md): their client ports on the storage spines' array cages."
    )


def _nvl_storage(
    layout: Layout, options: NewOptions, rows: list[nvl_networks.Row], trays_per_su: int
) -> int:
    """Each SU's parallel file system: the fewest appliances that meet the storage level for
    its GPUs, in a storage rack at the end of its row, on the spines' array cages (their
    rate set to the appliances' ports, which run Ethernet like the spines); the appliances
    a SU (0 without storage)."""
    if not options.wants_storage:
        return 0
    catalog = catalog_for(layout)
    key = options.storage_model or DEFAULT_APPLIANCE
    appliance = pfs_appliance(catalog, key)
    tray_gpus = next(
        int(catalog.devices[d.model].gpus or 0)
        for d in rows[0].nvl[0].devices
        if catalog.devices[d.model].kind == "gpu-node"
    )
    per_su = options.storage_appliances or appliance_count(
        catalog, key, options.storage_level, trays_per_su * tray_gpus, 1
    )
    group = next(
        (g for g in appliance.ports or () if g.effective_role(appliance.kind) == "storage"), None
    )
    if group is None:
        raise GenerateError(f"{key} has no storage ports to cable (STO008)")
    spine = layout.catalog[nvl_networks.STORAGE_SPINE]
    cages = next(g.count for g in spine.ports or () if g.name == "array")
    room = cages * len(rows[0].spines)
    if per_su * group.count > room:
        raise GenerateError(
            f"storage level {options.storage_level}: {per_su} x {key} a SU need "
            f"{per_su * group.count} ports, the SU's storage spines have {room} cages for arrays"
        )
    _nvl_array_ports(layout, key, appliance, group, spine)
    for row in rows:
        slot = 1 + max((r.slot or 0) for r in layout.racks if r.row == row.nvl[0].row)
        layout.racks.append(nvl_networks.place_arrays(row, key, appliance, per_su, slot))
    if layout.workload is not None:
        layout.workload.storage_level = options.storage_level
    return per_su


def _nvl_array_ports(
    layout: Layout, key: str, appliance: DeviceType, group: PortGroup, spine: DeviceType
) -> None:
    """The appliances' storage ports ordered as Ethernet (the storage and in-band fabric's)
    where the catalog has them another way, and the spines' array cages at their rate."""
    if (group.tech or "infiniband") != "ethernet":
        ports = [replace(g, tech="ethernet") if g is group else g for g in appliance.ports or ()]
        layout.catalog[key] = DeviceType(
            key,
            ports=ports,
            comment=" Ordered with Ethernet client ports, the storage and in-band fabric's "
            "(set by rackdesigner new).",
        )
    layout.catalog[nvl_networks.STORAGE_SPINE] = replace(
        spine,
        ports=[
            replace(g, speed=group.speed) if g.name == "array" else g for g in spine.ports or ()
        ],
    )


def _nvl_tray(options: NewOptions, catalog: Catalog) -> tuple[str, DeviceType]:
    tray_key = options.node or "gb200-compute-tray"
    tray = catalog.devices.get(tray_key)
    if tray is None or tray.nvl_domain != "nvl72" or tray.kind != "gpu-node":
        raise GenerateError(f"--node {tray_key}: not an NVL72 compute tray")
    return tray_key, tray


def _nvl_row(layout: Layout, index: int, tray_key: str, cdus: int) -> nvl_networks.Row:
    """One SU's row: its N+1 CDUs (a rack each), then the NVL72 racks with two network
    racks after every two; the row's Ethernet switches placed (nvl_networks)."""
    row = _row_name(index)
    prefix = row.lower()
    slot = 1
    cdu_ids = []
    cdu_height = math.ceil(builtin().devices[CDU_MODEL].height_u)
    if cdu_height < RACK_HEIGHT:
        raise GenerateError(f"{CDU_MODEL}: expected a floor-standing CDU")
    for _ in range(cdus):
        cdu_rack = Rack(f"{prefix}{slot:02d}", row=row, slot=slot, cooling="air", label="CDU")
        cdu_id = f"{cdu_rack.id}-cdu1"
        cdu_rack.devices.append(Device(cdu_id, CDU_MODEL, position=1))
        layout.racks.append(cdu_rack)
        cdu_ids.append(cdu_id)
        slot += 1
    row_nvl: list[Rack] = []
    row_network: list[Rack] = []
    for k in range(NVL_SU_RACKS):
        for _ in range(NETWORK_RACKS_BEFORE.get(k, 0)):
            # Network racks among the NVL72 racks: the leaves go to the rack nearest the
            # trays they serve and the spines to the middle (generators/floor.py), so
            # tray runs cross a rack or two, not the whole row (CAB001).
            network = Rack(f"{prefix}{slot:02d}", row=row, slot=slot, label="network rack")
            layout.racks.append(network)
            row_network.append(network)
            slot += 1
        nvl = _nvl_rack(f"{prefix}{slot:02d}", row, slot, tray_key, cdu_ids)
        layout.racks.append(nvl)
        row_nvl.append(nvl)
        slot += 1
    return nvl_networks.place_switches(row_nvl, row_network)


def _nvl_fabric_request(options: NewOptions) -> FabricRequest:
    return FabricRequest(
        fabric="rail",
        leaf=options.leaf,  # the generator's default: QM9700 at 400G, Q3400 at 800G XDR
        spine=options.spine,
        core=options.core,
        oversubscription=options.oversubscription,
        su_nodes=options.su_nodes,  # None: half the leaf's ports (32 trays a QM9700 leaf)
        strict_cables=options.strict_cables,
        rail_planes=options.rail_planes,
        redundant=options.redundant,
    )


def _network_racks_on_air(layout: Layout, catalog: Catalog) -> None:
    """A network rack the fabric added beside an NVL72 rack: switches on air, without the
    NVLink domain, CDUs and rear door the generator copied from the NVL72 rack."""
    for rack in layout.racks:
        if rack.nvlink_domain is None or any(
            catalog.devices[d.model].nvl_domain for d in rack.devices
        ):
            continue
        rack.nvlink_domain = None
        rack.cooling = "air"
        rack.cdu = None
        if rack.door is not None:
            rack.devices = [d for d in rack.devices if d.id != rack.door]
            rack.door = None


def _nvl_ethernet(
    layout: Layout, catalog: Catalog, ethernet: list[nvl_networks.Row], cable_limit: float
) -> nvl_networks.Counts:
    """The storage, in-band and out-of-band networks, after the compute fabric: each row's
    network racks (those ``new`` placed and those the generator added) get their SN2201."""
    by_row: dict[str, list[Rack]] = {}
    for rack in layout.racks:
        if rack.label != "CDU" and rack.nvlink_domain is None:
            by_row.setdefault(rack.row or "", []).append(rack)
    for row in ethernet:
        nvl_networks.place_network_oob(row, by_row.get(row.nvl[0].row or "", []), catalog)
    return nvl_networks.cable(layout, catalog, ethernet, cable_limit)


@dataclass(frozen=True, slots=True)
class _NvlFacts:
    """What the hall's header says."""

    sus: int
    tray_key: str
    tray: DeviceType
    power: NvlPower
    loop_heat: float  # W of cold-plate heat an SU puts into its CDU loop
    cdus: int  # CDUs a row
    floor: float  # kg/m² of the heaviest NVL72 rack
    transformed: int  # racks on a transformer's circuits (a 480 V hall's network racks)


def _nvl_description(facts: _NvlFacts, plan: FabricPlan) -> str:
    counts = plan.counts
    switches = counts.get("leaves", 0) + counts.get("spines", 0) + counts.get("cores", 0)
    nvl_racks = facts.sus * NVL_SU_RACKS
    trays = nvl_racks * NVL_TRAYS
    gpus = trays * int(facts.tray.gpus or 0)
    return (
        f"{gpus:,} x {facts.tray.gpu} in {nvl_racks:,} NVL72 racks ({trays:,} "
        f"{facts.tray_key}, {facts.sus} SU), liquid cooling, rail fabric: "
        f"{count(switches, 'switch', 'switches')}, {count(len(plan.links), 'cable', 'cables')}"
    )


def _nvl_comment(
    command: str,
    layout: Layout,
    facts: _NvlFacts,
    plan: FabricPlan,
    extra: nvl_networks.Counts,
    catalog: Catalog,
    options: NewOptions,
) -> str:
    """The hall's header: what was built, and every figure it was sized by."""
    air = max(_nvl_air_heat(rack, catalog) for rack in layout.racks)
    door = catalog.devices[DOOR_MODEL]
    power = facts.power
    fabric_text = plan.notes[0] if plan.notes else "rail"
    return "\n".join(
        [
            f" Made by: {command}",
            f" {layout.description}.",
            f" Each NVL72 rack is one NVLink domain (nvlink_domain): {NVL_TRAYS} compute and "
            f"{NVL_SWITCH_TRAYS} switch trays, {NVL_SHELVES} power shelves on a DC busbar "
            f"({power.dc_load / 1e3:.1f} kW DC load, the ToRs included);",
            f" {_nvl_feed_text(power, options)}; {facts.cdus} CDUs a row ({CDU_MODEL}), the "
            f"row's {facts.loop_heat / 1e3:.0f} kW of cold-plate heat with one lost (N+1).",
            *_transformer_text(facts.transformed, options),
            f" Air: the racks' residual air heat (cold plates take the rest) is up to "
            f"{air / 1e3:.1f} kW, each rack's rear door ({DOOR_MODEL}, "
            f"{float(door.capacity or 0) / 1e3:g} kW) takes it to chilled water.",
            f" Floor: an NVL72 rack is {NVL_RACK_WEIGHT / 1e3:.2f} t as built, "
            f"{facts.floor:,.0f} kg/m² with its rear door and ToRs on its footprint; [site] "
            "floor_load_max is the rating this hall needs (the power budget likewise): set "
            "your floor's own (PLC008).",
            f" Fabric: {fabric_text}; port k of every compute tray on a rail-k leaf.",
            f" Cables: {CABLES_NOTE}",
            *_nvl_ethernet_text(extra),
        ]
    )


def _nvl_feed_text(power: NvlPower, options: NewOptions) -> str:
    sides = ", ".join(SIDES[: power.sides - 1]) + f" and {SIDES[power.sides - 1]}"
    feeds = count(power.per_side, "feed", "feeds")
    kept = NVL_SHELVES - math.ceil(NVL_SHELVES / power.sides)
    return (
        f"{feeds} a side of {options.voltage_text} {options.phases}-phase "
        f"{power.current:g} A on sides {sides}, the shelves interleaved over them: with a "
        f"side lost the {kept} shelves left carry the DC load ({power.share / 1e3:.1f} kW "
        "each)"
    )


def _transformer_text(racks: int, options: NewOptions) -> list[str]:
    if not racks:
        return []
    return [
        f" The network racks' switches take 200-240 V: the {count(racks, 'rack', 'racks')} "
        f"holding them are fed 208 V 3-phase from a {options.voltage:g}-208 V transformer "
        "(circuits XFMR-...), the NVL72 racks' shelves 277 V line-to-neutral from the "
        f"{options.voltage_text} wye feeds."
    ]


def _nvl_ethernet_text(extra: nvl_networks.Counts) -> list[str]:
    return [
        f" Storage and in-band: {count(extra.storage_leaves, 'SN5600 leaf', 'SN5600 leaves')}"
        f" in pairs, one pair for every {nvl_networks.RACKS_PER_STORAGE_PAIR} NVL72 racks, "
        f"each tray's two BlueField-3 ports on both ({extra.storage_cables:,} cables), 1:1 up "
        f"to {count(extra.storage_spines, 'storage spine', 'storage spines')} "
        f"({extra.spine_cables:,} cables; "
        + (
            f"the storage arrays on their array cages, {extra.array_cables:,} cables, "
            f"{extra.free_array_ports:,} cages free);"
            if extra.arrays_cabled
            else f"{extra.free_array_ports:,} spine ports of 800GbE left for the storage arrays);"
        ),
        f" out-of-band: {count(extra.mgmt_switches, 'SN2201', 'SN2201s')}, two in each "
        f"NVL72 rack on its busbar carrying its trays', switch trays' and power shelves' "
        f"management ports ({extra.bmc_cables:,} cables) and one for each run of network racks "
        f"side by side carrying their switches' ({extra.switch_mgmt_cables:,}), with "
        f"{extra.uplink_cables:,} uplinks.",
    ]


def _cold_plate_heat(rack: Rack, catalog: Catalog) -> float:
    """W an NVL72 rack's cold plates put into the CDU loop: each device's draw x its
    liquid_fraction (compute and switch trays)."""
    return sum(
        _power(catalog.devices[d.model], catalog)
        * float(catalog.devices[d.model].liquid_fraction or 0.0)
        for d in rack.devices
    )


def _nvl_floor_load(rack: Rack, catalog: Catalog) -> float:
    """kg/m² an NVL72 rack puts on the floor as PLC008 counts it: its declared weight as
    built plus the devices with a weight of their own (the rear door, the ToRs), over
    its footprint; a rack-scale part's weight is in the rack's."""
    extra = 0.0
    for device in rack.devices:
        dtype = catalog.devices.get(device.model)
        if dtype is not None and dtype.nvl_domain is None and dtype.weight is not None:
            extra += float(dtype.weight)
    return (rack.weight_kg + extra) / (rack.width_m * rack.depth_m)


def _nvl_air_heat(rack: Rack, catalog: Catalog) -> float:
    if rack.cooling_mode != "liquid":
        return 0.0
    heat = 0.0
    for device in rack.devices:
        dtype = catalog.devices[device.model]
        heat += _power(dtype, catalog) * (1.0 - float(dtype.liquid_fraction or 0.0))
    return heat


def _nvl_power(rack: Rack, catalog: Catalog, options: NewOptions) -> NvlPower:
    """The feeds an NVL72 rack's shelves need (docs/rack-scale.md, Power, has the
    arithmetic): a shelf has one AC input, so the rack's redundancy is between shelves on
    different sides. Sides: the fewest k ≥ 2 with which the shelves left when the side
    holding most is lost carry the DC load (PWR019). Feeds a side: the fewest with which
    each feed carries the shelves on it, each delivering the load over the shelves left
    (PWR018), on the supply's largest standard circuit. A supply whose largest circuit
    cannot carry one shelf is refused."""
    shelf = catalog.devices[NVL_SHELF]
    rating = float(shelf.psu_rating or 0.0) * int(shelf.psus_required or shelf.psus or 0)
    dc_load = sum(
        _power(catalog.devices[d.model], catalog)
        for d in rack.devices
        if catalog.devices[d.model].on_busbar
    )
    row = standard_circuits(options.voltage, options.phases)
    if row is None:
        circuit_sizes(catalog, options.voltage, options.phases, options.voltage_text)  # says why
        raise GenerateError(f"--voltage {options.voltage_text}: no standard circuit")
    current = row.currents[-1]
    capacity = _feed_capacity(options.voltage, options.phases, current)
    sides = next(
        (
            k
            for k in range(2, MAX_SIDES + 1)
            if (NVL_SHELVES - math.ceil(NVL_SHELVES / k)) * rating >= dc_load - 1e-6
        ),
        None,
    )
    if sides is None:
        raise GenerateError(
            f"{NVL_SHELVES} shelves of {rating / 1e3:g} kW cannot carry {dc_load / 1e3:.1f} kW "
            f"with a feed side lost on up to {MAX_SIDES} sides"
        )
    share = min(rating, dc_load / (NVL_SHELVES - math.ceil(NVL_SHELVES / sides)))
    if share > capacity + 1e-6:
        raise GenerateError(
            f"--voltage {options.voltage_text} {options.phases}-phase: a power shelf draws up "
            f"to {share / 1e3:.1f} kW on its one AC input with a side lost, and the largest "
            f"standard {row.region} circuit ({current:g} A) carries {capacity / 1e3:.1f} kW: "
            "feed the NVL72 racks 415 V or 480 V 3-phase"
        )
    per_side = next(
        f
        for f in range(1, NVL_SHELVES + 1)
        if math.ceil(NVL_SHELVES / (sides * f)) * share <= capacity + 1e-6
    )
    return NvlPower(sides, per_side, current, dc_load, share)


def _nvl_feeds(rack: Rack, catalog: Catalog, options: NewOptions, power: NvlPower) -> int:
    """An NVL72 rack's feeds (:func:`_nvl_power`): its shelves take them directly, no PDU,
    the feeds listed side by side (A1, B1, A2, B2, ...) so the shelves, which go over the
    feeds in order, split evenly over the sides. Other racks get PDUs as ``new`` sizes
    them, on 208 V from a transformer where their switches cannot take the supply's
    outlets (a 480Y/277 V hall). 1 where the rack is on a transformer's circuits."""
    if not any(catalog.devices[d.model].is_power_shelf for d in rack.devices):
        supply = _rack_supply(rack, catalog, options)
        sizes = circuit_sizes(catalog, supply.voltage, supply.phases, supply.voltage_text)
        _power_and_furniture(Layout("", racks=[rack]), supply, catalog, sizes)
        if supply is options:
            return 0
        for feed in rack.feeds:
            feed.circuit = f"XFMR-{feed.circuit}"
            feed.notes = (
                f"208Y/120 V from a {options.voltage_text}-208 V transformer: the rack's "
                "switches take 200-240 V, not the 277 V outlets of a 480Y/277 V feed"
            )
        return 1
    feeds = []
    for k in range(power.per_side):
        for label in SIDES[: power.sides]:
            suffix = f"{label}{k + 1}" if power.per_side > 1 else label
            feeds.append(
                Feed(
                    f"{rack.id}-{suffix}",
                    voltage=Q(options.voltage, options.voltage_text),
                    phases=options.phases,
                    current=Q(power.current, f"{power.current:g} A"),
                    side=label,
                    circuit=f"RPP-{rack.row}-{suffix}-{rack.id}",
                )
            )
    rack.feeds = feeds
    return 0


def _rack_supply(rack: Rack, catalog: Catalog, options: NewOptions) -> NewOptions:
    """``options``, or 208 V 3-phase where a device's PSUs do not take the supply's outlet
    voltage (480Y/277 V gives 277 V; switches take 200-240 V): the circuit a transformer
    (a 480-208 V floor PDU, as North-American halls have) gives the rack."""
    voltage, phases = options.voltage, options.phases
    outlet = voltage / SQRT3 if phases == 3 and voltage > 240 else voltage
    for device in rack.devices:
        ranges = catalog.devices[device.model].input_voltage
        if ranges is not None and not ranges[0] - 1e-6 <= outlet <= ranges[1] + 1e-6:
            return replace(options, voltage=208.0, voltage_text="208 V", phases=3)
    return options


__all__ = [
    "RACK_SCALE_TEMPLATES",
    "TEMPLATES",
    "Built",
    "NewOptions",
    "Template",
    "build",
    "with_template",
]
