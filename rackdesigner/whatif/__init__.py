"""Failure analysis (``rackdesigner whatif``): what happens when a part fails.

:func:`what_if` (one scenario) and :class:`WhatIf` (``rank``: every single failure of a
kind) are pure functions of an analysis; :mod:`.render` prints their results.
"""

from __future__ import annotations

from rackdesigner.whatif.impact import (
    CoolingLoss,
    DeviceLoss,
    FabricImpact,
    Impact,
    PowerShort,
    WhatIf,
    failed_layout,
    what_if,
)
from rackdesigner.whatif.parts import EACH_KINDS, KINDS, Failure, PartError, parse_failure

__all__ = [
    "EACH_KINDS",
    "KINDS",
    "CoolingLoss",
    "DeviceLoss",
    "FabricImpact",
    "Failure",
    "Impact",
    "PartError",
    "PowerShort",
    "WhatIf",
    "failed_layout",
    "parse_failure",
    "what_if",
]
