"""How far each cable medium reaches, by medium, link speed, form and fibre grade (CAB003).

The one reach table: the built-in media table (``assets/catalog/media.toml``, each row
cited: NVIDIA LinkX product pages, the NDR structured-cabling requirements, IEEE 802.3)
says which media exist at a speed band, in which form, and the longest part of each.
CAB003 judges a cable by it, the fabric generators pick the cheapest medium that reaches a
computed length by it and the bill of materials names its transceivers, so the three
never disagree. Each row names the ``[rules.thresholds]`` key a layout may override its
reach with (:mod:`rackdesigner.model.thresholds`; that key's default is the row's figure).

Speed bands: "XDR" above 400 Gbit/s on InfiniBand (800G XDR: 200G-PAM4 lanes, Quantum-X800
and ConnectX-8), "400G+" above 200 Gbit/s otherwise (NDR, 400GbE and 800GbE on 100G-PAM4
lanes, and an unknown speed), "200G" above 100 up to 200 Gbit/s, "100G" up to 100 Gbit/s.
A link's technology is its ends' (:func:`link_tech`); an 800G Ethernet link (the SN5600's
800GbE, 8 x 100G-PAM4) keeps the 400G+ parts, which NVIDIA sells for it. A multimode link
without a grade is OM4.

Form (XDR and 400G+): a link between two switches is ``straight`` (twin-port OSFP to
twin-port OSFP); a link from a switch to anything else (a node's adapter) is ``split``
(a 1:2 splitter cable, or a single-port transceiver at the adapter). A medium with no row
at a band does not exist there: no AOC at 400G and above; at XDR no passive DAC, no
multimode fibre and no AOC, only linear active copper and single-mode fibre.
"""

from __future__ import annotations

from collections.abc import Mapping

from rackdesigner.layout_io.catalog import Medium, media_table
from rackdesigner.model.layout import PortGroup

BAND_XDR = "XDR"
BAND_400G = "400G+"
BAND_200G = "200G"
BAND_100G = "100G"
# Bands whose switch cages are twin-port OSFP: one switch module carries two ports (the BOM).
TWIN_PORT_BANDS = frozenset((BAND_XDR, BAND_400G))

INFINIBAND = "infiniband"

STRAIGHT = "straight"
SPLIT = "split"

# The order generators try media in: cheapest first (copper, active copper, active
# optical cable, then fibre with transceivers: multimode, single-mode).
PREFERENCE = ("dac", "acc", "aoc", "mmf", "smf")

_SLACK = 1 + 1e-9  # a speed parsed as 200.0000001 Gbit/s is still 200G


def _index() -> dict[tuple[str, str, str, str | None], Medium]:
    return {(m.media, m.band, m.form, m.grade): m for m in media_table()}


_ROWS = _index()

# Every threshold the table names, in table order (CAB003 declares them).
KEYS: tuple[str, ...] = tuple(dict.fromkeys(m.key for m in media_table()))


def link_tech(a: str | None, b: str | None) -> str | None:
    """The technology a link runs, from its two ends' port groups: theirs where they agree
    or only one end says; None where neither says or they differ (CAB004's finding)."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    return None


# A link's (technology, form): what the media table reads of its two ends.
Shape = tuple[str | None, str]


def shape_of(
    a: PortGroup | None, a_kind: str | None, b: PortGroup | None, b_kind: str | None
) -> Shape:
    """The (technology, form) of a link between port groups ``a`` and ``b`` on devices of
    kinds ``a_kind`` and ``b_kind`` (None: an end that did not resolve)."""
    tech = link_tech(a.tech if a is not None else None, b.tech if b is not None else None)
    return tech, form_of(a_kind == "switch", b_kind == "switch")


def speed_band(speed: float | None, tech: str | None = None) -> str:
    """The reach table's speed band of a link running at ``speed`` bit/s on ``tech``."""
    if speed is None:
        return BAND_400G
    if speed > 400e9 * _SLACK and tech == INFINIBAND:
        return BAND_XDR
    if speed > 200e9 * _SLACK:
        return BAND_400G
    if speed > 100e9 * _SLACK:
        return BAND_200G
    return BAND_100G


def form_of(a_is_switch: bool, b_is_switch: bool) -> str:
    """A link's form: ``straight`` between two switches (or two adapters, node to node),
    ``split`` from a switch to an adapter."""
    return SPLIT if a_is_switch != b_is_switch else STRAIGHT


def medium(
    media: str,
    speed: float | None,
    grade: str | None = None,
    form: str = STRAIGHT,
    tech: str | None = None,
) -> Medium | None:
    """The media table's row for ``media`` at ``speed`` on ``tech`` in ``form`` and fibre
    ``grade``; None where no such part exists (an AOC at 400G, a DAC at XDR) or the medium
    is unknown."""
    band = speed_band(speed, tech)
    if media == "mmf":
        group = "om3" if (grade or "om4") == "om3" else "om4"
    elif media == "smf":
        group = "os2"
    else:
        group = None
    rows = _ROWS
    for b in (band, "any"):
        for f in (form, "any"):
            found = rows.get((media, b, f, group))
            if found is not None:
                return found
    return None


def known(media: str) -> bool:
    """Whether the table knows ``media`` at some speed (CAB003 judges only those)."""
    return any(m.media == media for m in media_table())


def reach(
    media: str,
    speed: float | None,
    grade: str | None = None,
    thresholds: Mapping[str, float] | None = None,
    form: str = STRAIGHT,
    tech: str | None = None,
) -> tuple[str, float] | None:
    """The threshold key and reach in metres of ``media`` at ``speed`` on ``tech``; None
    where no part of it exists at that speed and form, or the medium is unknown.

    ``thresholds`` are a layout's resolved thresholds or just its overrides; a key they do
    not hold has the media table's figure.
    """
    row = medium(media, speed, grade, form, tech)
    if row is None:
        return None
    if thresholds and row.key in thresholds:
        return row.key, float(thresholds[row.key])
    return row.key, row.reach


def reach_key(
    media: str,
    speed: float | None = None,
    grade: str | None = None,
    form: str = STRAIGHT,
    tech: str | None = None,
) -> str | None:
    """The threshold that holds ``media``'s reach at ``speed``, ``tech``, ``form`` and
    ``grade``."""
    row = medium(media, speed, grade, form, tech)
    return row.key if row is not None else None


def _steps(
    speed: float | None, thresholds: Mapping[str, float] | None, form: str, tech: str | None
) -> tuple[tuple[float, str], ...]:
    steps = []
    for media in PREFERENCE:
        row = medium(media, speed, None, form, tech)
        if row is None or not row.generate:
            continue
        limit = float(thresholds[row.key]) if thresholds and row.key in thresholds else row.reach
        steps.append((limit, media))
    return tuple(steps)


def choose_media(
    length: float,
    speed: float | None,
    thresholds: Mapping[str, float] | None = None,
    form: str = STRAIGHT,
    tech: str | None = None,
) -> str | None:
    """The first medium of :data:`PREFERENCE` that exists at ``speed`` on ``tech`` in
    ``form`` and reaches ``length`` m, or None."""
    for limit, media in _steps(speed, thresholds, form, tech):
        if length <= limit:
            return media
    return None


class MediaChooser:
    """:func:`choose_media` for one speed, technology and form, with the reaches looked up
    once (hot loops)."""

    __slots__ = ("_steps",)

    def __init__(
        self,
        speed: float | None,
        thresholds: Mapping[str, float] | None = None,
        form: str = STRAIGHT,
        tech: str | None = None,
    ):
        self._steps = _steps(speed, thresholds, form, tech)

    def __call__(self, length: float) -> str | None:
        for limit, media in self._steps:
            if length <= limit:
                return media
        return None

    @property
    def longest(self) -> float:
        return max(limit for limit, _ in self._steps)

    @property
    def steps(self) -> tuple[tuple[float, str], ...]:
        """(reach in m, medium) of each medium it chooses from, in preference order."""
        return self._steps

    @property
    def farthest(self) -> str:
        """The medium that reaches farthest (for a run of unknown length)."""
        return max(self._steps)[1]
