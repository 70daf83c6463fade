"""A channel names a patch-panel port that does not exist, or one another channel uses.

Why it matters:
    A channel runs through one port of each of its two panels (`via`): a patch cord plugs
    into the port at the front, the trunk's leg behind it. A port the panel's model does
    not have (the group or the number), or one that a second channel also names, cannot
    be patched: two cords cannot share one adapter.

Example:
    [[links]]
    a = "a01-leaf1:p33"
    b = "c01-spine1:p1"
    via = ["a01-pp1:p1", "c01-pp1:p1"]

    [[links]]
    a = "a01-leaf1:p34"
    b = "c01-spine1:p2"
    via = ["a01-pp1:p1", "c01-pp1:p2"]   # a01-pp1:p1 is taken

Fix:
    Name a free port of the panel (`rackdesigner catalog MODEL` lists its port groups).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.channels import channel_of
from rackdesigner.rules.base import Finding, rule


@rule("CAB011", "error", scope="link")
def panel_ports(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.trunks:
        return
    taken: dict[str, str] = {}  # panel port -> the link that has it
    for link in analysis.links:
        channel = channel_of(link)
        if channel is None:
            continue
        for end in (channel.panel_a, channel.panel_b):
            if end.problem is not None:
                yield Finding(
                    link.entity,
                    link.ref,
                    f"via {end.text}: {end.problem}",
                    hint="name a port the panel's model has",
                )
                continue
            first = taken.setdefault(end.key, link.link.name)
            if first != link.link.name:
                yield Finding(
                    link.entity,
                    link.ref,
                    f"via {end.text}: the panel port is already used by link {first}",
                    hint="name a free port of the panel",
                )
