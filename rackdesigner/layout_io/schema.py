"""The layout format's schema: every table's keys, their types, units and limits.

One description serves three readers: the loader (conversion and precise
errors), the writer (key order) and ``rackdesigner schema`` (a JSON Schema
editors use for completion).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rackdesigner.model import layout as m
from rackdesigner.model.llm_shapes import SHAPES
from rackdesigner.model.units import (
    APPARENT_POWER,
    AREAL_MASS,
    BANDWIDTH,
    CURRENT,
    DURATION,
    FLOW,
    HEIGHT,
    INFORMATION,
    LENGTH,
    LOSS,
    MASS,
    POWER,
    PRESSURE,
    RATIO,
    REAL_POWER,
    TEMPERATURE,
    TEMPERATURE_DIFFERENCE,
    VOLTAGE,
    Dimension,
)

# (v1.1) An id: 1-64 characters, none of them whitespace, ':' (a link names a port as
# "<device id>:<port>", so a device id holding ':' could never be cabled) or a control
# character (Unicode category Cc).
ID_PATTERN = r"^[^\s:\x00-\x1f\x7f-\x9f]{1,64}$"
ID = re.compile(ID_PATTERN)
ID_RULE = "1-64 characters without whitespace, ':' or control characters"

# A model's parameter count: the largest models trained are near 2e12; above 1e15 a value
# is a typo (a unit, or digits twice), not a model.
MODEL_PARAMS_MAX = 1e15

# A device's host name (v1.1): dot-separated labels of letters, digits, '-' and '_', each
# starting and ending with a letter or digit, at most 64 characters (Slurm's limit).
HOSTNAME = re.compile(
    r"^(?=.{1,64}$)[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)*$"
)
HOSTNAME_MAX = 64

# "<device id>:<port group><index>", the index 1-based and always present.
ENDPOINT = re.compile(r"^(?P<device>[^:\s]+):(?P<group>[^\s:]*?[^\s:0-9])(?P<index>[0-9]+)$")


@dataclass(frozen=True, slots=True)
class Field:
    key: str
    # str | int | number | bool | enum | qty | ratio | str_list | qty_pair | table | tables
    # | str_or_list (one string or a non-empty array of them) | int_map (keys from choices,
    # counts as values) | overload (v1.4: an array of [load ratio, time] pairs) | qty_table
    # (v1.4: [approach, capacity] pairs, approach ascending) | num_pair (two numbers, lowest
    # first) | str_pair (two strings)
    kind: str
    doc: str
    dim: Dimension | None = None
    choices: tuple[object, ...] = ()
    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    sci: bool = False  # a large count written as 70e9
    whole: bool = False  # quantities: a whole number of units (rack units)
    positive: bool = False  # quantities: more than 0
    pattern: str | None = None
    # Above this the value is a typo, not a design (a port count of 1e26): E002. In SI base
    # units for quantities. Unlike ``maximum`` it is a plausibility bound, not a rule.
    implausible: float | None = None


# Plausibility bounds: well above anything built, far below a typo's size.
PORTS_MAX = 10_000  # ports in one group of one device (the largest switches have 512)
CURRENT_MAX = 100_000.0  # A: a feed's breaker (busways reach 6,300 A; a short circuit 100 kA)
LENGTH_MAX = 100_000.0  # m: 100 km, longer than any cable or hall
BYTES_PER_PARAM_MAX = 64  # fp64 with optimizer state is 16-20
STEPS_PER_SECOND_MAX = 1e6
DEVICE_GPUS_MAX = 10_000
PEAK_FACTOR_MAX = 10.0  # a transient peak ten times the steady draw is a typo, not a swing
MODULES_MAX = 1_000  # UPS power modules in one system
POSITIONS_MAX = 10_000  # breaker poles of a panel, tap-off positions of a busway
# (v1.4) The workload's shape: well above any model or run, far below a typo's size.
CONTEXT_MAX = 100_000_000  # tokens (the longest contexts served are about 10 million)
BATCH_MAX = 1_000_000
GPU_MEMORY_MAX = 8e15  # bit: 1 PB per GPU (the largest hold 288 GB)
LORA_RANK_MAX = 1_000_000
LAYERS_MAX = 100_000
WIDTH_MAX = 10_000_000
# (v1.4) A coolant's temperature: below -10 °C even PG25 is ice (25 % propylene glycol by
# volume freezes at -8.9 °C), at 100 °C water boils; anything outside is a typo or a unit.
COOLANT_MIN_C = -10.0
COOLANT_MAX_C = 100.0
APPROACH_MAX = 100.0  # K: an approach is a few kelvin; 100 K is a typo


def _s(key: str, doc: str, **kw: object) -> Field:
    return Field(key, "str", doc, **kw)  # type: ignore[arg-type]


def _q(key: str, dim: Dimension, doc: str, **kw: object) -> Field:
    return Field(key, "qty", doc, dim=dim, **kw)  # type: ignore[arg-type]


def _e(key: str, choices: tuple[object, ...], doc: str, **kw: object) -> Field:
    return Field(key, "enum", doc, choices=choices, **kw)  # type: ignore[arg-type]


def _i(key: str, doc: str, minimum: float | None = 0, **kw: object) -> Field:
    return Field(key, "int", doc, minimum=minimum, **kw)  # type: ignore[arg-type]


NOTES = _s("notes", "free text")
IGNORE = Field(
    "ignore",
    "str_list",
    'rule codes or prefixes not reported for findings about this entity, e.g. ["PWR008"]',
)

SITE = (
    _q("power_budget", POWER, "power the site can deliver to the racks"),
    _q("cooling_capacity", POWER, "heat the room's air cooling can remove"),
    _q(
        "rack_pitch",
        LENGTH,
        "centre-to-centre distance of neighbouring racks in a row (600 mm)",
        implausible=LENGTH_MAX,
    ),
    _q(
        "row_pitch",
        LENGTH,
        "centre-to-centre distance of neighbouring rows (2.4 m)",
        implausible=LENGTH_MAX,
    ),
    _q(
        "tray_rise",
        LENGTH,
        "from a rack's top to the overhead cable tray (0.3 m)",
        implausible=LENGTH_MAX,
    ),
    _q("slack", LENGTH, "service loop added to every cable (0.5 m)", implausible=LENGTH_MAX),
    _q(
        "floor_load_max",
        AREAL_MASS,
        'the floor\'s rating, e.g. "1500 kg/m^2"; PLC008 uses it instead of the threshold',
        positive=True,
    ),
    NOTES,
)

WORKLOAD = (
    _e("kind", m.WORKLOAD_KINDS, "what the cluster runs; fine-tuning counts as training"),
    Field(
        "model_params",
        "number",
        "parameters of the model, e.g. 70e9",
        minimum=0,
        maximum=MODEL_PARAMS_MAX,
        sci=True,
    ),
    _e("parallelism", m.PARALLELISM, "how training is parallelised"),
    Field(
        "steps_per_second",
        "number",
        "optimizer steps per second",
        minimum=0,
        implausible=STEPS_PER_SECOND_MAX,
    ),
    Field(
        "bytes_per_param",
        "number",
        "bytes per gradient value (2 for bf16, 4 for fp32)",
        minimum=0,
        implausible=BYTES_PER_PARAM_MAX,
    ),
    Field(
        "peak_factor",
        "number",
        "(v1.4) the GPU nodes' transient peak ÷ their steady draw, e.g. 1.4 (synchronous "
        "training swings; the power chain is checked at it)",
        minimum=1,
        maximum=PEAK_FACTOR_MAX,
    ),
    _q(
        "peak_duration",
        DURATION,
        '(v1.4) how long a transient peak lasts, e.g. "2 s" (UPS overload tables are read at it)',
        positive=True,
    ),
    # (v1.4) The memory fit (CMP009, docs/workload.md).
    _e("model", tuple(SHAPES), "a named model whose shape is known, e.g. llama-3.1-70b"),
    _e("method", m.TRAINING_METHODS, "full, lora or qlora (training and fine-tuning)"),
    _e("precision", m.PRECISIONS, "the weights' format: fp32, bf16, fp16, fp8, int8, int4, nf4"),
    _e("zero_stage", m.ZERO_STAGES, "ZeRO stage: 0 none, 1 optimizer, 2 + gradients, 3 all"),
    _i("tensor_parallel", "GPUs one layer is split over", minimum=1, implausible=DEVICE_GPUS_MAX),
    _i("pipeline_parallel", "pipeline stages", minimum=1, implausible=DEVICE_GPUS_MAX),
    _i("context_length", "tokens per sequence", minimum=1, implausible=CONTEXT_MAX),
    _i(
        "batch_size",
        "sequences per GPU (training) or in flight per replica (inference)",
        minimum=1,
        implausible=BATCH_MAX,
    ),
    _q(
        "activation_memory",
        INFORMATION,
        'activations and working memory per GPU, e.g. "12 GB" (default: estimated)',
        implausible=GPU_MEMORY_MAX,
    ),
    _i("lora_rank", "rank of the LoRA adapters (64)", minimum=1, implausible=LORA_RANK_MAX),
    Field(
        "adapter_params",
        "number",
        "trainable adapter parameters of a LoRA or QLoRA run, e.g. 0.8e9",
        minimum=0,
        maximum=MODEL_PARAMS_MAX,
        sci=True,
    ),
    _i("layers", "transformer blocks", minimum=1, implausible=LAYERS_MAX),
    _i("hidden_size", "width of the residual stream", minimum=1, implausible=WIDTH_MAX),
    _i("kv_heads", "key/value heads", minimum=1, implausible=WIDTH_MAX),
    _i("head_dim", "size of an attention head", minimum=1, implausible=WIDTH_MAX),
    Field(
        "power_capping",
        "bool",
        "(v1.4) the GPUs are power-capped when supply is lost (whatif counts them degraded, "
        "not down); default false",
    ),
    _e(
        "storage_level",
        m.STORAGE_LEVELS,
        "(v1.4) NVIDIA's DGX SuperPOD storage performance level the parallel file system is "
        "sized to (good, better, best; STO002, STO003)",
    ),
    _q(
        "checkpoint_interval",
        DURATION,
        '(v1.4) time between checkpoints, e.g. "30 min" (STO007)',
        positive=True,
    ),
    _i(
        "checkpoint_steps",
        "(v1.4) optimizer steps between checkpoints (with steps_per_second; the guide: 100)",
        minimum=1,
    ),
    NOTES,
)

RULES = (
    Field("ignore", "str_list", 'rule codes or prefixes to skip, e.g. ["PLC006", "STO"]'),
    Field("select", "str_list", "rule codes or prefixes to run (empty: all)"),
    Field("thresholds", "table", "overrides of rule thresholds (see `rackdesigner rules CODE`)"),
)

PORT = (
    _s(
        "name",
        "port group name; ports are NAME1..NAMEcount; must not end in a digit",
        required=True,
        pattern=r"^.*[^0-9]$",
    ),
    _i(
        "count",
        "number of ports in the group",
        minimum=1,
        required=True,
        implausible=PORTS_MAX,
    ),
    _q("speed", BANDWIDTH, 'per-port speed, e.g. "400 Gbps"'),
    _e("tech", m.PORT_TECH, "link technology"),
    _e(
        "role",
        m.PORT_ROLES,
        "compute (default for InfiniBand and for Ethernet of 100 Gbps and more), storage, "
        "management",
    ),
    _e(
        "cage",
        m.CAGES,
        "(v1.4) the ports' cage: osfp-finned (air-cooled switches), osfp-flat (adapters, "
        "liquid-cooled switches), qsfp112, qsfp56, qsfp28",
    ),
    _i(
        "per_cage",
        "(v1.4) ports one cage carries: 2 for a twin-port OSFP (one module, two ports)",
        minimum=1,
        maximum=8,
    ),
    _e(
        "connector",
        m.CONNECTORS,
        "(v1.4) a patch panel's ports: their connector (lc, mpo-8, mpo-12, mpo-16, mpo-24, rj45)",
    ),
    _q(
        "insertion_loss",
        LOSS,
        "(v1.4) a patch panel's ports: the loss of one mated connection through them, e.g. "
        '"0.35 dB"',
    ),
)

GPU = (
    _s("name", "display name"),
    _s("vendor", "manufacturer"),
    _q("memory", INFORMATION, 'GPU memory, e.g. "80 GB"'),
    _q("bandwidth", BANDWIDTH, 'memory bandwidth, e.g. "3.35 TB/s"'),
    _q("tdp", POWER, 'thermal design power, e.g. "700 W"'),
    _s("generation", 'architecture, e.g. "hopper"; fabrics should not mix them'),
    _e(
        "form_factor",
        m.FORM_FACTORS,
        "(v1.2) how the GPU attaches: sxm or oam (a module on a baseboard) or pcie (a card)",
    ),
    Field("consumer", "bool", "a consumer card: no ECC, no NVLink"),
    Field("nvlink", "bool", "GPUs in a node share an NVLink/NVSwitch or Infinity Fabric mesh"),
    _q("interconnect", BANDWIDTH, 'GPU-to-GPU bandwidth per GPU inside a node, e.g. "900 GB/s"'),
    _s("source", "where the figures come from"),
    NOTES,
)

DEVICE_TYPE = (
    _e("kind", m.DEVICE_KINDS, "what the device is"),
    _s("name", "display name"),
    _s("vendor", "manufacturer"),
    _q("height", HEIGHT, 'whole rack units, "0 U" for side-mounted devices (PDUs)', whole=True),
    _e("depth", ("full", "half"), "full-depth devices occupy both faces of their units"),
    _q(
        "chassis_depth",
        LENGTH,
        'the chassis\' depth, front to rear, e.g. "897 mm" (PLC009)',
        positive=True,
        implausible=LENGTH_MAX,
    ),
    _q("power", POWER, "maximum draw"),
    Field(
        "power_estimated",
        "bool",
        "(v1.4) power is an estimate, not a vendor figure (notes say how it was made; PWR009)",
    ),
    _q("weight", MASS, "weight"),
    _s("gpu", "GPU model: a key of the built-in GPU table or of [gpus]"),
    _i("gpus", "GPUs in the device", implausible=DEVICE_GPUS_MAX),
    _e(
        "form_factor",
        m.FORM_FACTORS,
        "(v1.2) gpu-node: the GPUs its chassis takes (sxm, oam or pcie); must match its GPU's",
    ),
    _i("cpu_cores", "CPU cores in all sockets"),
    _q("memory", INFORMATION, "host memory"),
    _q("nvme", INFORMATION, "local NVMe capacity"),
    _q(
        "nvme_read",
        BANDWIDTH,
        "(v1.4) gpu-node: its local NVMe's sequential read rate, all data drives together, "
        'e.g. "56 GB/s"',
        positive=True,
    ),
    _q(
        "nvme_write",
        BANDWIDTH,
        "(v1.4) gpu-node: its local NVMe's sequential write rate, all data drives together "
        "(the checkpoint's local write, STO007)",
        positive=True,
    ),
    _e(
        "storage_tier",
        m.STORAGE_TIERS,
        "(v1.4) storage: the tier it serves, parallel-fs (training data, checkpoints) or "
        "object (the cold tier)",
    ),
    _q(
        "usable_capacity",
        INFORMATION,
        "(v1.4) storage: capacity after data protection, the vendor's figure",
        positive=True,
    ),
    _q(
        "read_bandwidth",
        BANDWIDTH,
        '(v1.4) storage: the appliance\'s client-facing sequential read rate, e.g. "90 GB/s"',
        positive=True,
    ),
    _q(
        "write_bandwidth",
        BANDWIDTH,
        "(v1.4) storage: the appliance's client-facing sequential write rate",
        positive=True,
    ),
    Field("cost", "number", "price in USD", minimum=0),
    _e("airflow", m.AIRFLOW, "direction air moves through the device when front-mounted"),
    _i("psus", "power supplies fitted", minimum=1),
    _i("psus_required", "power supplies that carry full load (4 of 6 is 4+2)", minimum=1),
    _q(
        "psu_rating",
        POWER,
        '(v1.2) one power supply\'s output rating, e.g. "3.3 kW"; psus_required x psu_rating '
        "is the most the device can draw while redundant",
        positive=True,
    ),
    Field(
        "input_voltage",
        "qty_pair",
        'the PSUs\' accepted range, e.g. ["200 V", "240 V"]; pdu: the feed voltages its '
        'inlet takes (line-to-line for 3-phase), e.g. ["380 V", "415 V"]',
        dim=VOLTAGE,
    ),
    _q(
        "input_current",
        CURRENT,
        'pdu: its inlet\'s rated current, e.g. "32 A" (the plug; PWR014)',
        positive=True,
        implausible=CURRENT_MAX,
    ),
    _e(
        "psu_inlet",
        m.PSU_INLETS,
        'the PSUs\' inlet: "c14" (10 A, on a C13 outlet) or "c20" (16 A, on a C19 outlet); '
        '"c13" / "c19" name the outlet and mean the same',
    ),
    _e(
        "nvl_domain",
        m.NVL_SHAPES,
        "(v1.2) rack-scale trays: the NVLink domain shape the tray belongs to (nvl72, nvl36); "
        "the rack's nvlink_domain names the domain (NVL001-NVL003)",
    ),
    _e(
        "nvl_role",
        m.NVL_ROLES,
        "(v1.2) rack-scale trays: compute or switch (default: a gpu-node is a compute tray, "
        "anything else a switch tray)",
    ),
    _q(
        "dc_voltage",
        VOLTAGE,
        '(v1.2) power shelves: the DC voltage it puts on the rack\'s busbar, e.g. "50 V"; a '
        "type with dc_voltage is a power shelf (PWR016, PWR017)",
        positive=True,
    ),
    _q(
        "busbar_current",
        CURRENT,
        '(v1.2) a DC busbar: its rated current, e.g. "2900 A"; a type with busbar_current is '
        "a busbar (PWR017)",
        positive=True,
    ),
    Field(
        "rating_unverified",
        "bool",
        "(v1.4) its rating (busbar_current) is not confirmed by a vendor document: PWR017 "
        "warns rather than errs over it",
    ),
    Field(
        "dc_input",
        "bool",
        "(v1.4) takes DC from its rack's busbar (power shelves), not a PDU outlet (PWR017, PWR020)",
    ),
    _q(
        "rated_approach",
        TEMPERATURE_DIFFERENCE,
        "(v1.4) cdu: the approach its capacity is rated at (secondary supply less facility "
        'supply), e.g. "5 K"; at a smaller one it is not rated (COOL012)',
        positive=True,
        implausible=APPROACH_MAX,
    ),
    Field(
        "capacity_table",
        "qty_table",
        '(v1.4) cdu: its capacity at each approach the datasheet gives, e.g. [["3 K", '
        '"500 kW"], ["5 K", "750 kW"]], approach ascending, capacity not falling',
    ),
    _q(
        "pump_flow",
        FLOW,
        '(v1.4) cdu: its pumps\' secondary flow, e.g. "1200 L/min"',
        positive=True,
    ),
    _q(
        "pump_pressure",
        PRESSURE,
        '(v1.4) cdu: the external pressure its pumps give at pump_flow, e.g. "240 kPa"',
        positive=True,
    ),
    _e(
        "coolant",
        m.FLUIDS,
        "(v1.4) cdu: its secondary loop's fluid, water or pg25 (default pg25)",
    ),
    Field(
        "in_row",
        "bool",
        "(v1.4) an in-row cooler (kind other): takes the air heat of the racks that name it "
        "(inrow) through a chilled-water coil, up to its capacity (COOL020)",
    ),
    _q(
        "rated_water_temperature",
        TEMPERATURE,
        "(v1.4) rear-door / in-row: the entering water temperature its capacity is rated "
        'at, e.g. "18 °C"; warmer water is not rated (COOL018)',
    ),
    _q(
        "rated_airflow",
        FLOW,
        '(v1.4) rear-door / in-row: the airflow its capacity is rated at, e.g. "7000 m^3/h"',
        positive=True,
    ),
    _q(
        "coolant_flow",
        FLOW,
        '(v1.4) cold plates: the coolant flow the device needs at full load, e.g. "90 L/min" '
        "(default: its liquid heat x coolant_flow_per_kw)",
        positive=True,
    ),
    _q(
        "max_supply_temperature",
        TEMPERATURE,
        "(v1.4) cold plates: the warmest coolant it takes in (COOL015)",
    ),
    _q(
        "max_return_temperature",
        TEMPERATURE,
        "(v1.4) cold plates: the warmest coolant it may return; cdu: the warmest secondary "
        "return it takes (COOL014)",
    ),
    _q(
        "pressure_drop",
        PRESSURE,
        '(v1.4) cold plates: its pressure drop at coolant_flow, e.g. "30 kPa"',
        positive=True,
    ),
    Field(
        "peak_factor",
        "number",
        "(v1.4) this type's transient peak ÷ its power, overriding the workload's peak_factor",
        minimum=1,
        maximum=PEAK_FACTOR_MAX,
    ),
    Field(
        "power_smoothing",
        "ratio",
        "(v1.4) the share of its transient excursion its energy storage absorbs (GB300's "
        "power-smoothing PSUs)",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    Field(
        "liquid_fraction",
        "ratio",
        "share of heat cold plates remove in a liquid-cooled rack (default 0: no cold plates)",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    _e("role", ("leaf", "spine", "core"), "switches: display role (tiers come from cabling)"),
    _q(
        "capacity",
        POWER,
        "cdu / rear-door / in-row cooler: heat removed; pdu: its continuous rating",
    ),
    Field(
        "outlets",
        "int_map",
        "pdu: outlet counts, e.g. { c13 = 24, c19 = 12 }",
        choices=m.OUTLET_KINDS,
        minimum=0,
    ),
    Field("ports", "tables", "port groups"),
    _s("source", "where the figures come from"),
    NOTES,
)

FEED = (
    _s("id", f"unique feed id: {ID_RULE}", required=True, pattern=ID_PATTERN),
    _s(
        "side",
        'redundant side, any short label ("A", "B", "C"): with k sides the rack must run with '
        "any one lost",
        pattern=r"^[A-Za-z0-9_-]{1,8}$",
    ),
    _s("circuit", "panel circuit; each rack needs its own"),
    _q("voltage", VOLTAGE, "line-to-line voltage for 3-phase", required=True, positive=True),
    _e("phases", (1, 3), "1 or 3", required=True),
    _q(
        "current",
        CURRENT,
        "breaker rating",
        required=True,
        positive=True,
        implausible=CURRENT_MAX,
    ),
    _e("wiring", m.WIRING, "3-phase wiring; default delta up to 240 V line-to-line, else wye"),
    Field(
        "derate",
        "ratio",
        "continuous-load share of the breaker rating (default 0.8)",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    _q("outlet_voltage", VOLTAGE, "where the PDU steps down, the voltage at its outlets"),
    Field(
        "tap_off",
        "bool",
        "(v1.2) the feed is a busway tap-off box: several PDUs may share its circuit",
    ),
    _s(
        "source",
        "(v1.4) the id of the power-chain element the feed hangs on ([[power.elements]])",
        pattern=ID_PATTERN,
    ),
    _i(
        "position",
        "(v1.4) its breaker or tap-off position on that element, 1-based",
        minimum=1,
        implausible=POSITIONS_MAX,
    ),
    NOTES,
)

DEVICE = (
    _s("id", f"unique device id: {ID_RULE}", required=True, pattern=ID_PATTERN),
    _s("model", "catalog key (built-in or [catalog])", required=True),
    Field(
        "position",
        "int",
        "lowest occupied U, 1-based from the bottom; absent for 0U devices",
        minimum=1,
        maximum=100,
    ),
    _e("face", ("front", "rear"), "mounting face (half-depth devices)"),
    _e(
        "phase",
        m.PHASES_WYE + m.PHASES_DELTA,
        "L1 | L2 | L3 on wye feeds, L1-L2 | L2-L3 | L3-L1 on delta feeds",
    ),
    _e("side", ("left", "right"), "rail of a 0U device"),
    _s("label", "display name"),
    _s(
        "hostname",
        "(v1.1) the name the cluster's software uses (SLURM, hostfile)",
        pattern=HOSTNAME.pattern,
    ),
    NOTES,
    IGNORE,
    _s("feed", "pdu only: the id of the rack's feed it plugs into"),
    _q(
        "supply_setpoint",
        TEMPERATURE,
        '(v1.4) cdu: its secondary supply temperature setpoint, e.g. "35 °C"',
    ),
)

RACK = (
    _s("id", f"unique rack id: {ID_RULE}", required=True, pattern=ID_PATTERN),
    _s("row", "row name; rows are ordered as they first appear"),
    _i("slot", "position in the row, 1-based", minimum=1),
    _q("height", HEIGHT, "rack height in whole rack units (42 U)", whole=True, minimum=1),
    _e("cooling", m.COOLING, "how the rack's heat leaves (default air)"),
    Field(
        "cdu",
        "str_or_list",
        "device id of the CDU serving this rack (liquid), or a list of the CDUs that serve it "
        'together, e.g. ["cdu-1", "cdu-2"]',
    ),
    _s("door", "device id of the rear door (rear-door)"),
    Field(
        "inrow",
        "str_or_list",
        "(v1.4) device id of the in-row cooler that takes the rack's air heat, or a list of "
        "those that do together",
    ),
    _e("airflow", m.AIRFLOW[:2], "the aisle design the rack is in (front-to-rear)"),
    _q("max_weight", MASS, "static load rating"),
    _q("weight", MASS, "the empty rack's own weight (150 kg)"),
    _q("width", LENGTH, "footprint width (600 mm)", positive=True, implausible=LENGTH_MAX),
    _q(
        "depth",
        LENGTH,
        "footprint depth (1200 mm); devices deeper do not fit",
        positive=True,
        implausible=LENGTH_MAX,
    ),
    _s(
        "nvlink_domain",
        "(v1.2) the NVLink domain the rack's rack-scale trays form, any id; racks sharing "
        "one id form one domain (NVL001-NVL003)",
        pattern=ID_PATTERN,
    ),
    Field(
        "blanking",
        "bool",
        "(v1.4) every front unit no device takes is closed by a blanking panel, fitted as "
        "devices come and go instead of listed one by one (PLC006)",
    ),
    _s("label", "display name"),
    NOTES,
    IGNORE,
    Field("feeds", "tables", "power feeds"),
    Field("devices", "tables", "mounted devices"),
)

LINK = (
    _s("a", 'one end, "<device id>:<port><index>"', required=True, pattern=ENDPOINT.pattern),
    _s("b", "the other end", required=True, pattern=ENDPOINT.pattern),
    _e("media", m.MEDIA, "cable type"),
    _q(
        "length",
        LENGTH,
        "declared length; computed from the geometry when absent",
        implausible=LENGTH_MAX,
    ),
    _e(
        "grade",
        m.FIBRE_GRADES,
        "fibre grade: om3 | om4 | om5 with mmf (default om4), os2 with smf",
    ),
    NOTES,
    IGNORE,
    Field(
        "via",
        "str_pair",
        "(v1.4) a channel: the two patch-panel ports it runs through, a's side first, e.g. "
        '["a01-pp1:f3", "s01-pp1:f3"] (patch cord, trunk, patch cord)',
    ),
    _s(
        "trunk",
        "(v1.4) with via: the trunk between the two panels, where more than one joins them",
    ),
    _s("a_transceiver", '(v1.4) the transceiver part at end a (fibre), e.g. "MMA4Z00-NS"'),
    _s("b_transceiver", "(v1.4) the transceiver part at end b"),
)
# (v1.4) One element of the power chain, [[power.elements]] (docs/power-chain.md).
ELEMENT = (
    _s("id", f"unique element id: {ID_RULE}", required=True, pattern=ID_PATTERN),
    _e("kind", m.POWER_KINDS, "what the element is", required=True),
    Field(
        "fed_by",
        "str_list",
        "ids of the elements that feed it, the normal source first (an ATS: utility, then "
        "generator); sources (utility, generator) have none",
    ),
    _s("model", "a power catalog key (rackdesigner catalog --power) for ratings left out"),
    _s("label", "display name"),
    _q("capacity", REAL_POWER, 'its real-power rating, e.g. "1200 kW"', positive=True),
    _q(
        "apparent_power",
        APPARENT_POWER,
        'its apparent-power rating, e.g. "1500 kVA" (× the power factor in kW)',
        positive=True,
    ),
    _q(
        "voltage",
        VOLTAGE,
        "its output voltage, line-to-line (a transformer's secondary; 800 V for a power rack)",
        positive=True,
    ),
    _q("primary_voltage", VOLTAGE, "a transformer's primary voltage", positive=True),
    _q(
        "current",
        CURRENT,
        'its current rating, e.g. "800 A" (a panel, a busway, a service)',
        positive=True,
        implausible=CURRENT_MAX,
    ),
    _e("phases", (1, 3), "1 or 3 (default 3)"),
    Field(
        "power_factor",
        "ratio",
        "the load's power factor at it (default the power_factor threshold)",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    Field(
        "derate",
        "ratio",
        "share of its ratings that may be loaded continuously (default 0.8 of a current "
        "rating of a breaker-protected kind, else 1)",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    Field(
        "efficiency",
        "ratio",
        "output ÷ input at its load (ups, transformer, power-rack); its losses load what feeds it",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    _i("modules", "ups: power modules in the system", minimum=1, implausible=MODULES_MAX),
    _e("redundancy", m.REDUNDANCY, "ups: n | n+1 (one module spare) | 2n | dr"),
    _q("runtime", DURATION, 'ups: battery runtime at full load, e.g. "5 min"', positive=True),
    Field(
        "overload",
        "overload",
        'ups: the overloads it carries and for how long, e.g. [["125 %", "10 min"], '
        '["150 %", "60 s"]]',
    ),
    _q(
        "start_time",
        DURATION,
        'generator: from the outage to carrying the load, e.g. "10 s" (NFPA 110 Type 10)',
        positive=True,
    ),
    Field(
        "step_load",
        "ratio",
        "generator: the largest load step it accepts, as a share of its rating (ISO 8528-5)",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    _i(
        "positions",
        "rpp: breaker poles; busway: tap-off positions",
        minimum=1,
        implausible=POSITIONS_MAX,
    ),
    NOTES,
    IGNORE,
)
# (v1.4) One water loop, [[cooling.loops]] (docs/liquid-cooling.md).
LOOP = (
    _s("id", f"unique loop id: {ID_RULE}", required=True, pattern=ID_PATTERN),
    _e(
        "kind",
        m.LOOP_KINDS,
        "facility (default: the CDUs' primary water) or chilled (rear doors, in-row coolers)",
    ),
    _s("label", "display name"),
    _e(
        "ashrae_class",
        tuple(m.ASHRAE_CLASSES),
        "ASHRAE TC 9.9 liquid-cooling class of its supply (W17 ... W45: the warmest supply "
        "in °C; W+ above 45 °C): judged at the class's warmest where no supply_temperature",
    ),
    _q(
        "supply_temperature",
        TEMPERATURE,
        'the water it supplies, e.g. "30 °C" (the warmest the design allows)',
    ),
    _q("capacity", POWER, 'the heat the plant behind it rejects, e.g. "2 MW"', positive=True),
    _q("flow", FLOW, 'the flow it supplies, e.g. "3000 L/min"', positive=True),
    _e("fluid", m.FLUIDS, "water (default) or pg25"),
    _e(
        "plant",
        m.LOOP_PLANTS,
        "what rejects its heat: chiller, cooling-tower or dry-cooler (the NetBox export's "
        "cooling source type)",
    ),
    Field(
        "devices",
        "str_list",
        'device ids of the CDUs, rear doors and in-row coolers it feeds, e.g. ["r01-cdu"]',
    ),
    NOTES,
    IGNORE,
)
# (v1.4) The keys only some kinds take; any other kind naming one is an E001.
ELEMENT_KEYS_BY_KIND = {
    "primary_voltage": ("transformer",),
    "modules": ("ups",),
    "redundancy": ("ups",),
    "runtime": ("ups",),
    "overload": ("ups",),
    "start_time": ("generator",),
    "step_load": ("generator",),
    "positions": ("rpp", "busway"),
    "efficiency": ("ups", "transformer", "power-rack"),
}
POWER_TABLE = (Field("elements", "tables", "(v1.4) the power chain's elements"),)
# (v1.4) A built-in power model (assets/catalog/power.toml): an element's ratings, with
# where they come from; an element naming it as ``model`` takes those it leaves out.
_MODEL_SKIP = ("id", "kind", "fed_by", "model", "label", "notes", "ignore")
POWER_MODEL = (
    _e("kind", m.POWER_KINDS, "what the element is", required=True),
    _s("name", "display name"),
    _s("vendor", "manufacturer"),
    *(f for f in ELEMENT if f.key not in _MODEL_SKIP),
    _s("source", "the datasheet or standard the figures come from", required=True),
    Field("unverified", "bool", "no vendor document confirms the figures"),
    NOTES,
)
COOLING = (Field("loops", "tables", "(v1.4) the water loops"),)

# (v1.1) The fibre grades each media takes; a grade on any other media is a schema error.
GRADES_BY_MEDIA = {"mmf": ("om3", "om4", "om5"), "smf": ("os2",)}

# (v1.4) The cable plant (docs/cable-plant.md).
PATHWAY = (
    _s("id", f"unique pathway id: {ID_RULE}", required=True, pattern=ID_PATTERN),
    _e(
        "kind",
        m.PATHWAY_KINDS,
        "overhead-tray (default), ladder-rack, under-floor, riser or vertical-manager",
    ),
    _s("row", "along this row (a riser: in it); rows are ordered as racks first name them"),
    Field(
        "slots",
        "num_pair",
        "along a row: from this slot position to that one, e.g. [0, 33] (default: the row's "
        "first to last rack)",
        minimum=0,
    ),
    Field("rows", "str_pair", 'across rows: from this row to that one, e.g. ["A", "H"]'),
    Field(
        "slot",
        "number",
        "across rows (a cross-aisle run), or a riser: at this slot position, e.g. 0 or 16.5",
        minimum=0,
    ),
    _s("rack", "a vertical manager: the rack it runs up"),
    _q(
        "width",
        LENGTH,
        'the cable bed\'s inside width, e.g. "300 mm" (tray fill)',
        positive=True,
        implausible=LENGTH_MAX,
    ),
    _q(
        "depth",
        LENGTH,
        'its usable depth (side-rail height), e.g. "100 mm" (tray fill)',
        positive=True,
        implausible=LENGTH_MAX,
    ),
    _q(
        "length",
        LENGTH,
        "a riser: its vertical run between the overhead and the under-floor pathways",
        positive=True,
        implausible=LENGTH_MAX,
    ),
    Field(
        "fill_max",
        "ratio",
        "this pathway's fill limit (default the tray_fill_max threshold)",
        dim=RATIO,
        minimum=0,
        maximum=1,
    ),
    _q(
        "bend_radius",
        LENGTH,
        "the inside radius of its fittings (bends, drops); cables must bend no tighter (CAB009)",
        positive=True,
        implausible=LENGTH_MAX,
    ),
    _s("label", "display name"),
    NOTES,
    IGNORE,
)

TRUNK = (
    _s("id", f"unique trunk id: {ID_RULE}", required=True, pattern=ID_PATTERN),
    _s("a", "the patch panel (device id) at one end", required=True),
    _s("b", "the patch panel at the other end", required=True),
    _i("fibres", "fibres in the trunk, e.g. 144", minimum=1, required=True, implausible=100_000),
    _e("media", m.TRANSCEIVER_MEDIA, "mmf or smf", required=True),
    _e("grade", m.FIBRE_GRADES, "fibre grade: om3 | om4 | om5 (mmf, default om4), os2 (smf)"),
    _e("connector", m.CONNECTORS, "its ends' connectors (default mpo-12)"),
    _q(
        "length",
        LENGTH,
        "declared length; routed between the panels' racks when absent",
        implausible=LENGTH_MAX,
    ),
    _q(
        "diameter",
        LENGTH,
        'its outer diameter, e.g. "9 mm" (tray fill; default: estimated from its fibres)',
        positive=True,
        implausible=1.0,
    ),
    _i("splices", "fusion splices along it (channel loss)", minimum=0),
    _s("label", "display name"),
    NOTES,
    IGNORE,
)

TRANSCEIVER = (
    _s("name", "display name"),
    _e(
        "band",
        ("XDR", "400G+", "200G", "100G"),
        "the media table's speed band it serves: XDR (800G InfiniBand), 400G+, 200G, 100G",
    ),
    _e("cage", m.CAGES, "the cage it fits: osfp-finned, osfp-flat, qsfp112, qsfp56, qsfp28"),
    _i("ports", "links one module carries: 2 for a twin-port module", minimum=1, maximum=8),
    _e("media", m.TRANSCEIVER_MEDIA, "the fibre it drives: mmf or smf"),
    _e("connector", m.CONNECTORS, "its optical connector per port: mpo-12, lc, ..."),
    _i("fibres", "fibres one port's link uses (8 for SR4 / DR4 on MPO-12)", minimum=1),
    _q("reach", LENGTH, "the longest channel it is specified for", implausible=LENGTH_MAX),
    _q(
        "loss_budget",
        LOSS,
        'the channel insertion loss it is specified for, e.g. "1.9 dB" (CAB008)',
        positive=True,
    ),
    _s("source", "where the figures come from"),
    NOTES,
)

TOP = (
    Field("format", "int", "layout format version; 1", required=True),
    _s("name", "layout name", required=True),
    _s("description", "what the layout is"),
    _s("revision", "revision label"),
    NOTES,
)
TOP_TABLES = (
    "site",
    "workload",
    "rules",
    "meta",
    "catalog",
    "gpus",
    "power",
    "cooling",
    "racks",
    "links",
    "racks",
    "links",
    "pathways",
    "trunks",
    "transceivers",
)
