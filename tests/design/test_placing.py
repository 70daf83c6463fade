"""The core of the designer's catalog picker and placing (rackdesigner.design.placing):
designer.md's matching order and placement rule, as pure functions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.design.placing import (
    RACK_SCALE,
    NoRoom,
    domain_note,
    grouped,
    is_rack_scale,
    is_rail_device,
    match,
    nearest_fit,
    plan,
    rail_for,
    rear_face,
    summary,
    where,
)
from rackdesigner.layout_io.catalog import builtin
from rackdesigner.model.layout import DeviceType, Gpu
from tests.strategies import examples


def test_matching_order_is_exact_key_then_prefix_then_contains_each_in_key_order() -> None:
    entries = {
        "qm87": DeviceType("qm87", name="Z"),
        "qm8700": DeviceType("qm8700", name="NVIDIA Quantum"),
        "qm8": DeviceType("qm8", name="short"),
        "aqm87x": DeviceType("aqm87x", name="contains in key"),
        "zz": DeviceType("zz", name="a QM87 in the name"),
        "other": DeviceType("other", name="nothing"),
    }
    assert match(entries, "qm87") == ["qm87", "qm8700", "aqm87x", "zz"]
    assert match(entries, " QM87 ") == ["qm87", "qm8700", "aqm87x", "zz"]  # case, blanks
    assert match(entries, "") == sorted(entries)
    assert match(entries, "nothing at all") == []


def test_the_builtin_catalog_finds_the_b200_nodes_and_switches() -> None:
    devices = builtin().devices
    assert match(devices, "dgx-b200")[0] == "dgx-b200"
    found = match(devices, "b200")
    # Keys holding b200 first (key order), then the liquid HGX B200 node by its name.
    assert found[:3] == ["dgx-b200", "gb200-compute-tray", "sys-422ga-nbrt-lcc"]
    assert match(devices, "qm")[:2] == ["qm8700", "qm9700"]
    assert match(devices, "pdu")[0].startswith("pdu-")


@settings(max_examples=examples(60), deadline=None)
@given(
    st.dictionaries(
        st.text("abc-", min_size=1, max_size=5), st.text("abc ", max_size=6), max_size=12
    ),
    st.text("abc", max_size=3),
)
def test_matches_are_ranked_then_key_ordered_and_complete(names: dict[str, str], text: str) -> None:
    entries = {key: DeviceType(key, name=name) for key, name in names.items()}
    found = match(entries, text)
    wanted = text.casefold()

    def rank(key: str) -> int:
        return 0 if key == wanted else 1 if key.startswith(wanted) else 2

    assert len(found) == len(set(found))
    assert found == sorted(found, key=lambda k: (rank(k), k))
    expected = {k for k, v in names.items() if wanted in k.casefold() or wanted in v.casefold()}
    assert set(found) == expected


def test_grouped_by_kind_in_kind_order_gpus_last() -> None:
    entries: dict[str, DeviceType | Gpu] = {
        "sw": DeviceType("sw", kind="switch"),
        "n1": DeviceType("n1", kind="gpu-node"),
        "odd": DeviceType("odd", kind=None),
        "b200": Gpu("b200"),
    }
    assert grouped(entries, sorted(entries)) == [
        ("gpu-node", ["n1"]),
        ("switch", ["sw"]),
        ("other", ["odd"]),
        ("gpu", ["b200"]),
    ]


def test_summary_shows_height_power_gpus_and_ports() -> None:
    line = summary(builtin().devices["dgx-b200"])
    assert line.startswith("10U · 14.3 kW · 8×b200 · 8×400G")
    assert "half-depth" in summary(builtin().devices["blank-1u"])
    assert summary(builtin().gpus["b200"]) == "180 GB · 1 kW"


def test_nearest_fit_takes_the_cursor_else_the_nearest_free_units_ties_lower() -> None:
    assert nearest_fit(set(), 42, 4, 10) == 10
    # U10-U13 taken: 4 U fits at U6 (distance 4) and at U14 (distance 4): the lower wins.
    assert nearest_fit({10, 11, 12, 13}, 42, 4, 10) == 6
    # Only above: nearest above.
    assert nearest_fit(set(range(1, 14)), 42, 4, 10) == 14
    # Past the top: the highest position that fits.
    assert nearest_fit(set(), 42, 10, 42) == 33
    assert nearest_fit(set(range(1, 43)), 42, 1, 5) is None
    assert nearest_fit(set(), 3, 4, 1) is None


@settings(max_examples=examples(80), deadline=None)
@given(
    st.sets(st.integers(1, 20), max_size=20),
    st.integers(1, 5),
    st.integers(-3, 25),
)
def test_nearest_fit_is_the_closest_free_run(taken: set[int], height: int, near: int) -> None:
    top = 20
    got = nearest_fit(taken, top, height, near)
    fits = [p for p in range(1, top - height + 2) if not taken & set(range(p, p + height))]
    clamped = min(max(near, 1), top - height + 1)
    if not fits:
        assert got is None
    else:
        assert got == min(fits, key=lambda p: (abs(p - clamped), p))


@settings(max_examples=examples(80), deadline=None)
@given(
    st.sets(st.integers(1, 20), max_size=20),
    st.integers(1, 5),
    st.integers(-3, 25),
)
def test_nearest_fit_upward_is_the_first_free_run_above_else_the_highest_below(
    taken: set[int], height: int, near: int
) -> None:
    top = 20
    got = nearest_fit(taken, top, height, near, upward=True)
    fits = [p for p in range(1, top - height + 2) if not taken & set(range(p, p + height))]
    clamped = min(max(near, 1), top - height + 1)
    above = [p for p in fits if p >= clamped]
    below = [p for p in fits if p < clamped]
    assert got == (min(above) if above else max(below) if below else None)


def test_nearest_fit_upward_as_a_duplicate_goes_above_its_original() -> None:
    # A 2U device at U10-U11, U12-U30 taken: the copy goes into the next free units above
    # (U31), though free units below (U8-U9) are nearer.
    taken = set(range(10, 31))
    assert nearest_fit(taken, 42, 2, 12) == 8
    assert nearest_fit(taken, 42, 2, 12, upward=True) == 31
    # Nothing free above: the highest free units below.
    assert nearest_fit(taken, 30, 2, 12, upward=True) == 8


def test_plan_stacks_several_upward_and_puts_0u_on_the_emptier_rail() -> None:
    types = builtin().devices
    placements = plan(
        types,
        ["qm8700", "qm8700", "pdu-3ph-415v-63a", "blank-1u"],
        top=42,
        taken={"front": {11}, "rear": {11}},
        near=10,
        face="rear",
        rails=(1, 0),
    )
    assert [p.position for p in placements] == [10, 12, None, 13]
    assert placements[2].side == "right"  # the left rail holds one PDU already
    assert placements[3].face == "rear"  # half-depth: on the face asked for
    assert placements[0].face is None  # full depth: on both faces
    assert where(placements[0], 1) == "at U10"
    assert where(placements[2], 0) == "on the right rail"
    assert where(placements[3], 1) == "at U13 (rear)"
    # A rear door is 0U without a rail.
    door = plan(types, ["rear-door-hx"], top=42, taken={}, near=1)[0]
    assert door.side is None and door.position is None


def test_plan_half_depth_uses_only_its_face_and_full_depth_needs_both() -> None:
    types = builtin().devices
    taken = {"front": {5}, "rear": set[int]()}
    assert plan(types, ["blank-1u"], top=42, taken=taken, near=5, face="rear")[0].position == 5
    assert plan(types, ["qm8700"], top=42, taken=taken, near=5)[0].position == 4


def test_plan_refuses_when_nothing_fits_and_says_how_much_is_free() -> None:
    types = builtin().devices
    with pytest.raises(NoRoom, match=r"no 10 free units in a row for dgx-b200.*8 of 42 U"):
        plan(types, ["dgx-b200"], top=42, taken={"front": set(range(1, 35))}, near=1)


def test_rail_for_prefers_the_emptier_then_left() -> None:
    assert rail_for(0, 0) == "left"
    assert rail_for(1, 0) == "right"
    assert rail_for(0, 2) == "left"


def test_rack_scale_parts_are_one_group_first_and_the_busbar_goes_on_the_rear() -> None:
    """Issue 24: the compute and switch trays, the power shelf and the 0U busbar can be
    placed from the catalog; they are listed together, and the busbar takes no side rail
    (it runs up the rack's rear, as ``new --template gb200-superpod`` records it)."""
    types = builtin().devices
    parts = ["gb200-compute-tray", "nvl72-switch-tray", "nvl72-power-shelf", "nvl72-busbar"]
    groups = dict(grouped(types, sorted(types)))
    assert set(parts) <= set(groups[RACK_SCALE])
    assert "gb200-compute-tray" not in groups["gpu-node"]
    assert list(groups)[:2] == ["gpu-node", RACK_SCALE]
    assert not any(is_rack_scale(types[k]) for k in ("dgx-b200", "qm9700", "pdu-3ph-415v-63a"))
    assert not is_rail_device(types["nvl72-busbar"])
    assert is_rail_device(types["pdu-3ph-415v-63a"])
    placed = plan(types, parts, top=48, taken={"front": {1, 2}, "rear": {1, 2}}, near=1)
    assert [p.position for p in placed] == [3, 4, 5, None]
    busbar = placed[3]
    assert (busbar.face, busbar.side) == ("rear", None)
    assert where(busbar, 0) == "on the rack's rear (0U)"
    assert rear_face(types["rear-door-hx"]) is None
    # Their figures in the list: what a shelf makes, what the busbar carries.
    assert summary(types["nvl72-power-shelf"]) == "1U · 6×5.5 kW → 48 V DC · 1×1G"  # its PMC
    assert summary(types["nvl72-busbar"]) == "0U · DC busbar 2.9 kA · rear"
    assert "NVLink switch (nvl72)" in summary(types["nvl72-switch-tray"])


def test_a_tray_in_a_rack_without_a_domain_is_told_that_nvl002_will_fire() -> None:
    types = builtin().devices
    note = domain_note(types["gb200-compute-tray"], None, "a03")
    assert note is not None and "NVL002" in note and "rack a03 has no nvlink_domain" in note
    assert "switch tray" in (domain_note(types["nvl72-switch-tray"], None, "a03") or "")
    assert domain_note(types["gb300-compute-tray"], "nvl-a03", "a03") == (
        "it joins NVLink domain nvl-a03"
    )
    # Not a tray: nothing to say (a shelf or a busbar is in no domain).
    assert domain_note(types["nvl72-power-shelf"], None, "a03") is None
    assert domain_note(types["dgx-b200"], None, "a03") is None
