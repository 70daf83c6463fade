"""``diff`` of the power chain: elements added, removed and changed, their figures before and
after, a feed's source (text, markdown, JSON ``power_chain``)."""

from __future__ import annotations

from rackdesigner.analysis import Analysis
from rackdesigner.diff.compare import diff
from rackdesigner.diff.render import diff_data, diff_markdown, diff_text
from rackdesigner.model.layout import Device, DeviceType, Feed, Layout, PowerElement, Q, Rack

NODE = DeviceType("node", kind="gpu-node", power=10_000.0, gpus=8, gpu="h100-sxm")


def hall(ups: float, extra: list[PowerElement] | None = None, source: str = "ups-a") -> Layout:
    """A utility, two UPSs and one rack of 4 × 10 kW on sides A (``source``) and B."""
    elements = [
        PowerElement("u", "utility", capacity=1e6),
        PowerElement("ups-a", "ups", ["u"], capacity=Q(ups, f"{ups / 1e3:g} kW")),
        PowerElement("ups-b", "ups", ["u"], capacity=100e3),
        *(extra or []),
    ]
    feeds = [
        Feed("a01-A", 415.0, 3, 63.0, side="A", source=source),
        Feed("a01-B", 415.0, 3, 63.0, side="B", source="ups-b"),
    ]
    devices = [Device(f"n{i}", "node", position=1 + 8 * i) for i in range(4)]
    return Layout(
        "t",
        catalog={"node": NODE},
        power_elements=elements,
        racks=[Rack("a01", feeds=feeds, devices=devices)],
    )


def test_a_changed_rating_is_a_change_and_a_figure() -> None:
    """ups-a from 100 kW to 150 kW: its rating 100 → 150 kW and its margin 80 → 130 kW (it
    carries 20 kW: half the rack's 40 kW)."""
    result = diff(Analysis(hall(100e3)), Analysis(hall(150e3)))
    assert [c.text() for c in result.power] == [
        "power element ups-a changed: capacity 100 kW → 150 kW"
    ]
    [figures] = result.power_figures
    assert figures.id == "ups-a" and figures.changed() == ["rating", "margin"]
    assert (figures.before or {})["margin"] == 80e3 and (figures.after or {})["margin"] == 130e3
    data = diff_data(result, "old.toml", "new.toml")["power_chain"]
    assert data["changes"][0]["fields"] == [
        {"field": "capacity", "before": "100 kW", "after": "150 kW"}
    ]
    assert data["figures"][0]["after"]["rating"] == 150e3
    text = diff_text(result, "old.toml", "new.toml")
    assert "Power chain: 1 changed" in text
    assert "power element ups-a: rating 100 kW → 150 kW, margin 80 kW → 130 kW" in text


def test_an_element_added_and_a_feed_moved_onto_it() -> None:
    """A new UPS c takes rack a01's A feed: ups-a carries nothing more, ups-c 20 kW."""
    before = hall(100e3)
    after = hall(100e3, [PowerElement("ups-c", "ups", ["u"], capacity=100e3)], source="ups-c")
    result = diff(Analysis(before), Analysis(after))
    assert [c.text() for c in result.power] == ["power element ups-c added: kind – → ups"]
    assert "feed a01-A source ups-a → ups-c" in result.racks[0].text()
    ids = {f.id: f for f in result.power_figures}
    assert ids["ups-c"].before is None and (ids["ups-c"].after or {})["load"] == 20e3
    assert (ids["ups-a"].after or {})["load"] == 0.0


def test_markdown_fences_an_element_id_with_backticks() -> None:
    """An id is anyone's text: in the markdown it stays inside a fence longer than its own
    backticks (model/markdown.py)."""
    odd = "ups-``x"
    before = hall(100e3)
    after = hall(100e3, [PowerElement(odd, "ups", ["u"], capacity=100e3)])
    after.racks[0].feeds[0].source = odd
    result = diff(Analysis(before), Analysis(after))
    markdown = diff_markdown(result, "a.toml", "b.toml")
    assert "power elements: 1 added" in markdown
    assert "\n```\npower element ups-``x added" in markdown
