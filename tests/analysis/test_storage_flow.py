"""What the storage fabric carries (the appliances gathered into a source and the nodes into
a sink before networkx's maximum flow), and the storage facts read off the types the layout
uses: checked against the flow over the fabric as it is and against the facts as a walk over
every device and cable gave them. Figures by hand in each docstring."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.storage import (
    Fabric,
    _flow_value,
    _max_flow,
    _reached,
    storage_facts,
)
from rackdesigner.layout_io.document import loads
from tests.analysis.test_storage import FABRIC, LINKS, _links
from tests.builders import HEADER
from tests.strategies import examples

G = 1e9  # bit/s in a gigabit


def _networkx_flow(
    fabric: Fabric, sources: list[str], nodes: set[str], switches: set[str]
) -> float:
    """The maximum flow as the storage facts computed it with networkx: the appliances
    gathered into one source, the nodes into one sink, the direct appliance-node cables
    added outside the network."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    direct = 0.0
    for a in sources:
        for b, rate in fabric.edges.get(a, {}).items():
            if b in switches:
                old = graph.get_edge_data("src", b, {"capacity": 0.0})["capacity"]
                graph.add_edge("src", b, capacity=old + rate)
            elif b in nodes:
                direct += rate
    for s in switches:
        for b, rate in fabric.edges.get(s, {}).items():
            if b in switches:
                graph.add_edge(s, b, capacity=rate)
            elif b in nodes:
                old = graph.get_edge_data(s, "snk", {"capacity": 0.0})["capacity"]
                graph.add_edge(s, "snk", capacity=old + rate)
    if "src" not in graph or "snk" not in graph:
        return direct
    return direct + float(nx.maximum_flow_value(graph, "src", "snk"))


@st.composite
def _fabrics(draw: st.DrawFn) -> tuple[Fabric, list[str], set[str], set[str]]:
    """A random storage fabric: up to 9 switches, 4 appliances and 6 nodes, any cables
    between them (cycles, parallel cables, appliances cabled straight to nodes), each at a
    whole number of gigabits (as every catalog port's rate is)."""
    switches = [f"s{i}" for i in range(draw(st.integers(1, 9)))]
    sources = [f"a{i}" for i in range(draw(st.integers(1, 4)))]
    nodes = [f"n{i}" for i in range(draw(st.integers(1, 6)))]
    devices = switches + sources + nodes
    fabric = Fabric()
    cables = draw(
        st.lists(
            st.tuples(
                st.sampled_from(devices),
                st.sampled_from(devices),
                st.sampled_from([0.0, 1 * G, 10 * G, 25 * G, 100 * G, 200 * G, 400 * G, 800 * G]),
            ),
            max_size=40,
        )
    )
    for a, b, rate in cables:
        fabric.add(a, b, rate)
    return fabric, sources, set(nodes), set(switches)


@settings(max_examples=examples(200), deadline=None)
@given(_fabrics())
def test_the_flow_is_networkx_maximum_flow(
    case: tuple[Fabric, list[str], set[str], set[str]],
) -> None:
    """The network the storage facts hand networkx (one source, one sink, the appliances'
    and the nodes' cables summed per switch, direct appliance-node cables outside it)
    carries what the fabric as it is carries: whole gigabits add up exactly in floating
    point, so the values are equal, not merely close."""
    fabric, sources, nodes, switches = case
    assert _max_flow(fabric, sources, nodes, switches) == _networkx_flow(
        fabric, sources, nodes, switches
    )


def test_the_flow_of_a_leaf_spine_pod() -> None:
    """One appliance leaf (in: 8 x 400 = 3,200 Gb/s), two spines, two node leaves with 4
    nodes' 400 Gb/s each (out: 1,600 Gb/s a leaf). The appliance leaf has 2 x 800 Gb/s to
    spine 1 and 1 x 800 to spine 2; each node leaf has 400 to each spine. Cuts: the
    appliances' 3,200; the appliance leaf's uplinks 1,600 + 800 = 2,400; the spines' downlinks
    4 x 400 = 1,600; the nodes' 3,200. The least is the spines' 1,600 Gb/s."""
    capacity = {
        "src": {"sl": 3200 * G},
        "sl": {"p1": 1600 * G, "p2": 800 * G},
        "p1": {"sl": 1600 * G, "l1": 400 * G, "l2": 400 * G},
        "p2": {"sl": 800 * G, "l1": 400 * G, "l2": 400 * G},
        "l1": {"p1": 400 * G, "p2": 400 * G, "snk": 1600 * G},
        "l2": {"p1": 400 * G, "p2": 400 * G, "snk": 1600 * G},
    }
    assert _flow_value(capacity, "src", "snk") == 1600 * G
    assert _flow_value(capacity, "snk", "src") == 0.0  # no arc leaves the sink


def test_the_facts_are_the_walk_over_every_device() -> None:
    """Read off the types the layout uses, the tiers and the nodes are what a walk over
    the devices in layout order gives: pfs1, pfs2 (parallel-fs), obj1 (object), n1, n2."""
    analysis = Analysis(loads(HEADER + FABRIC + _links(LINKS)).layout)
    facts = analysis.storage
    walk = [d for d in analysis.devices if d.is_gpu_node]
    assert facts.nodes == walk and [d.id for d in walk] == ["n1", "n2"]
    assert [d.id for d in facts.pfs.devices] == ["pfs1", "pfs2"]
    assert [d.id for d in facts.objects.devices] == ["obj1"]
    assert facts.node_ids() == {"n1", "n2"}
    assert facts.mixed == []  # every cable is a storage one: nothing for STO009 to look at


def test_nodes_of_two_types_stay_in_layout_order() -> None:
    """GPU nodes of two types interleaved in the racks (dgx-h100, dgx-b200, dgx-h100) are
    listed in layout order, not type by type; a failed one is left out."""
    text = """
[[racks]]
id = "a01"
devices = [
  { id = "h1", model = "dgx-h100", position = 1 },
  { id = "b1", model = "dgx-b200", position = 11 },
  { id = "h2", model = "dgx-h100", position = 21 },
]
"""
    analysis = Analysis(loads(HEADER + text).layout)
    assert [d.id for d in analysis.storage.nodes] == ["h1", "b1", "h2"]
    assert [d.id for d in storage_facts(analysis, failed={"b1"}).nodes] == ["h1", "h2"]
    assert analysis.storage.fabric.edges == {} and analysis.storage.flow == 0.0


def test_cables_are_counted_when_first_read() -> None:
    """The fabric counts its cables by device pair only when asked (what-if asks): in
    FABRIC each node has its two storage ports on leaf1 and each appliance its two on leaf2,
    one cable joins each leaf to each spine; 13 storage cables in all (4 + 4 + 4 + obj1's 1)."""
    analysis = Analysis(loads(HEADER + FABRIC + _links(LINKS)).layout)
    fabric = analysis.storage.fabric
    assert fabric._cables is None
    assert fabric.cables[("leaf1", "n1")] == 2
    assert fabric.cables[("leaf2", "pfs1")] == 2
    assert fabric.cables[("leaf1", "spine1")] == 1
    assert sum(fabric.cables.values()) == fabric.links == 13


@pytest.mark.parametrize("failed", [set(), {"spine1"}, {"leaf1"}])
def test_the_pods_flows_add_up_to_the_flow(failed: set[str]) -> None:
    """The fabric's connected parts' flows add up to the whole's (what-if derives a
    failure's flow part by part)."""
    analysis = Analysis(loads(HEADER + FABRIC + _links(LINKS)).layout)
    facts = storage_facts(analysis, failed=failed)
    assert sum(facts.pods().flow) == facts.flow


def test_the_flow_sends_flow_back_where_a_first_path_was_wrong() -> None:
    """Every arc 1 Gb/s, one way: src->a, src->c, a->b, a->d, c->b, b->snk, d->snk. The
    shortest path src-a-b-snk first leaves src-c-b-snk and src-a-d-snk blocked; only by
    sending a->b's flow back (the residual arc b->a) does src-c-b-a-d-snk give the second
    Gb/s: 2 Gb/s, the cut {src->a, src->c}."""
    capacity = {
        "src": {"a": G, "c": G},
        "a": {"b": G, "d": G},
        "c": {"b": G},
        "b": {"snk": G},
        "d": {"snk": G},
    }
    assert _flow_value(capacity, "src", "snk") == 2 * G


def _reached_by_walk(
    fabric: Fabric, sources: list[str], switches: set[str], nodes: set[str]
) -> set[str]:
    """The definition: a search from the appliances, through switches only, that stops at
    the nodes (one neighbour at a time)."""
    seen, reached, queue = set(sources), set(), list(sources)
    while queue:
        for other in fabric.edges.get(queue.pop(), {}):
            if other in seen:
                continue
            seen.add(other)
            if other in nodes:
                reached.add(other)
            elif other in switches:
                queue.append(other)
    return reached


@settings(max_examples=examples(100), deadline=None)
@given(_fabrics())
def test_the_nodes_reached_are_the_walks(
    case: tuple[Fabric, list[str], set[str], set[str]],
) -> None:
    """The nodes reached, picked out of each switch's row by set operations, are those a
    walk neighbour by neighbour reaches."""
    fabric, sources, nodes, switches = case
    assert _reached(fabric, sources, switches, nodes) == _reached_by_walk(
        fabric, sources, switches, nodes
    )


@settings(max_examples=examples(100), deadline=None)
@given(_fabrics())
def test_sto010_asks_from_the_appliances_what_a_search_from_every_node_found(
    case: tuple[Fabric, list[str], set[str], set[str]],
) -> None:
    """STO010's question, whether a switch reaches a GPU node through switches, asked
    from the switches an appliance is cabled to (its answers kept), is what one search from
    all the nodes at once answered: the switches it came to."""
    from rackdesigner.rules.storage.appliance_uncabled import _Reaches

    fabric, _sources, nodes, switches = case
    from_nodes: set[str] = set()
    queue = [n for n in nodes if n in fabric.edges]
    seen = set(queue)
    while queue:
        for other in fabric.edges.get(queue.pop(), {}):
            if other in switches and other not in seen:
                seen.add(other)
                from_nodes.add(other)
                queue.append(other)
    reaches = _Reaches(fabric.edges, switches, nodes)
    for switch in sorted(switches, reverse=True):  # any order: answers kept between asks
        assert reaches(switch) == (switch in from_nodes)
