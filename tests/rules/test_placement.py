"""Placement rule cases the one-fires-one-silent fixtures cannot express."""

from __future__ import annotations

import pytest

from tests.builders import findings

# -- PLC008 with the site's floor rating -----------------------------------------------------------


def test_the_sites_floor_rating_replaces_the_threshold() -> None:
    rack = (
        '[[racks]]\nid = "a01"\n\n[[racks.devices]]\nid = "n"\nmodel = "dgx-h100"\nposition = 2\n'
    )
    # 130.45 + 150 kg on 0.72 m^2 = 389.5 kg/m^2
    assert findings("PLC008", rack) == []
    (found,) = findings("PLC008", '[site]\nfloor_load_max = "380 kg/m^2"\n\n' + rack)
    assert found.values["limit"] == 380.0
    assert found.values["floor_load"] == pytest.approx((130.45 + 150) / 0.72)
    assert "[site] floor_load_max" in found.message
