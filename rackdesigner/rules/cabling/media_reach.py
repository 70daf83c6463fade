"""A link's cable media cannot reach the link's length at its speed and fibre grade.

Why it matters:
    Reach depends on the medium, the link's speed (its slower end) and, for multimode
    fibre, the fibre's `grade`. IEEE 802.3 and NVIDIA's LinkX documentation: passive
    copper (DAC) reaches 2 m at 100G per lane (400G, 800G; `reach_dac`), 3 m at 200G
    (`reach_dac_200g`) and 5 m at 100G (`reach_dac_100g`); active copper (ACC) 5 m;
    multimode fibre with SR4/SR8 transceivers 50 m on OM4/OM5 and 30 m on OM3 at 400G
    and more (`reach_mmf`, `reach_mmf_om3`), 100 m and 70 m at 200G and below
    (`reach_mmf_200g`, `reach_mmf_200g_om3`); active optical cable 100 m; single-mode
    fibre with DR transceivers 500 m; twisted-pair copper (RJ45) 100 m. Speed bands:
    above 200 Gbit/s (or an unknown speed) is 400G+, above 100 up to 200 is 200G, the
    rest 100G; a multimode link without `grade` is taken as OM4. Beyond its reach the
    link does not train up or runs with errors. The length is the declared one where a
    link gives `length`, else the computed route plus the site's slack. Links without
    `media` are not checked.

Example:
    [[links]]
    a = "a01-n01:ib1"
    b = "a02-leaf1:p1"   # next rack, DGX at U2, leaf at U21: 4.3 m at 400G
    media = "dac"        # reaches 2 m at 400G

Fix:
    Use a medium that reaches (acc, mmf, aoc, smf; OM4 instead of OM3), or place the
    ends closer.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, LinkFacts
from rackdesigner.analysis.reach import KEYS as REACH_KEYS
from rackdesigner.analysis.reach import reach, speed_band
from rackdesigner.model.units import LENGTH, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cabling._common import TOLERANCE, length_text, length_values

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


def _described(media: str, speed: float | None, grade: str | None) -> str:
    """``passive copper at 400G+``, ``multimode fibre OM3 at 200G``."""
    name = _MEDIA_NAMES.get(media, media)
    if media == "mmf":
        name += f" {(grade or 'om4').upper()}"
    if media in ("dac", "mmf"):
        name += f" at {speed_band(speed)}"
    return name


def _reach(analysis: Analysis, media: str, speed: float | None, grade: str | None = None) -> float:
    """The reach in m of a medium the table knows, with the layout's thresholds."""
    found = reach(media, speed, grade, analysis.thresholds)
    return found[1] if found is not None else 0.0


def _upgrade(analysis: Analysis, link: LinkFacts, media: str, length: float) -> str:
    """The fix for a medium that does not reach: the cheapest one that does."""
    if media == "copper-rj45":
        return "use fibre with transceivers, or put a management switch closer to the device"
    speed, grade = link.speed, link.link.grade
    if media == "mmf" and (grade or "om4") == "om3":
        better = _reach(analysis, "mmf", speed, "om4")
        if length <= better:
            return (
                f'use OM4 fibre (grade = "om4", reaches {fmt(better, LENGTH)}) or shorten the run'
            )
    current = _reach(analysis, media, speed, grade)
    for other in _UPGRADES:
        other_reach = _reach(analysis, other, speed)
        if other != media and length <= other_reach and other_reach > current:
            return (
                f"use {other} ({_MEDIA_NAMES[other]}, reaches {fmt(other_reach, LENGTH)}) or "
                "shorten the run"
            )
    return "shorten the run: place the two ends closer"


@rule(
    "CAB003",
    "error",
    scope="link",
    thresholds=REACH_KEYS,
)
def media_reach(analysis: Analysis) -> Iterator[Finding]:
    thresholds = analysis.thresholds
    reaches: dict[tuple[str, float | None, str | None], tuple[str, float]] = {}
    for link in analysis.links:
        media = link.link.media
        if media is None or link.length is None:
            continue
        grade = link.link.grade
        # 150,000 cables share a handful of (media, speed, grade): look each up once.
        known = reaches.get((media, link.speed, grade))
        if known is None:
            # one table for this rule and the generators (rackdesigner/reach.py); media
            # it does not know are not judged
            known = reaches[(media, link.speed, grade)] = reach(
                media, link.speed, grade, thresholds
            ) or ("", -1.0)
        key, limit = known
        if limit < 0 or link.length <= limit + TOLERANCE:
            continue
        values = length_values(link, analysis)
        values["reach"] = limit
        yield Finding(
            link.entity,
            link.ref,
            f"{length_text(link, analysis)} is beyond the {fmt(limit, LENGTH)} reach "
            f"of its {media} cable ({_described(media, link.speed, grade)}, {key})",
            hint=_upgrade(analysis, link, media, link.length),
            values=values,
        )
