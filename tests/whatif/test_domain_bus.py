"""The bus bandwidth a what-if prints for a fabric of NVLink domains is NET007's and the
report's acceptance figure across domains, before and after, not a tray's own ports.

The bundled GB200 SU (layouts/gb200-nvl72-su.toml): 8 NVL72 racks of 18 compute trays,
each tray 4 ConnectX-7 ports at 400 Gb/s on the compute fabric (1.6 Tb/s a tray, 28.8 Tb/s
a domain). NCCL efficiency 0.85 (the default threshold). Inside a domain: 900 GB/s of
NVLink a GPU x 0.85 = 765 GB/s. Across domains: 28.8 Tb/s x 0.85 = 24.48 Tb/s = 3.06 TB/s,
capped at the 765 GB/s inside: 765 GB/s (the report's "-np 576" line). The old what-if
printed a tray's 1.6 Tb/s x 0.85 = 170 GB/s.
"""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_path
from rackdesigner.rules.network.allreduce_bandwidth import acceptance_tests
from rackdesigner.whatif import parse_failure, what_if
from rackdesigner.whatif.domain_bus import DomainBus
from tests.conftest import ROOT

GB = 8e9  # bit/s in a GB/s


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return Analysis(load_path(ROOT / "layouts" / "gb200-nvl72-su.toml"))


def test_a_racks_feeds_lost_keep_the_acceptance_figure(analysis: Analysis) -> None:
    """Three of a04's four feeds lost take its 18 trays down; 7 domains are left, each
    still 3.06 TB/s across, capped: 765 GB/s before and after, as the report says."""
    fabric = next(f for f in analysis.fabrics if f.name == "compute" or f.nodes)
    expected = acceptance_tests(fabric, analysis.thresholds["nccl_efficiency"])[-1].busbw
    assert expected / GB == pytest.approx(765.0)
    failures = [parse_failure(f"feed:a04-{side}") for side in ("A1", "A2", "B1")]
    impact = what_if(analysis, failures)
    compute = next(f for f in impact.fabrics if f.bus is not None)
    assert compute.bus == pytest.approx(expected)
    assert compute.bus_left == pytest.approx(expected)


def test_a_domain_left_with_four_trays_bounds_the_figure(analysis: Analysis) -> None:
    """14 of one domain's 18 trays gone: its ports 4 x 1.6 Tb/s = 6.4 Tb/s x 0.85 =
    5.44 Tb/s = 680 GB/s, under the 765 GB/s cap: the figure across domains is 680 GB/s.
    All 18 gone: the 7 domains left are whole, 765 GB/s. Only one domain left: none."""
    fabric = next(f for f in analysis.fabrics if f.nodes)
    bus = DomainBus.of(fabric, analysis.thresholds["nccl_efficiency"])
    assert bus is not None and bus.before / GB == pytest.approx(765.0)
    first = sorted(bus.domain_of.items(), key=lambda kv: kv[0])
    domain = first[0][1]
    trays = sorted(n for n, d in bus.domain_of.items() if d == domain)
    assert len(trays) == 18
    assert (bus.left({}, trays[:14], 1.0) or 0) / GB == pytest.approx(680.0)
    assert (bus.left({}, trays, 1.0) or 0) / GB == pytest.approx(765.0)
    others = [n for n, d in bus.domain_of.items() if d != domain]
    assert bus.left({}, others, 1.0) is None
