"""The report's NVLink domains (v1.2, docs/rack-scale.md): per domain its GPUs, power
shelves and their margin with one shelf lost (PWR016), the busbar current against its
rating (PWR017), the split of its heat between liquid and air, and the nccl-tests
acceptance figures inside the domain and across domains on the compute fabric (NET007).

Layouts without an NVLink domain have no ``domains`` section: their reports are as
before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.rack_scale import Domain, domains, rack_dc
from rackdesigner.model.units import BYTE_RATE, CURRENT, POWER, fmt
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis


def build_domains(analysis: Analysis) -> list[dict[str, Any]] | None:
    """One entry per NVLink domain, in file order; None where the layout has none."""
    found, _ = domains(analysis.racks)
    if not found:
        return None
    figures = _nccl_by_domain(analysis)
    out: list[dict[str, Any]] = []
    for domain in found:
        # The cooling table's split (the analysis'): cold plates to the CDU loop, the rear
        # door's coil to chilled water, the rest to room air.
        door = sum(r.door_heat for r in domain.racks)
        liquid = sum(r.loop_heat for r in domain.racks)
        air = sum(r.air_heat for r in domain.racks)
        total = liquid + door + air
        out.append(
            {
                "domain": domain.id,
                "shape": domain.shape.name if domain.shape else None,
                "racks": [r.rack.id for r in domain.racks],
                "gpus": domain.gpus,
                "compute_trays": len(domain.compute),
                "switch_trays": len(domain.switches),
                **_power(domain),
                "liquid_heat": liquid,
                "door_heat": door,
                "air_heat": air,
                "liquid_share": liquid / total if total > 0 else None,
                **figures.get(domain.id, dict.fromkeys(_NCCL_KEYS)),
            }
        )
    return out


_NCCL_KEYS = (
    "allreduce_inside",
    "allreduce_inside_np",
    "allreduce_across",
    "allreduce_across_np",
)


def _nccl_by_domain(analysis: Analysis) -> dict[str, dict[str, Any]]:
    """Each domain's nccl-tests runs: the network section's (one function gives both),
    inside a domain and across them."""
    from rackdesigner.rules.network.allreduce_bandwidth import acceptance_tests

    efficiency = analysis.thresholds["nccl_efficiency"]
    figures: dict[str, dict[str, Any]] = {}
    for fabric in analysis.fabrics:
        runs = {t.scope: t for t in acceptance_tests(fabric, efficiency)}
        if "domain" not in runs:
            continue
        inside, whole = runs["domain"], runs.get("fabric")
        values = (inside.busbw, inside.gpus, whole.busbw if whole else None)
        result = dict(zip(_NCCL_KEYS, (*values, whole.gpus if whole else None), strict=True))
        for node in fabric.nodes:
            if node.rack.nvlink_domain is not None:
                figures.setdefault(node.rack.nvlink_domain, result)
    return figures


def _power(domain: Domain) -> dict[str, Any]:
    """The domain's power shelves, their capacity (all, one lost) and the busbar."""
    shelves = 0
    capacity: float | None = 0.0
    one_lost: float | None = 0.0
    dc_load = 0.0
    current: float | None = None
    rating: float | None = None
    unknown = False
    for rack in domain.racks:
        dc = rack_dc(rack)
        if dc is None:
            continue
        shelves += len(dc.shelves)
        dc_load += dc.load
        unknown |= dc.load_unknown
        capacity = None if capacity is None or dc.capacity is None else capacity + dc.capacity
        one_lost = (
            None
            if one_lost is None or dc.capacity_one_lost is None
            else one_lost + dc.capacity_one_lost
        )
        if dc.current is not None:
            current = max(current or 0.0, dc.current)
        if dc.busbar_rating is not None:
            rating = dc.busbar_rating if rating is None else min(rating, dc.busbar_rating)
    if not shelves:
        capacity = one_lost = None
    return {
        "power_shelves": shelves,
        "dc_load": dc_load,
        "dc_load_is_lower_bound": unknown,
        "shelf_capacity": capacity,
        "shelf_capacity_one_lost": one_lost,
        "shelf_margin_one_lost": None if one_lost is None else one_lost - dc_load,
        "busbar_current": current,
        "busbar_rating": rating,
    }


def domains_text(entries: list[dict[str, Any]] | None) -> list[str]:
    if not entries:
        return []
    out = ["", f"NVLink domains: {plural(len(entries), 'domain')}"]
    # Domains with the same figures once, with how many (a hall has hundreds alike).
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for d in entries:
        key = tuple(v for k, v in d.items() if k not in ("domain", "racks"))
        groups.setdefault(key, []).append(d)
    for members in groups.values():
        d = members[0]
        bound = "≥" if d["dc_load_is_lower_bound"] else ""
        if len(members) == 1:
            which = f"{d['domain']} ({', '.join(d['racks'])})"
        else:
            which = f"{len(members)} domains alike, {d['domain']} to {members[-1]['domain']}"
        line = (
            f"  {which}: {d['gpus']} GPUs, "
            f"{d['compute_trays']} compute + {d['switch_trays']} switch trays"
        )
        out.append(line)
        power = f"    power: {plural(d['power_shelves'], 'shelf', 'shelves')}"
        if d["shelf_capacity_one_lost"] is not None:
            power += (
                f", {fmt(d['shelf_capacity_one_lost'], POWER)} with one lost for "
                f"{bound}{fmt(d['dc_load'], POWER)} DC load (margin "
                f"{fmt(d['shelf_margin_one_lost'], POWER)})"
            )
        if d["busbar_current"] is not None:
            power += f"; busbar {fmt(d['busbar_current'], CURRENT)}"
            if d["busbar_rating"] is not None:
                power += f" of {fmt(d['busbar_rating'], CURRENT)}"
        out.append(power)
        if d["liquid_share"] is not None:
            heat = (
                f"    heat: {fmt(d['liquid_heat'], POWER)} to liquid (cold plates, the CDU "
                f"loop: {d['liquid_share']:.0%})"
            )
            if d["door_heat"]:
                heat += f", {fmt(d['door_heat'], POWER)} through the rear door to chilled water"
            out.append(heat + f", {fmt(d['air_heat'], POWER)} to room air")
        if d["allreduce_inside"] is not None:
            nccl = (
                f"    nccl-tests busbw: {fmt(d['allreduce_inside'], BYTE_RATE)} inside "
                f"(-np {d['allreduce_inside_np']})"
            )
            if d["allreduce_across"] is not None:
                nccl += (
                    f", {fmt(d['allreduce_across'], BYTE_RATE)} across domains "
                    f"(-np {d['allreduce_across_np']}): the network section's commands"
                )
            out.append(nccl)
    return out


def domains_csv_rows(entries: list[dict[str, Any]] | None) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for d in entries or []:
        entity = d["domain"]
        for key, unit in (
            ("gpus", ""),
            ("power_shelves", ""),
            ("dc_load", "W"),
            ("shelf_margin_one_lost", "W"),
            ("busbar_current", "A"),
            ("liquid_heat", "W"),
            ("door_heat", "W"),
            ("air_heat", "W"),
            ("allreduce_inside", "bit/s"),
            ("allreduce_across", "bit/s"),
        ):
            if d[key] is not None:
                rows.append(["domains", entity, key, d[key], unit])
    return rows
