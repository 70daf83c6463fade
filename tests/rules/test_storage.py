"""Storage rule cases the one-fires-one-silent fixtures cannot express."""

from __future__ import annotations

from tests.builders import findings
from tests.rules.test_cooling import _rack  # racks with a cooling mode, as the cooling tests


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
