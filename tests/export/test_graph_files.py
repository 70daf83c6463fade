"""``export --graph``: every format loads back into networkx with the same graph."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.graph_files import GraphData, build_graph, render
from rackdesigner.layout_io import load_path, load_text
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "data" / "exports" / "small.toml"


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return Analysis(load_path(SMALL))


def _dot(value: Any) -> Any:
    """A DOT value as Graphviz reads it: pydot keeps a quoted string's quotes and escapes."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return value


def _edges(graph: nx.Graph, strings: bool = False) -> Counter[tuple[Any, ...]]:
    """Edges as a multiset of (ends, attributes), independent of edge keys and direction."""
    found: Counter[tuple[Any, ...]] = Counter()
    for u, v, attrs in graph.edges(data=True):
        kept = {k: (_dot(x) if strings else x) for k, x in attrs.items() if k not in ("id", "key")}
        found[(frozenset((u, v)), tuple(sorted(kept.items())))] += 1
    return found


def _expected(data: GraphData, strings: bool = False) -> tuple[dict[str, Any], Counter[Any]]:
    nodes = {n: {k: (str(v) if strings else v) for k, v in a.items()} for n, a in data.nodes}
    edges: Counter[tuple[Any, ...]] = Counter()
    for u, v, attrs in data.edges:
        kept = {k: (str(x) if strings else x) for k, x in attrs.items()}
        edges[(frozenset((u, v)), tuple(sorted(kept.items())))] += 1
    return nodes, edges


def _read(path: Path) -> nx.Graph:
    suffix = path.suffix
    if suffix == ".json":
        return nx.node_link_graph(json.loads(path.read_text("utf-8")), edges="edges")
    if suffix == ".graphml":
        return nx.read_graphml(path, force_multigraph=True)
    if suffix == ".gexf":
        return nx.read_gexf(path)
    return nx.nx_pydot.read_dot(path)


@pytest.mark.parametrize("aggregate", [False, True])
@pytest.mark.parametrize("suffix", [".json", ".graphml", ".gexf", ".dot"])
def test_every_format_loads_back(
    analysis: Analysis, tmp_path: Path, suffix: str, aggregate: bool
) -> None:
    data = build_graph(analysis, aggregate=aggregate)
    path = tmp_path / f"g{suffix}"
    path.write_bytes(render(data, suffix, name="small layout"))
    graph = _read(path)
    strings = suffix == ".dot"  # DOT has no types: values come back as strings
    nodes, edges = _expected(data, strings)
    assert set(graph.nodes) == set(nodes)
    for node, attrs in nodes.items():
        got = {k: (_dot(v) if strings else v) for k, v in graph.nodes[node].items()}
        if suffix == ".gexf":
            assert got.pop("label") == node  # GEXF readers add a label
        assert got == attrs, node
    assert _edges(graph, strings) == edges
    # Multigraph per cable, simple graph per device pair.
    assert graph.is_multigraph() or aggregate
    if suffix in (".json", ".dot"):
        assert graph.is_multigraph() == (not aggregate)


def test_nodes_and_edges_carry_the_contract_attributes(analysis: Analysis) -> None:
    data = build_graph(analysis)
    nodes = dict(data.nodes)
    assert set(nodes) == {
        "r1-n01",
        "r1-n02",
        "r2-n01",
        "r2-n02",
        "r1-leaf1",
        "r2-leaf2",
        "r2-spine1",
    }
    assert nodes["r1-n01"] == {
        "kind": "gpu-node",
        "model": "gpu4",
        "rack": "r1",
        "row": "A",
        "position": 2,
        "gpus": 4,
        "power_w": 3000.0,
    }
    assert nodes["r1-leaf1"]["tier"] == 1 and nodes["r2-spine1"]["tier"] == 2
    # One edge per compute cable, in layout order, oriented as the link's a -> b.
    assert len(data.edges) == 24
    u, v, attrs = data.edges[0]
    assert (u, v) == ("r1-n01", "r1-leaf1")
    assert attrs["a_port"] == "ib1" and attrs["b_port"] == "p1" and attrs["media"] == "dac"
    assert attrs["bandwidth_bps"] == 400e9 and attrs["length_m"] > 0


def test_aggregate_sums_cables_per_pair(analysis: Analysis) -> None:
    data = build_graph(analysis, aggregate=True)
    pairs = {frozenset((u, v)): a for u, v, a in data.edges}
    up = pairs[frozenset(("r1-leaf1", "r2-spine1"))]
    assert up["cables"] == 4 and up["bandwidth_bps"] == 4 * 400e9
    assert up["a_port"] == "p9,p10,p11,p12" and up["media"] == "aoc,mmf"
    assert len(data.edges) == 4 * 2 + 2  # each node to both leaves, each leaf to the spine


def test_scopes(analysis: Analysis) -> None:
    switches = build_graph(analysis, "switches")
    assert {n for n, _ in switches.nodes} == {"r1-leaf1", "r2-leaf2", "r2-spine1"}
    assert len(switches.edges) == 8
    everything = build_graph(analysis, "all")
    assert "r1-mgmt" in dict(everything.nodes) and len(everything.edges) == 26
    rack = build_graph(analysis, "rack:r1")
    # Every cable with an end in r1, and the devices at their other ends.
    assert all(
        "r1" in (dict(rack.nodes)[u]["rack"], dict(rack.nodes)[v]["rack"]) for u, v, _ in rack.edges
    )
    assert "r2-spine1" in dict(rack.nodes)
    fabric = build_graph(analysis, "fabric:r1-leaf1")
    assert len(fabric.edges) == 24


def test_unknown_scope_and_suffix_are_clear_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "g.json"
    result = runner.invoke(cli, ["export", str(SMALL), "--graph", str(out), "--scope", "fabric:x"])
    assert result.exit_code == 2 and "no compute fabric 'x'" in result.output
    assert not out.exists()
    result = runner.invoke(cli, ["export", str(SMALL), "--graph", str(tmp_path / "g.png")])
    assert result.exit_code == 2 and ".graphml" in result.output
    result = runner.invoke(cli, ["export", str(SMALL), "--graph", str(out), "--scope", "rack:zz"])
    assert result.exit_code == 2 and "no rack 'zz'" in result.output


def test_dot_escapes_user_strings(tmp_path: Path) -> None:
    text = (
        'format = 1\nname = "q"\n[catalog.sw]\nkind = "switch"\n'
        'ports = [{ name = "p", count = 2, speed = "400 Gbps", tech = "infiniband" }]\n'
        '[[racks]]\nid = "r\\"1\\\\"\n'
        '[[racks.devices]]\nid = "a\\"b"\nmodel = "dgx-h100"\nposition = 1\n'
        '[[racks.devices]]\nid = "s"\nmodel = "sw"\nposition = 20\n'
        '[[links]]\na = "a\\"b:ib1"\nb = "s:p1"\n'
    )
    data = build_graph(Analysis(load_text(text)))
    path = tmp_path / "q.dot"
    path.write_bytes(render(data, ".dot"))
    graph = nx.nx_pydot.read_dot(path)
    assert 'a"b' in {_dot(f'"{n}"') for n in graph.nodes}


def test_json_is_deterministic_and_uses_edges_key(analysis: Analysis) -> None:
    first = render(build_graph(analysis), ".json")
    assert first == render(build_graph(Analysis(load_path(SMALL))), ".json")
    document = json.loads(first)
    assert "edges" in document and "links" not in document
    gexf = render(build_graph(analysis), ".gexf")
    assert b"lastmodifieddate" not in gexf  # no timestamp without --date


@pytest.mark.parametrize("scope", [None, "all", "switches", "rack:r2"])
@pytest.mark.parametrize("aggregate", [False, True])
def test_quick_path_builds_the_same_graph(scope: str | None, aggregate: bool) -> None:
    quick = build_graph(Analysis(load_path(SMALL)), scope, aggregate)
    full = Analysis(load_path(SMALL))
    full.links  # noqa: B018  (resolved: the graph then reads the link facts)
    assert quick == build_graph(full, scope, aggregate)


def test_the_storage_scope_is_the_storage_fabric_and_its_appliances() -> None:
    """training-128's storage fabric: two SN5600, two ESS 3500 and the 16 nodes; 32 node
    cables (2 a node) and 8 appliance cables (4 an appliance), 40 in all. The appliances
    carry their tier and read rate (91 GB/s = 728 Gb/s); no write rate is given."""
    analysis = Analysis(load_path(ROOT / "layouts" / "training-128.toml"))
    data = build_graph(analysis, scope="storage")
    kinds = Counter(attrs["kind"] for _, attrs in data.nodes)
    assert kinds == {"gpu-node": 16, "switch": 2, "storage": 2}
    assert len(data.edges) == 40
    appliance = dict(data.nodes)["a03-stor1"]
    assert appliance["storage_tier"] == "parallel-fs"
    assert appliance["read_bandwidth_bps"] == pytest.approx(728e9)
    assert "write_bandwidth_bps" not in appliance
