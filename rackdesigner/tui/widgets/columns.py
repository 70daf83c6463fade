"""Scrolling sideways by whole columns: the racks and floor views show whole racks only, so
a scroll never leaves a piece of one at an edge."""

from __future__ import annotations


def whole_steps(value: float, current: float, step: int, last: float) -> float:
    """Where a sideways scroll to ``value`` (from ``current``) lands: on a column's left
    edge, the way it goes (a wheel's few cells move a whole column), between 0 and
    ``last``."""
    steps = -(-value // step) if value > current else value // step
    return float(min(max(steps * step, 0), last))
