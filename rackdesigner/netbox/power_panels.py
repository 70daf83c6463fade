"""Which NetBox power panel each rack feed hangs on, and the panels themselves
(docs/netbox.md, "The power chain in NetBox").

NetBox's power model stops at the power panel ("the root level of the power distribution
hierarchy in NetBox", its Power Panel documentation), and nesting panels was declined as
out of scope (netbox-community/netbox#4839), so the chain behind the feeds
(docs/power-chain.md) cannot be NetBox objects whole. What it can hold, it gets:

- every element a rack feed names as its ``source`` is that feed's panel (an RPP, a busway,
  an 800 VDC power rack, or a UPS or transformer whose output feeds racks directly), and so
  is every switchboard, RPP, busway and power rack, the kinds that are panels in a
  hall (NetBox: "one power panel often serves a group of racks");
- the elements above them (utilities, generators, transfer switches, UPSs and transformers
  that feed no rack) are not NetBox objects: each panel's ``comments`` lists its path up
  the chain, nearest first, each element with its kind and continuous rating, and its
  ``description`` says its own kind and rating;
- a feed with no ``source`` stays on the panel of its side (``Panel A``, ``Panel B``;
  ``Panel`` without a side), as before the chain.

A feed on an element's panel carries its side (and its position there, and its circuit) in
its ``description`` (``side A · position 3 · circuit c12``), which ``rackdesigner pull``
reads back: the panel's name no longer says the side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.model.units import POWER, fmt

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.power_chain import ElementFacts, PowerChain
    from rackdesigner.model.layout import Feed

__all__ = ["PANEL_KINDS", "chain_panels", "feed_description", "feed_panel", "side_panel"]

NAME_MAX = 100  # NetBox's name fields
DESCRIPTION_MAX = 200
# The chain's kinds that are panels in NetBox's sense whether or not a rack feed names them.
PANEL_KINDS = ("switchgear", "rpp", "busway", "power-rack")


def side_panel(side: str | None) -> str:
    """The panel of a feed outside the chain: one per side."""
    return f"Panel {side}" if side else "Panel"


def feed_panel(chain: PowerChain, feed: Feed) -> str:
    """The panel ``feed`` hangs on: its source element's, else its side's."""
    facts = chain.element(feed.source) if feed.source else None
    return facts.id[:NAME_MAX] if facts is not None else side_panel(feed.side)


def feed_description(feed: Feed, on_element: bool) -> str | None:
    """``side A · position 3 · circuit c12`` for a feed on an element's panel (whose name
    does not say the side), ``circuit c12`` for one on its side's panel, or None."""
    parts = []
    if on_element:
        if feed.side:
            parts.append(f"side {feed.side}")
        if feed.position is not None:
            parts.append(f"position {feed.position}")
    if feed.circuit:
        parts.append(f"circuit {feed.circuit}")
    return " · ".join(parts)[:DESCRIPTION_MAX] or None


def chain_panels(analysis: Analysis, site: str) -> list[dict[str, Any]]:
    """A power panel row for each element that is one (the module docstring says which),
    in the layout's order."""
    chain = analysis.power_chain
    if not chain:
        return []
    fed = {f.source for rack in analysis.layout.racks for f in rack.feeds if f.source}
    rows: list[dict[str, Any]] = []
    for facts in chain.elements:
        if facts.kind not in PANEL_KINDS and facts.id not in fed:
            continue
        row: dict[str, Any] = {
            "site": site,
            "name": facts.id[:NAME_MAX],
            "description": _description(facts)[:DESCRIPTION_MAX],
        }
        upstream = _upstream(chain, facts)
        if upstream:
            row["comments"] = upstream
        rows.append(row)
    return rows


def _rated(facts: ElementFacts) -> str:
    binding = facts.binding
    return f"{fmt(binding.watts, POWER)} continuous" if binding is not None else "no rating"


def _description(facts: ElementFacts) -> str:
    """``floor panel A1 · rpp · 415 V 3-phase 100 A × 0.8 = 57.5 kW continuous · 42
    positions``: its label, kind, rating and positions."""
    binding = facts.binding
    parts = [facts.element.label or "", facts.kind]
    if binding is not None:
        watts = fmt(binding.watts, POWER)
        rating = watts if binding.text == watts else f"{binding.text} = {watts}"
        parts.append(f"{rating} continuous")
    else:
        parts.append("no rating")
    if facts.positions is not None:
        parts.append(f"{facts.positions} positions")
    return " · ".join(p for p in parts if p)


def _upstream(chain: PowerChain, facts: ElementFacts) -> str:
    """Its path up the chain, nearest first, each element once: ``Fed by ups-a (ups, 80 kW
    continuous), fed by swbd-1 (...), fed by ats-1 (...), fed by utility-1 (...), else by
    gen-1 (...).`` (an element with several sources: its normal one, else the next)."""
    path = _path(chain, facts.index, {facts.index})
    if not path:
        return "A source of the power chain (rackdesigner, docs/power-chain.md)."
    return (
        path[0].upper()
        + path[1:]
        + ". From rackdesigner's power chain (docs/power-chain.md): NetBox models nothing "
        "upstream of a power panel."
    )


def _path(chain: PowerChain, index: int, seen: set[int]) -> str:
    steps = []
    for number, parent in enumerate(chain.elements[index].parents):
        element = chain.elements[parent]
        said = f"{'fed by' if number == 0 else 'else by'} {element.id}"
        if parent in seen:
            steps.append(said + " (above)")
            continue
        seen.add(parent)
        steps.append(f"{said} ({element.kind}, {_rated(element)})")
        further = _path(chain, parent, seen)
        if further:
            steps.append(further)
    return ", ".join(steps)
