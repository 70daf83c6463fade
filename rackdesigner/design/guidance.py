"""Guidance: which problems an edit brought, and each one in a line with its fix.

After an edit the designer compares the findings before and after by ``(code, subject)``
(never by message text: a rack's PLC006 that now counts 26 open units instead of 34 is the
same problem) and names the worst new one with its fix:

    COOL001 rack a01: 20.4 kW on air exceeds 15 kW: cool the rack with a rear door, or move a node

A fix must be true for the rack it names: a DGX H100 has no cold plates, so its rack is
never told to go liquid. :data:`HINTS` has an entry for every rule: a function that words
the problem and its fix from the finding's figures and the layout, or None where the rule's
own hint (already computed from the layout by the rule) is the fix to give.

No Textual here: the designer calls it, tests call it directly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rackdesigner.design.fixes import door_for
from rackdesigner.edit import LayoutIndex
from rackdesigner.model.diagnostics import SEVERITY_RANK, Diagnostic
from rackdesigner.model.layout import Device, DeviceType, Layout, Link, Rack
from rackdesigner.model.thresholds import resolve
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import first_of
from rackdesigner.rules.registry import _code_key, matches

Key = tuple[str, object]


def key_of(diagnostic: Diagnostic) -> Key:
    """What makes two findings the same problem: the rule and the entity it is about (its
    subject, a hashable reference; the entity's text for a finding without one)."""
    return (diagnostic.code, diagnostic.subject or diagnostic.entity)


def order(diagnostic: Diagnostic) -> tuple[object, ...]:
    """Worst first: severity, then the rule catalogue's order, then the entity."""
    try:
        code = _code_key(diagnostic.code)
    except (ValueError, IndexError):
        code = (99, 0)
    return (SEVERITY_RANK[diagnostic.severity], code, diagnostic.entity)


def new_problems(before: Iterable[Diagnostic], after: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The problems of ``after`` that no finding of ``before`` names, worst first.

    ``before`` and ``after`` may be the whole lists or only what an edit re-checked (the
    findings it dropped and the ones it added): a problem re-found is in both. Inlined
    (no call per finding): after a check from scratch the lists hold 100,000s."""
    seen = {
        (d.code, d.subject or d.entity)
        for d in before
        if d.severity != "info" and d.suppressed is None
    }
    fresh: dict[Key, Diagnostic] = {}
    for d in after:
        if d.severity == "info" or d.suppressed is not None:
            continue
        key = (d.code, d.subject or d.entity)
        if key not in seen and key not in fresh:
            fresh[key] = d
    return sorted(fresh.values(), key=order)


# -- the context a hint reads ---------------------------------------------------------------


@dataclass(slots=True)
class Context:
    layout: Layout
    index: LayoutIndex
    finding: Diagnostic

    @property
    def catalog(self) -> dict[str, DeviceType]:
        return self.index.catalog.devices

    @property
    def rack(self) -> Rack | None:
        subject = self.finding.subject
        if not subject:
            return None
        kind, ident = subject[0], subject[1]
        if kind == "rack":
            return self.index.rack(ident)
        if kind == "device":
            return self.index.rack_of(ident)
        if kind == "feed":
            return self.index.rack_of_feed(ident)
        return None

    def value(self, key: str) -> float | None:
        value = self.finding.values.get(key)
        return None if value is None else float(value)

    def type_of(self, device: Device) -> DeviceType | None:
        return self.catalog.get(device.model)

    def gpu_nodes(self, rack: Rack) -> list[tuple[Device, DeviceType]]:
        found = []
        for device in rack.devices:
            dtype = self.type_of(device)
            if dtype is not None and dtype.kind == "gpu-node":
                found.append((device, dtype))
        return found


def cold_plates(dtype: DeviceType) -> bool:
    """The type declares cold plates (rules v1.1: ``liquid_fraction`` > 0)."""
    return (dtype.liquid_fraction or 0.0) > 0


def liquid_variants(catalog: dict[str, DeviceType], dtype: DeviceType) -> list[str]:
    """Catalog GPU nodes with cold plates and the same GPU: what a liquid rack can take."""
    if not dtype.gpu:
        return []
    return sorted(
        t.key
        for t in catalog.values()
        if t.kind == "gpu-node" and t.gpu == dtype.gpu and cold_plates(t) and t.key != dtype.key
    )


Hint = Callable[[Context], tuple[str | None, str | None]]


def _kw(value: float) -> str:
    return fmt(value, POWER)


def _relief(context: Context, rack: Rack, heat: float, limit: float) -> str:
    """ "move a node" where one node less brings the rack under the limit, else how many
    racks the load needs."""
    nodes = sorted(
        (float(t.power) for _, t in context.gpu_nodes(rack) if t.power is not None),
        reverse=True,
    )
    if len(nodes) > 1 and heat - nodes[0] <= limit:
        return "move a node"
    racks = max(2, math.ceil(heat / limit)) if limit > 0 else 2
    return f"spread the load over {racks} racks"


def _air_cooling_fix(context: Context, rack: Rack, heat: float, limit: float) -> str:
    """How to cool an air rack that is too hot, true for its nodes: liquid only where every
    GPU node has cold plates, a rear door where one carries the rack."""
    nodes = context.gpu_nodes(rack)
    plated = [d for d, t in nodes if cold_plates(t)]
    door = door_for(context.catalog, heat) is not None
    relief = _relief(context, rack, heat, limit)
    if nodes and len(plated) == len(nodes):
        ways = "direct-to-chip liquid (a CDU) or a rear door" if door else "direct-to-chip liquid"
        return f"cool the rack with {ways} (cooling), or {relief}"
    if door:
        return f"cool the rack with a rear door, or {relief}"
    doors = [float(t.capacity or 0) for t in context.catalog.values() if t.kind == "rear-door"]
    most = f" (more than a rear door's {_kw(max(doors))})" if doors else ""
    return f"{relief}{most}"


def _cool001(context: Context) -> tuple[str | None, str | None]:
    rack = context.rack
    heat, limit = context.value("air_heat"), context.value("limit")
    if rack is None or heat is None or limit is None:
        return None, None
    heat_text, limit_text = fmt_apart(heat, limit, POWER)
    if rack.cooling_mode == "air":
        return (
            f"{heat_text} on air exceeds {limit_text}",
            _air_cooling_fix(context, rack, heat, limit),
        )
    # A liquid rack: what its loop does not take is the air-only devices' heat.
    airy = [
        d.id
        for d in rack.devices
        if (t := context.type_of(d)) is not None
        and t.kind not in ("pdu", "blank", "patch-panel", "cdu", "rear-door")
        and not cold_plates(t)
        and (t.power or 0) > 0
    ]
    named = first_of(airy, 3)
    fix = (
        f"move the devices without cold plates ({named}) to an air or rear-door rack"
        if airy
        else "spread the air load over more racks"
    )
    return f"{heat_text} of residual air heat exceeds {limit_text}", fix


def _cool002(context: Context) -> tuple[str | None, str | None]:
    rack = context.rack
    heat, limit = context.value("heat"), context.value("limit")
    if rack is None or heat is None or limit is None:
        return None, None
    rules = context.layout.rules
    air_limit = resolve(rules.thresholds if rules else None)["air_cooling_max"]
    return (
        f"{_kw(heat)} on air is past the {_kw(limit)} where liquid cooling is expected",
        _air_cooling_fix(context, rack, heat, air_limit),
    )


def _cool005(context: Context) -> tuple[str | None, str | None]:
    rack = context.rack
    if rack is None:
        return None, None
    nodes = context.gpu_nodes(rack)
    if nodes and all(cold_plates(t) for _, t in nodes):
        return None, 'cool its GPU nodes with direct-to-chip liquid (cooling = "liquid", a CDU)'
    variants = sorted({v for _, t in nodes for v in liquid_variants(context.catalog, t)})
    models = sorted({t.key for _, t in nodes if not cold_plates(t)})
    instead = f" such as {', '.join(variants[:3])}" if variants else ""
    return (
        None,
        f"{', '.join(models)} has no cold plates: for liquid, use nodes with cold plates"
        f"{instead} in a liquid rack",
    )


def _cool007(context: Context) -> tuple[str | None, str | None]:
    rack = context.rack
    if rack is None:
        return None, None
    door = context.index.device(rack.door) if rack.door else None
    dtype = context.type_of(door) if door is not None else None
    if dtype is not None and dtype.kind == "rear-door":
        return None, None  # too small: the rule's hint says how much to spread
    hanging = [
        d.id
        for d in rack.devices
        if (t := context.type_of(d)) is not None and t.kind == "rear-door"
    ]
    if hanging:
        return None, f'name its rear door: door = "{hanging[0]}"'
    return None, 'hang a rear door on it (rear-door-hx) and name it with door = "<id>"'


def _cool008(context: Context) -> tuple[str | None, str | None]:
    subject = context.finding.subject
    device = context.index.device(subject[1]) if subject else None
    dtype = context.type_of(device) if device is not None else None
    if dtype is None:
        return None, None
    variants = liquid_variants(context.catalog, dtype)
    instead = f", or use a model with cold plates ({', '.join(variants[:3])})" if variants else ""
    return (
        f"{dtype.key} has no cold plates but stands in a liquid rack",
        f"move it to an air or rear-door rack{instead}",
    )


def _pwr001(context: Context) -> tuple[str | None, str | None]:
    rack = context.rack
    load, capacity = context.value("load"), context.value("capacity")
    if rack is None or load is None:
        return None, None
    if not rack.feeds:
        return (
            f"no feed for {_kw(load)}" if load > 0 else "no feed for its powered devices",
            "add two feeds, 415 V 3-phase 63 A on sides A and B",
        )
    capacity = capacity or 0.0
    load_text, capacity_text = fmt_apart(load, capacity, POWER)
    sides = {f.side for f in rack.feeds if f.side}
    more = "a feed on each side" if len(sides) >= 2 else "a feed"
    return (
        f"load {load_text} exceeds the feeds' {capacity_text}",
        f"add {more} or a larger circuit, or move {_kw(load - capacity)} to another rack",
    )


def _pwr008(context: Context) -> tuple[str | None, str | None]:
    psus, kept, required = (context.value(k) for k in ("psus", "kept", "required"))
    rack = context.rack
    if psus is None or kept is None or required is None or rack is None:
        return None, None
    sides = sorted({f.side for f in rack.feeds if f.side})
    summary = (
        f"{psus:g} PSUs on {len(sides)} sides keep {kept:g} of the {required:g} needed "
        "with a side lost"
    )
    if len(sides) == 2:
        three = int(psus) - math.ceil(psus / 3)
        if three >= required:
            split = " + ".join(str(len(range(j, int(psus), 3))) for j in range(3))
            return summary, f"add a third side of feeds ({split} PSUs keep {three})"
    return summary, None


def _pwr013(context: Context) -> tuple[str | None, str | None]:
    subject = context.finding.subject
    rack = context.rack
    if not subject or rack is None:
        return None, None
    labels = sorted({f.side for f in rack.feeds if f.side})
    return (
        f"feed {subject[1]} has no side",
        f"give it a side ({' or '.join(labels)}, or one of its own)",
    )


def _plc005(context: Context) -> tuple[str | None, str | None]:
    """PLC005 is three problems: a duplicate id, two racks on one slot, an unknown model."""
    message = context.finding.message
    if message.startswith("duplicate"):
        return None, "rename one of them (r): ids are unique"
    if "slot" in message:
        return None, "give one of the racks a free slot (its slot field)"
    return None, None  # an unknown model: the rule's hint names the nearest keys


def _plc006(context: Context) -> tuple[str | None, str | None]:
    count = context.value("open_units")
    if count is None:
        return None, None
    return (
        f"{count:g} open unit{'s' if count != 1 else ''} without blanking panels",
        "declare blanking = true on the rack (x applies it), or fill them with blank-1u / "
        "blank-2u panels",
    )


# Every rule: a function that words the problem and its fix, or None where the rule's own
# message and hint stand (they already name the figures and what to change).
HINTS: dict[str, Hint | None] = {
    "PWR001": _pwr001,
    "PWR002": None,
    "PWR003": None,
    "PWR004": None,
    "PWR005": None,
    "PWR006": None,
    "PWR007": None,
    "PWR008": _pwr008,
    "PWR009": None,
    "PWR010": None,
    "PWR011": None,
    "PWR012": None,
    "PWR013": _pwr013,
    "PWR014": None,
    "PWR015": None,
    "PWR016": None,
    "PWR017": None,
    "PWR018": None,
    "PWR019": None,
    "PWR020": None,
    # (v1.4) the power chain's rules name the element, its figures and the fix themselves
    "PWR021": None,
    "PWR022": None,
    "PWR023": None,
    "PWR024": None,
    "PWR025": None,
    "PWR026": None,
    "PWR027": None,
    "PWR028": None,
    "PWR029": None,
    "PWR030": None,  # names the inlet, its rating and what draws over it itself
    "NVL001": None,
    "NVL002": None,
    "NVL003": None,
    "COOL001": _cool001,
    "COOL002": _cool002,
    "COOL003": None,
    "COOL004": None,
    "COOL005": _cool005,
    "COOL006": None,
    "COOL007": _cool007,
    "COOL008": _cool008,
    "COOL009": None,
    "COOL010": None,
    # (v1.4) The liquid loop's rules: each rule's own hint is the fix.
    "COOL011": None,
    "COOL012": None,
    "COOL013": None,
    "COOL014": None,
    "COOL015": None,
    "COOL016": None,
    "COOL017": None,
    "COOL018": None,
    "COOL019": None,
    "COOL020": None,
    "CAB001": None,
    "CAB002": None,
    "CAB003": None,
    "CAB004": None,
    "CAB005": None,
    "CAB006": None,
    "CAB007": None,
    "CAB008": None,
    "CAB009": None,
    "CAB010": None,
    "CAB011": None,
    "CAB012": None,
    "CAB013": None,
    "NET001": None,
    "NET002": None,
    "NET003": None,
    "NET004": None,
    "NET005": None,
    "NET006": None,
    "NET007": None,
    "NET008": None,
    "NET009": None,
    "CMP001": None,
    "CMP002": None,
    "CMP003": None,
    "CMP004": None,
    "CMP005": None,
    "CMP006": None,
    "CMP007": None,
    "CMP008": None,
    "CMP009": None,
    "PLC001": None,
    "PLC002": None,
    "PLC003": None,
    "PLC004": None,
    "PLC005": _plc005,
    "PLC006": _plc006,
    "PLC007": None,
    "PLC008": None,
    "PLC009": None,
    "STO001": None,
    "STO002": None,
    "STO003": None,
    "STO004": None,
    "STO005": None,
    "STO006": None,
    "STO007": None,
    "STO008": None,
    "STO009": None,
    "STO010": None,
}


@dataclass(frozen=True, slots=True)
class Advice:
    """A finding for people: what is wrong, in a few words, and what to do."""

    code: str
    entity: str
    problem: str
    fix: str | None

    @property
    def text(self) -> str:
        """``problem: fix`` (the problem alone where no fix can be stated)."""
        return f"{self.problem}: {self.fix}" if self.fix else self.problem

    @property
    def line(self) -> str:
        """``COOL001 rack a01: 20.4 kW on air exceeds 15 kW: cool the rack with ...``."""
        where = f" {self.entity}" if self.entity else ""
        return f"{self.code}{where}: {self.text}"


def advise(layout: Layout, finding: Diagnostic, index: LayoutIndex | None = None) -> Advice:
    """The finding worded for people, with the fix that is true for its entity."""
    hint = HINTS.get(finding.code)
    problem: str | None = None
    fix: str | None = None
    if hint is not None:
        context = Context(layout, index if index is not None else LayoutIndex(layout), finding)
        problem, fix = hint(context)
    return Advice(
        finding.code,
        finding.entity,
        problem or finding.message,
        fix or finding.hint,
    )


@dataclass(frozen=True, slots=True)
class Announcement:
    """What the designer says when an edit brings problems: the worst one with its fix."""

    worst: Diagnostic
    advice: Advice
    others: list[Diagnostic]
    fixable: bool

    @property
    def severity(self) -> str:
        return "error" if self.worst.severity == "error" else "warning"

    @property
    def title(self) -> str:
        count = 1 + len(self.others)
        return "New problem" if count == 1 else f"{count} new problems"

    @property
    def message(self) -> str:
        text = self.advice.line
        if self.fixable:
            text += " (Apply fix: x in Problems)"
        if self.others:
            codes = list(dict.fromkeys(d.code for d in self.others))
            shown = ", ".join(codes[:3]) + (", …" if len(codes) > 3 else "")
            text += f"; and {len(self.others)} more ({shown})"
        return text


def ignored(index: LayoutIndex, finding: Diagnostic) -> bool:
    """Whether the finding's entity says not to report its code (its ``ignore`` key; a
    rack's covers its feeds), as ``validate`` does (suppressions.py)."""
    subject = finding.subject
    if not subject:
        return False
    kind, ident = subject[0], subject[1]
    entity: Rack | Device | Link | None = None
    if kind == "rack":
        entity = index.rack(ident)
    elif kind == "feed":
        entity = index.rack_of_feed(ident)
    elif kind == "device":
        entity = index.device(ident)
    elif kind == "link":
        entity = index.link(ident)
    patterns = entity.ignore if entity is not None else None
    return matches(finding.code, patterns) if patterns else False


def announce(
    layout: Layout,
    new: list[Diagnostic],
    index: LayoutIndex | None = None,
    fixable: Callable[[Diagnostic], bool] | None = None,
) -> Announcement | None:
    """The announcement for problems an edit brought (``new``, worst first), or None;
    findings their entity's ``ignore`` key covers are not announced."""
    if not new:
        return None
    if index is None:
        index = LayoutIndex(layout)
    new = [d for d in new if not ignored(index, d)]
    if not new:
        return None
    worst = new[0]
    return Announcement(
        worst,
        advise(layout, worst, index),
        list(new[1:]),
        bool(fixable(worst)) if fixable is not None else False,
    )
