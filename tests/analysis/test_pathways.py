"""Routes along declared pathways (analysis/pathways.py), every length worked by hand.

The hall in these tests: 42U racks (top 42 x 44.45 mm = 1.8669 m), QM9700 switches at U21
(ports at (21 - 1 + 0.5) x 44.45 mm = 0.911225 m), the default site: rack pitch 0.6 m, row
pitch 2.4 m, tray rise 0.3 m, slack 0.5 m. A switch's drop to an overhead tray is
1.8669 - 0.911225 + 0.3 = 1.255675 m; to an under-floor one 0.911225 + 0.3 = 1.211225 m.
"""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_text

DROP = 1.8669 - 0.911225 + 0.3  # 1.255675 m
UNDER_DROP = 0.911225 + 0.3  # 1.211225 m


def hall(pathways: str, links: str, racks: tuple[tuple[str, str, int], ...] = ()) -> Analysis:
    racks = racks or (("a01", "A", 1), ("a02", "A", 2), ("a03", "A", 3), ("b03", "B", 3))
    text = 'format = 1\nname = "hall"\n'
    for rack, row, slot in racks:
        text += f'\n[[racks]]\nid = "{rack}"\nrow = "{row}"\nslot = {slot}\n'
        text += f'\n[[racks.devices]]\nid = "{rack}-sw"\nmodel = "qm9700"\nposition = 21\n'
    return Analysis(load_text(text + pathways + links))


def tray(ident: str, where: str, kind: str = "overhead-tray") -> str:
    return (
        f'\n[[pathways]]\nid = "{ident}"\nkind = "{kind}"\n{where}\n'
        'width = "300 mm"\ndepth = "100 mm"\n'
    )


def link(a: str, b: str, media: str = "mmf", port: int = 1, more: str = "") -> str:
    return (
        f'\n[[links]]\na = "{a}-sw:p{port}"\nb = "{b}-sw:p{port + 32}"\nmedia = "{media}"\n{more}'
    )


TRAYS = (
    tray("tray-a", 'row = "A"\nslots = [0, 3]')
    + tray("tray-b", 'row = "B"\nslots = [0, 3]')
    + tray("cross-0", 'rows = ["A", "B"]\nslot = 0')
)


def test_a_route_follows_the_trays_round_by_the_cross_aisle() -> None:
    """a02 (row A, slot 2) to b03 (row B, slot 3), the only way between the rows being the
    cross-aisle run at slot 0: along tray-a from slot 2 to 0 (2 x 0.6 = 1.2 m), across
    (2.4 m), along tray-b from 0 to 3 (3 x 0.6 = 1.8 m): 5.4 m; with both drops
    (2 x 1.255675) 7.91135 m, plus 0.5 m slack 8.41135 m. The row-and-slot model would
    have given 1 x 0.6 + 1 x 2.4 + 2.51135 = 5.51135 m."""
    analysis = hall(TRAYS, link("a02", "b03"))
    (facts,) = analysis.links
    assert facts.route == pytest.approx(5.4 + 2 * DROP)
    assert facts.length == pytest.approx(8.41135)
    route = analysis.plant.route(facts)
    assert route.runs[0].route_text == "tray-a > cross-0 > tray-b"
    assert [round(leg.length, 9) for leg in route.legs] == [1.2, 2.4, 1.8]
    assert route.routed


def test_along_one_row_the_route_is_the_row_model() -> None:
    """a01 to a03 along tray-a: 2 x 0.6 = 1.2 m between the drops, as the row-and-slot
    model counts it: 1.2 + 2 x 1.255675 = 3.71135 m."""
    analysis = hall(TRAYS, link("a01", "a03"))
    (facts,) = analysis.links
    assert facts.route == pytest.approx(1.2 + 2 * DROP)


def test_racks_under_no_pathway_fall_back_and_are_said_once() -> None:
    """Only row A has a tray: a01-b03 and a02-b03 have no route. Their lengths are the
    row-and-slot model's (a01-b03: 2 x 0.6 + 2.4 + 2.51135 = 6.11135 m), and the plant
    lists the two rack pairs (CAB007 says so once)."""
    analysis = hall(
        tray("tray-a", 'row = "A"'),
        link("a01", "b03") + link("a02", "b03", port=2) + link("a01", "a02", port=3),
    )
    first = analysis.links[0]
    assert first.route == pytest.approx(1.2 + 2.4 + 2 * DROP)
    unrouted = analysis.plant.unrouted()
    assert sorted((u.a.id, u.b.id, u.links) for u in unrouted) == [
        ("a01", "b03", 1),
        ("a02", "b03", 1),
    ]
    assert analysis.plant.route(analysis.links[2]).routed


def test_under_floor_and_a_riser() -> None:
    """Row A has an overhead tray to slot 0, row B only an under-floor tray to slot 0, and
    a riser 2.5 m long joins the two at (row A, slot 0); an under-floor run across the
    rows at slot 0 reaches row B. a01 to b03: drop 1.255675 up, 0.6 m along tray-a to slot
    0, the riser 2.5 m down, across under the floor 2.4 m, along under row B 3 x 0.6 =
    1.8 m, then up from under the floor to the port: 1.211225 m.
    1.255675 + 0.6 + 2.5 + 2.4 + 1.8 + 1.211225 = 9.7669 m."""
    pathways = (
        tray("tray-a", 'row = "A"\nslots = [0, 3]')
        + tray("under-b", 'row = "B"\nslots = [0, 3]', kind="under-floor")
        + tray("under-x", 'rows = ["A", "B"]\nslot = 0', kind="under-floor")
        + '\n[[pathways]]\nid = "riser-a0"\nkind = "riser"\nrow = "A"\nslot = 0\n'
        'length = "2.5 m"\nwidth = "100 mm"\ndepth = "100 mm"\n'
    )
    analysis = hall(pathways, link("a01", "b03"))
    (facts,) = analysis.links
    assert facts.route == pytest.approx(DROP + 0.6 + 2.5 + 2.4 + 1.8 + UNDER_DROP)
    legs = analysis.plant.route(facts).runs[0].route_text
    assert legs == "tray-a > riser-a0 > under-x > under-b"


def test_vertical_managers_are_the_first_and_last_legs_in_turn() -> None:
    """a01 has two vertical managers (left and right): its cables take them in turn, as
    NVIDIA's cabling guide splits a rack's cables half down each side. A manager's leg runs
    from the port (0.911225 m) to the rack top (1.8669 m): 0.955675 m."""
    pathways = TRAYS + "".join(
        f'\n[[pathways]]\nid = "vm-a01-{side}"\nkind = "vertical-manager"\nrack = "a01"\n'
        'width = "100 mm"\ndepth = "200 mm"\n'
        for side in ("l", "r")
    )
    analysis = hall(pathways, link("a01", "a02") + link("a01", "a03", port=2))
    first, second = (analysis.plant.route(f).legs for f in analysis.links)
    assert first[0].pathway == "vm-a01-l" and second[0].pathway == "vm-a01-r"
    assert first[0].length == pytest.approx(1.8669 - 0.911225)
    assert [leg.pathway for leg in first[1:]] == ["tray-a"]


def test_routes_are_computed_per_rack_pair() -> None:
    """Thirty-two cables between a02 and b03 make one route (kept by rack pair)."""
    analysis = hall(TRAYS, "".join(link("a02", "b03", port=p) for p in range(1, 33)))
    lengths = {round(f.length or 0, 9) for f in analysis.links}
    assert lengths == {8.41135}
    graph = analysis.pathway_graph
    assert graph is not None and len(graph._routes) == 1


def test_coordinates_for_drawing() -> None:
    """tray-b runs along row B (index 1: y = 2.4 m) from slot 0 to 3 (x = 0 to 1.8 m);
    cross-0 across the rows at slot 0 (x = 0), y from 0 to 2.4 m."""
    graph = hall(TRAYS, "").pathway_graph
    assert graph is not None
    assert graph.coordinates("tray-b") == ((0.0, 2.4), (pytest.approx(1.8), 2.4))
    assert graph.coordinates("cross-0") == ((0.0, 0.0), (0.0, 2.4))
    assert graph.coordinates("nothing") is None
