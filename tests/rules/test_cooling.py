"""Cooling and storage rule cases the one-fires-one-silent fixtures cannot express."""

from __future__ import annotations

from tests.builders import findings

# Nodes with cold plates taking 80 % of their heat (v1.1: types without liquid_fraction have
# none), drawing what a DGX H100 and a DGX B200 draw.
LC_H100 = (
    '[catalog.lc-h100]\nkind = "gpu-node"\nheight = "8 U"\npower = "10.2 kW"\n'
    'gpu = "h100-sxm"\ngpus = 8\nliquid_fraction = 0.8\n\n'
)
LC_B200 = (
    '[catalog.lc-b200]\nkind = "gpu-node"\nheight = "10 U"\npower = "14.3 kW"\n'
    'gpu = "b200"\ngpus = 8\nliquid_fraction = 0.8\n\n'
)


def _rack(rid: str, slot: int, cooling: str, models: list[str], extra: str = "") -> str:
    text = f'[[racks]]\nid = "{rid}"\nrow = "A"\nslot = {slot}\ncooling = "{cooling}"\n{extra}\n'
    position = 1
    for index, model in enumerate(models, 1):
        text += (
            f'[[racks.devices]]\nid = "{rid}-d{index}"\nmodel = "{model}"\n'
            f"position = {position}\n\n"
        )
        position += 10
    return text


def test_cool004_many_gpus_without_immersion_is_noted_once_at_first_gpu_rack() -> None:
    text = "[rules.thresholds]\nimmersion_min_gpus = 16\n\n"
    text += _rack("s01", 1, "air", ["qm9700"])
    text += _rack("a01", 2, "liquid", ["dgx-h100", "dgx-h100"], 'cdu = "cdu-1"')
    text += _rack("a02", 3, "liquid", ["dgx-h100"], 'cdu = "cdu-1"')
    text += _rack("c01", 4, "air", ["coolit-chx750"])
    text = text.replace('id = "c01-d1"', 'id = "cdu-1"')
    found = findings("COOL004", text)
    assert [(d.entity, d.severity) for d in found] == [("rack a01", "info")]
    assert "24 GPUs, more than the 16" in found[0].message
    assert found[0].values == {"gpus": 24.0, "threshold": 16.0}


def test_cool004_silent_at_the_threshold() -> None:
    text = "[rules.thresholds]\nimmersion_min_gpus = 16\n\n"
    text += _rack("t01", 1, "immersion", ["sys-821ge-tnhr", "sys-821ge-tnhr"])
    assert findings("COOL004", text) == []  # 16 GPUs with immersion: not fewer than 16
    text = text.replace('"immersion"', '"liquid"')
    assert findings("COOL004", text) == []  # 16 GPUs without: not more than 16


def test_cool001_skips_rear_door_and_immersion_racks() -> None:
    nodes = ["dgx-h100", "dgx-h100", "dgx-h100"]
    text = _rack("r01", 1, "rear-door", nodes)  # no door at all: COOL007's finding
    text += _rack("t01", 2, "immersion", nodes)
    assert findings("COOL001", text) == []
    assert findings("COOL002", text) == []
    assert [d.entity for d in findings("COOL007", text)] == ["rack r01"]


def test_cool001_spread_hint_counts_racks() -> None:
    found = findings("COOL001", _rack("a01", 1, "air", ["dgx-h100"] * 4))
    assert found[0].message == "40.8 kW on air exceeds the 15 kW air-cooling limit"
    assert found[0].hint is not None and found[0].hint.endswith("spread the load over 3 racks")


def test_cool003_one_finding_per_cdu_listing_every_rack() -> None:
    text = '[catalog.coolit-chx750]\ncapacity = "60 kW"\n\n' + LC_H100
    for slot in range(1, 4):
        text += _rack(
            f"a0{slot}", slot, "liquid", ["lc-h100", "lc-h100", "lc-h100"], 'cdu = "cdu-1"'
        )
    text += _rack("c01", 5, "air", ["coolit-chx750"])
    text = text.replace('id = "c01-d1"', 'id = "cdu-1"')
    found = findings("COOL003", text)
    assert [(d.entity, d.line) for d in found] == [("device cdu-1", found[0].line)]
    assert "serves 3 racks (a01, a02, a03) with 73.4 kW" in found[0].message
    assert found[0].values["racks"] == 3.0


def test_cool003_unknown_draw_is_a_lower_bound() -> None:
    text = '[catalog.mystery]\nkind = "gpu-node"\nheight = "4 U"\ngpus = 8\n\n' + LC_B200
    text += _rack("a01", 1, "liquid", ["mystery", "hgx"], 'cdu = "a01-d3"')
    text = text.replace('model = "hgx"', 'model = "lc-b200"')
    text += '[[racks.devices]]\nid = "a01-d3"\nmodel = "coolit-chx80"\nposition = 30\n\n'
    text += _rack("a02", 2, "liquid", ["lc-b200", "lc-b200", "lc-b200"], 'cdu = "a01-d3"')
    text += _rack("a03", 3, "liquid", ["lc-b200", "lc-b200", "lc-b200"], 'cdu = "a01-d3"')
    found = findings("COOL003", text)
    assert len(found) == 1
    assert "with at least 80.1 kW of liquid heat" in found[0].message


def test_cool005_silent_without_training_or_model_size() -> None:
    racks = _rack("a01", 1, "air", ["dgx-h100"])
    assert findings("COOL005", racks) == []
    assert (
        findings("COOL005", '[workload]\nkind = "inference"\nmodel_params = 400e9\n\n' + racks)
        == []
    )
    assert findings("COOL005", '[workload]\nkind = "training"\n\n' + racks) == []
    found = findings(
        "COOL005", '[workload]\nkind = "fine-tuning"\nmodel_params = 100e9\n\n' + racks
    )
    assert [d.entity for d in found] == ["rack a01"]
    assert "fine-tuning of a 100B-parameter model" in found[0].message


def test_cool006_silent_without_cooling_capacity() -> None:
    racks = _rack("a01", 1, "air", ["dgx-h100", "dgx-h100"])
    assert findings("COOL006", racks) == []
    assert findings("COOL006", '[site]\npower_budget = "10 kW"\n\n' + racks) == []


def test_cool007_door_in_another_rack_counts_and_unknown_capacity_is_silent() -> None:
    text = '[catalog.door-x]\nkind = "rear-door"\nheight = "0 U"\n\n'
    text += _rack("r01", 1, "rear-door", ["dgx-h100"], 'door = "r01-door"')
    text += '[[racks.devices]]\nid = "r01-door"\nmodel = "door-x"\n\n'
    assert findings("COOL007", text) == []


def test_sto001_silent_without_training_workload() -> None:
    text = '[catalog.g493-sb0]\ngpu = "h100-pcie"\nnvme = "1 TB"\n\n'
    text += _rack("a01", 1, "air", ["g493-sb0"])
    assert findings("STO001", text) == []
    assert findings("STO001", '[workload]\nkind = "inference"\n\n' + text) == []
    found = findings("STO001", '[workload]\nkind = "fine-tuning"\n\n' + text)
    assert [d.entity for d in found] == ["catalog entry g493-sb0"]


def test_sto001_reports_at_first_device_without_catalog_entry() -> None:
    text = '[workload]\nkind = "training"\n\n'
    text += _rack("a01", 1, "air", ["dgx-h100"])
    found = findings("STO001", '[rules.thresholds]\nnvme_per_node_min = "40 TB"\n\n' + text)
    assert [d.entity for d in found] == ["device a01-d1"]
