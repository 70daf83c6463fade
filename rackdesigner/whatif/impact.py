"""What a failure does, as one function: :func:`what_if`.

``rackdesigner whatif --fail``, the designer's What if… and the report's single failures
all call it (the report and ``--each`` through :meth:`WhatIf.rank`, which runs it for every
single failure of a kind), so all three say the same. It is a pure function of an analysis
and a list of failures (docs/whatif.md):

- **The power chain** (:mod:`.chain`, the chain's own model): the elements lost with the
  ones named, those left over their rating tripped (or their GPUs capped), and the feeds
  on every element lost dead.
- **Power** (:mod:`.losses`, the analysis's own model of a rack with parts lost): feeds
  dead, devices without a powered PSU down, with fewer than they need degraded, power
  shelves dead with their feed and the trays they cannot carry down (or capped), feeds
  over their usable capacity tripped (or their devices capped); racks that lost a side
  and run on the rest, their redundancy used up.
- **Cooling** (:mod:`.cooling`, the liquid plant's model): a CDU group that loses CDUs
  (or their water loop) keeps the others' capacity at the approach they run at; where its
  racks' cold plates need more, those racks trip (their liquid-cooled devices are down);
  coolant warmer than a node takes throttles it (degraded); a group warmer water leaves
  below any rated approach is listed, not judged. A lost rear door sends its rack's heat
  to the room air. Down devices make no heat.
- **Fabric** (:mod:`.fabric`): what is left of each fabric the failure touches.
- **Findings**: the rules on the failed layout (:mod:`.failed`), checked only where it
  differs (:mod:`.incremental`); what it has that the layout has not.

A :class:`WhatIf` keeps what every failure of one layout shares (the layout's findings,
the fabric figures before) so that :meth:`WhatIf.rank` runs every single failure of a kind
cheaply. A failure touches few racks: only those racks' power and heat are derived again,
and the fabric only when a switch, a node or a cable is gone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rackdesigner.model.progress import each
from rackdesigner.whatif.chain import chain_losses
from rackdesigner.whatif.cooling import Liquid, cooling_losses
from rackdesigner.whatif.fabric import FabricBudget, FabricLosses
from rackdesigner.whatif.failed import failed_layout
from rackdesigner.whatif.losses import capping, chain_caps, one_path, power_losses
from rackdesigner.whatif.parts import WARMER, Failure, Lost, PartIndex, candidates, resolve
from rackdesigner.whatif.results import (
    CoolingLoss,
    DeviceLoss,
    FabricImpact,
    Gone,
    Impact,
    PowerShort,
)
from rackdesigner.whatif.storage import StorageLosses

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, Like
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.whatif.fabric_derived import FabricDerivation
    from rackdesigner.whatif.failed import Cables, FailedState
    from rackdesigner.whatif.incremental import Baseline, Ports

__all__ = [
    "CoolingLoss",
    "DeviceLoss",
    "FabricBudget",
    "FabricImpact",
    "Impact",
    "PowerShort",
    "WhatIf",
    "failed_layout",
    "what_if",
]


def what_if(analysis: Analysis, failures: Sequence[Failure], *, findings: bool = True) -> Impact:
    """What ``failures`` do to the layout ``analysis`` is of, with the findings the failed
    layout has that the layout has not (``findings=False`` leaves them out: a check fewer).
    A :class:`~rackdesigner.whatif.parts.PartError` for a failure that names no part.

    The one what-if: ``rackdesigner whatif --fail``, the designer's What if… and the
    report's single failures call it and say what it says."""
    return WhatIf(analysis).run(failures, findings=findings)


class WhatIf:
    """Failures of one layout; shares the layout's findings and fabric figures between them.

    ``fabric_budget``: fabric edges the failures may rebuild in all, beyond which
    :class:`FabricBudget` is raised (None: no bound)."""

    def __init__(self, analysis: Analysis, *, fabric_budget: int | None = None) -> None:
        self.analysis = analysis
        self.fabric = FabricLosses(analysis, fabric_budget)
        self.liquid = Liquid(analysis)
        self._index: PartIndex | None = None
        self._air: float | None = None
        self._checked: Baseline | None = None  # the layout's findings
        self.storage = StorageLosses(analysis)
        self._cables: Cables | None = None  # each device's cables (whatif.failed.cables_of)
        self._ports: Ports | None = None  # and each port's
        self._derivation: FabricDerivation | None = None  # the failed layouts' fabrics

    # -- one scenario ----------------------------------------------------------------------

    def run(self, failures: Sequence[Failure], *, findings: bool = True) -> Impact:
        """:func:`what_if`, sharing this layout's work with the other failures run here."""
        if self._index is None:
            self._index = PartIndex(self.analysis)
        lost = resolve(self.analysis, failures, self._index)
        # Warmer water is a condition of the scenario, not a part that fails.
        impact = Impact([f for f in failures if f.kind != WARMER], warmer=lost.warmer)
        gone = self.gone(lost, impact)
        impact.fabrics = self.fabric.impacts(gone.down, lost.links)
        impact.storage = self.storage.impact(gone.down, lost.links)
        if findings:
            impact.findings = self._findings(lost, gone)
        return impact

    def gone(self, lost: Lost, impact: Impact | None = None) -> Gone:
        """What the parts ``lost`` take with them: the power chain's elements (the feeds
        on those lost), the racks' power, then cooling (the racks a CDU group short of
        capacity trips, or coolant too warm throttles); ``impact`` gets each loss and its
        reason, and the racks left running on the sides they kept."""
        impact = impact if impact is not None else Impact([])
        capped = capping(self.analysis)
        caps = chain_losses(self.analysis, lost, impact, capped)
        gone = power_losses(self.analysis, lost, impact)
        if caps is not None:
            chain_caps(self.analysis, caps, gone, impact)
        cooling_losses(self.analysis, lost, gone, impact, self._air_before(), self.liquid)
        impact.one_path = one_path(self.analysis, gone)
        return gone

    def rank(
        self, kind: str, *, findings: bool = False, given: Sequence[Failure] = ()
    ) -> list[Impact]:
        """Every single failure of ``kind``, worst first: by GPUs lost, then the bisection
        left, then cooling, power and power chain shortfalls, then the GPUs left without
        redundancy or not judged; ties in layout order. ``findings``: each failure's new
        findings too (the rules run again where the failure changed the layout: about a
        check per failure where it takes a whole side). ``given``: what every failure runs
        with (warmer water). Reports its progress (:mod:`rackdesigner.model.progress`: the
        command line's bar)."""
        todo = candidates(self.analysis, kind)
        impacts = [
            self.run([*given, failure], findings=findings)
            for failure in each(todo, f"failing each {kind}")
        ]
        order = {id(impact): number for number, impact in enumerate(impacts)}

        def key(impact: Impact) -> tuple[Any, ...]:
            ratio = impact.worst_bisection
            return (
                -impact.gpus_lost,
                # Rounded: a flow derived from the fabric before and one built again agree
                # to the last few bits, and ties must fall the same way.
                round(ratio, 9) if ratio is not None else 1.0,
                -(impact.storage.gpus_cut_off if impact.storage else 0),
                round(impact.storage.read_ratio or 0.0, 9) if impact.storage else 1.0,
                -sum(c.over for c in impact.cooling),
                -sum(p.over for p in impact.power),
                -impact.chain_over,
                -impact.gpus_one_path,
                -sum(n.gpus for n in impact.not_rated),
                order[id(impact)],
            )

        return sorted(impacts, key=key)

    def _air_before(self) -> float:
        """The room's air heat with nothing failed: the racks' less what in-row coolers take
        (as COOL006 counts it)."""
        if self._air is None:
            from rackdesigner.analysis.liquid import inrow_taken

            taken = inrow_taken(self.analysis)
            self._air = sum(r.air_heat for r in self.analysis.racks) - sum(taken.values())
        return self._air

    # -- findings --------------------------------------------------------------------------

    def _findings(self, lost: Lost, gone: Gone) -> list[Diagnostic]:
        """The failed layout's findings that the layout has not: the layout is checked once
        (its findings kept per scope), each failed layout only where it differs
        (:mod:`rackdesigner.whatif.incremental`), with the parts it keeps failed marked in
        its analysis."""
        from rackdesigner.analysis import Analysis, Like
        from rackdesigner.whatif.failed import cables_of, failed_state
        from rackdesigner.whatif.incremental import Baseline, Incremental, Ports, grouped_check

        layout = self.analysis.layout
        if self._checked is None:
            self._checked = Baseline.of(grouped_check(self.analysis), self.analysis)
        if self._cables is None:
            self._cables = cables_of(layout)
        if self._ports is None:
            self._ports = Ports(layout, self._cables)
        state = failed_state(self.analysis, lost, gone, self._cables)
        plan = Incremental(
            layout,
            state.layout,
            touched=state.touched,
            kept=state.kept,
            cables=self._cables,
            cut=state.cut,
            down=state.failed.devices,
            ports=self._ports,
        )
        # The failed layout's analysis shares the layout's where the failure leaves it alone.
        like = Like(self.analysis, state.touched, state.kept)
        if not lost.links:  # its fabrics too: the layout's less what went down
            like = self._derived_fabrics(like, state)
        failed = Analysis(state.layout, failed=state.failed, like=like)
        new = plan.check(failed, before=self._checked).new_findings(self._checked, state.layout)
        # The cable plant refers back to its analysis: without the cycle the failed
        # analysis goes now, not at a collection (``whatif`` pauses the collector).
        failed._plant = None
        return new

    def _derived_fabrics(self, like: Like, state: FailedState) -> Like:
        """``like`` with the failed layout's fabrics and storage facts derived from the
        layout's (:mod:`.fabric_derived`): ``state`` took only the cables of the devices
        down."""
        from rackdesigner.whatif.fabric_derived import FabricDerivation

        assert self._cables is not None
        if self._derivation is None:
            self._derivation = FabricDerivation(self.analysis, self._cables)
        derivation = self._derivation
        down = state.failed.devices
        fresh = like.fresh(state.layout, state.failed)
        return replace(
            like,
            fabrics=lambda failed: derivation.fabrics(failed, down, fresh),
            storage=lambda _failed: derivation.storage(down),
        )
