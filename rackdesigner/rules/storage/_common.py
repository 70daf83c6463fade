"""What the storage rules share: their words for rates, sizes and times."""

from __future__ import annotations

import math
from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.storage import BYTE, Level, level_of, requirement
from rackdesigner.model.units import BYTE_RATE, fmt
from rackdesigner.model.wording import duration, plural
from rackdesigner.rules.base import Finding


def rate(value: float) -> str:
    """A rate in bytes per second, as the RA and the vendors give them: ``"40 GB/s"``."""
    return fmt(value, BYTE_RATE)


def level_words(level: Level, declared: bool) -> str:
    """``level better`` or ``level good, the default``."""
    return f"level {level.name}" + ("" if declared else ", the default")


LEVEL_HINT = 'set [workload] storage_level ("good", "better" or "best") to the level you need'


def pfs_shortfall(analysis: Analysis, which: str) -> Iterator[Finding]:
    """STO002 (``read``) and STO003 (``write``): the parallel file system's appliances'
    aggregate rate against the level's for the layout's GPUs."""
    if not analysis.is_training:
        return
    facts = analysis.storage
    tier = facts.pfs
    if not tier.devices or not facts.nodes:
        return
    known = tier.read_known if which == "read" else tier.write_known
    if not known:
        return  # no appliance gives the figure: nothing to judge (the report says so)
    level, declared = level_of(analysis.workload)
    need = requirement(level, facts.gpus)
    have = tier.read if which == "read" else tier.write
    want = need.read if which == "read" else need.write
    if have >= want * (1 - 1e-9):
        return
    unknown = tier.read_unknown if which == "read" else tier.write_unknown
    bound = "at least " if unknown else ""
    first = tier.devices[0]
    per_appliance = have / max(1, len(tier.devices) - unknown)
    more = math.ceil((want - have) / per_appliance - 1e-9) if per_appliance > 0 else 0
    shown = plural(len(tier.devices), "parallel-fs appliance")
    yield Finding(
        f"device {first.id}",
        first.ref,
        f"the parallel file system {which}s {bound}{rate(have)} ({shown}), below the "
        f"{rate(want)} NVIDIA's DGX SuperPOD guidance gives {plural(facts.gpus, 'GPU')} at "
        f"{level_words(level, declared)} ({rate(want / max(1, facts.gpus))} a GPU)",
        hint=(
            f"add {plural(more, 'appliance')} like {first.device.model}"
            if more
            else "add appliances"
        )
        + ("" if declared else f", or {LEVEL_HINT}"),
        values={which: have, "required": want, "gpus": float(facts.gpus)},
    )


__all__ = ["BYTE", "LEVEL_HINT", "duration", "level_words", "pfs_shortfall", "rate"]
