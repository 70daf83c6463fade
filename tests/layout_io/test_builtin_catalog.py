"""The built-in catalog's Blackwell Ultra, XDR and MI355X entries: their cited figures, and
the figures no source gave left out rather than guessed."""

from __future__ import annotations

import pytest

from rackdesigner.layout_io.catalog import builtin, port_identities
from rackdesigner.model.layout import DeviceType, PortGroup

NEW_DEVICES = ("dgx-b300", "sys-822gs-nb3rt", "q3400", "as-4126gs-nmr-lcc")
NEW_GPUS = ("b300-sxm", "mi355x", "b300", "gb200-b200")


def compute(dtype: DeviceType) -> PortGroup:
    groups = [g for g in dtype.ports or () if g.effective_role(dtype.kind) == "compute"]
    assert len(groups) == 1, dtype.key
    return groups[0]


@pytest.mark.parametrize("key", NEW_DEVICES)
def test_each_new_device_cites_its_figures(key: str) -> None:
    dtype = builtin().devices[key]
    assert dtype.source and "https://" in dtype.source
    assert dtype.notes  # what is derived or was not found


@pytest.mark.parametrize("key", NEW_GPUS)
def test_each_blackwell_and_mi355x_gpu_cites_its_figures(key: str) -> None:
    gpu = builtin().gpus[key]
    assert gpu.source and "https://" in gpu.source
    assert gpu.memory and gpu.bandwidth and gpu.tdp and gpu.interconnect


def test_b300_and_mi355x_figures() -> None:
    gpus = builtin().gpus
    b300 = gpus["b300-sxm"]
    # 288 GB HBM3e, 8 TB/s, NVLink 5 1.8 TB/s a GPU; bytes are stored as bits
    assert (b300.memory, b300.bandwidth, b300.interconnect) == (288e9 * 8, 8e12 * 8, 1.8e12 * 8)
    assert b300.form_factor == "sxm" and gpus["b300"].form_factor == "superchip"
    mi355x = gpus["mi355x"]
    assert (mi355x.memory, mi355x.bandwidth, mi355x.tdp) == (288e9 * 8, 8e12 * 8, 1400.0)
    assert mi355x.form_factor == "oam"


def test_blackwell_ultra_nodes_have_eight_800g_connectx8_ports() -> None:
    devices = builtin().devices
    for key in ("dgx-b300", "sys-822gs-nb3rt"):
        dtype = devices[key]
        assert (dtype.kind, dtype.gpu, dtype.gpus, dtype.form_factor) == (
            "gpu-node",
            "b300-sxm",
            8,
            "sxm",
        )
        group = compute(dtype)
        assert (group.count, group.speed, group.tech) == (8, 800e9, "infiniband")
        assert dtype.liquid_fraction is None  # both air-cooled
    # DGX B300: the user guide's 14.5 kW maximum (the XDR RA: ~56 kW for four), 10U;
    # no weight or PSUs were found, so none are set.
    dgx = devices["dgx-b300"]
    assert (dgx.power, dgx.height_u) == (14.5e3, 10)
    assert dgx.weight is None and dgx.psus is None
    # Supermicro: 3+3 x 6.6 kW, 119 kg net, but no published maximum draw (PWR006 estimates it)
    smc = devices["sys-822gs-nb3rt"]
    assert (smc.psus, smc.psus_required, smc.psu_rating, smc.height_u) == (6, 3, 6600.0, 8)
    assert (smc.weight, smc.power) == (119.0, None)


def test_q3400_is_144_xdr_ports_in_72_twin_cages_and_no_guessed_power() -> None:
    q3400 = builtin().devices["q3400"]
    group = compute(q3400)
    assert (q3400.kind, group.count, group.speed, group.tech) == (
        "switch",
        144,
        800e9,
        "infiniband",
    )
    assert q3400.height_u == 4
    # The hardware manual's power was not found: an estimate, marked as one (PWR009 says so
    # as info; 0 W would let a hall of 50 add nothing). The QM9700's published maximum with
    # optics in all 32 twin-port cages, 1,720 W, is 53.75 W a cage; the Q3400 has 72:
    # 72 x 53.75 = 3,870 W. Weight and PSUs are left out, not invented.
    assert q3400.power == pytest.approx(72 * 1720 / 32) == pytest.approx(3870.0)
    assert q3400.power_estimated is True
    assert q3400.weight is None and q3400.psus is None
    assert port_identities()["q3400"]["p"] == {"twin": True}


def test_mi355x_node() -> None:
    node = builtin().devices["as-4126gs-nmr-lcc"]
    assert (node.gpu, node.gpus, node.form_factor, node.height_u) == ("mi355x", 8, "oam", 4)
    assert node.power is None  # estimated from the GPUs' TDP (PWR006)
    # 4 x 6.6 kW on C20 inlets and 53 kg (NetBox device-type library); redundancy unknown
    assert (node.weight, node.psus, node.psu_rating, node.psu_inlet) == (53.0, 4, 6600.0, "c20")
    assert node.psus_required is None
    assert node.liquid_fraction == pytest.approx(0.6)
    group = compute(node)
    assert (group.count, group.speed, group.tech) == (8, 400e9, "ethernet")


def test_nvl72_parts_carry_nvidias_figures_and_say_which_are_derived() -> None:
    """GB200 compute tray: NVIDIA DPS (latest) maxLoadWatts 6,667 W (5,640 W = 4 x 1,200 +
    2 x 420 in DPS 0.7.2); liquid 0.85 = (4 x 1,200 + 2 x 420) / 6,667 = 0.846, rounded up.
    GB300 tray: derived from the NVL72 AI Factory RA's 142 kW rack, (142,000 - 9 x 400 -
    2 x 98) / 18 = 7,678 W; liquid (4 x 1,400 + 2 x 420) / 7,678 = 0.839 -> 0.84. Switch
    tray: liquid-cooled (MLCommons Crusoe GB200 description), (400 - 98) / 400 = 0.755 ->
    0.75. Busbar: 2,900 A unverified (PWR017 warns). The NVL72 ToR on the busbar: dc_input."""
    devices = builtin().devices
    gb200, gb300 = devices["gb200-compute-tray"], devices["gb300-compute-tray"]
    assert (gb200.power, gb200.liquid_fraction) == (6667.0, 0.85)
    assert round((4 * 1200 + 2 * 420) / 6667, 3) == 0.846
    assert "maxLoadWatts 6667" in (gb200.source or "") and "5640" in (gb200.source or "")
    assert gb300.power == (142_000 - 9 * 400 - 2 * 98) / 18 == 7678.0
    assert gb300.liquid_fraction == round((4 * 1400 + 2 * 420) / 7678, 2) == 0.84
    assert "derived" in (gb300.source or "")
    switch = devices["nvl72-switch-tray"]
    assert switch.liquid_fraction == 0.75 and "derived" in (switch.notes or "")
    assert devices["nvl72-busbar"].rating_unverified is True
    tor = devices["sn2201-dc"]
    assert tor.dc_input is True and tor.on_busbar and tor.power == devices["sn2201"].power
