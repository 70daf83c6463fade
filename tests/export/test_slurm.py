"""``export --slurm-topology`` and ``--hostfile``, parsed back as Slurm and OpenMPI read them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.slurm import compress, hostfiles, topology_conf, topology_yaml
from rackdesigner.layout_io import load_path, load_text
from rackdesigner.topology.figures import adjacency
from tests.conftest import ROOT
from tests.strategies import examples
from tests.topology.test_topology import fat_tree, layout_text

SMALL = ROOT / "tests" / "data" / "exports" / "small.toml"
TRAINING = ROOT / "layouts" / "training-128.toml"


def expand(hostlist: str) -> list[str]:
    """Slurm's hostlist syntax, enough for these files: ``a[01-03,07]b,c``."""
    names: list[str] = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\][^,\[]*)*", hostlist):
        match = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", part)
        if match is None:
            names.append(part)
            continue
        prefix, ranges, suffix = match.groups()
        assert "[" not in suffix
        for item in ranges.split(","):
            start, _, end = item.partition("-")
            width = len(start)
            for number in range(int(start), int(end or start) + 1):
                names.append(f"{prefix}{number:0{width}d}{suffix}")
    return names


def parse_conf(text: str) -> dict[str, dict[str, list[str]]]:
    """topology.conf as Slurm reads it: comments dropped, backslash continuations joined."""
    text = re.sub(r"\\\n", "", text)
    switches: dict[str, dict[str, list[str]]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = dict(item.split("=", 1) for item in line.split())
        name = fields.pop("SwitchName")
        assert len(name) <= 64 and name not in switches
        switches[name] = {k: expand(v) for k, v in fields.items()}
        assert switches[name], f"switch {name} lacks children"
    return switches


def test_expander_reads_slurm_examples() -> None:
    assert expand("tux[0-3,12,18-20]") == [f"tux{n}" for n in (0, 1, 2, 3, 12, 18, 19, 20)]
    assert expand("a01-n[01-02],b") == ["a01-n01", "a01-n02", "b"]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.from_regex(r"[a-c]{1,2}-?[0-9]{0,3}", fullmatch=True), unique=True))
def test_compress_round_trips(names: list[str]) -> None:
    assert sorted(expand(compress(names))) == sorted(names)


def test_compress_ranges() -> None:
    names = ["a01-n01", "a01-n02", "a01-n03", "a01-n05", "a02-n01", "x"]
    assert compress(names) == "a01-n[01-03,05],a02-n01,x"
    assert compress(["n9", "n10", "n11"]) == "n9,n[10-11]"


def _check_tree(analysis: Analysis, switches: dict[str, dict[str, list[str]]]) -> None:
    """Every GPU node under exactly one leaf it is cabled to; every child cabled to its
    parent one tier down."""
    adj = adjacency(analysis)
    (fabric,) = analysis.fabrics
    name = {d.id: d.device.hostname or d.id for d in fabric.devices}
    by_name = {v: k for k, v in name.items()}
    placed: list[str] = []
    for switch, children in switches.items():
        sid = by_name[switch]
        for node in children.get("Nodes", []):
            placed.append(node)
            assert by_name[node] in adj[sid]
        for child in children.get("Switches", []):
            cid = by_name[child]
            assert cid in adj[sid]
            assert fabric.switches[cid].tier == fabric.switches[sid].tier - 1  # type: ignore[operator]
    assert sorted(placed) == sorted(name[n.id] for n in fabric.nodes)


def test_topology_conf_of_a_fat_tree_parses_back() -> None:
    devices, links = fat_tree(
        nodes_per_leaf=2, leaves=4, cables_per_node=1, uplinks_per_leaf=2, spines=2
    )
    analysis = Analysis(load_text(layout_text(devices, links)))
    switches = parse_conf(topology_conf(analysis))
    _check_tree(analysis, switches)
    assert switches["leaf1"] == {"Nodes": ["n1-1", "n1-2"]}
    assert sorted(switches["spine1"]["Switches"]) == ["leaf1", "leaf2", "leaf3", "leaf4"]


def test_rail_optimised_nodes_go_under_their_first_ports_leaf() -> None:
    analysis = Analysis(load_path(SMALL))
    text = topology_conf(analysis)
    switches = parse_conf(text)
    _check_tree(analysis, switches)
    # Every node's ib1 is on r1-leaf1; r2-leaf2 then has no node and is left out.
    assert sorted(switches["r1-leaf1"]["Nodes"]) == ["gpu001", "r1-n02", "r2-n01", "r2-n02"]
    assert "r2-leaf2" not in switches
    assert switches["r2-spine1"] == {"Switches": ["r1-leaf1"]}
    assert "lowest-numbered compute port" in text


def test_topology_yaml_is_the_same_tree() -> None:
    analysis = Analysis(load_path(TRAINING))
    conf = parse_conf(topology_conf(analysis))
    (topology,) = yaml.safe_load(topology_yaml(analysis))
    assert topology["cluster_default"] is True and next(iter(topology)) == "topology"
    from_yaml = {}
    for entry in topology["tree"]["switches"]:
        kids = {}
        if "nodes" in entry:
            kids["Nodes"] = expand(entry["nodes"])
        if "children" in entry:
            kids["Switches"] = expand(entry["children"])
        from_yaml[entry["switch"]] = kids
    assert from_yaml == conf
    _check_tree(analysis, conf)


def test_long_lists_continue_on_the_next_line() -> None:
    devices, links = fat_tree(nodes_per_leaf=1, leaves=60, cables_per_node=1, uplinks_per_leaf=1)
    # Leaf names without a common numbered prefix cannot be compressed.
    text = layout_text(devices, links).replace('"leaf', '"leafname-x')
    text = re.sub(r'"leafname-x(\d+)', lambda m: f'"l{m.group(1)}-leaf-with-a-long-name', text)
    analysis = Analysis(load_text(text))
    conf = topology_conf(analysis)
    assert max(len(line) for line in conf.splitlines()) <= 1001
    switches = parse_conf(conf)
    assert len(switches["spine1"]["Switches"]) == 60


def test_dragonfly_gets_topology_param_advice() -> None:
    # Two groups: a leaf and a spine each, the spines joined by a global link.
    devices = [("n1", "dgx-h100"), ("leaf1", "qm9700"), ("spine1", "qm9700")]
    devices += [("n2", "dgx-h100"), ("leaf2", "qm9700"), ("spine2", "qm9700")]
    links = [("n1:ib1", "leaf1:p1"), ("leaf1:p2", "spine1:p1")]
    links += [("n2:ib1", "leaf2:p1"), ("leaf2:p2", "spine2:p1"), ("spine1:p2", "spine2:p2")]
    conf = topology_conf(Analysis(load_text(layout_text(devices, links))))
    assert "TopologyParam=dragonfly" in conf


def test_names_are_hostnames_and_refused_when_too_long(tmp_path: Path) -> None:
    devices, links = fat_tree(nodes_per_leaf=1, leaves=1, cables_per_node=1, uplinks_per_leaf=0)
    base = layout_text(devices, links)
    path = tmp_path / "long.toml"
    # Layout format v1.1 refuses an id over 64 characters (Slurm's limit too) at load:
    # exit 2, nothing written.
    path.write_text(base.replace('"n1-1', '"' + "n" * 65))
    result = CliRunner().invoke(
        cli, ["export", str(path), "--slurm-topology", str(tmp_path / "topology.conf")]
    )
    assert result.exit_code == 2
    assert "at most 64 characters, got 65" in result.output
    assert not (tmp_path / "topology.conf").exists()
    # An id the layout takes but Slurm cannot: refused by the exporter, naming the fix.
    odd_id = "n1@1"
    text = base.replace('"n1-1', f'"{odd_id}')
    path.write_text(text)
    result = CliRunner().invoke(
        cli, ["export", str(path), "--slurm-topology", str(tmp_path / "topology.conf")]
    )
    assert result.exit_code == 2
    assert "is not a host name" in result.output and "hostname" in result.output
    assert not (tmp_path / "topology.conf").exists()
    # With a hostname it goes through under that name.
    named = text.replace(f'id = "{odd_id}"', f'id = "{odd_id}"\nhostname = "gpu1"')
    path.write_text(named)
    result = CliRunner().invoke(
        cli, ["export", str(path), "--slurm-topology", str(tmp_path / "topology.conf")]
    )
    assert result.exit_code == 0, result.output
    assert "Nodes=gpu1" in (tmp_path / "topology.conf").read_text()


def test_hostfile_lists_gpu_nodes_in_layout_order() -> None:
    analysis = Analysis(load_path(SMALL))
    ((fabric, text),) = hostfiles(analysis)
    assert fabric is None
    hosts = [line.split() for line in text.splitlines() if not line.startswith("#")]
    assert hosts == [
        ["gpu001", "slots=4"],
        ["r1-n02", "slots=4"],
        ["r2-n01", "slots=4"],
        ["r2-n02", "slots=4"],
    ]


def test_one_hostfile_per_fabric(tmp_path: Path) -> None:
    devices = [("n1", "dgx-h100"), ("leaf1", "qm9700"), ("n2", "dgx-h100"), ("leaf2", "qm9700")]
    links = [("n1:ib1", "leaf1:p1"), ("n2:ib1", "leaf2:p1")]
    path = tmp_path / "two.toml"
    path.write_text(layout_text(devices, links))
    base = tmp_path / "hosts"
    result = CliRunner().invoke(cli, ["export", str(path), "--hostfile", str(base)])
    assert result.exit_code == 0, result.output
    assert not base.exists()
    for leaf, node in (("leaf1", "n1"), ("leaf2", "n2")):
        lines = (tmp_path / f"hosts.{leaf}").read_text().splitlines()
        assert lines[1:] == [f"{node} slots=8"]
    # The report's acceptance command names the same files.
    report = CliRunner().invoke(cli, ["report", str(path), "--hostfile", str(base)])
    assert f"mpirun --hostfile {base}.leaf1 -np 8 all_reduce_perf" in report.output


@pytest.mark.parametrize("option", ["--slurm-topology", "--hostfile"])
def test_layout_without_gpu_nodes_is_a_clear_error(tmp_path: Path, option: str) -> None:
    path = tmp_path / "empty.toml"
    path.write_text('format = 1\nname = "e"\n[[racks]]\nid = "r1"\n')
    result = CliRunner().invoke(cli, ["export", str(path), option, str(tmp_path / "out")])
    assert result.exit_code == 2 and "rackdesigner:" in result.output


def _sketch_view(analysis: Analysis) -> list[tuple]:
    from rackdesigner.topology.structure import sketches

    return [
        (
            s.index,
            s.name,
            [d.id for d in s.devices],
            [n.id for n in s.nodes],
            s.tiers,
            s.max_tier,
            s.leaf_of,
        )
        for s in sketches(analysis)
    ]


@pytest.mark.parametrize(
    "text",
    [
        SMALL.read_text(),
        TRAINING.read_text(),
        # Two fabrics, a node-to-node cable, a node whose first port faces another node.
        layout_text(
            [
                ("n1", "dgx-h100"),
                ("n2", "dgx-h100"),
                ("leaf1", "qm9700"),
                ("n3", "dgx-h100"),
                ("leaf2", "qm9700"),
            ],
            [
                ("n1:ib1", "n2:ib1"),
                ("n1:ib2", "leaf1:p1"),
                ("n2:ib2", "leaf1:p2"),
                ("n3:ib3", "leaf2:p1"),
            ],
        ),
        # A port cabled twice and an unknown port: the quick path hands over to the analysis.
        layout_text(
            [("n1", "dgx-h100"), ("leaf1", "qm9700"), ("n2", "dgx-h100")],
            [
                ("n1:ib1", "leaf1:p1"),
                ("n2:ib1", "leaf1:p1"),
                ("n2:ib2", "leaf1:p2"),
                ("n2:ib9", "leaf1:p3"),
            ],
        ),
    ],
)
def test_quick_fabric_shape_matches_the_analysis(text: str) -> None:
    quick = _sketch_view(Analysis(load_text(text)))
    full = Analysis(load_text(text))
    full.fabrics  # noqa: B018  (built: the sketches then read it)
    assert quick == _sketch_view(full)
    # And the leaves agree with the report's reading of the same rule.
    for sketch, fabric in zip(quick, full.fabrics, strict=True):
        assert sketch[1] == fabric.name and sketch[3] == [n.id for n in fabric.nodes]


def test_hostfile_orders_devices_by_position(tmp_path: Path) -> None:
    text = layout_text(
        [("top", "dgx-h100"), ("bottom", "dgx-h100"), ("leaf", "qm9700")],
        [("top:ib1", "leaf:p1"), ("bottom:ib1", "leaf:p2")],
    )
    # layout_text stacks devices upwards in file order; put the first one higher up.
    text = text.replace(
        'id = "top"\nmodel = "dgx-h100"\nposition = 1',
        'id = "top"\nmodel = "dgx-h100"\nposition = 31',
    )
    ((_, hostfile),) = hostfiles(Analysis(load_text(text)))
    assert [line.split()[0] for line in hostfile.splitlines()[1:]] == ["bottom", "top"]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=12),
    st.sets(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=40),
    st.randoms(use_true_random=False),
)
def test_upper_switches_take_their_children_as_the_definition_does(
    tiers: list[int], edges: set[tuple[int, int]], rng: object
) -> None:
    """``_uppers`` finds a switch's children among its neighbours in the tier below; that
    is the definition (every switch of the tier below, in device order, that is its
    neighbour), worked here tier by tier: up to twelve switches of tiers 1 to 3 in a
    random device order, random cables between them, the leaves with nodes included."""
    import random
    from types import SimpleNamespace

    from rackdesigner.export.slurm import Tree, _uppers
    from rackdesigner.model.wording import natural

    assert isinstance(rng, random.Random)
    ids = [f"s{i}" for i in range(len(tiers))]
    tier = dict(zip(ids, tiers, strict=True))
    adj: dict[str, dict[str, float]] = {sid: {} for sid in ids}
    for a, b in edges:
        if a < len(ids) and b < len(ids) and a != b:
            adj[ids[a]][ids[b]] = adj[ids[b]][ids[a]] = 1.0
    order = rng.sample(ids, len(ids))
    names = {sid: f"sw-{sid}" for sid in ids}
    leaves = {sid for sid in ids if tier[sid] == 1 and rng.random() < 0.8}
    sketch = SimpleNamespace(tiers=tier, max_tier=max(tiers))
    tree = Tree("f", 0, 0)
    included = set(leaves)
    reach, parents = _uppers(tree, sketch, adj, names, order, included)  # type: ignore[arg-type]

    want_included, want_reach, want_parents = set(leaves), {s: {s} for s in leaves}, set()
    want_uppers: list[tuple[str, int, list[str]]] = []
    for level in range(2, max(tiers) + 1):
        below = [s for s in order if tier[s] == level - 1 and s in want_included]
        uppers = []
        for sid in (s for s in order if tier[s] == level):
            children = [n for n in below if n in adj[sid]]
            if children:
                want_included.add(sid)
                want_parents.update(children)
                want_reach[sid] = set().union(*(want_reach[n] for n in children))
                uppers.append(
                    (names[sid], level, sorted((names[n] for n in children), key=natural))
                )
        want_uppers += sorted(uppers, key=lambda upper: natural(upper[0]))
    assert tree.uppers == want_uppers
    assert (included, reach, parents) == (want_included, want_reach, want_parents)
