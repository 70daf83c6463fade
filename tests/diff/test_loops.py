"""(v1.4) diff shows water-loop changes: a loop added, removed or changed, its heat and
temperatures before and after, in text, markdown and JSON."""

from __future__ import annotations

from rackdesigner.analysis import Analysis
from rackdesigner.diff.compare import diff
from rackdesigner.diff.render import diff_data, diff_markdown, diff_text
from rackdesigner.layout_io.reader import load_path, load_text
from tests.conftest import ROOT

T128 = ROOT / "layouts" / "training-128.toml"


def _pair(old: str, new: str):
    return diff(Analysis(load_text(old)), Analysis(load_text(new)))


def test_a_loop_s_flow_cut_shows_its_keys_and_its_return_before_and_after():
    """training-128's fws-1 carries 100.8 kW; at 170 L/min of water it returns 32 +
    100,800 / (170/60,000 x 4.154e6) = 40.56 °C; at 120 L/min 32 + 12.13 = 44.13 °C."""
    text = T128.read_text(encoding="utf-8")
    cut = text.replace('flow = "170 L/min"', 'flow = "120 L/min"')
    result = _pair(text, cut)
    (change,) = result.loops
    assert (change.id, change.what, change.fields) == (
        "fws-1",
        "changed",
        [("flow", "170 L/min", "120 L/min")],
    )
    (figures,) = result.loop_figures
    assert figures.changed() == ["return_temperature"]
    assert round(figures.before["return_temperature"], 2) == 40.56  # type: ignore[index]
    assert round(figures.after["return_temperature"], 2) == 44.13  # type: ignore[index]
    text_out = diff_text(result, "a", "b")
    assert "loop fws-1 changed: flow 170 L/min → 120 L/min" in text_out
    assert "loop fws-1: return 40.6 °C → 44.1 °C" in text_out
    assert "Water loops: 1 changed" in diff_markdown(result, "a", "b")
    data = diff_data(result, "a", "b")
    assert data["loops"][0]["fields"] == [
        {"field": "flow", "before": "170 L/min", "after": "120 L/min"}
    ]


def test_a_loop_added_and_removed():
    text = T128.read_text(encoding="utf-8")
    start = text.index("# (v1.4) The facility water loop")
    end = text.index("[[links]]", start)
    without = text[:start] + text[end:]
    added = _pair(without, text)
    assert [(c.id, c.what) for c in added.loops] == [("fws-1", "added")]
    assert added.loop_figures[0].before is None
    removed = _pair(text, without)
    assert [(c.id, c.what) for c in removed.loops] == [("fws-1", "removed")]


def test_layouts_without_loops_diff_as_before():
    layout = load_path(ROOT / "layouts" / "finetune-8gpu.toml")
    result = diff(Analysis(layout), Analysis(layout))
    assert result.empty and result.loops == [] and result.loop_figures == []
