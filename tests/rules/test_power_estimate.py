"""PWR006 (v1.2): the estimate's host overhead by chassis type, and its cap by the PSUs."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.layout_io import load_text

RACK = '\n[[racks]]\nid = "a01"\n\n[[racks.devices]]\nid = "a01-n01"\nmodel = "{model}"\n'


def _layout(catalog: str, model: str, rules: str = "") -> str:
    return f'format = 1\nname = "x"\n{rules}\n{catalog}\n' + RACK.format(model=model)


def _pwr006(text: str) -> list:  # type: ignore[type-arg]
    _, diagnostics = check(load_text(text, file="x.toml"), file="x.toml", select=["PWR006"])
    return diagnostics


def test_an_sxm_gpu_in_a_pcie_box_is_capped_by_its_psus_and_warned_about() -> None:
    """The issue: 14.4 kW accepted in a chassis whose PSUs give 4 kW redundant."""
    text = _layout('[catalog.as-4125gs-tnrt2]\ngpu = "b200"\n', "as-4125gs-tnrt2")
    [finding] = _pwr006(text)
    assert finding.severity == "warning"
    assert finding.values["demand"] == pytest.approx(8 * 1000 * 1.4)
    assert finding.values["psu_capacity"] == pytest.approx(2 * 2000)
    assert finding.values["excess"] == pytest.approx(11200 - 4000)
    assert "more than the 4 kW its PSUs deliver while redundant (2 × 2 kW" in finding.message
    (rack,) = Analysis(load_text(text)).racks
    assert rack.load == pytest.approx(4000)


def test_the_pcie_box_with_its_pcie_gpus_fits_its_psus() -> None:
    text = _layout('[catalog.as-4125gs-tnrt2]\ngpu = "h100-pcie"\n', "as-4125gs-tnrt2")
    [finding] = _pwr006(text)
    assert finding.severity == "info"
    assert finding.values["power"] == pytest.approx(8 * 350 * 1.4)  # 3.92 kW of 4 kW
    assert "(1 + 0.4 host overhead of a PCIe chassis, host_overhead_pcie)" in finding.message


def test_the_pcie_overhead_is_a_threshold() -> None:
    rules = "\n[rules.thresholds]\nhost_overhead_pcie = 0.5\n"
    text = _layout('[catalog.g493-sb0]\ngpu = "h100-pcie"\n', "g493-sb0", rules)
    [finding] = _pwr006(text)
    assert finding.values["power"] == pytest.approx(8 * 350 * 1.5)


def test_a_node_without_form_factor_or_psu_rating_is_estimated_as_before() -> None:
    catalog = (
        '[catalog.node]\nkind = "gpu-node"\nheight = "4 U"\ngpu = "h100-pcie"\ngpus = 8\n'
        "psus = 2\npsus_required = 1\n"
    )
    [finding] = _pwr006(_layout(catalog, "node"))
    assert finding.severity == "info"
    assert finding.values["power"] == pytest.approx(8 * 350 * 1.8)
    assert finding.message == (
        "node declares no power: its draw is estimated at 5.04 kW per node = 8 × h100-pcie TDP "
        "350 W × (1 + 0.8 host overhead), used for 1 device"
    )
