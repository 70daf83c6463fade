"""The shared palette: every device kind has colours in every theme, and text stays legible."""

from __future__ import annotations

import pytest

from rackdesigner.export.render.palette import KIND_LABELS, SEVERITY_SYMBOLS, THEMES, rgb, swatch
from rackdesigner.model.layout import DEVICE_KINDS


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_every_kind_has_a_swatch_and_a_label_in_every_theme() -> None:
    for table in THEMES.values():
        assert set(table) == set(DEVICE_KINDS)
    assert set(KIND_LABELS) == set(DEVICE_KINDS)


def test_text_on_every_fill_meets_wcag_aa_for_large_text() -> None:
    for table in THEMES.values():
        for kind, colours in table.items():
            darker, lighter = sorted((_luminance(colours.fill), _luminance(colours.text)))
            assert (lighter + 0.05) / (darker + 0.05) >= 3.0, kind


def test_unknown_kinds_fall_back_to_other_and_severities_have_distinct_symbols() -> None:
    assert swatch(None) == swatch("other") == swatch("no-such-kind")
    assert len(set(SEVERITY_SYMBOLS.values())) == 3


def test_rack_scale_parts_have_legible_colours_and_labels_in_every_theme() -> None:
    from rackdesigner.export.render.palette import PART_LABELS, PARTS

    for table in PARTS.values():
        assert set(table) == set(PART_LABELS)
        for part, colours in table.items():
            darker, lighter = sorted((_luminance(colours.fill), _luminance(colours.text)))
            assert (lighter + 0.05) / (darker + 0.05) >= 3.0, part


def test_the_density_scale_places_air_racks_and_rack_scale_racks_on_bands_of_their_own() -> None:
    from rackdesigner.export.render.floorplan import density_class
    from rackdesigner.export.render.palette import DENSITY_COLOURS, DENSITY_STEPS_KW, DENSITY_TEXT

    for theme in DENSITY_COLOURS:
        assert len(DENSITY_COLOURS[theme]) == len(DENSITY_TEXT[theme]) == len(DENSITY_STEPS_KW) + 1
    bands = {kw: density_class(kw * 1000) for kw in (8, 25, 40, 100, 130, 140, 160)}
    # Air racks stay apart from each other, and 120-140 kW NVL72 racks are not lumped in
    # with a 40 kW air rack at the open end of the scale.
    assert len({bands[8], bands[25], bands[40]}) == 3
    assert bands[130] == bands[140] != bands[100]
    assert bands[40] != bands[130] != bands[160]


def test_rgb_reads_every_hex_form_the_drawings_use() -> None:
    """The one hex → RGB of the PDF, the PNG overview and the SVG painter. By hand:
    0x33 = 51, 51 / 255 = 0.2; 0xcc = 204, 204 / 255 = 0.8; ``#fff`` is ``#ffffff``."""
    assert rgb("#33cc00") == pytest.approx((0.2, 0.8, 0.0))
    assert rgb("#fff") == (1.0, 1.0, 1.0)
    assert rgb("#000") == (0.0, 0.0, 0.0)
    assert rgb("#33cc0080") == pytest.approx((0.2, 0.8, 0.0))  # the alpha is the caller's
    with pytest.raises(ValueError):
        rgb("#12345")
