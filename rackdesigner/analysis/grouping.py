"""Union-find over string keys: the one grouping the v1.1 facts share (CDU groups, lateral
groups of a fabric, rail groups of GPU nodes). Near-linear, so 100,000-GPU layouts stay fast."""

from __future__ import annotations

from collections.abc import Hashable, Iterable


class Groups:
    """Disjoint sets; ``join`` merges, ``find`` names a set by one of its members."""

    __slots__ = ("_parent",)

    def __init__(self, members: Iterable[Hashable] = ()) -> None:
        self._parent: dict[Hashable, Hashable] = {m: m for m in members}

    def add(self, member: Hashable) -> None:
        self._parent.setdefault(member, member)

    def find(self, member: Hashable) -> Hashable:
        parent = self._parent
        root = parent.setdefault(member, member)
        while parent[root] != root:
            root = parent[root]
        while parent[member] != root:  # path compression
            parent[member], member = root, parent[member]
        return root

    def join(self, a: Hashable, b: Hashable) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[rb] = ra

    def sets(self) -> list[list[Hashable]]:
        """Every set, members in the order they were first added; sets in that order too."""
        out: dict[Hashable, list[Hashable]] = {}
        for member in self._parent:
            out.setdefault(self.find(member), []).append(member)
        return list(out.values())
