"""A link's cable media cannot reach the link's length, or no such part exists at its speed.

Why it matters:
    Reach depends on the medium, the link's speed (its slower end), its form and, for
    multimode fibre, the fibre's `grade`; the figures are the built-in media table's
    (`assets/catalog/media.toml`, each row cited: NVIDIA LinkX product pages, the NDR
    structured-cabling requirements, IEEE 802.3). At 400G and more (100G-PAM4 lanes): a
    straight passive copper cable (DAC) between two switches' twin-port OSFP cages is 0.5 to
    2 m (MCP4Y10, `reach_dac`); a splitter DAC from a switch to a node's adapter is 1 to 3 m
    (MCP7Y00-N001 to -N003, a 2.5 m part included; `reach_dac_split`); active copper (ACC) 3
    to 5 m (`reach_acc`); multimode fibre with SR4 transceivers 50 m on OM4/OM5 and 30 m on
    OM3 (`reach_mmf`, `reach_mmf_om3`); single-mode fibre with DR4 transceivers 500 m
    between switches (`reach_smf`) and 100 m to a 400G adapter (`reach_smf_split`). There is
    no active optical cable (AOC) at 400G and more: NVIDIA's NDR cabling uses transceivers
    and MPO fibre. At 800G XDR InfiniBand (200G-PAM4 lanes, Quantum-X800 and ConnectX-8)
    NVIDIA sells linear active copper and single-mode fibre only (its XDR parts list: no
    DAC, "too short at 200G-PAM4", no multimode, no AOC): active copper 1 to 3 m between
    switches (MCA4K50, `reach_acc_xdr`) and 1 to 2 m as a splitter to two adapters (MCA7K10,
    `reach_acc_xdr_split`), single-mode fibre with 2xDR4/DR4 transceivers 500 m either way
    (MMS4A00-XM, MMS4A20-XM800, `reach_smf`). 800G Ethernet (the SN5600's 800GbE, 100G-PAM4
    lanes) keeps the 400G parts. At 200G and below: DAC 3 m (200G, `reach_dac_200g`) and 5 m
    (100G, `reach_dac_100g`), ACC 5 m, AOC 100 m (`reach_aoc`), multimode 100 m on OM4 and
    70 m on OM3 (`reach_mmf_200g`, `reach_mmf_200g_om3`), single-mode 500 m; twisted-pair
    copper (RJ45) 100 m. Speed bands: above 400 Gbit/s on InfiniBand is XDR (the technology
    is the ends' port groups'), otherwise above 200 Gbit/s (or an unknown speed) is 400G+,
    above 100 up to 200 is 200G, the rest 100G; a multimode link without `grade` is taken as
    OM4. A link from a switch to anything else (a node) is a split link, a link between two
    switches (or two nodes) a straight one. Beyond its reach the link does not train up or
    runs with errors; a part that does not exist cannot be ordered. The length is the
    declared one where a link gives `length`, else the computed route plus the site's slack.
    Links without `media` are not checked.

    A cable that reaches is still noted (info) where copper would reach it instead of an
    optical cable or fibre, or passive copper instead of active copper (the first medium
    of the generators' order, dac, acc, aoc, mmf, smf, that reaches): an AOC or a pair of
    transceivers costs several times a DAC and draws power at both ends, an active copper
    cable draws power where a passive one draws none.

Example:
    [[links]]
    a = "a01-n01:ib1"
    b = "a02-leaf1:p1"   # next rack, DGX at U2, leaf at U21: 4.3 m at 400G
    media = "dac"        # a splitter DAC reaches 3 m at 400G

    [[links]]
    a = "a02-leaf1:p33"
    b = "a01-spine1:p1"
    media = "aoc"        # no AOC exists at 400G (NDR)

    [[links]]
    a = "b01-n01:ib1"    # DGX B300, ConnectX-8 at 800G XDR
    b = "b01-leaf1:p1"   # Quantum-X800 Q3400 in the same rack
    media = "dac"        # no passive DAC exists at XDR: acc (2 m) or smf

    [[links]]
    a = "c01-n01:ib1"    # 200G HDR, 1.19 m to the leaf in the same rack
    b = "c01-leaf1:p1"
    media = "aoc"        # info: a DAC reaches 3 m at 200G

Fix:
    Use a medium that exists and reaches (acc, mmf, smf; OM4 instead of OM3; at XDR acc
    or smf), or place the ends closer; where copper reaches, use it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from rackdesigner.analysis import Analysis, LinkFacts
from rackdesigner.analysis.optics import link_shape
from rackdesigner.analysis.reach import (
    BAND_400G,
    BAND_XDR,
    PREFERENCE,
    STRAIGHT,
    MediaChooser,
    known,
    reach,
    speed_band,
)
from rackdesigner.analysis.reach import KEYS as REACH_KEYS
from rackdesigner.model.units import LENGTH, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cabling._common import (
    TOLERANCE,
    length_text,
    length_values,
)

_MEDIA_NAMES = {
    "dac": "passive copper",
    "acc": "active copper",
    "aoc": "active optical cable",
    "mmf": "multimode fibre",
    "smf": "single-mode fibre",
    "copper-rj45": "twisted-pair copper",
}


# Media a high-speed port can take instead, in order of preference (cost, power).
_UPGRADES = ("dac", "acc", "mmf", "aoc", "smf")


def _described(
    media: str, speed: float | None, grade: str | None, form: str, tech: str | None = None
) -> str:
    """``passive copper splitter at 400G+``, ``multimode fibre OM3 at 200G``."""
    name = _MEDIA_NAMES.get(media, media)
    band = speed_band(speed, tech)
    if media in ("dac", "acc") and band in (BAND_400G, BAND_XDR):
        name += " (straight, switch to switch)" if form == STRAIGHT else " splitter"
    if media == "mmf":
        name += f" {(grade or 'om4').upper()}"
    if media in ("dac", "acc", "aoc", "mmf", "smf"):
        name += f" at {band}"
    return name


def _reach(
    analysis: Analysis,
    media: str,
    speed: float | None,
    form: str,
    grade: str | None = None,
    tech: str | None = None,
) -> float:
    """The reach in m of a medium the table knows, with the layout's thresholds (0: no such
    part at this speed)."""
    found = reach(media, speed, grade, analysis.thresholds, form, tech)
    return found[1] if found is not None else 0.0


def _upgrade(
    analysis: Analysis,
    link: LinkFacts,
    media: str,
    length: float,
    form: str,
    tech: str | None = None,
) -> str:
    """The fix for a medium that does not reach: the cheapest one that does."""
    if media == "copper-rj45":
        return "use fibre with transceivers, or put a management switch closer to the device"
    speed, grade = link.speed, link.link.grade
    if media == "mmf" and (grade or "om4") == "om3":
        better = _reach(analysis, "mmf", speed, form, "om4", tech)
        if length <= better:
            return (
                f'use OM4 fibre (grade = "om4", reaches {fmt(better, LENGTH)}) or shorten the run'
            )
    current = _reach(analysis, media, speed, form, grade, tech)
    for other in _UPGRADES:
        other_reach = _reach(analysis, other, speed, form, None, tech)
        if other != media and length <= other_reach and other_reach > current:
            return (
                f"use {other} ({_MEDIA_NAMES[other]}, reaches {fmt(other_reach, LENGTH)}) or "
                "shorten the run"
            )
    return "shorten the run: place the two ends closer"


# Copper: where it reaches, an optical medium (or active copper for passive) costs more.
_COPPER = ("dac", "acc")


def _copper_for(chooser: MediaChooser, media: str) -> tuple[tuple[float, str], ...]:
    """(reach, medium) of the copper media the generators would take before ``media``, in
    their order: what a link of ``media`` could run on instead (none for dac itself)."""
    if media not in PREFERENCE:
        return ()
    rank = PREFERENCE.index(media)
    return tuple(
        (limit, other)
        for limit, other in chooser.steps
        if other in _COPPER and PREFERENCE.index(other) < rank
    )


class _Class:
    """What CAB003 judges the same for every cable of one medium, speed, grade, form and
    technology: the reach (its threshold key; -1 where no such part exists) and the copper
    that could carry such a cable instead, nearest first."""

    __slots__ = ("copper", "copper_reach", "key", "limit")

    def __init__(
        self,
        media: str,
        speed: float | None,
        grade: str | None,
        form: str,
        tech: str | None,
        thresholds: Mapping[str, float],
    ):
        # one table for this rule, the generators and the BOM (analysis/reach.py)
        self.key, self.limit = reach(media, speed, grade, thresholds, form, tech) or ("", -1.0)
        self.copper = _copper_for(MediaChooser(speed, thresholds, form, tech), media)
        # the longest of them: a cable longer than that has no cheaper copper
        self.copper_reach = max((limit for limit, _ in self.copper), default=-math.inf)


_UNSEEN = _Class.__new__(_Class)  # a class not judged yet (None: a medium not judged)


@rule(
    "CAB003",
    "error",
    severities=("error", "info"),
    scope="link",
    thresholds=REACH_KEYS,
)
def media_reach(analysis: Analysis) -> Iterator[Finding]:
    thresholds = analysis.thresholds
    # 150,000 cables share a handful of (media, speed, grade, form, tech): each is judged
    # once, and a cable only compares its length with its class's reaches. A cable whose
    # ends resolved is keyed by its port pair (which holds the speed, form and tech).
    classes: dict[tuple[object, ...], _Class | None] = {}
    known_media: dict[str, bool] = {}
    for link in analysis.links:
        cable = link.link
        media = cable.media
        if media is None:
            continue
        length = link.length
        if length is None:
            continue
        pair = link.pair
        key: tuple[object, ...] = (
            (media, cable.grade, id(pair))
            if pair is not None
            else (media, cable.grade, link.speed, *link_shape(link))
        )
        judged = classes.get(key, _UNSEEN)
        if judged is _UNSEEN:
            if media not in known_media:
                known_media[media] = known(media)  # media the table does not know: not judged
            tech, form = link_shape(link)
            judged = classes[key] = (
                _Class(media, link.speed, cable.grade, form, tech, thresholds)
                if known_media[media]
                else None
            )
        if judged is None:
            continue
        limit = judged.limit
        if limit >= 0 and length <= limit + TOLERANCE:
            if length <= judged.copper_reach:
                cheaper = next(m for reach_m, m in judged.copper if length <= reach_m)
                tech, form = link_shape(link)
                yield _costlier(analysis, link, media, cheaper, form, tech)
            continue
        tech, form = link_shape(link)
        speed = link.speed
        grade = cable.grade
        key_name = judged.key
        values = length_values(link, analysis)
        described = _described(media, speed, grade, form, tech)
        if limit < 0:
            values["reach"] = 0.0
            if speed_band(link.speed, tech) == BAND_XDR:
                why = (
                    "NVIDIA's XDR cabling is linear active copper and single-mode fibre "
                    "(no DAC, multimode or AOC at 200G-PAM4)"
                )
            elif media == "aoc":
                why = "NVIDIA's NDR cabling uses transceivers and fibre (no AOC at 400G)"
            else:
                why = "the media table has none at this speed and form"
            yield Finding(
                link.entity,
                link.ref,
                f"no {media} part exists for this link ({described}): {why}",
                hint=_upgrade(analysis, link, media, length, form, tech),
                values=values,
            )
            continue
        values["reach"] = limit
        yield Finding(
            link.entity,
            link.ref,
            f"{length_text(link, analysis)} is beyond the {fmt(limit, LENGTH)} reach "
            f"of its {media} cable ({described}, {key_name})",
            hint=_upgrade(analysis, link, media, length, form, tech),
            values=values,
        )


def _costlier(
    analysis: Analysis, link: LinkFacts, media: str, cheaper: str, form: str, tech: str | None
) -> Finding:
    """Info: copper reaches this link; its optical (or active) cable costs more."""
    assert link.length is not None
    other = _reach(analysis, cheaper, link.speed, form, None, tech)
    values = length_values(link, analysis)
    values["reach"] = other
    return Finding(
        link.entity,
        link.ref,
        f"{length_text(link, analysis)} is within the {fmt(other, LENGTH)} reach of "
        f"{_described(cheaper, link.speed, None, form, tech)}: its {media} cable costs more "
        f"and draws more power than needed",
        hint=f"use {cheaper} ({_MEDIA_NAMES[cheaper]}, reaches {fmt(other, LENGTH)})",
        values=values,
        severity="info",
    )
