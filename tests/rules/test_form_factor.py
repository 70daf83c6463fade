"""GPU form factors (v1.2): the catalog key, CMP008, and ``new`` refusing a chassis that
cannot hold its GPUs."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.check.engine import check
from rackdesigner.design.generators import GenerateError
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.layout_io import dumps, load_text
from rackdesigner.layout_io.catalog import builtin
from rackdesigner.layout_io.json_schema import layout_schema
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.layout import FORM_FACTORS
from tests.cli.test_main import run

HEADER = 'format = 1\nname = "x"\n'
NODE = (
    '[[racks]]\nid = "a01"\n\n[[racks.devices]]\nid = "a01-n01"\nmodel = "{model}"\nposition = 2\n'
)


def codes(text: str, code: str = "CMP008") -> list[str]:
    _, diagnostics = check(load_text(text, file="x.toml"), file="x.toml", select=[code])
    return [d.message for d in diagnostics if d.code == code]


def test_every_gpu_and_every_gpu_chassis_gives_its_form_factor_and_cites_it() -> None:
    catalog = builtin()
    for gpu in catalog.gpus.values():
        assert gpu.form_factor in FORM_FACTORS, gpu.key
        assert gpu.source and "Form factor" in gpu.source, gpu.key
    nodes = [d for d in catalog.devices.values() if d.kind == "gpu-node"]
    assert nodes
    for node in nodes:
        assert node.form_factor in FORM_FACTORS, node.key
        assert node.source and "form factor" in node.source, node.key


def test_the_catalog_s_own_gpu_nodes_hold_gpus_of_their_form_factor() -> None:
    catalog = builtin()
    for node in catalog.devices.values():
        if node.gpu is not None:
            assert catalog.gpus[node.gpu].form_factor == node.form_factor, node.key
    assert catalog.devices["g493-sb0"].form_factor == "pcie"
    assert catalog.devices["as-4125gs-tnrt2"].form_factor == "pcie"
    assert catalog.devices["dgx-h100"].form_factor == "sxm"
    assert catalog.gpus["mi300x"].form_factor == "oam"


def test_form_factor_and_psu_rating_load_and_round_trip() -> None:
    text = (
        HEADER + "\n[catalog.my-node]\n"
        'kind = "gpu-node"\ngpu = "my-gpu"\ngpus = 8\nform_factor = "oam"\npsus = 4\n'
        'psus_required = 2\npsu_rating = "3 kW"\n\n[gpus.my-gpu]\ntdp = "750 W"\n'
        'form_factor = "oam"\n'
    )
    layout = load_text(text)
    node, gpu = layout.catalog["my-node"], layout.gpus["my-gpu"]
    assert (node.form_factor, gpu.form_factor) == ("oam", "oam")
    assert node.psu_rating == 3000.0
    assert dumps(layout) == text


@pytest.mark.parametrize(
    ("table", "line"),
    [("catalog.n", 'form_factor = "sxm5"'), ("gpus.g", 'form_factor = "mxm"')],
)
def test_an_unknown_form_factor_is_refused(table: str, line: str) -> None:
    with pytest.raises(LayoutError) as caught:
        load_text(f"{HEADER}\n[{table}]\n{line}\n", file="x.toml")
    message = caught.value.diagnostics[0].message
    assert "sxm" in message and "pcie" in message


def test_json_schema_describes_form_factor_and_psu_rating() -> None:
    schema = layout_schema()
    text = repr(schema)
    assert "form_factor" in text and "psu_rating" in text


def test_an_sxm_gpu_in_a_pcie_chassis_fires_and_the_override_of_the_chassis_silences_it() -> None:
    wrong = HEADER + '\n[catalog.g493-sb0]\ngpu = "h100-sxm"\n\n' + NODE.format(model="g493-sb0")
    [message] = codes(wrong)
    assert "is a PCIe chassis (PCIe card slots) but carries NVIDIA H100 SXM5 80GB" in message
    # A layout that says its chassis is an SXM one (its own variant) is believed.
    fixed = wrong.replace('gpu = "h100-sxm"\n', 'gpu = "h100-sxm"\nform_factor = "sxm"\n')
    assert codes(fixed) == []


def test_a_layout_that_gives_no_form_factor_validates_as_before() -> None:
    text = (
        HEADER + '\n[catalog.my-node]\nkind = "gpu-node"\nheight = "4 U"\ngpu = "my-gpu"\n'
        'gpus = 8\npower = "6 kW"\n\n[gpus.my-gpu]\ntdp = "500 W"\n\n'
        + NODE.format(model="my-node")
    )
    assert codes(text) == []


@pytest.mark.parametrize(
    ("node", "gpu"), [("as-4125gs-tnrt2", "b200"), ("g493-sb0", "h100-sxm"), ("g493-sb0", "mi300x")]
)
def test_new_refuses_a_chassis_that_cannot_hold_the_gpu(node: str, gpu: str) -> None:
    with pytest.raises(GenerateError, match=rf"--node {node} is a PCIe chassis .*\(CMP008\)"):
        build(NewOptions(gpus=16, node=node, gpu=gpu))


def test_new_exits_2_with_one_line(tmp_path: Path) -> None:
    out = tmp_path / "x.toml"
    result = run("new", "--gpus", "16", "--node", "as-4125gs-tnrt2", "--gpu", "b200", str(out))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "rackdesigner: new: --node as-4125gs-tnrt2 is a PCIe chassis and b200 an SXM GPU: "
        "it cannot be built; choose a PCIe GPU (CMP008)"
    ]
    assert not out.exists()


def test_new_still_builds_a_pcie_chassis_with_a_pcie_gpu() -> None:
    built = build(NewOptions(gpus=16, node="g493-sb0", gpu="h100-pcie"))
    _, diagnostics = check(built.layout, file="x.toml", select=["CMP008"])
    assert diagnostics == []


def test_a_node_that_cannot_be_built_gets_no_nvlink_figure() -> None:
    """CMP008's fixture: a PCIe chassis given B200 (an SXM module) cannot be built, so NET007
    and the report say nothing about its NVLink (before: "765 GB/s ... NVLink 1.8 TB/s both
    ways" for a build that cannot exist); the DGX H100 beside it keeps its 450 GB/s x 85 %
    = 382.5 GB/s."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.layout_io import load_path
    from rackdesigner.report.report import build as report
    from rackdesigner.report.report import to_text
    from tests.conftest import ROOT

    layout = load_path(ROOT / "tests" / "rules" / "CMP008" / "fires.toml")
    _, diagnostics = check(layout, select=["CMP008", "NET007"])
    assert codes_in(diagnostics, "CMP008") == 2
    net007 = [d for d in diagnostics if d.code == "NET007"]
    assert [d.entity for d in net007] == ["device a01-n04"]  # the DGX H100 only
    assert net007[0].values["intra"] == pytest.approx(450e9 * 8 * 0.85)
    text = to_text(report(Analysis(layout)))
    assert "765 GB/s" not in text and "b200" not in text.split("Network:")[-1]


def codes_in(diagnostics: list, code: str) -> int:
    return sum(d.code == code for d in diagnostics)
