"""The shared palette: every device kind has colours in every theme, and text stays legible."""

from __future__ import annotations

from rackdesigner.export.render.palette import KIND_LABELS, SEVERITY_SYMBOLS, THEMES, swatch
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
