"""Cable stock lengths: what an operations team orders for a run of a given length.

exports.md fixes the series: 0.5, 1, 1.5, 2, 2.5, 3, 5, 7, 10, 15, 20, 30, 50 and
100 m, and above 100 m the next 10 m. A run is cut to the shortest stock length it
fits in; the cable schedule, the bill of materials and the report all use this one
function so their counts agree.
"""

from __future__ import annotations

import math
from bisect import bisect_left

STOCK_LENGTHS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0)
# A computed run of 2.0000000001 m is a 2 m cable: lengths are sums of floats.
_TOLERANCE = 1e-6
_BOUNDS = tuple(stock + _TOLERANCE for stock in STOCK_LENGTHS)


def stock_length(length: float | None, stocks: tuple[float, ...] = ()) -> float | None:
    """The stock length (m) a run of ``length`` metres takes; None where it is unknown.

    (v1.4) ``stocks``: the lengths the cable's part is sold in (the media table's
    ``stock``, shortest first): the shortest that fits, None where the run is longer than
    every one (CAB003 says the part does not reach). Without them, the generic series."""
    if length is None or not length >= 0 or length == math.inf:
        return None
    if stocks:
        return next((s for s in stocks if length <= s + _TOLERANCE), None)
    index = bisect_left(_BOUNDS, length)
    if index < len(STOCK_LENGTHS):
        return STOCK_LENGTHS[index]
    return float(math.ceil(length / 10.0 - _TOLERANCE) * 10)


def metres(value: float) -> str:
    """A stock length as people and spreadsheets write it: ``0.5``, ``3``, ``110``."""
    return f"{value:g}"
