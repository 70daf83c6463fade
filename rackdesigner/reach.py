"""How far each cable medium reaches, by medium, link speed and fibre grade (rules v1.1, CAB003).

One table for the cabling rule and for the fabric generators, which pick the cheapest
medium that reaches a computed length. Figures: NVIDIA LinkX cable and transceiver
documentation and IEEE 802.3 (copper 5 m at 100G, 3 m at 200G, 2 m at 100G per lane,
i.e. 400G and 800G; SR4/SR8 multimode 50 m on OM4 and 30 m on OM3 at 400G, 100 m and
70 m at 100G/200G).

Speed bands: "400G+" above 200 Gbit/s (and an unknown speed), "200G" above 100 up to
200 Gbit/s, "100G" up to 100 Gbit/s. A multimode link without a grade is OM4.
"""

from __future__ import annotations

from collections.abc import Mapping

BAND_400G = "400G+"
BAND_200G = "200G"
BAND_100G = "100G"

# (media, band or None for any, grade group or None) -> (threshold key, default reach in m)
_TABLE: dict[tuple[str, str | None, str | None], tuple[str, float]] = {
    ("dac", BAND_400G, None): ("reach_dac", 2.0),
    ("dac", BAND_200G, None): ("reach_dac_200g", 3.0),
    ("dac", BAND_100G, None): ("reach_dac_100g", 5.0),
    ("acc", None, None): ("reach_acc", 5.0),
    ("aoc", None, None): ("reach_aoc", 100.0),
    ("mmf", BAND_400G, "om4"): ("reach_mmf", 50.0),
    ("mmf", BAND_400G, "om3"): ("reach_mmf_om3", 30.0),
    ("mmf", BAND_200G, "om4"): ("reach_mmf_200g", 100.0),
    ("mmf", BAND_200G, "om3"): ("reach_mmf_200g_om3", 70.0),
    ("smf", None, None): ("reach_smf", 500.0),
    ("copper-rj45", None, None): ("reach_copper_rj45", 100.0),
}

# The order generators try media in: cheapest first (copper, active copper, active
# optical cable, then single-mode fibre with transceivers).
PREFERENCE = ("dac", "acc", "aoc", "smf")


def speed_band(speed: float | None) -> str:
    """The reach table's speed band of a link running at ``speed`` bit/s."""
    if speed is None or speed > 200e9:
        return BAND_400G
    if speed > 100e9:
        return BAND_200G
    return BAND_100G


def reach(
    media: str,
    speed: float | None,
    grade: str | None = None,
    thresholds: Mapping[str, float] | None = None,
) -> tuple[str, float] | None:
    """The threshold key and reach in metres of ``media`` at ``speed``; None if unknown media.

    ``thresholds`` are a layout's overrides (``[rules.thresholds]``); a key it does not
    set has the v1.1 default.
    """
    band = speed_band(speed)
    if media == "dac":
        entry = _TABLE[("dac", band, None)]
    elif media == "mmf":
        group = "om3" if grade == "om3" else "om4"
        entry = _TABLE[("mmf", BAND_400G if band == BAND_400G else BAND_200G, group)]
    else:
        found = _TABLE.get((media, None, None))
        if found is None:
            return None
        entry = found
    key, default = entry
    if thresholds and key in thresholds:
        return key, float(thresholds[key])
    return key, default


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
