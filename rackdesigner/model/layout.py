"""The layout model: plain data, nothing of TOML, pint, Textual or SVG.

Quantities are SI floats (heights in rack units). A quantity read from a file
is a :class:`Q`: a float that remembers the text it was written with, so that
saving an unchanged layout writes the same bytes. Any arithmetic on a ``Q``
gives a plain float, and a plain float set by an edit is written in the key's
canonical unit.

``None`` means "not written in the file"; the defaults the format defines are
applied by properties (``Rack.height_u``) and by the analysis, never stored,
so that saving does not add keys the user did not write.

The model holds no line numbers and no file origin: where an entity was read
from is the :class:`~rackdesigner.layout_io.document.Document`'s business (its source map),
so an edit in memory never leaves a stale line behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rackdesigner.model.llm_shapes import SHAPES

FORMAT_VERSION = 1

DEVICE_KINDS = (
    "gpu-node",
    "cpu-node",
    "storage",
    "switch",
    "pdu",
    "cdu",
    "rear-door",
    "patch-panel",
    "blank",
    "other",
)
COOLING = ("air", "liquid", "rear-door", "immersion")
AIRFLOW = ("front-to-rear", "rear-to-front", "passive")
MEDIA = ("dac", "acc", "aoc", "mmf", "smf", "copper-rj45")
PORT_TECH = ("infiniband", "ethernet")
PORT_ROLES = ("compute", "storage", "management")
WORKLOAD_KINDS = ("training", "fine-tuning", "inference")
PARALLELISM = ("ddp", "fsdp", "zero3", "tensor", "pipeline")
# (v1.4) How a model is trained or tuned: every weight (full), low-rank adapters on frozen
# 16-bit weights (LoRA), or on 4-bit NF4 weights (QLoRA). Inference is ``kind``'s word.
TRAINING_METHODS = ("full", "lora", "qlora")
# (v1.4) The format the model's weights are held in.
PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4")
ZERO_STAGES = (0, 1, 2, 3)
# (v1.4) The storage tiers a storage appliance serves: a parallel file system (the warm tier
# the GPU nodes train from and checkpoint to) or an object store (the cold tier).
STORAGE_TIERS = ("parallel-fs", "object")
# (v1.4) NVIDIA's DGX SuperPOD storage performance levels (docs/storage.md cites the table).
STORAGE_LEVELS = ("good", "better", "best")
WIRING = ("wye", "delta")
PHASES_WYE = ("L1", "L2", "L3")
PHASES_DELTA = ("L1-L2", "L2-L3", "L3-L1")
# (v1.1) PSU inlets: a C14 inlet takes a C13 outlet's cord (10 A), a C20 inlet a C19's
# (16 A). "c13" / "c19" name the outlet the PSU needs and mean the same. (v1.4)
# "hardwired": wired to its circuit (a floor-standing CDU), no cord and no PDU outlet.
PSU_INLETS = ("c14", "c20", "c13", "c19", "hardwired")
HARDWIRED = "hardwired"
OUTLET_KINDS = ("c13", "c19")
FIBRE_GRADES = ("om3", "om4", "om5", "os2")
# (v1.2) How a GPU attaches to its node, and what a GPU node's chassis takes: an SXM
# module on an NVIDIA HGX/DGX baseboard, an OAM module (OCP Accelerator Module) on an
# AMD or OCP baseboard, or a PCIe card in a slot. A chassis takes only GPUs of its own
# form factor (CMP008). A rack-scale tray's GPUs sit on a Grace-Blackwell superchip board
# (GB200 "Bianca", GB300), neither a module nor a card: "superchip".
FORM_FACTORS = ("sxm", "oam", "pcie", "superchip")
# (v1.4) The power chain behind the racks' feeds (docs/power-chain.md): the kinds of its
# elements. Sources (a utility service, a generator) are fed by nothing; every other element
# names what feeds it. "power-rack" is NVIDIA's 800 VDC power rack or sidecar, feeding
# rack busbars with DC.
POWER_KINDS = (
    "utility",
    "generator",
    "ats",
    "switchgear",
    "ups",
    "transformer",
    "rpp",
    "busway",
    "power-rack",
)
POWER_SOURCES = ("utility", "generator")
# (v1.4) A UPS's module redundancy: n (every module needed), n+1 (one module spare), 2n
# (one half of a pair of UPSs), dr (one of a distributed-redundant group). n+1 is checked
# inside the UPS (one module lost); 2n and dr through the racks' sides.
REDUNDANCY = ("n", "n+1", "2n", "dr")
# (v1.2) Rack-scale NVLink domains: the shapes a tray type belongs to. Each shape names
# its compute trays, NVLink switch trays and how many racks its copper backplane may span
# (docs/rack-scale.md cites the figures).
NVL_SHAPES = ("nvl72", "nvl36")
NVL_ROLES = ("compute", "switch")
# (v1.4) The liquid loop (docs/liquid-cooling.md). A facility loop's water: ASHRAE TC 9.9's
# liquid-cooling classes name the highest facility supply temperature they allow, in °C
# (W17 ... W45; W+ is above 45 °C and has no upper bound); the lowest is 2 °C for all.
ASHRAE_CLASSES = {"W17": 17.0, "W27": 27.0, "W32": 32.0, "W40": 40.0, "W45": 45.0, "W+": None}
ASHRAE_CLASS_MIN = 2.0
# What a loop is: facility water (the CDUs' primary side, from towers, dry coolers or
# chillers) or chilled water (rear doors and in-row coolers); and its fluid.
LOOP_KINDS = ("facility", "chilled")
FLUIDS = ("water", "pg25")
# (v1.4) What rejects a loop's heat: NetBox 4.7's cooling source types for water plants.
LOOP_PLANTS = ("chiller", "cooling-tower", "dry-cooler")
# The kinds that hang on a loop (a loop's ``devices``): CDUs and rear doors, and in-row
# coolers (kind "other" with ``in_row``: the drawings' palette has no kind for them yet).
LOOP_DEVICE_KINDS = ("cdu", "rear-door")
# (v1.4) The cable plant (docs/cable-plant.md). Pathways: where cables run in the hall.
# Overhead trays and ladder racks hang above the racks, under-floor trays below them, a
# riser joins the two at one point, a vertical manager runs up the side of one rack.
PATHWAY_KINDS = ("overhead-tray", "ladder-rack", "under-floor", "riser", "vertical-manager")
OVERHEAD_KINDS = ("overhead-tray", "ladder-rack")
# A port's or a trunk's connector: LC duplex (2 fibres) or MPO/MTP of 8, 12, 16 or 24
# fibres; rj45 for copper panels.
CONNECTORS = ("lc", "mpo-8", "mpo-12", "mpo-16", "mpo-24", "rj45")
CONNECTOR_FIBRES = {"lc": 2, "mpo-8": 8, "mpo-12": 12, "mpo-16": 16, "mpo-24": 24, "rj45": 0}
# A port's cage (NVIDIA LinkX): OSFP with a finned top (air-cooled switch cages: the plug
# carries its own heat sink) or a flat top (adapters and liquid-cooled switches: the cage
# has a riding heat sink), QSFP112 / QSFP56 / QSFP28 (flat).
CAGES = ("osfp-finned", "osfp-flat", "qsfp112", "qsfp56", "qsfp28")
TRANSCEIVER_MEDIA = ("mmf", "smf")

DEFAULT_RACK_HEIGHT_U = 42.0
# v1.1: no cold plates unless a type declares them (DGX and air HGX chassis have none).
DEFAULT_LIQUID_FRACTION = 0.0
DEFAULT_RACK_WEIGHT_KG = 150.0
DEFAULT_RACK_WIDTH_M = 0.6
DEFAULT_RACK_DEPTH_M = 1.2
RACK_UNIT_M = 0.04445


class Q(float):
    """A float read from a quantity string; ``text`` is that string, kept for saving."""

    text: str

    def __new__(cls, value: float, text: str) -> Q:
        self = super().__new__(cls, value)
        self.text = text
        return self

    def __repr__(self) -> str:
        return f"Q({float(self)!r}, {self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[Any, ...]:
        return (Q, (float(self), self.text))


@dataclass(slots=True)
class PortGroup:
    name: str
    count: int
    speed: float | None = None  # bit/s
    tech: str | None = None
    role: str | None = None
    # (v1.4) the cage a port sits in (osfp-finned, osfp-flat, qsfp112, ...) and how many
    # ports one cage carries (2: a twin-port OSFP, one module for two ports)
    cage: str | None = None
    per_cage: int | None = None
    # (v1.4) a patch panel's port: its connector (lc, mpo-12, ...), and the insertion loss
    # of one mated connection through it (dB)
    connector: str | None = None
    insertion_loss: float | None = None

    def effective_role(self, kind: str | None = None) -> str:
        """``role`` when written; else by what the port is and what it sits on.

        Fast ports (InfiniBand, or Ethernet of 100 Gbps and more) are compute ports on GPU
        nodes and switches (and where the device's kind is unknown), storage ports on
        storage devices and management ports elsewhere (a login node on InfiniBand is not
        part of the GPU fabric); slower ports are management.
        """
        if self.role:
            return self.role
        fast = self.tech == "infiniband" or (
            self.tech in (None, "ethernet") and self.speed is not None and self.speed >= 100e9
        )
        if not fast:
            return "management"
        if kind in (None, "gpu-node", "switch"):
            return "compute"
        return "storage" if kind == "storage" else "management"


@dataclass(slots=True)
class Gpu:
    key: str
    name: str | None = None
    vendor: str | None = None
    memory: float | None = None  # bit
    bandwidth: float | None = None  # bit/s, memory bandwidth
    tdp: float | None = None  # W
    generation: str | None = None
    consumer: bool | None = None
    nvlink: bool | None = None
    interconnect: float | None = None  # bit/s per GPU inside a node
    source: str | None = None
    notes: str | None = None
    comment: str | None = None
    form_factor: str | None = None  # (v1.2) sxm | oam | pcie


@dataclass(slots=True)
class DeviceType:
    """A catalog entry. In a layout's ``[catalog]`` every field may be unset (``None``):
    an entry named like a built-in one overrides only the fields it sets."""

    key: str
    kind: str | None = None
    name: str | None = None
    vendor: str | None = None
    height: float | None = None  # U
    depth: str | None = None
    power: float | None = None  # W, maximum draw
    weight: float | None = None  # kg
    gpu: str | None = None
    gpus: int | None = None
    cpu_cores: int | None = None
    memory: float | None = None  # bit
    nvme: float | None = None  # bit
    # (v1.4) gpu-node: its local NVMe's sequential rates, all data drives together (bit/s)
    nvme_read: float | None = None
    nvme_write: float | None = None
    # (v1.4) storage: the tier it serves, its usable capacity (bit) and its client-facing
    # sequential read and write rates (bit/s), the vendor's per-appliance figures
    storage_tier: str | None = None
    usable_capacity: float | None = None
    read_bandwidth: float | None = None
    write_bandwidth: float | None = None
    cost: float | None = None  # USD
    airflow: str | None = None
    psus: int | None = None
    psus_required: int | None = None
    input_voltage: tuple[float, float] | None = None  # V
    liquid_fraction: float | None = None
    role: str | None = None
    capacity: float | None = None  # W
    ports: list[PortGroup] | None = None
    source: str | None = None
    notes: str | None = None
    comment: str | None = None
    psu_inlet: str | None = None  # (v1.1) c14 | c20 (c13 | c19 name the outlet); hardwired
    chassis_depth: float | None = None  # (v1.1) m, front to rear
    outlets: dict[str, int] | None = None  # (v1.1) pdu: {"c13": n, "c19": m}
    form_factor: str | None = None  # (v1.2) gpu-node: the GPUs its chassis takes
    psu_rating: float | None = None  # (v1.2) W, one PSU's output rating
    input_current: float | None = None  # (v1.2) A, pdu: its inlet's rated current
    nvl_domain: str | None = None  # (v1.2) rack-scale tray: the NVLink domain shape it joins
    nvl_role: str | None = None  # (v1.2) compute | switch (default: gpu-node is compute)
    dc_voltage: float | None = None  # (v1.2) V, power shelf: the DC it puts on the busbar
    busbar_current: float | None = None  # (v1.2) A, busbar: its rated DC current
    # (v1.4) ``power`` is an estimate, not a vendor figure (PWR009 says so, as info)
    power_estimated: bool | None = None
    # (v1.4) takes DC from its rack's busbar (power shelves), not a PDU cord
    dc_input: bool | None = None
    # (v1.4) a rating (busbar_current) not confirmed by a vendor document (PWR017 warns)
    rating_unverified: bool | None = None
    # (v1.4) the transient peak of this type's draw ÷ its power (≥ 1), overriding the
    # workload's peak_factor; and the share of the excursion its energy storage absorbs
    # (GB300's power-smoothing PSUs: NVIDIA gives "up to 30 %" lower peak grid demand)
    peak_factor: float | None = None
    power_smoothing: float | None = None
    # (v1.4) The liquid loop. A CDU: the approach (its secondary supply less the facility
    # supply) at which ``capacity`` is rated, or a table of [approach, capacity] points;
    # its pump's flow at ``pump_pressure``; the highest secondary return it takes; its
    # secondary fluid. A rear door or in-row cooler: the water temperature and airflow its
    # ``capacity`` is rated at. A device with cold plates: the coolant flow it needs, the
    # warmest supply and return it takes, its pressure drop at that flow.
    rated_approach: float | None = None  # K
    capacity_table: list[tuple[float, float]] | None = None  # (K, W), approach ascending
    pump_flow: float | None = None  # m³/s
    pump_pressure: float | None = None  # Pa
    coolant: str | None = None  # water | pg25 (a CDU's secondary; default pg25)
    rated_water_temperature: float | None = None  # °C
    rated_airflow: float | None = None  # m³/s
    coolant_flow: float | None = None  # m³/s, at full load
    max_supply_temperature: float | None = None  # °C
    max_return_temperature: float | None = None  # °C
    pressure_drop: float | None = None  # Pa, at coolant_flow
    # (v1.4) an in-row cooler: stands in the row and takes its racks' air heat through a
    # chilled-water coil, up to ``capacity`` (a type of kind "other")
    in_row: bool | None = None

    @property
    def is_in_row_cooler(self) -> bool:
        return bool(self.in_row)

    @property
    def nvl_tray_role(self) -> str | None:
        """``compute`` or ``switch`` for a rack-scale tray type, None for any other."""
        if self.nvl_domain is None:
            return None
        if self.nvl_role is not None:
            return self.nvl_role
        return "compute" if self.kind == "gpu-node" else "switch"

    @property
    def is_power_shelf(self) -> bool:
        return self.dc_voltage is not None

    @property
    def is_busbar(self) -> bool:
        return self.busbar_current is not None

    @property
    def on_busbar(self) -> bool:
        """Takes its power from the rack's DC busbar: a rack-scale tray or a DC-input type."""
        return self.nvl_domain is not None or bool(self.dc_input)

    @property
    def height_u(self) -> float:
        return self.height if self.height is not None else 1.0

    @property
    def full_depth(self) -> bool:
        return self.depth != "half"

    def port_group(self, name: str) -> PortGroup | None:
        for group in self.ports or ():
            if group.name == name:
                return group
        return None


@dataclass(slots=True)
class Feed:
    id: str
    voltage: float | None = None  # V, line-to-line for 3-phase
    phases: int | None = None
    current: float | None = None  # A, breaker rating
    side: str | None = None
    circuit: str | None = None
    wiring: str | None = None
    derate: float | None = None
    outlet_voltage: float | None = None  # V
    notes: str | None = None
    # (v1.2) a busway tap-off: the circuit may carry several PDUs (PWR014)
    tap_off: bool | None = None
    # (v1.4) the power-chain element the feed hangs on ([[power.elements]] id), and its
    # breaker or tap-off position there
    source: str | None = None
    position: int | None = None

    @property
    def effective_wiring(self) -> str | None:
        """wye or delta for 3-phase feeds (delta up to 240 V line-to-line), None for 1-phase."""
        if self.phases != 3:
            return None
        if self.wiring:
            return self.wiring
        return "delta" if (self.voltage or 0) <= 240 else "wye"


@dataclass(slots=True)
class Device:
    id: str
    model: str
    position: int | None = None  # lowest occupied U, 1-based from the bottom
    face: str | None = None
    phase: str | None = None
    side: str | None = None
    label: str | None = None
    hostname: str | None = None  # (v1.1) the name Slurm and MPI know it by
    notes: str | None = None
    comment: str | None = None
    feed: str | None = None  # (v1.1) pdu only: the id of the rack's feed it plugs into
    # (v1.1) rule codes or prefixes not reported for findings about this device
    ignore: list[str] | None = None
    # (v1.4) a CDU: its secondary supply setpoint (°C)
    supply_setpoint: float | None = None


@dataclass(slots=True)
class Rack:
    id: str
    row: str | None = None
    slot: int | None = None
    height: float | None = None  # U
    cooling: str | None = None
    cdu: str | list[str] | None = None  # (v1.1) one CDU id or the list serving it together
    door: str | None = None
    airflow: str | None = None
    max_weight: float | None = None  # kg
    label: str | None = None
    notes: str | None = None
    feeds: list[Feed] = field(default_factory=list)
    devices: list[Device] = field(default_factory=list)
    comment: str | None = None
    weight: float | None = None  # (v1.1) kg, the empty rack
    width: float | None = None  # (v1.1) m, footprint
    depth: float | None = None  # (v1.1) m, footprint
    nvlink_domain: str | None = None  # (v1.2) the NVLink domain the rack's trays form
    # (v1.4) blanking panels close every front unit no device takes (PLC006)
    blanking: bool | None = None
    # (v1.4) the in-row cooler(s) that take the rack's air heat: one id or a list
    inrow: str | list[str] | None = None
    # (v1.1) rule codes or prefixes not reported for findings about this rack (and its feeds)
    ignore: list[str] | None = None

    @property
    def cdus(self) -> list[str]:
        """The CDU ids the rack names, in order (``cdu`` as a string or a list)."""
        if self.cdu is None:
            return []
        return [self.cdu] if isinstance(self.cdu, str) else list(self.cdu)

    @property
    def inrows(self) -> list[str]:
        """The in-row cooler ids the rack names, in order (v1.4)."""
        if self.inrow is None:
            return []
        return [self.inrow] if isinstance(self.inrow, str) else list(self.inrow)

    @property
    def weight_kg(self) -> float:
        return float(self.weight) if self.weight is not None else DEFAULT_RACK_WEIGHT_KG

    @property
    def width_m(self) -> float:
        return float(self.width) if self.width is not None else DEFAULT_RACK_WIDTH_M

    @property
    def depth_m(self) -> float:
        return float(self.depth) if self.depth is not None else DEFAULT_RACK_DEPTH_M

    @property
    def height_u(self) -> float:
        return self.height if self.height is not None else DEFAULT_RACK_HEIGHT_U

    @property
    def cooling_mode(self) -> str:
        return self.cooling or "air"

    @property
    def airflow_mode(self) -> str:
        return self.airflow or "front-to-rear"


@dataclass(slots=True)
class Link:
    a: str  # "<device id>:<port group><index>"
    b: str
    media: str | None = None
    length: float | None = None  # m, declared
    notes: str | None = None
    comment: str | None = None
    grade: str | None = None  # (v1.1) fibre grade: om3 | om4 | om5 (mmf), os2 (smf)
    # (v1.1) rule codes or prefixes not reported for findings about this link
    ignore: list[str] | None = None
    # (v1.4) a channel instead of one cable: the two patch-panel ports it runs through, a's
    # side first (patch cord, trunk, patch cord), and the trunk between them where the two
    # panels are joined by more than one
    via: list[str] | None = None
    trunk: str | None = None
    # (v1.4) the transceiver part at each end (fibre), where not the media table's
    a_transceiver: str | None = None
    b_transceiver: str | None = None

    @property
    def name(self) -> str:
        return f"{self.a} -> {self.b}"


@dataclass(slots=True)
class Pathway:
    """(v1.4) A segment of the hall's cable pathways: a tray, a ladder rack, an under-floor
    tray, a riser or a rack's vertical manager, placed on the hall's grid of rows and slots
    (docs/cable-plant.md). Junctions are where two segments meet."""

    id: str
    kind: str | None = None  # PATHWAY_KINDS; None: overhead-tray
    row: str | None = None  # along this row (or, a riser: in it)
    slots: list[float] | None = None  # along a row: from this slot to that one
    slot: float | None = None  # across rows at this slot position (a riser: at it)
    rows: list[str] | None = None  # across rows: from this row to that one
    rack: str | None = None  # a vertical manager: in this rack
    width: float | None = None  # m, the cable bed's inside width
    depth: float | None = None  # m, its usable depth (side rail height)
    length: float | None = None  # m, a riser's vertical run
    fill_max: float | None = None  # ratio: this pathway's own fill limit
    bend_radius: float | None = None  # m, the inside radius of its fittings
    label: str | None = None
    notes: str | None = None
    comment: str | None = None
    ignore: list[str] | None = None

    @property
    def kind_name(self) -> str:
        return self.kind or "overhead-tray"

    @property
    def overhead(self) -> bool:
        return self.kind_name in OVERHEAD_KINDS


@dataclass(slots=True)
class Trunk:
    """(v1.4) A multi-fibre trunk cable between two patch panels."""

    id: str
    a: str  # patch-panel device id
    b: str
    fibres: int | None = None
    media: str | None = None  # mmf | smf
    grade: str | None = None
    connector: str | None = None  # its ends' connectors (mpo-12, ...)
    length: float | None = None  # m, declared; else routed between the panels' racks
    diameter: float | None = None  # m, its outer diameter (tray fill)
    splices: int | None = None  # fusion splices along it (channel loss)
    label: str | None = None
    notes: str | None = None
    comment: str | None = None
    ignore: list[str] | None = None


@dataclass(slots=True)
class Transceiver:
    """(v1.4) A transceiver part, built in (``assets/catalog/transceivers.toml``) or a
    layout's own ``[transceivers.PART]``: its cage, the ports one module carries, its fibre
    and the loss budget of the channel it drives."""

    key: str
    name: str | None = None
    band: str | None = None  # the media table's band: XDR, 400G+, 200G, 100G
    cage: str | None = None  # CAGES
    ports: int | None = None  # links one module carries (2: twin-port)
    media: str | None = None  # mmf | smf
    connector: str | None = None  # per port: mpo-12, lc, ...
    fibres: int | None = None  # fibres one port's link uses (8 for SR4/DR4)
    reach: float | None = None  # m
    loss_budget: float | None = None  # dB, the channel insertion loss it is specified for
    source: str | None = None
    notes: str | None = None
    comment: str | None = None


@dataclass(slots=True)
class Site:
    power_budget: float | None = None  # W
    cooling_capacity: float | None = None  # W
    rack_pitch: float | None = None  # m
    row_pitch: float | None = None  # m
    tray_rise: float | None = None  # m
    slack: float | None = None  # m
    notes: str | None = None
    comment: str | None = None
    floor_load_max: float | None = None  # (v1.1) kg/m², the floor's rating (PLC008)


@dataclass(slots=True)
class Workload:
    kind: str | None = None
    model_params: float | None = None
    parallelism: str | None = None
    steps_per_second: float | None = None
    bytes_per_param: float | None = None
    # (v1.4) The model's memory: what it is, how it is trained and split over GPUs, and
    # what inference keeps besides the weights (analysis/workload_memory.py).
    model: str | None = None  # a named shape (model/llm_shapes.py)
    method: str | None = None  # TRAINING_METHODS
    precision: str | None = None  # PRECISIONS
    zero_stage: int | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    context_length: int | None = None  # tokens
    batch_size: int | None = None  # sequences per GPU (training), per replica (inference)
    activation_memory: float | None = None  # bit per GPU, declared
    lora_rank: int | None = None
    adapter_params: float | None = None
    layers: int | None = None
    hidden_size: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    # (v1.4) The cluster caps GPU power when it loses supply (what-if: capped, not down).
    power_capping: bool | None = None
    # (v1.4) NVIDIA's storage performance level the parallel file system is sized to
    storage_level: str | None = None
    # (v1.4) how often a checkpoint is written: a time, or a number of optimizer steps
    checkpoint_interval: float | None = None  # s
    checkpoint_steps: int | None = None
    notes: str | None = None
    comment: str | None = None
    # (v1.4) the GPU nodes' transient peak ÷ their steady draw (synchronous training swings),
    # and how long a peak lasts (what a UPS's overload table is read at)
    peak_factor: float | None = None
    peak_duration: float | None = None  # s

    @property
    def is_training(self) -> bool:
        return self.kind in ("training", "fine-tuning")

    @property
    def params(self) -> float | None:
        """The model's parameters: ``model_params``, else the named model's (v1.4)."""
        if self.model_params is not None:
            return float(self.model_params)
        shape = SHAPES.get(self.model or "")
        return shape.params if shape is not None else None


@dataclass(slots=True)
class PowerElement:
    """(v1.4) One element of the power chain: ``[[power.elements]]``. Ratings left out come
    from the ``model`` (the built-in power catalog) where it names one."""

    id: str
    kind: str | None = None
    fed_by: list[str] | None = None  # ids of the elements feeding it, preferred first
    model: str | None = None
    label: str | None = None
    capacity: float | None = None  # W, real-power rating
    apparent_power: float | None = None  # VA
    voltage: float | None = None  # V, output (a transformer's secondary), line-to-line
    primary_voltage: float | None = None  # V, a transformer's primary
    current: float | None = None  # A, rating (panel, busway, service, breaker)
    phases: int | None = None
    power_factor: float | None = None
    derate: float | None = None  # continuous share of the ratings
    efficiency: float | None = None
    modules: int | None = None  # ups: power modules
    redundancy: str | None = None  # ups: n | n+1 | 2n | dr
    runtime: float | None = None  # s, ups: battery runtime at full load
    overload: list[tuple[float, float]] | None = None  # ups: (load ÷ rating, s) it carries
    start_time: float | None = None  # s, generator: start and transfer
    step_load: float | None = None  # generator: the load step it accepts, share of rating
    positions: int | None = None  # rpp: breaker poles; busway: tap-off positions
    notes: str | None = None
    comment: str | None = None
    ignore: list[str] | None = None


@dataclass(slots=True)
class CoolingLoop:
    """(v1.4) A water loop the CDUs, rear doors and in-row coolers hang on:
    ``[[cooling.loops]]``. Its supply temperature is ``supply_temperature``, or the top of
    its ASHRAE class where only the class is given."""

    id: str
    kind: str | None = None  # facility (default) | chilled
    label: str | None = None
    ashrae_class: str | None = None  # W17 ... W45, W+
    supply_temperature: float | None = None  # °C
    capacity: float | None = None  # W, heat the plant behind it rejects
    flow: float | None = None  # m³/s, flow it supplies
    fluid: str | None = None  # water (default) | pg25
    plant: str | None = None  # chiller | cooling-tower | dry-cooler: what rejects its heat
    devices: list[str] | None = None  # the CDUs, rear doors and in-row coolers on it
    notes: str | None = None
    comment: str | None = None
    ignore: list[str] | None = None

    @property
    def supply(self) -> float | None:
        """The supply temperature the rules judge at (°C): the declared one, else the
        warmest its class allows (W+ has none)."""
        if self.supply_temperature is not None:
            return float(self.supply_temperature)
        if self.ashrae_class is not None:
            return ASHRAE_CLASSES.get(self.ashrae_class)
        return None

    @property
    def loop_kind(self) -> str:
        return self.kind or "facility"

    @property
    def loop_fluid(self) -> str:
        return self.fluid or "water"


@dataclass(slots=True)
class RulesConfig:
    ignore: list[str] | None = None
    select: list[str] | None = None
    thresholds: dict[str, float] = field(default_factory=dict)  # SI floats (Q when read)
    comment: str | None = None


@dataclass(slots=True)
class Layout:
    name: str
    format: int = FORMAT_VERSION
    description: str | None = None
    revision: str | None = None
    notes: str | None = None
    site: Site | None = None
    workload: Workload | None = None
    rules: RulesConfig | None = None
    meta: dict[str, Any] | None = None
    catalog: dict[str, DeviceType] = field(default_factory=dict)
    gpus: dict[str, Gpu] = field(default_factory=dict)
    racks: list[Rack] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    comment: str | None = None  # the file's header comment, kept on save
    # (v1.4) the power chain behind the feeds, [[power.elements]] in file order
    power_elements: list[PowerElement] = field(default_factory=list)
    # (v1.4) the water loops, [[cooling.loops]] in file order
    cooling_loops: list[CoolingLoop] = field(default_factory=list)
    # (v1.4) the cable plant: pathways, trunks between patch panels, transceiver parts
    pathways: list[Pathway] = field(default_factory=list)
    trunks: list[Trunk] = field(default_factory=list)
    transceivers: dict[str, Transceiver] = field(default_factory=dict)

    def devices(self) -> list[tuple[Rack, Device]]:
        return [(rack, device) for rack in self.racks for device in rack.devices]
