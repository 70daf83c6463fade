"""A what-if's figures fitted to a narrow header: whole parts dropped from the end, the
key that clears them always kept."""

from __future__ import annotations

from rackdesigner.tui.widgets.header import _fit_figures

FIGURES = "what if rack:a02 fails: 32 GPUs lost · 4 devices down · 1 new finding · esc clears"


def test_parts_go_from_the_end_before_the_key() -> None:
    """84 characters in full; at 60 the two middle parts go (the last first): "what if
    rack:a02 fails: 32 GPUs lost · esc clears" is 49."""
    assert _fit_figures(FIGURES, 200) == FIGURES
    assert _fit_figures(FIGURES, 70) == (
        "what if rack:a02 fails: 32 GPUs lost · 4 devices down · esc clears"
    )
    assert _fit_figures(FIGURES, 60) == "what if rack:a02 fails: 32 GPUs lost · esc clears"


def test_the_first_part_is_cut_before_the_key_is() -> None:
    """At 30 columns even the first part and the key (49) do not fit: the first is cut to
    30 − 10 ("esc clears") − 4 (" · …") = 16 characters and ends in an ellipsis."""
    fitted = _fit_figures(FIGURES, 30)
    assert fitted == "what if rack:a02… · esc clears" and len(fitted) <= 30
