"""Exports as their consumers read them: the same fabric name whatever else is
exported, a Slurm tree with one top, sorted spines, a repeated output option refused."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.slurm import build_trees, natural, topology_conf
from rackdesigner.layout_io import load_path, load_text
from rackdesigner.topology.structure import sketches
from tests.conftest import ROOT
from tests.export.test_slurm import parse_conf
from tests.topology.test_topology import layout_text

TRAINING = ROOT / "layouts" / "training-128.toml"

# The spine comes first in the file: the fabric is still named after its first leaf.
SPINE_FIRST = layout_text(
    [
        ("spine1", "qm9700"),
        ("n1", "dgx-h100"),
        ("leaf1", "qm9700"),
        ("n2", "dgx-h100"),
        ("leaf2", "qm9700"),
    ],
    [
        ("n1:ib1", "leaf1:p1"),
        ("n2:ib1", "leaf2:p1"),
        ("leaf1:p2", "spine1:p1"),
        ("leaf2:p2", "spine1:p2"),
    ],
)


def _dragonfly(groups: int = 3) -> str:
    """``groups`` groups of a leaf and two spines, the spines joined pairwise by global links
    (listed out of name order: spine10 before spine9)."""
    devices: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    for g in range(1, groups + 1):
        devices += [(f"g{g}-n1", "dgx-h100"), (f"g{g}-leaf1", "qm9700")]
        devices += [(f"g{g}-spine10", "qm9700"), (f"g{g}-spine9", "qm9700")]
        links.append((f"g{g}-n1:ib1", f"g{g}-leaf1:p1"))
        links += [(f"g{g}-leaf1:p2", f"g{g}-spine10:p1"), (f"g{g}-leaf1:p3", f"g{g}-spine9:p1")]
    port = 2
    for a in range(1, groups + 1):
        for b in range(a + 1, groups + 1):
            for spine in ("spine9", "spine10"):
                links.append((f"g{a}-{spine}:p{port}", f"g{b}-{spine}:p{port}"))
            port += 1
    return layout_text(devices, links)


def test_the_quick_path_names_a_fabric_after_its_first_leaf() -> None:
    quick = sketches(Analysis(load_text(SPINE_FIRST)))
    full = Analysis(load_text(SPINE_FIRST))
    assert [f.name for f in full.fabrics] == ["leaf1"]
    assert [s.name for s in quick] == ["leaf1"]


def test_the_fabric_name_does_not_depend_on_the_other_exports(tmp_path: Path) -> None:
    layout = tmp_path / "spine-first.toml"
    layout.write_text(SPINE_FIRST)
    texts = []
    for number, others in enumerate(([], ["--elevations", "e.svg"], ["--bom", "b.csv"])):
        conf = tmp_path / f"topology{number}.conf"
        args = ["export", str(layout), "--slurm-topology", str(conf)]
        args += [str(tmp_path / a) if a.endswith((".svg", ".csv")) else a for a in others]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        texts.append(conf.read_text())
    assert texts[0] == texts[1] == texts[2]
    assert "# fabric leaf1:" in texts[0]


def test_a_dragonfly_gets_one_top_over_every_groups_spines() -> None:
    conf = topology_conf(Analysis(load_text(_dragonfly())))
    assert "TopologyParam=dragonfly" in conf
    switches = parse_conf(conf)
    tops = [
        name
        for name in switches
        if not any(name in s.get("Switches", []) for s in switches.values())
    ]
    assert tops == ["g1-leaf1-global"], tops
    (root,) = tops
    assert "is no device" in conf and root in conf.split("\n\n")[0]

    def nodes_below(name: str) -> set[str]:
        entry = switches[name]
        found = set(entry.get("Nodes", []))
        for child in entry.get("Switches", []):
            found |= nodes_below(child)
        return found

    assert nodes_below(root) == {"g1-n1", "g2-n1", "g3-n1"}
    assert sorted(switches[root]["Switches"], key=natural) == switches[root]["Switches"]
    assert len(switches[root]["Switches"]) == 6


def test_a_fat_tree_gets_no_added_top() -> None:
    conf = topology_conf(Analysis(load_text(SPINE_FIRST)))
    assert "-global" not in conf and "is no device" not in conf
    assert parse_conf(conf)["spine1"] == {"Switches": ["leaf1", "leaf2"]}


def test_the_added_top_is_named_unlike_any_device() -> None:
    text = _dragonfly(2)
    # A device already holds the name the top would take.
    text = text.replace('id = "g2-n1"', 'id = "g2-n1"\nhostname = "g1-leaf1-global"')
    trees, names = build_trees(Analysis(load_text(text)))
    (tree,) = trees
    assert tree.root is not None and tree.root not in names.values()
    assert tree.root == "g1-leaf1-global-2"


def test_upper_switches_are_sorted_by_tier_then_name() -> None:
    conf = topology_conf(Analysis(load_text(_dragonfly())))
    lines = [line for line in conf.splitlines() if line.startswith("SwitchName=")]
    uppers = [line.split()[0].removeprefix("SwitchName=") for line in lines if "Switches=" in line]
    spines = uppers[:-1]
    assert spines == sorted(spines, key=natural)
    assert spines[:2] == ["g1-spine9", "g1-spine10"]
    assert uppers[-1].endswith("-global")


def test_natural_order() -> None:
    names = ["a10-spine2", "a2-spine10", "a2-spine9", "a10-spine1", "b"]
    assert sorted(names, key=natural) == [
        "a2-spine9",
        "a2-spine10",
        "a10-spine1",
        "a10-spine2",
        "b",
    ]


def test_a_repeated_output_option_is_refused(tmp_path: Path) -> None:
    layout = tmp_path / "spine-first.toml"
    layout.write_text(SPINE_FIRST)
    first, second = tmp_path / "one.conf", tmp_path / "two.conf"
    result = CliRunner().invoke(
        cli,
        ["export", str(layout), "--slurm-topology", str(first), "--slurm-topology", str(second)],
    )
    assert result.exit_code == 2
    assert "--slurm-topology" in result.output and "given 2 times" in result.output
    assert not first.exists() and not second.exists()
    # Once each is fine, and so are two different options.
    result = CliRunner().invoke(
        cli, ["export", str(layout), "--slurm-topology", str(first), "--hostfile", str(second)]
    )
    assert result.exit_code == 0, result.output


def test_every_sarif_rule_has_a_full_description(tmp_path: Path) -> None:
    """GitHub's code scanning wants a fullDescription for every rule (SARIF Multitool
    GH2012), the load errors E000-E002 included."""
    broken = tmp_path / "broken.toml"
    broken.write_text("format = 1\nname = 'x\n")
    result = CliRunner().invoke(cli, ["validate", "--format", "sarif", str(broken)])
    document = json.loads(result.output)
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    assert {"E000", "E001", "E002"} <= {rule["id"] for rule in rules}
    for rule in rules:
        full = rule.get("fullDescription", {}).get("text", "")
        assert full.strip(), rule["id"]
        if rule["id"] in ("E000", "E001", "E002"):  # more than the title again
            assert full != rule["shortDescription"]["text"] and len(full) > 80, rule["id"]
        assert rule["help"]["text"].strip() and rule["help"]["markdown"].strip(), rule["id"]
    (result_entry,) = document["runs"][0]["results"]
    assert result_entry["ruleId"] == "E000"
    assert rules[result_entry["ruleIndex"]]["id"] == "E000"


def test_csv_records_end_in_crlf_as_rfc_4180_says() -> None:
    from rackdesigner.export.tables import to_csv

    data = to_csv(("a", "b"), [("1", "x,y"), ("2", 'line\nbreak "quoted"'), (None, 3)])
    assert data == (
        b'a,b\r\n1,"x,y"\r\n2,"line\nbreak ""quoted"""\r\n,3\r\n'
    )  # a line break inside a quoted field stays as it is
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    assert rows == [["a", "b"], ["1", "x,y"], ["2", 'line\nbreak "quoted"'], ["", "3"]]


def test_the_cost_per_gpu_carries_the_totals_lower_bound() -> None:
    from rackdesigner.report.report import build, to_text

    analysis = Analysis(load_path(TRAINING))
    report = build(analysis)
    cost = report["cost"]
    assert cost["unpriced_devices"] > 0 and cost["total_is_lower_bound"] is True
    (line,) = [
        line for line in to_text(report).splitlines() if "per GPU" in line and "total" in line
    ]
    assert line.startswith("  total ≥ $") and "; ≥ $" in line and line.endswith(" per GPU")
    # Every device priced: no bound.
    priced = build(Analysis(load_text(SPINE_FIRST)))
    assert priced["cost"]["unpriced_devices"] == 0 and not priced["cost"]["total_is_lower_bound"]
    (line,) = [line for line in to_text(priced).splitlines() if "per GPU" in line]
    assert line.startswith("  total $") and "≥" not in line


def test_pdus_and_rear_doors_have_an_estimated_price() -> None:
    import tomllib

    catalog = tomllib.loads((ROOT / "assets" / "catalog" / "devices.toml").read_text())["catalog"]
    for key, entry in catalog.items():
        if entry["kind"] in ("pdu", "rear-door"):
            assert isinstance(entry.get("cost"), int) and entry["cost"] > 0, key
            assert "Cost: rough" in entry["source"] and "estimate" in entry["source"], key
