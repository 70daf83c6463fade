"""A link end names an unknown device or port, or a port that another link already uses.

Why it matters:
    A cable needs two existing, free ports. An end that names no device of the layout,
    a port group its model does not have, a port number beyond the group's count, or a
    port another link already uses cannot be cabled, and a device with more links than
    ports is found here too. A link whose end does not resolve is left out of the
    fabric, so the topology rules do not see it.

Example:
    [[links]]
    a = "a01-n01:ib1"
    b = "a01-leaf1:p1"

    [[links]]
    a = "a01-n02:ib1"
    b = "a01-leaf1:p1"   # p1 is already used by the link above

Fix:
    Correct the device id or port name, or move the link to a free port.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, End, LinkFacts
from rackdesigner.layout_io.schema import ENDPOINT
from rackdesigner.model.refs import Ref
from rackdesigner.rules.base import Finding, rule


def _problem_hint_and_values(end: End) -> tuple[str, dict[str, float]]:
    if end.group is not None:  # resolved, but the port is taken
        return "move one of the two links to a free port", {}
    if end.device is None:
        match = ENDPOINT.match(end.text)
        if match is None:
            return 'write the end as "<device id>:<port group><index>", e.g. "a01-n01:ib1"', {}
        return "use the id of a device in the layout", {}
    dtype = end.device.type
    match = ENDPOINT.match(end.text)
    if dtype is None or match is None:
        return "fix the device's model (PLC005)", {}
    group = dtype.port_group(match["group"])
    if group is None:
        return "use one of the model's port groups", {}
    return (
        f"use a port between {group.name}1 and {group.name}{group.count}",
        {"index": float(match["index"]), "ports": float(group.count)},
    )


@rule("CAB005", "error", scope="link")
def unresolved_end(analysis: Analysis) -> Iterator[Finding]:
    for link in analysis.links:
        if link.a.problem is None and link.b.problem is None:
            continue  # the common case, without a loop over the two ends
        for label, end in (("a", link.a), ("b", link.b)):
            if end.problem is None:
                continue
            hint, values = _problem_hint_and_values(end)
            yield Finding(
                link.entity,
                link.ref,
                f"end {label} ({end.text}): {end.problem}",
                hint=hint,
                values=values,
                related=() if end.clash is None else (_clashing(analysis, link, end.clash),),
            )


def _clashing(analysis: Analysis, link: LinkFacts, index: int) -> Ref:
    """The reference of the layout's link at ``index`` (the one that has the port first),
    by the layout's numbering: a check narrowed to some links (the designer's, a diff's
    new side) lists only those in ``analysis.links``."""
    if link.refs is not None:
        return link.refs.of(index)
    return analysis.links[index].ref
