"""What a failure does, as plain data (SI floats): the devices down and degraded, power and
cooling short, the fabric left, the findings raised. :mod:`.render` formats it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.analysis.failures import FEWER_PSUS

if TYPE_CHECKING:
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.whatif.parts import Failure
    from rackdesigner.whatif.storage import StorageImpact

__all__ = [
    "FEWER_PSUS",
    "ChainChange",
    "CoolingLoss",
    "DeviceLoss",
    "FabricImpact",
    "Gone",
    "Impact",
    "NotRated",
    "OnePath",
]

EPSILON = 1e-6  # W and bit/s: below this a difference is rounding


@dataclass(frozen=True, slots=True)
class DeviceLoss:
    id: str
    rack: str
    kind: str | None
    gpus: int
    psus: int  # PSUs it has (1 where the type does not say)
    psus_left: int  # on live sides
    required: int | None  # psus_required
    # "failed", "rack lost", "no powered PSU", FEWER_PSUS, a thermal trip, the power
    # shelves short, "power-capped: …"
    why: str


@dataclass(frozen=True, slots=True)
class PowerShort:
    """A live feed that must carry more than its usable capacity: its breaker trips (what it
    fed is derived again), or with ``[workload] power_capping`` its devices are capped."""

    rack: str
    side: str  # "" without sides
    load: float  # W the feed must carry
    capacity: float  # W it delivers (usable: V x I x derate x PF)
    feed: str = ""
    capped: bool = False

    @property
    def over(self) -> float:
        return self.load - self.capacity


@dataclass(frozen=True, slots=True)
class CoolingLoss:
    racks: tuple[str, ...]  # () for the room's air
    cause: str  # "CDU cdu-1 lost", "rear door a01-door lost", "room air"
    heat: float  # W that must go somewhere
    capacity: float  # W the cooling left takes
    tripped: bool = False  # the racks' liquid-cooled devices trip (counted down)

    @property
    def over(self) -> float:
        return self.heat - self.capacity


@dataclass(frozen=True, slots=True)
class ChainChange:
    """An element of the power chain a failure changes (docs/power-chain.md):

    - ``failed``: named by the failure; ``lost``: everything that feeds it is lost;
    - ``tripped``: left carrying more than its continuous rating, it trips (as a feed's
      breaker does) and is lost too; ``capped``: the same with ``[workload] power_capping``:
      the GPUs it feeds are capped instead;
    - ``moved``: its normal source lost, it draws from the next (an ATS on its generator);
    - ``loaded``: it carries more than before, within its rating; ``derated``: a UPS that
      lost a module carries its load on less rating, within it.
    """

    id: str
    kind: str
    state: str
    load: float  # W it must carry after the failure (0 when lost)
    rating: float | None  # W, continuous (after a UPS module lost)
    before: float  # W with everything working
    source: str = ""  # ``moved``: the element it draws from now
    source_kind: str = ""
    rating_before: float | None = None  # W, with everything working

    @property
    def name(self) -> str:
        return f"{self.kind} {self.id}"

    @property
    def over(self) -> float:
        """W above its rating (0 within it, or without one)."""
        if self.rating is None or self.state in ("failed", "lost"):
            return 0.0
        return max(0.0, self.load - self.rating)


@dataclass(frozen=True, slots=True)
class OnePath:
    """A rack with two sides or more that lost a whole side and runs on the rest: nothing
    is down, but its redundancy is used up (the next side lost would cost it)."""

    rack: str
    sides_lost: tuple[str, ...]
    gpus: int  # its GPUs still running (not down; degraded ones too)


@dataclass(frozen=True, slots=True)
class NotRated:
    """A CDU group that warmer water (or a failure) leaves below any approach its CDUs are
    rated at: no capacity can be cited there, so it is not judged (docs/liquid-cooling.md)."""

    racks: tuple[str, ...]
    cdus: tuple[str, ...]
    approach: float | None  # K it runs at
    rated_approach: float | None  # K, the lowest it is rated at
    rated_capacity: float | None  # W at that approach, per CDU
    gpus: int


@dataclass(slots=True)
class FabricImpact:
    name: str
    gpus: int  # GPUs in the fabric before
    switches: int
    switches_lost: int
    cables: int
    cables_lost: int
    nodes_down: int
    cut_off: list[str] = field(default_factory=list)  # live GPU nodes outside the largest part
    gpus_cut_off: int = 0
    largest_gpus: int = 0  # GPUs still all connected (the largest full-size job)
    rails_cut: list[str] = field(default_factory=list)  # nodes in it with fewer cables
    bisection: float = 0.0  # bit/s before
    bisection_left: float = 0.0  # bit/s, the largest part's
    bus: float | None = None  # bit/s expected all-reduce bus bandwidth between nodes, before
    bus_left: float | None = None

    @property
    def bisection_ratio(self) -> float | None:
        return self.bisection_left / self.bisection if self.bisection > 0 else None


@dataclass(slots=True)
class Impact:
    failures: list[Failure]
    down: list[DeviceLoss] = field(default_factory=list)
    degraded: list[DeviceLoss] = field(default_factory=list)
    power: list[PowerShort] = field(default_factory=list)
    cooling: list[CoolingLoss] = field(default_factory=list)
    storage: StorageImpact | None = None  # the parallel file system, where it is touched
    fabrics: list[FabricImpact] = field(default_factory=list)
    chain: list[ChainChange] = field(default_factory=list)  # the power chain's elements
    one_path: list[OnePath] = field(default_factory=list)  # racks on the sides they kept
    not_rated: list[NotRated] = field(default_factory=list)  # CDU groups not judged
    warmer: float = 0.0  # K the facility water is warmer (--warmer-water)
    # Rule findings of the failed layout that the layout did not have (None: not run).
    findings: list[Diagnostic] | None = None

    @property
    def gpus_down(self) -> int:
        return sum(d.gpus for d in self.down)

    @property
    def gpus_degraded(self) -> int:
        return sum(d.gpus for d in self.degraded)

    @property
    def gpus_cut_off(self) -> int:
        return sum(f.gpus_cut_off for f in self.fabrics)

    @property
    def gpus_one_path(self) -> int:
        """GPUs running in racks with a side lost: without redundancy (degraded ones too)."""
        return sum(p.gpus for p in self.one_path)

    @property
    def chain_over(self) -> float:
        return sum(c.over for c in self.chain)

    @property
    def gpus_lost(self) -> int:
        """GPUs down, degraded or cut off from their fabric's largest part: what ranks."""
        return self.gpus_down + self.gpus_degraded + self.gpus_cut_off

    @property
    def worst_bisection(self) -> float | None:
        ratios = [f.bisection_ratio for f in self.fabrics if f.bisection_ratio is not None]
        return min(ratios) if ratios else None

    @property
    def harmless(self) -> bool:
        """Nothing lost: no GPU, device, supply or cooling, the fabrics whole, and no new
        finding (a redundancy used up is a loss: "nothing is lost" would hide it)."""
        if self.findings or self.one_path or self.not_rated or self.chain:
            return False
        return (
            not (self.gpus_lost or self.down or self.degraded or self.power or self.cooling)
            and all(f.switches_lost == 0 and f.cables_lost == 0 for f in self.fabrics)
            and (self.storage is None or self.storage.harmless)
        )


@dataclass(slots=True)
class Gone:
    """What a failure took, by id and index, as the derivation goes (power, then cooling,
    then the fabric)."""

    down: set[str] = field(default_factory=set)  # device ids: failed, unpowered, tripped
    degraded: set[str] = field(default_factory=set)
    dead_feeds: set[tuple[int, int]] = field(default_factory=set)  # (rack, feed) indexes
    racks: set[int] = field(default_factory=set)  # indexes whose power was derived again
    # Racks with two sides or more that lost a whole side and kept another: the sides lost.
    sides_lost: dict[int, tuple[str, ...]] = field(default_factory=dict)
