"""The report's storage section on the bundled training cluster, every figure by hand."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_path
from rackdesigner.report.report import build, to_csv, to_text
from tests.conftest import ROOT


def test_training_128_storage_section() -> None:
    """Two ESS 3500 (91 GB/s of reads each, no write figure, 250 TB usable and 368 TB raw
    each) on two storage switches with every node's two 400GbE ports. The fabric carries the
    appliances' 8 x 200 Gb/s = 1.6 Tb/s = 200 GB/s; the path reads min(182, 200) = 182 GB/s,
    182 / 128 = 1.42 GB/s a GPU; writes are what the fabric carries, 200 / 128 = 1.5625 GB/s.
    "best" asks 128 GPUs for 125 x 128 / 256 = 62.5 GB/s. The 70B checkpoint is 14 B x 70e9
    = 980 GB, every 100 steps at 0.05 steps/s = 2,000 s, written at min(200 GB/s of fabric,
    16 x 100 GB/s of node cables) = 200 GB/s: 4.9 s."""
    analysis = Analysis(load_path(ROOT / "layouts" / "training-128.toml"))
    report = build(analysis, network=False)
    s = report["storage"]
    assert s["storage_nodes"] == 2  # the v1 keys stay
    assert s["parallel_fs"]["read"] == pytest.approx(182e9 * 8)
    assert s["parallel_fs"]["write"] is None and s["parallel_fs"]["write_unknown"] == 2
    assert s["parallel_fs"]["usable"] == pytest.approx(500e12 * 8)
    assert s["parallel_fs"]["raw"] == pytest.approx(736e12 * 8)
    assert s["level"]["name"] == "best" and s["level"]["declared"]
    assert s["level"]["read"] == pytest.approx(62.5e9 * 8)
    assert s["per_gpu"]["read"] == pytest.approx(182e9 * 8 / 128)
    assert s["per_gpu"]["write"] == pytest.approx(200e9 * 8 / 128)
    assert s["fabric"]["carries"] == pytest.approx(200e9 * 8)
    assert (s["fabric"]["nodes"], s["fabric"]["nodes_reached"]) == (16, 16)
    assert s["checkpoint"]["size"] == pytest.approx(980e9 * 8)
    assert s["checkpoint"]["interval"] == pytest.approx(2000.0)
    assert s["checkpoint"]["seconds"] == pytest.approx(4.9)
    text = to_text(report)
    assert "parallel file system: 2 x ibm-ess3500; 500 TB (736 TB raw); reads 182 GB/s" in text
    assert "checkpoint: 980 GB every 33.3 min (100 steps at 0.05 steps/s), written in 4.9 s" in (
        text
    )
    assert "storage,parallel_fs,read,1456000000000.0,bit/s" in to_csv(report)
