"""A layout checked from another one's findings: only what changed runs again.

A diff's two layouts, and a layout and itself with a part failed, differ in a few racks
and cables. Both ``rackdesigner diff`` (:mod:`rackdesigner.diff.sides`) and ``whatif``
(:class:`rackdesigner.whatif.WhatIf`) use it; it lives here because diff is above whatif.
:func:`grouped_check` checks the old layout keeping its findings per scope (as the
designer's incremental checker keeps them, :mod:`rackdesigner.edit.checker`): ``rack``
rules per rack, ``link`` rules per cable entity (``link A -> B``), and the ``device``,
``site`` and ``fabric`` rules' findings each as a whole. :class:`Incremental` compares
the two layouts by entity and runs on the new layout's analysis only

- the ``rack`` rules on the racks that differ (added, or any field or device changed),
  the racks whose ``cdu`` or ``door`` names a device of one of them, and the racks that
  share a CDU or an NVLink domain with one of them (old or new);
- the ``link`` rules on the cables between the two lists' common head and tail (the
  cables added, removed or changed, and any the change shifted), those with an end on a
  device of a changed rack (a moved device moves its cables' routes), those sharing an
  end device with a changed cable (whether an end is shared names the finding), and those
  whose end names no device of the new layout (their suggestion reads every device id).
  A failed layout's cables are the layout's less some (``kept`` says which): then the
  cables that differ are exactly those removed, and of the others only those on a device
  of a rack that differs, on a device unknown, or on a port a removed cable was on (a
  port's second cable, the references of cables from one ``a`` port) are checked again:
  every cable of a device down is removed, and the rest keep their facts;
- the ``device`` and ``site`` rules in full (they cost a few hundredths of a second on
  100,000 GPUs, and read totals any change moves); for a failed layout whose analysis is
  derived from the layout's (``Analysis(..., like=...)``), the rack rules run on exactly
  the racks whose facts it made anew (:meth:`Incremental.rerun_racks`), a site rule split
  in parts on the racks and CDU groups that changed, and the site rules no failure of the
  layout changes (:func:`_blind`) not at all; the new findings are counted from what ran
  again (:meth:`Partial.new_findings`);
- the ``fabric`` rules only when the fabric's inputs changed: a cable (any field), or a
  device's id, model or rack, or a rack's place. A device moved within its rack leaves
  them, as the designer's edits do (``Effect.fabric``).

Everything else keeps the old layout's findings. When the layouts differ in anything
but racks and cables (site, workload, rules, catalog, the order of rows), every rule runs:
no rule is left to a full check on its own. The result equals a full check of the new
layout (``tests/whatif/test_incremental.py`` holds it to that on random changes). Lines
are not kept: both callers check without a source map, so every finding's line is 0.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.check.engine import rules_for
from rackdesigner.check.suppressions import (
    BaselineKey,
    Subject,
    apply_ignores,
    baseline_key,
    ignore_index,
)
from rackdesigner.edit.checker import _View, finding_order
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout
from rackdesigner.rules.registry import Rule, to_diagnostics

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.facts import CduLoad, RackFacts
    from rackdesigner.model.layout import Link, Rack

__all__ = ["Baseline", "Grouped", "Incremental", "Ports", "common_ends", "grouped_check"]

# Layout fields other than racks and links (and the header comment): a change to any of
# them re-checks everything.
_WHOLE = tuple(
    f.name for f in dataclasses.fields(Layout) if f.name not in ("racks", "links", "comment")
)


@dataclass(slots=True)
class Grouped:
    """One layout's findings per scope; ``findings()`` is what :func:`check` gives
    (sorted, ignore keys applied)."""

    file: str
    racks: dict[str, list[Diagnostic]] = field(default_factory=dict)  # rack id -> findings
    links: dict[str, list[Diagnostic]] = field(default_factory=dict)  # link entity -> findings
    device: list[Diagnostic] = field(default_factory=list)
    site: list[Diagnostic] = field(default_factory=list)
    # The same site findings by rule code, in the rules' order (each rule's own list).
    site_rules: dict[str, list[Diagnostic]] = field(default_factory=dict)
    # A site rule split in parts (Rule.parts): its findings per part, ("rack", index) and
    # ("load", index of the CDU group); its ``site_rules`` entry is theirs in that order.
    site_parts: dict[str, dict[Part, list[Diagnostic]]] = field(default_factory=dict)
    fabric: list[Diagnostic] = field(default_factory=list)

    def all(self) -> Iterable[Diagnostic]:
        for found in self.racks.values():
            yield from found
        for found in self.links.values():
            yield from found
        yield from self.device
        yield from self.site
        yield from self.fabric

    def findings(self, layout: Layout) -> list[Diagnostic]:
        diagnostics = sorted(self.all(), key=finding_order)
        for diagnostic in diagnostics:
            diagnostic.suppressed = None
        apply_ignores(layout, diagnostics)
        return diagnostics


def _scopes(layout: Layout) -> dict[str, list[Rule]]:
    rules: dict[str, list[Rule]] = defaultdict(list)
    for rule in rules_for(layout):
        rules[rule.scope].append(rule)
    return rules


def _run(rules: Iterable[Rule], view: object, file: str) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for rule in rules:
        found.extend(to_diagnostics(rule, rule.check(view), file))  # type: ignore[arg-type]
    return found


class _Narrowed:
    """The analysis as a rack rule, or a site rule on one of its parts, sees it: narrowed
    to some racks (and CDU groups), everything else read through on demand (unlike the
    designer's view, it reads no cable fact up front: none of these rules reads one, and a
    failed layout's cables would be resolved for nothing)."""

    __slots__ = ("_base", "cdu_loads", "devices", "racks")

    def __init__(
        self, base: Analysis, racks: list[RackFacts], loads: list[CduLoad] | None = None
    ) -> None:
        self._base = base
        self.racks = racks
        self.devices = [dev for rack in racks for dev in rack.devices]
        if loads is not None:  # else the slot stays empty and reads through
            self.cdu_loads = loads

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


def _rack_findings(
    rules: Sequence[Rule], analysis: Analysis, wanted: set[str] | None, file: str
) -> dict[str, list[Diagnostic]]:
    """The rack rules' findings of the racks ``wanted`` (by id; the last rack of an id
    has them): among every rack, or a failed layout's found by the layout's index."""
    like = analysis.like
    among: Iterable[RackFacts] = analysis.racks
    if wanted is not None and like is not None and analysis.made_racks is not None:
        among = [analysis.racks[i] for i in like.analysis.rack_indexes(wanted)]
    return {
        facts.rack.id: _run(rules, _Narrowed(analysis, [facts]), file)
        for facts in among
        if wanted is None or facts.rack.id in wanted
    }


def _link_findings(
    rules: Sequence[Rule], analysis: Analysis, wanted: set[str] | None, file: str
) -> dict[str, list[Diagnostic]]:
    listed = [lf for lf in analysis.links if wanted is None or lf.entity in wanted]
    view = analysis if wanted is None else _View(analysis, None, listed)  # type: ignore[arg-type]
    return _by_entity(_run(rules, view, file))


def _by_entity(found: Iterable[Diagnostic]) -> dict[str, list[Diagnostic]]:
    grouped: dict[str, list[Diagnostic]] = {}
    for diagnostic in found:
        grouped.setdefault(diagnostic.entity, []).append(diagnostic)
    return grouped


Part = tuple[str, int]  # ("rack", rack index) or ("load", CDU group index)


def _site_findings(
    rules: Sequence[Rule], analysis: Analysis, file: str, blind: frozenset[str] = frozenset()
) -> dict[str, list[Diagnostic]]:
    """Each site rule's findings, in the rules' order; not the rules ``blind``."""
    return {rule.code: _run([rule], analysis, file) for rule in rules if rule.code not in blind}


def _part_findings(
    rule: Rule, analysis: Analysis, parts: Iterable[Part], file: str
) -> dict[Part, list[Diagnostic]]:
    """A site rule split in parts, run on each of ``parts`` alone (as the designer runs
    it, edit/checker.py): its findings there are that part's."""
    out: dict[Part, list[Diagnostic]] = {}
    for part in parts:
        kind, index = part
        if kind == "rack":
            view = _Narrowed(analysis, [analysis.racks[index]], [])
        else:
            view = _Narrowed(analysis, [], [analysis.cdu_loads[index]])
        out[part] = _run([rule], view, file)
    return out


def _every_part(rule: Rule, analysis: Analysis) -> list[Part]:
    racks = range(len(analysis.racks)) if "racks" in rule.parts else ()
    loads = range(len(analysis.cdu_loads)) if "cdu_loads" in rule.parts else ()
    return [*(("rack", i) for i in racks), *(("load", i) for i in loads)]


def grouped_check(analysis: Analysis, file: str = "") -> Grouped:
    """Every rule of ``analysis``'s layout, its findings kept per scope (a site rule split
    in parts per part)."""
    rules = _scopes(analysis.layout)
    whole = [rule for rule in rules["site"] if not rule.parts]
    site = _site_findings(whole, analysis, file)
    parts = {
        rule.code: _part_findings(rule, analysis, _every_part(rule, analysis), file)
        for rule in rules["site"]
        if rule.parts
    }
    in_order = {
        rule.code: site[rule.code]
        if rule.code in site
        else [d for found in parts[rule.code].values() for d in found]
        for rule in rules["site"]
    }
    return Grouped(
        file,
        racks=_rack_findings(rules["rack"], analysis, None, file),
        links=_link_findings(rules["link"], analysis, None, file),
        device=_run(rules["device"], analysis, file),
        site=[diagnostic for found in in_order.values() for diagnostic in found],
        site_rules=in_order,
        site_parts=parts,
        fabric=_run(rules["fabric"], analysis, file),
    )


def _changed_parts(rule: Rule, analysis: Analysis) -> list[Part] | None:
    """The parts of a site rule split in parts that a failed layout's analysis (derived
    from the layout's) changed: the racks whose facts it made anew and the CDU groups it
    recomputed (the others are the layout's, the same objects); None where the groups
    cannot be matched to the layout's."""
    like, made = analysis.like, analysis.made_racks
    if like is None or made is None:
        return None
    parts: list[Part] = []
    if "racks" in rule.parts:
        parts.extend(("rack", index) for index in sorted(made))
    if "cdu_loads" in rule.parts:
        loads, before = analysis.cdu_loads, like.analysis.cdu_loads
        if len(loads) != len(before):
            return None
        parts.extend(("load", i) for i, load in enumerate(loads) if load is not before[i])
    return parts


# Site rules whose findings no failure changes (what-if): they read only what a failed
# layout keeps as it was, every rack, feed and device with its fields, and a failed device
# its model and GPUs (it only draws nothing and makes no heat): ids and places (PLC005),
# the feeds' circuits (PWR003), the NVLink domains' racks and trays (NVL001, NVL003), the
# GPU nodes' models, GPUs and GPU memory against the workload (CMP007, CMP009), the racks'
# cooling and the GPUs in all, a failed node's counted (COOL004).
_FAILURE_BLIND = frozenset({"PLC005", "PWR003", "NVL001", "NVL003", "CMP007", "CMP009", "COOL004"})
# The parallel file system's read and write against the GPUs (STO002, STO003) find nothing
# without an appliance of it, and a failed layout's appliances are the layout's less some.
_PFS_RULES = frozenset({"STO002", "STO003"})
# The power chain's rules (PWR021-PWR029) judge its elements, one by one: a layout without
# one (the failed layout keeps the layout's) has nothing for them to find.
_CHAIN_RULES = frozenset(f"PWR0{number}" for number in range(21, 30))


# In-row coolers (COOL020) judged only where a rack names one.
_INROW_RULES = frozenset({"COOL020"})


def _blind(analysis: Analysis) -> frozenset[str]:
    """The site rules whose findings no failure of ``analysis``'s layout changes: those of
    _FAILURE_BLIND, and those that find nothing in the layout for want of what they judge,
    which its failed layouts keep as it is (its racks, devices and power elements)."""
    blind = _FAILURE_BLIND
    if not analysis.storage.pfs.devices:
        blind |= _PFS_RULES
    if not analysis.layout.power_elements:
        blind |= _CHAIN_RULES
    if not any(rack.inrows for rack in analysis.layout.racks):
        blind |= _INROW_RULES
    return blind


def _entity(link: Link) -> str:
    return f"link {link.a} -> {link.b}"  # LinkFacts.entity, without the analysis


def _device_of(end: str) -> str:
    return end.partition(":")[0]


def _rows(layout: Layout) -> list[str]:
    return list(dict.fromkeys(rack.row or "" for rack in layout.racks))


def _fabric_inputs(racks: Iterable[Rack]) -> tuple[object, ...]:
    """What the fabric rules read of these racks: their places, their devices' ids and
    models (a device moved within its rack leaves them)."""
    places = sorted((rack.id, rack.row or "", rack.slot or 0) for rack in racks)
    devices = sorted((d.id, d.model, rack.id) for rack in racks for d in rack.devices)
    return tuple(places), tuple(devices)


def common_ends(old: Sequence[Link], new: Sequence[Link]) -> tuple[int, int]:
    """How many cables the two lists have alike at their head and at their tail (a change
    in one place leaves the cables after it where they were, or shifted); ``diff`` pairs
    those by place."""
    top = min(len(old), len(new))
    head = 0
    while head < top and (old[head] is new[head] or old[head] == new[head]):
        head += 1
    tail = 0
    while tail < top - head and (
        old[-1 - tail] is new[-1 - tail] or old[-1 - tail] == new[-1 - tail]
    ):
        tail += 1
    return head, tail


def _not_kept_indexes(old: Layout, kept: Sequence[int]) -> set[int]:
    return set(range(len(old.links))).difference(kept)


def _not_kept(links: Sequence[Link], kept: Sequence[int]) -> list[Link]:
    """The cables of ``links`` not at the indexes ``kept``."""
    keep = set(kept)
    return [link for number, link in enumerate(links) if number not in keep]


def _on_devices(links: Sequence[Link], keep: set[str]) -> set[str]:
    """The entities of the cables of ``links`` with an end on a device not in ``keep``
    (inlined: 300,000 cables)."""
    return {
        _entity(link)
        for link in links
        if link.a.partition(":")[0] not in keep or link.b.partition(":")[0] not in keep
    }


def _kept_cables(
    links: Sequence[Link],
    removed: Sequence[Link],
    named: set[str],
    cables: Mapping[str, Sequence[int]],
    ports: Ports | None = None,
    cut: Sequence[int] | None = None,
) -> set[int]:
    """Of a layout whose cables are ``links`` less those ``removed`` (a failed layout's),
    the indexes in ``links`` of the cables whose findings may differ (``cables``: each
    device id -> the indexes in ``links`` of its cables; removed ones among them): those
    on a device ``named`` (of a rack that differs: its facts; or not in the layout: their
    suggestion), or on a port a removed cable was on (a port taken twice; the references
    of the cables from one ``a`` port; ``ports``: the layout's :class:`Ports`, to find
    them without a walk over every cable of the devices; ``cut``: the indexes of those
    removed, whose ends' keys it holds). A cable between devices a failure only touched
    keeps its findings: every cable of a device down is removed, and the others' facts are
    the same."""
    found = {i for d in named for i in cables.get(d, ())}
    if ports is not None:
        by_port = ports.cables
        if cut is not None:
            ends = ports.ends
            for number in cut:
                a, b = ends[number]
                found.update(by_port.get(a, ()))
                found.update(by_port.get(b, ()))
            return found
        for link in removed:
            found.update(by_port.get(_end_key(link.a), ()))
            found.update(by_port.get(_end_key(link.b), ()))
        return found
    taken: dict[str, set[object]] = {}
    for link in removed:
        for end in (link.a, link.b):
            device, _, port = end.partition(":")
            taken.setdefault(device, set()).add(_port_key(port))
    for device, keys in taken.items():
        for number in cables.get(device, ()):
            link = links[number]
            for end in (link.a, link.b):
                on, _, port = end.partition(":")
                if on == device and _port_key(port) in keys:
                    found.add(number)
    return found


class Ports:
    """A layout's cables by port (its end as :func:`_end_key` writes it: ``p01`` is
    ``p1``, as resolving reads it), and the device ids its cables
    name that no rack holds (``cables``: its whatif.failed.cables_of): what each of many
    failed layouts of it asks (:class:`Incremental`'s ``ports``), worked out once."""

    __slots__ = ("cables", "ends", "layout", "racks", "unknown")

    def __init__(self, layout: Layout, cables: Mapping[str, Sequence[int]]) -> None:
        self.layout = layout
        self.racks = {rack.id: rack for rack in layout.racks}  # the last of an id
        by_port: dict[str, list[int]] = {}
        # Each cable's two ends' keys, by its index: what a failure's removed cables ask.
        self.ends: list[tuple[str, str]] = []
        for number, link in enumerate(layout.links):
            a, b = _end_key(link.a), _end_key(link.b)
            self.ends.append((a, b))
            by_port.setdefault(a, []).append(number)
            listed = by_port.setdefault(b, [])
            if not listed or listed[-1] != number:
                listed.append(number)
        self.cables = by_port
        known = {device.id for rack in layout.racks for device in rack.devices}
        self.unknown = frozenset(cables.keys() - known)


def _end_key(end: str) -> str:
    """A cable's end with its port as :func:`_port_key` reads it (``d:p01`` is ``d:p1``):
    two ends are one port where their keys are equal."""
    device, colon, port = end.partition(":")
    group = port.rstrip("0123456789")
    digits = port[len(group) :]
    if not digits or digits[0] != "0":
        return end if colon else f"{end}:"
    return f"{device}:{group}{int(digits)}"


def _port_key(port: str) -> object:
    """A port as resolving names it (``p01`` is ``p1``): its group and index."""
    group = port.rstrip("0123456789")
    digits = port[len(group) :]
    return (group, int(digits)) if digits else port


def _trunk_mates(changed: Sequence[Link], links: Sequence[Link]) -> set[str]:
    """The entities of the cables of ``links`` that run in a trunk, or through a patch
    panel, that a cable ``changed`` runs in or through: a panel's port taken twice is a
    finding on either cable, though they share no end device."""
    trunks = {link.trunk for link in changed if link.trunk}
    panels = {_device_of(port) for link in changed for port in link.via or ()}
    if not trunks and not panels:
        return set()
    return {
        _entity(link)
        for link in links
        if link.trunk in trunks or any(_device_of(port) in panels for port in link.via or ())
    }


def _differing(
    old_racks: dict[str, Rack], new_racks: dict[str, Rack], was: list[Rack], now: list[Rack]
) -> None:
    """Add the racks that differ between two layouts (by id) to ``was`` and ``now``."""
    for ident, rack in new_racks.items():
        before = old_racks.get(ident)
        if before is not rack and (before is None or before != rack):
            now.append(rack)
            if before is not None:
                was.append(before)
    was.extend(rack for ident, rack in old_racks.items() if ident not in new_racks)


def _neighbours(
    new: Layout, changed: list[Rack], names: set[str], listed: Collection[str]
) -> set[str]:
    """The racks ``changed`` (of those ``listed``), and the racks whose ``cdu`` or
    ``door`` names a device of one of them or that share a CDU or an NVLink domain with
    one of them."""
    cdus = {cdu for rack in changed for cdu in rack.cdus}
    domains = {rack.nvlink_domain for rack in changed if rack.nvlink_domain}
    racks = {rack.id for rack in changed}
    for rack in new.racks:
        if (
            rack.door in names
            or rack.nvlink_domain in domains
            or any(cdu in names or cdu in cdus for cdu in rack.cdus)
        ):
            racks.add(rack.id)
    return racks & set(listed)


def _add_touched(
    touched: Iterable[str],
    old_racks: dict[str, Rack],
    new_racks: dict[str, Rack],
    was: list[Rack],
    now: list[Rack],
) -> None:
    """Add the racks ``touched`` to those that differ (``was`` and ``now``) though they
    compare equal."""
    listed = {rack.id for rack in now}
    for ident in touched:
        if ident not in listed and ident in new_racks and ident in old_racks:
            listed.add(ident)
            now.append(new_racks[ident])
            was.append(old_racks[ident])


class Incremental:
    """What must be checked again in ``new`` given ``old`` (two layouts), decided once
    from the layouts alone: the rules can run on the new side before the old side's
    findings are there (the old side may be checked in another process)."""

    def __init__(
        self,
        old: Layout,
        new: Layout,
        touched: Iterable[str] = (),
        kept: Sequence[int] | None = None,
        cables: Mapping[str, Sequence[int]] | None = None,
        cut: Sequence[int] | None = None,
        down: Iterable[str] = (),
        ports: Ports | None = None,
    ) -> None:
        # ``touched``: rack ids changed though they compare equal (a what-if's failed parts).
        # ``kept``: where ``new``'s cables are ``old``'s at these indexes, in order (a failed
        # layout's): the cables that differ are exactly the others, not a middle to find.
        # ``cables``: with ``kept``, each device id -> the indexes of ``old``'s cables with
        # an end on it (whatif.failed.cables_of), to find a device's cables without a walk.
        # ``cut``: with ``kept``, the indexes of ``old``'s cables it leaves out, ascending.
        # ``down``: the devices a what-if's failed layout marks failed (a fabric's rules
        # leave them out, cabled or not). ``ports``: with ``kept``, ``old``'s Ports.
        same = new.racks is old.racks  # a failed layout's: its racks are the layout's
        self.everything = (not same and _rows(old) != _rows(new)) or any(
            getattr(old, name) is not getattr(new, name)
            and getattr(old, name) != getattr(new, name)
            for name in _WHOLE
        )
        self.racks: set[str] = set()  # rack ids whose rack rules run again (new side)
        self.entities: set[str] = set()  # link entities whose link rules run again
        self.dropped: set[str] = set()  # link entities whose old findings are dropped
        self.fabric = True
        self.head = self.tail = 0  # cables alike at the lists' head and tail (not known)
        self.moved: set[str] = set()
        self.derived = kept is not None  # a failed layout's: see rerun_racks
        self.cut_ignored = True
        self.kept = kept
        # With ``kept``: the indexes in ``old`` of the cables kept whose link rules run
        # again (their entities are in ``entities``), for the failed analysis to make
        # only their facts; None where they are found by entity.
        self.again: list[int] | None = None
        self._changed: tuple[Layout, list[Rack], set[str], Collection[str]] | None = None
        if self.everything:
            return
        if ports is not None and (ports.layout is not old or not same):
            ports = None  # another layout's, or other racks: not the index to read
        was: list[Rack] = []  # the racks that differ, as they were and as they are
        now: list[Rack] = []
        if ports is not None:  # the same racks: none differs but those touched
            old_racks = new_racks = ports.racks
        else:
            old_racks = {rack.id: rack for rack in old.racks}
            new_racks = {rack.id: rack for rack in new.racks}
            _differing(old_racks, new_racks, was, now)
        differ = {device.id for rack in was + now for device in rack.devices}
        _add_touched(touched, old_racks, new_racks, was, now)
        changed = was + now
        names = {device.id for rack in changed for device in rack.devices}
        # The racks whose rack rules run again: a failed layout's analysis knows them
        # (rerun_racks); else these and their neighbours, worked out now.
        self._changed = (new, changed, names, new_racks.keys())
        if not self.derived or ports is None:
            self.racks = _neighbours(*self._changed)
        self.moved = names  # the devices of the racks that differ: their cables' routes
        if kept is None:
            # Cables: the two lists differ between a common head and a common tail (a
            # change in one place leaves the cables after it where they were, or shifted).
            self.head, self.tail = common_ends(old.links, new.links)
            middle = [
                *old.links[self.head : len(old.links) - self.tail],
                *new.links[self.head : len(new.links) - self.tail],
            ]
        elif cut is not None:  # the cables not kept; the lengths are all measured
            middle = [old.links[number] for number in cut]
        else:
            middle = _not_kept(old.links, kept)
        entities = {_entity(link) for link in middle}
        if kept is not None and cables is not None:
            if ports is not None:
                unknown: Iterable[str] = ports.unknown
            else:
                unknown = cables.keys() - {d.id for rack in new.racks for d in rack.devices}
            named = differ.union(unknown)
            again = _kept_cables(old.links, middle, named, cables, ports, cut)
            again.difference_update(cut if cut is not None else _not_kept_indexes(old, kept))
            entities.update(_entity(old.links[number]) for number in again)
            self.again = sorted(again)
        else:
            known = {device.id for rack in new.racks for device in rack.devices}
            touched = names | {_device_of(end) for link in middle for end in (link.a, link.b)}
            entities |= _on_devices(new.links, known - touched)
        mates = _trunk_mates(middle, new.links)
        if mates:
            self.again = None  # a trunk's cables are found by entity
        entities.update(mates)
        # Entities of removed cables too: their old findings are dropped, and no cable of
        # the new layout has them.
        self.entities = self.dropped = entities
        self.cut_ignored = any(link.ignore for link in middle)  # a cable gone had an ignore key
        self.fabric = bool(middle) or any(down) or _fabric_inputs(was) != _fabric_inputs(now)

    def lengths(self, old: Sequence[float | None], analysis: Analysis) -> list[float | None]:
        """Each cable's length in the new layout (``analysis``'s), given the old layout's
        (``old``, in its order): a cable of the lists' common head or tail whose ends are
        on no device of a rack that differs has its old length (the same cable between
        devices at the same places, on the same site); the rest are measured."""
        links = analysis.links
        if self.everything:
            return [facts.length for facts in links]
        moved, shift = self.moved, len(old) - len(links)
        out: list[float | None] = []
        append = out.append
        body = range(self.head, len(links) - self.tail)
        for index, facts in enumerate(links):
            link = facts.link
            if (
                index in body
                or link.a.partition(":")[0] in moved
                or link.b.partition(":")[0] in moved
            ):
                append(facts.length)
            else:
                append(old[index + shift if index >= self.head else index])
        return out

    def rerun_racks(self, analysis: Analysis) -> set[str]:
        """The racks whose rack rules run again on ``analysis``. A failed layout's analysis
        derived from the layout's (``kept`` given, ``Analysis(..., like=...)``): exactly
        the racks whose facts it made anew. A rack rule reads its rack's facts and
        devices, ``running`` (kept only for a rack with a feed or a supply part failed,
        whose facts are made anew), the thresholds, the workload and the site: a rack whose
        facts are the layout's, the same objects, has the layout's findings. (``racks``
        also holds the racks sharing a CDU or an NVLink domain with one touched: their
        facts are the layout's unless a device they name is made anew.)"""
        made = analysis.made_racks
        if not self.derived or made is None:
            if self._changed is not None and not self.racks:
                self.racks = _neighbours(*self._changed)
            return self.racks
        racks = analysis.racks
        return {racks[index].rack.id for index in made}

    def _link_rules(
        self, rules: Sequence[Rule], analysis: Analysis, file: str
    ) -> dict[str, list[Diagnostic]]:
        """The link rules on the cables of ``entities``: a failed layout's found by index
        (``again``), their facts made alone (``Analysis.links_at``), not by a walk over
        every cable's facts."""
        if not self.entities:
            return {}
        if self.again is None or self.kept is None:
            return _link_findings(rules, analysis, self.entities, file)
        kept = self.kept
        listed = analysis.links_at([bisect_left(kept, number) for number in self.again])
        return _by_entity(_run(rules, _View(analysis, None, listed), file))  # type: ignore[arg-type]

    def check(self, analysis: Analysis, file: str = "", before: Baseline | None = None) -> Partial:
        """The rules that must run again, on the new layout's ``analysis`` (``before``:
        the old layout's findings, whose rules these are where the layouts share theirs)."""
        if before is not None and analysis.layout.rules is before.layout.rules:
            rules = before.scopes
        else:
            rules = _scopes(analysis.layout)
        if self.everything:
            return Partial(self, grouped_check(analysis, file), self.racks)
        racks = self.rerun_racks(analysis)
        like = analysis.like
        if before is not None and like is not None and like.analysis.layout is before.layout:
            blind = before.blind
        else:
            blind = _blind(like.analysis) if like is not None else _FAILURE_BLIND
        site, parts = self._site_rules(rules["site"], analysis, file, blind)
        return Partial(
            self,
            Grouped(
                file,
                racks=_rack_findings(rules["rack"], analysis, racks, file),
                links=self._link_rules(rules["link"], analysis, file),
                device=_run(rules["device"], analysis, file),
                site=[
                    *(diagnostic for found in site.values() for diagnostic in found),
                    *(d for found in parts.values() for part in found.values() for d in part),
                ],
                site_rules=site,
                site_parts=parts,
                fabric=_run(rules["fabric"], analysis, file) if self.fabric else [],
            ),
            racks,
        )

    def _site_rules(
        self, rules: Sequence[Rule], analysis: Analysis, file: str, blind: frozenset[str]
    ) -> tuple[dict[str, list[Diagnostic]], dict[str, dict[Part, list[Diagnostic]]]]:
        """The site rules that run again: each whole, or (a failed layout's, derived) a
        rule split in parts on the parts the failure changed, and not the rules that no
        failure changes (``_blind``)."""
        if not self.derived:
            return _site_findings(rules, analysis, file), {}
        whole: list[Rule] = []
        parts: dict[str, dict[Part, list[Diagnostic]]] = {}
        for rule in rules:
            changed = _changed_parts(rule, analysis) if rule.parts else None
            if changed is None:
                whole.append(rule)
            else:
                parts[rule.code] = _part_findings(rule, analysis, changed, file)
        return _site_findings(whole, analysis, file, blind), parts


@dataclass(slots=True)
class Baseline:
    """A layout's findings as a what-if compares its failed layouts' with (they are new
    where their baseline key is not among these): per scope, and each baseline key's
    findings that no ignore key suppresses."""

    layout: Layout
    grouped: Grouped
    keys: Counter[BaselineKey]  # how many findings of each key
    by_key: dict[BaselineKey, list[Diagnostic]]
    ignores: dict[Subject, list[str]]  # the layout's ignore_index
    scopes: dict[str, list[Rule]]  # the layout's rules by scope
    key_of: dict[int, BaselineKey]  # id(finding) -> its key, of those not suppressed
    blind: frozenset[str]  # the site rules no failure of the layout changes (_blind)

    @classmethod
    def of(cls, grouped: Grouped, analysis: Analysis) -> Baseline:
        layout = analysis.layout
        by_key: dict[BaselineKey, list[Diagnostic]] = {}
        key_of: dict[int, BaselineKey] = {}
        for diagnostic in grouped.findings(layout):
            if not diagnostic.suppressed:
                key = key_of[id(diagnostic)] = baseline_key(diagnostic)
                by_key.setdefault(key, []).append(diagnostic)
        keys = Counter({key: len(found) for key, found in by_key.items()})
        scopes = _scopes(layout)
        blind = _blind(analysis)
        return cls(layout, grouped, keys, by_key, ignore_index(layout), scopes, key_of, blind)


@dataclass(slots=True)
class Partial:
    """The new side's findings of the rules that ran again; :meth:`complete` adds the old
    side's for everything else."""

    plan: Incremental
    fresh: Grouped
    racks: set[str]  # the racks whose rack rules ran again

    def complete(self, old: Grouped, new_layout: Layout) -> list[Diagnostic]:
        plan, fresh, file = self.plan, self.fresh, self.fresh.file
        if plan.everything:
            return fresh.findings(new_layout)
        racks = {rack.id for rack in new_layout.racks}
        merged = Grouped(file, device=fresh.device)
        for code, found in (old.site_rules if plan.derived else fresh.site_rules).items():
            again = fresh.site_rules.get(code)
            if again is None and code in fresh.site_parts:  # some parts ran again
                ran, kept = fresh.site_parts[code], old.site_parts.get(code, {})
                parts = {**{p: _moved(f, file) for p, f in kept.items()}, **ran}
                again = [diagnostic for part in parts.values() for diagnostic in part]
            merged.site.extend(again if again is not None else _moved(found, file))
        for ident in racks:
            if ident in self.racks:
                merged.racks[ident] = fresh.racks.get(ident, [])
            else:
                merged.racks[ident] = _moved(old.racks.get(ident, []), file)
        for entity, found in old.links.items():
            if entity not in plan.dropped:
                merged.links[entity] = _moved(found, file)
        for entity, found in fresh.links.items():
            merged.links.setdefault(entity, []).extend(found)
        merged.fabric = fresh.fabric if plan.fabric else _moved(old.fabric, file)
        return merged.findings(new_layout)

    def new_findings(self, before: Baseline, new_layout: Layout) -> list[Diagnostic]:
        """The findings of the new layout whose baseline key the old layout's findings
        (``before``) do not have as often (a what-if's new findings), sorted: what
        :meth:`complete` and a count of ``before``'s keys over all of them give, from the
        rules that ran again and the findings they replace alone. A finding kept from the
        old layout (a scope that did not run again) is suppressed there as here: it names
        no cable removed (their findings are dropped, a port one was on runs again), the
        ignore keys being the same but for the cables removed."""
        plan, fresh, file = self.plan, self.fresh, self.fresh.file
        if plan.everything:
            return _beyond(before.keys, fresh.findings(new_layout))
        found = list(fresh.all())
        for diagnostic in found:
            diagnostic.suppressed = None
        ignores = ignore_index(new_layout) if plan.cut_ignored else before.ignores
        apply_ignores(new_layout, found, ignores)
        by_key: dict[BaselineKey, list[Diagnostic]] = {}
        for diagnostic in found:
            if not diagnostic.suppressed:
                by_key.setdefault(baseline_key(diagnostic), []).append(diagnostic)
        replaced = self._replaced(before.grouped)
        key_of = before.key_of
        old_count = Counter(key_of[id(d)] for d in replaced if id(d) in key_of)
        gone = {id(d) for d in replaced}
        new: list[Diagnostic] = []
        for key, same in by_key.items():
            if len(same) <= old_count[key]:
                continue  # as many as the scopes that ran again had: none is new
            kept = _moved([d for d in before.by_key.get(key, ()) if id(d) not in gone], file)
            new.extend(sorted(kept + same, key=finding_order)[before.keys[key] :])
        return sorted(new, key=finding_order)

    def _replaced(self, old: Grouped) -> list[Diagnostic]:
        """The old layout's findings of the scopes that ran again."""
        plan, fresh = self.plan, self.fresh
        out = [d for ident in self.racks for d in old.racks.get(ident, ())]
        out.extend(d for entity in plan.dropped for d in old.links.get(entity, ()))
        out.extend(old.device)
        out.extend(d for code in fresh.site_rules for d in old.site_rules.get(code, ()))
        for code, found in fresh.site_parts.items():
            before = old.site_parts.get(code, {})
            out.extend(d for part in found for d in before.get(part, ()))
        if plan.fabric:
            out.extend(old.fabric)
        return out


def _beyond(keys: Counter[BaselineKey], after: list[Diagnostic]) -> list[Diagnostic]:
    """The findings of ``after`` (sorted) beyond as many of each baseline key as ``keys``
    counts; suppressed ones left out."""
    left = keys.copy()
    new = []
    for diagnostic in after:
        if diagnostic.suppressed:
            continue
        key = baseline_key(diagnostic)
        if left[key] > 0:
            left[key] -= 1
        else:
            new.append(diagnostic)
    return new


def _moved(found: list[Diagnostic], file: str) -> list[Diagnostic]:
    """The old side's findings as the new side's: the same but for the file they name."""
    return [dataclasses.replace(d, file=file) for d in found]
