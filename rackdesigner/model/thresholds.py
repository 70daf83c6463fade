"""The rule thresholds a layout may override in ``[rules.thresholds]``, with their defaults.

Data only: the loader checks a layout's thresholds against this table (unknown
keys, wrong units) and the rules read the resolved values through
:func:`resolve`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.model.units import (
    AREAL_MASS,
    BANDWIDTH,
    BYTE_RATE,
    INFORMATION,
    LENGTH,
    POWER,
    RATIO,
    VOLTAGE,
    Dimension,
)


@dataclass(frozen=True, slots=True)
class Threshold:
    key: str
    default: float  # SI (bit, bit/s, W, V, m), a ratio, or a count
    dim: Dimension | None  # None: a plain number (a count, a ratio like 4.0 for 4:1, params)
    default_text: str  # as a user would write it
    description: str
    display: Dimension | None = None  # formatting unit, where it differs from dim's
    positive: bool = True  # must be more than 0 (else at least 0)
    maximum: float | None = None


def _t(
    key: str,
    default: float,
    dim: Dimension | None,
    text: str,
    description: str,
    display: Dimension | None = None,
    *,
    positive: bool = True,
    maximum: float | None = None,
) -> Threshold:
    return Threshold(key, default, dim, text, description, display, positive, maximum)


THRESHOLDS: dict[str, Threshold] = {
    t.key: t
    for t in (
        _t(
            "feed_derate",
            0.8,
            RATIO,
            "0.8",
            "share of a feed's breaker rating that may be loaded continuously",
            maximum=1.0,
        ),
        _t(
            "power_factor",
            1.0,
            RATIO,
            "1.0",
            "the load's power factor: a feed of S kVA delivers S × PF kW, currents are "
            "P ÷ (V × PF)",
            maximum=1.0,
        ),
        _t(
            "gpu_feed_min_voltage",
            200.0,
            VOLTAGE,
            "200 V",
            "lowest outlet voltage for racks holding GPU nodes",
        ),
        _t(
            "single_phase_max",
            8e3,
            POWER,
            "8 kW",
            "largest GPU-rack load on a single-phase feed",
        ),
        _t(
            "phase_imbalance_max",
            0.2,
            RATIO,
            "20 %",
            "largest allowed line-current imbalance",
            positive=False,
        ),
        _t(
            "host_overhead",
            0.8,
            RATIO,
            "0.8",
            "host power (CPUs, fans, NICs) as a share of GPU TDP when a node declares no power",
            positive=False,
        ),
        _t(
            "host_overhead_pcie",
            0.4,
            RATIO,
            "0.4",
            "(v1.2) the same for a PCIe-slot chassis (form_factor pcie): no NVSwitch "
            "baseboard, fewer NICs",
            positive=False,
        ),
        _t("air_cooling_max", 15e3, POWER, "15 kW", "most heat per rack that air can remove"),
        _t(
            "liquid_cooling_min",
            20e3,
            POWER,
            "20 kW",
            "heat per rack above which liquid cooling is expected",
        ),
        _t("immersion_min_gpus", 500, None, "500", "GPU count where immersion cooling pays off"),
        _t(
            "coolant_flow_per_kw",
            1.5,
            None,
            "1.5",
            "(v1.4) coolant flow a cold plate needs, in L/min per kW of its liquid heat, "
            "where its type gives no coolant_flow (OCP: about 1.5 at a rise of 10 K or less)",
        ),
        _t(
            "liquid_model_params_min",
            100e9,
            None,
            "100e9",
            "model size from which training wants liquid-cooled 8-GPU nodes",
        ),
        _t("cable_max", 5.0, LENGTH, "5 m", "longest cable run"),
        _t(
            "reach_dac",
            2.0,
            LENGTH,
            "2 m",
            "reach of straight passive copper (DAC, switch to switch) at 400G and more",
        ),
        _t(
            "reach_dac_split",
            3.0,
            LENGTH,
            "3 m",
            "reach of a passive copper splitter (DAC, switch to adapter) at 400G and more",
        ),
        _t("reach_dac_200g", 3.0, LENGTH, "3 m", "reach of passive copper (DAC) at 200G"),
        _t("reach_dac_100g", 5.0, LENGTH, "5 m", "reach of passive copper (DAC) up to 100G"),
        _t("reach_acc", 5.0, LENGTH, "5 m", "reach of active copper (ACC)"),
        _t(
            "reach_acc_xdr",
            3.0,
            LENGTH,
            "3 m",
            "reach of straight linear active copper (LACC, switch to switch) at 800G XDR",
        ),
        _t(
            "reach_acc_xdr_split",
            2.0,
            LENGTH,
            "2 m",
            "reach of a linear active copper splitter (switch to adapter) at 800G XDR",
        ),
        _t(
            "reach_aoc",
            100.0,
            LENGTH,
            "100 m",
            "reach of active optical cable (AOC), 200G and below",
        ),
        _t(
            "reach_mmf",
            50.0,
            LENGTH,
            "50 m",
            "reach of OM4/OM5 multimode fibre with SR4/SR8 transceivers at 400G and more",
        ),
        _t(
            "reach_mmf_om3",
            30.0,
            LENGTH,
            "30 m",
            "reach of OM3 multimode fibre at 400G and more",
        ),
        _t(
            "reach_mmf_200g",
            100.0,
            LENGTH,
            "100 m",
            "reach of OM4/OM5 multimode fibre at 200G and below",
        ),
        _t(
            "reach_mmf_200g_om3",
            70.0,
            LENGTH,
            "70 m",
            "reach of OM3 multimode fibre at 200G and below",
        ),
        _t("reach_smf", 500.0, LENGTH, "500 m", "reach of single-mode fibre with DR transceivers"),
        _t(
            "reach_smf_split",
            100.0,
            LENGTH,
            "100 m",
            "reach of single-mode fibre from a twin-port switch transceiver to a 400G adapter",
        ),
        _t("reach_copper_rj45", 100.0, LENGTH, "100 m", "reach of twisted-pair copper (RJ45)"),
        _t(
            "tray_fill_max",
            0.4,
            RATIO,
            "40 %",
            "(v1.4) a pathway's design fill: cable cross-section over its width x depth "
            "(TIA-569's 40 %, as cabling makers quote it)",
            maximum=1.0,
        ),
        _t(
            "tray_fill_limit",
            0.5,
            RATIO,
            "50 %",
            "(v1.4) a pathway's fill beyond which cables must not be added (NEC 392.22(A)(1)(b): "
            "signal cables in a ventilated tray, 50 %)",
            maximum=1.0,
        ),
        _t(
            "infiniband_min_gpus",
            32,
            None,
            "32",
            "GPU count above which a training fabric should be InfiniBand",
        ),
        _t(
            "oversubscription_max_training",
            1.0,
            None,
            "1.0",
            "largest downlink:uplink ratio of a switch in a training fabric",
        ),
        _t(
            "oversubscription_max_inference",
            4.0,
            None,
            "4.0",
            "largest downlink:uplink ratio of a switch in an inference fabric",
        ),
        _t(
            "nccl_efficiency",
            0.85,
            RATIO,
            "0.85",
            "share of theoretical bandwidth that collectives reach",
            maximum=1.0,
        ),
        _t(
            "dragonfly_min_gpus",
            128,
            None,
            "128",
            "GPU count from which a Dragonfly+ topology beats a fat tree",
        ),
        _t(
            "gpu_bandwidth_min",
            2e12 * 8,
            BANDWIDTH,
            "2 TB/s",
            "lowest GPU memory bandwidth for training",
            BYTE_RATE,
        ),
        _t("host_cores_min", 32, None, "32", "fewest CPU cores in a training node"),
        _t(
            "host_memory_min", 512e9 * 8, INFORMATION, "512 GB", "least host RAM in a training node"
        ),
        _t(
            "four_gpu_model_params_max",
            30e9,
            None,
            "30e9",
            "largest model for data-parallel training on 4-GPU nodes",
        ),
        _t(
            "eight_gpu_model_params_min",
            10e9,
            None,
            "10e9",
            "model size from which training wants 8-GPU nodes",
        ),
        _t("gpus_per_node_max", 8, None, "8", "most GPUs in one node"),
        _t(
            "consumer_gpu_model_params_max",
            7e9,
            None,
            "7e9",
            "largest model to train on consumer GPUs",
        ),
        _t(
            "nvme_per_node_min", 4e12 * 8, INFORMATION, "4 TB", "least local NVMe per training node"
        ),
        _t(
            "pfs_min_training_nodes",
            2,
            None,
            "2",
            "training clusters of this many GPU nodes or more need a parallel file system "
            "(STO004); one node trains from its local NVMe",
        ),
        _t(
            "floor_load_max",
            1500.0,
            AREAL_MASS,
            "1500 kg/m^2",
            "the floor's rating where [site] floor_load_max is not given",
        ),
    )
}


def resolve(overrides: dict[str, float] | None) -> dict[str, float]:
    """Every threshold's value: the layout's override where given, else the default."""
    values = {key: t.default for key, t in THRESHOLDS.items()}
    if overrides:
        values.update({key: float(v) for key, v in overrides.items() if key in values})
    return values
