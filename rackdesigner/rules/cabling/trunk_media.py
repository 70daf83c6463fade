"""A channel runs through a trunk of another fibre.

Why it matters:
    A multimode transceiver (SR4) does not work over single-mode fibre, nor a single-mode
    one (DR4) over multimode: the core sizes and wavelengths differ, and the link does not
    come up, or comes up with errors. A channel's link `media` (mmf, smf) and grade must be
    the trunk's it runs through. A multimode link over an OM3 trunk is also held to OM3's
    shorter reach: here it is reported when the link says OM4 or leaves its grade out (OM4)
    and the trunk is OM3.

Example:
    [[trunks]]
    id = "t1"
    a = "a01-pp1"
    b = "c01-pp1"
    fibres = 144
    media = "smf"

    [[links]]
    a = "a01-leaf1:p33"
    b = "c01-spine1:p1"
    media = "mmf"        # multimode optics over the single-mode trunk
    via = ["a01-pp1:p1", "c01-pp1:p1"]

Fix:
    Run the link over a trunk of its fibre, or give it the trunk's media (and the
    transceivers that go with it).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.channels import channel_of
from rackdesigner.rules.base import Finding, rule

_FIBRE = {"mmf": "multimode (mmf)", "smf": "single-mode (smf)"}


@rule("CAB013", "error", scope="link")
def trunk_media(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.trunks:
        return
    for link in analysis.links:
        channel = channel_of(link)
        if channel is None or channel.trunk is None:
            continue
        trunk = channel.trunk
        media = link.link.media
        if media is not None and media != trunk.media:
            yield Finding(
                link.entity,
                link.ref,
                f"a {_FIBRE.get(media, media)} link through trunk {trunk.id}, which is "
                f"{_FIBRE.get(trunk.media or '', trunk.media)}",
                hint=f"run it over a {media} trunk, or make it {trunk.media} with its transceivers",
            )
            continue
        if media == "mmf" and trunk.grade == "om3" and (link.link.grade or "om4") != "om3":
            yield Finding(
                link.entity,
                link.ref,
                f"an {(link.link.grade or 'om4').upper()} link through trunk {trunk.id}, "
                "which is OM3: the channel has OM3's shorter reach",
                hint='set grade = "om3" on the link (CAB003 then judges OM3\'s reach), or '
                "use an OM4 trunk",
            )
