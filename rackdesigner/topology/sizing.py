"""Switch and cable counts of the fabric generators' shapes, from first principles.

The generators (``design/generators``) build these shapes; NET004 quotes their counts, and a
rule may not import the generators (layer order), so the arithmetic lives here and the
generators use it: :func:`spines_for` (how many switches close a tier above some leaves),
:func:`down_ports` (a leaf's ports down at a ratio), :func:`dragonfly_shape` (the balanced
Dragonfly+), and the counts :func:`fat_tree_counts` (the rail generator's shared tree at
1:1) and :func:`dragonfly_counts`. A two-tier tree of radix-k switches is non-blocking up
to k²/2 node ports (:func:`two_tier_limit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache


class SizingError(ValueError):
    """No shape of that kind closes for the request; the message says why."""


def two_tier_limit(radix: int) -> int:
    """Node ports a non-blocking two-tier tree of ``radix``-port switches takes: k²/2."""
    return radix * radix // 2


def spines_for(leaves: int, uplinks: int, ports: int, minimum: int = 1) -> int | None:
    """The fewest switches above ``leaves`` switches of ``uplinks`` cables each, the cables
    of every leaf spread evenly over all of them (⌈uplinks ÷ count⌉ at most to one), within
    ``ports`` ports each; None when no count closes the tier (more leaves than ports).

    Where the count divides ``uplinks`` every leaf has the same number of cables to every
    switch above: 8 leaves of 32 uplinks on 64-port spines take 4 spines (8 each), 24 take
    16 (12 would put 3 cables of some leaf on a spine: 72 ports), 32 take 16. A leaf of 31
    uplinks (the DGX H100 SuperPOD's 31-node SU) spreads 8, 8, 8, 7 over 4 spines.
    ``minimum`` is the fewest switches to take (2: no spine whose loss splits the leaves).
    """
    if leaves < 1 or uplinks < 1:
        return None
    count = max(1, minimum, math.ceil(leaves * uplinks / ports))
    while count <= uplinks:
        if leaves * math.ceil(uplinks / count) <= ports:
            return count
        count += 1
    return None


def down_ports(ports: int, oversubscription: float) -> int:
    """Downlinks of a ``ports``-port leaf at ``oversubscription``:1 (equal port speeds)."""
    return max(1, int(ports * oversubscription / (1.0 + oversubscription) + 1e-9))


@dataclass(frozen=True, slots=True)
class DragonflyShape:
    groups: int
    sizes: tuple[int, ...]  # nodes per group
    leaves: tuple[int, ...]  # leaves per group
    spines: tuple[int, ...]
    per_pair: int  # global links between every two groups


def _split(n: int, groups: int) -> tuple[int, ...]:
    base, extra = divmod(n, groups)
    return tuple(base + (1 if g < extra else 0) for g in range(groups))


def group_leaves(size: int, rails: int, down: int) -> list[int]:
    """The down ports of each leaf of a Dragonfly+ group of ``size`` nodes."""
    chunk = min(size, down)
    per_leaf = max(1, down // chunk)
    downs = []
    for start in range(0, size, chunk):
        part = min(chunk, size - start)
        for first in range(0, rails, per_leaf):
            downs.append(part * (min(rails, first + per_leaf) - first))
    return downs


def dragonfly_shape(
    n: int, rails: int, leaf_ports: int, spine_ports: int, ratio: float
) -> DragonflyShape:
    """The balanced Dragonfly+ for ``n`` nodes of ``rails`` ports (generators/dragonfly.py)."""
    if n < 2:
        raise SizingError("dragonfly needs at least 2 nodes (two groups)")
    down = down_ports(leaf_ports, ratio)
    up = leaf_ports - down
    half = spine_ports // 2
    group_ports = half * down
    first = max(2, math.ceil(n * rails / group_ports))
    for groups in range(first, n + 1):
        sizes = _split(n, groups)
        leaves: list[int] = []
        spines: list[int] = []
        global_ports: list[int] = []
        ok = True
        for size in sizes:
            ups = [math.ceil(d / ratio - 1e-9) for d in group_leaves(size, rails, down)]
            if max(ups) > up:
                ok = False
                break
            s = spines_for(len(ups), max(ups), half)
            if s is None:
                ok = False
                break
            leaves.append(len(ups))
            spines.append(s)
            global_ports.append(s * half)  # every spine: as many global as leaf-facing ports
        if not ok:
            continue
        per_pair = min(global_ports) // (groups - 1)
        if per_pair < 1:
            break
        if all(per_pair * (groups - 1) >= size * rails / ratio - 1e-9 for size in sizes):
            return DragonflyShape(groups, sizes, tuple(leaves), tuple(spines), per_pair)
    raise SizingError(
        f"dragonfly: no balanced Dragonfly+ of {spine_ports}-port switches for {n:,} nodes"
    )


@dataclass(frozen=True, slots=True)
class Counts:
    switches: int
    cables: int
    tiers: int


@lru_cache(maxsize=1024)  # NET004 on each failed layout of a what-if: the same sizes
def dragonfly_counts(n: int, rails: int, radix: int) -> Counts:
    """Switches and cables of the dragonfly generator's 1:1 build (equal port speeds)."""
    shape = dragonfly_shape(n, rails, radix, radix, 1.0)
    global_links = shape.per_pair * shape.groups * (shape.groups - 1) // 2
    return Counts(sum(shape.leaves) + sum(shape.spines), 2 * n * rails + global_links, 2)


@lru_cache(maxsize=1024)
def fat_tree_counts(n: int, rails: int, radix: int, su_nodes: int | None = None) -> Counts:
    """Switches and cables of the rail generator's shared tree at 1:1 (equal port speeds):
    two tiers while one spine tier closes, else a core tier (pods of k/2 leaves). An SU
    is ``su_nodes`` nodes, by default (and at most) k/2, a leaf's ports down at 1:1, as
    the rail generator sizes it (``rail.su_size``): 32 on 64-port QM9700s (the B200 RA's
    SU), 72 on 144-port Q3400s (the B300 XDR RA's)."""
    half = radix // 2
    su = max(1, min(half if su_nodes is None else su_nodes, half, n))
    leaves = math.ceil(n / su) * rails
    node_ports = n * rails
    two = spines_for(leaves, su, radix)
    if two is not None:
        return Counts(leaves + two, 2 * node_ports, 2)
    pod_leaves = max(1, half // rails) * rails if rails <= half else half
    per_pod = spines_for(pod_leaves, su, half)
    if per_pod is None:
        raise SizingError(f"no three-tier tree of {radix}-port switches for {n:,} nodes")
    pods = math.ceil(leaves / pod_leaves)
    per_group = spines_for(pods, pod_leaves * math.ceil(su / per_pod), radix)
    if per_group is None:
        raise SizingError(f"no three-tier tree of {radix}-port switches for {n:,} nodes")
    return Counts(leaves + pods * per_pod + per_pod * per_group, 3 * node_ports, 3)
