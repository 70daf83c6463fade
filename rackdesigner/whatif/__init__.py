"""Failure analysis (``rackdesigner whatif``): what happens when a part fails.

:func:`what_if` is the one what-if (the command line's ``--fail``, the designer's What if…
and the report's single failures call it); :class:`WhatIf` runs many failures of one
layout (``rank``: every single failure of a kind). Both are pure functions of an analysis;
:mod:`.render` prints their results.
"""

from __future__ import annotations

from rackdesigner.whatif.impact import WhatIf, failed_layout, what_if
from rackdesigner.whatif.parts import EACH_KINDS, KINDS, Failure, PartError, parse_failure
from rackdesigner.whatif.results import (
    CoolingLoss,
    DeviceLoss,
    FabricImpact,
    Impact,
    PowerShort,
)

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
