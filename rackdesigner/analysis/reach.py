"""How far each cable medium reaches, by medium, link speed and fibre grade (rules v1.1, CAB003).

The one reach table: CAB003 judges a cable by it and the fabric generators pick the
cheapest medium that reaches a computed length by it, so the two never disagree. This
module says which threshold holds a medium's reach at a speed band and grade; the
figures themselves are those thresholds' defaults (:mod:`rackdesigner.model.thresholds`, cited
there and in CAB003: NVIDIA LinkX documentation and IEEE 802.3), which a layout may
override in ``[rules.thresholds]``.

Speed bands: "400G+" above 200 Gbit/s (and an unknown speed), "200G" above 100 up to
200 Gbit/s, "100G" up to 100 Gbit/s. A multimode link without a grade is OM4.
"""

from __future__ import annotations

from collections.abc import Mapping

from rackdesigner.model.thresholds import THRESHOLDS

BAND_400G = "400G+"
BAND_200G = "200G"
BAND_100G = "100G"

# (media, band or None for any, fibre grade group or None) -> threshold key
_TABLE: dict[tuple[str, str | None, str | None], str] = {
    ("dac", BAND_400G, None): "reach_dac",
    ("dac", BAND_200G, None): "reach_dac_200g",
    ("dac", BAND_100G, None): "reach_dac_100g",
    ("acc", None, None): "reach_acc",
    ("aoc", None, None): "reach_aoc",
    ("mmf", BAND_400G, "om4"): "reach_mmf",
    ("mmf", BAND_400G, "om3"): "reach_mmf_om3",
    ("mmf", BAND_200G, "om4"): "reach_mmf_200g",
    ("mmf", BAND_200G, "om3"): "reach_mmf_200g_om3",
    ("smf", None, None): "reach_smf",
    ("copper-rj45", None, None): "reach_copper_rj45",
}

# Every threshold the table names, in table order (CAB003 declares them).
KEYS: tuple[str, ...] = tuple(dict.fromkeys(_TABLE.values()))

# The order generators try media in: cheapest first (copper, active copper, active
# optical cable, then single-mode fibre with transceivers).
PREFERENCE = ("dac", "acc", "aoc", "smf")

_SLACK = 1 + 1e-9  # a speed parsed as 200.0000001 Gbit/s is still 200G


def speed_band(speed: float | None) -> str:
    """The reach table's speed band of a link running at ``speed`` bit/s."""
    if speed is None or speed > 200e9 * _SLACK:
        return BAND_400G
    if speed > 100e9 * _SLACK:
        return BAND_200G
    return BAND_100G


def reach_key(media: str, speed: float | None = None, grade: str | None = None) -> str | None:
    """The threshold that holds ``media``'s reach at ``speed`` and fibre ``grade``; None
    for a medium the table does not know."""
    band = speed_band(speed)
    if media == "dac":
        return _TABLE[("dac", band, None)]
    if media == "mmf":
        group = "om3" if (grade or "om4") == "om3" else "om4"
        return _TABLE[("mmf", BAND_400G if band == BAND_400G else BAND_200G, group)]
    return _TABLE.get((media, None, None))


def reach(
    media: str,
    speed: float | None,
    grade: str | None = None,
    thresholds: Mapping[str, float] | None = None,
) -> tuple[str, float] | None:
    """The threshold key and reach in metres of ``media`` at ``speed``; None if unknown media.

    ``thresholds`` are a layout's resolved thresholds or just its overrides; a key they do
    not hold has its v1.1 default.
    """
    key = reach_key(media, speed, grade)
    if key is None:
        return None
    if thresholds and key in thresholds:
        return key, float(thresholds[key])
    return key, THRESHOLDS[key].default


def choose_media(
    length: float, speed: float | None, thresholds: Mapping[str, float] | None = None
) -> str | None:
    """The first medium of :data:`PREFERENCE` that reaches ``length`` m at ``speed``, or None."""
    for media in PREFERENCE:
        found = reach(media, speed, None, thresholds)
        if found is not None and length <= found[1]:
            return media
    return None


class MediaChooser:
    """:func:`choose_media` for one speed, with the reaches looked up once (hot loops)."""

    __slots__ = ("_steps",)

    def __init__(self, speed: float | None, thresholds: Mapping[str, float] | None = None):
        steps = []
        for media in PREFERENCE:
            found = reach(media, speed, None, thresholds)
            if found is not None:
                steps.append((found[1], media))
        self._steps = tuple(steps)

    def __call__(self, length: float) -> str | None:
        for limit, media in self._steps:
            if length <= limit:
                return media
        return None

    @property
    def longest(self) -> float:
        return max(limit for limit, _ in self._steps)
