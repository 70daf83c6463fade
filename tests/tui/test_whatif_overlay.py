"""A what-if shown over the layout, without Textual: the problems panel's lines are the
command line's text, and the notice is whole in three lines of an 80-column screen
however much a failure takes."""

from __future__ import annotations

import textwrap

from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.tui.overlays import NOTICE_MARGIN, NOTICE_WIDTH, shading_of
from rackdesigner.whatif.parts import Failure
from rackdesigner.whatif.render import impact_text
from rackdesigner.whatif.results import CoolingLoss, DeviceLoss, FabricImpact, Impact, PowerShort

LINES = 3  # notices.NOTICE_LINES (that module is Textual's)


def _worst() -> Impact:
    """A failure that takes a lot, named by a long part: 40 nodes down (8 GPUs each,
    320 GPUs), a feed tripped, a CDU group short, a fabric cut, 12 findings."""
    down = [
        DeviceLoss(f"row-b-rack-{i:02d}-gpu-node-{i:03d}", f"b{i:02d}", "gpu-node", 8, 4, 0, 2, "x")
        for i in range(40)
    ]
    fabric = FabricImpact(
        "compute-fabric-east",
        8192,
        96,
        12,
        16384,
        640,
        40,
        ["n1", "n2"],
        16,
        7856,
        ["n3"],
        3.2e14,
        2.4e14,
        4.0e11,
        3.9e11,
    )
    findings = [
        Diagnostic("PWR001", "error" if i % 2 else "warning", "over", entity=f"rack b{i:02d}")
        for i in range(11)
    ] + [Diagnostic("NET007", "info", "busbw", entity="fabric compute-fabric-east")]
    return Impact(
        [Failure("link", "row-b-rack-07-gpu-node-031:ib-compute-7 -> spine-east-12:p61")],
        down=down,
        power=[PowerShort("b01", "A", 60_000.0, 36_200.0, "b01-A1")],
        cooling=[CoolingLoss(("b01", "b02"), "CDU cdu-b1 lost", 250_000.0, 120_000.0, True)],
        fabrics=[fabric],
        findings=findings,
    )


def test_the_notice_fits_three_lines_of_80_columns() -> None:
    """The full wording is 280 characters here, over three lines of 76 (228); the one
    chosen drops the GPUs' split (320 down, 0 degraded, 16 cut off) and keeps the other
    figures, the findings by severity (odd ones errors: 5 of 11) and where the rest is."""
    shading = shading_of("link:row-b-rack-07-gpu-node-031:ib-compute-7", _worst(), {})
    notice = shading.notice(LINES)
    assert len(textwrap.wrap(notice, NOTICE_WIDTH - NOTICE_MARGIN)) <= LINES
    assert "336 GPUs lost; bisection 75% left; cooling 130 kW short" in notice  # 320 + 16
    assert "12 new findings (5 errors, 6 warnings, 1 info)" in notice
    assert notice.endswith("in the problems panel · esc clears")


def test_a_harmless_failure_says_so() -> None:
    shading = shading_of("feed:a01/a01-A", Impact([Failure("feed", "a01/a01-A")], findings=[]), {})
    assert shading.notice(LINES) == (
        "What if feed:a01/a01-A fails: nothing is lost, no new finding · esc clears"
    )


def test_one_finding_is_it() -> None:
    """One new finding is "it", and "1 warning"."""
    found = [Diagnostic("PWR001", "warning", "redundancy lost", entity="rack a04")]
    impact = Impact([Failure("feed", "a04/a04-A1")], findings=found)
    assert shading_of("feed:a04/a04-A1", impact, {}).notice(LINES) == (
        "What if feed:a04/a04-A1 fails: 0 GPUs lost; 1 new finding (1 warning): the problems "
        "panel lists it with what is lost · esc clears"
    )


def test_the_panel_lines_are_the_command_lines_text() -> None:
    """Headings and findings, read back as ``impact_text`` prints them: every line, the
    findings in their order (none of the text's "… and N more")."""
    impact = _worst()
    groups = shading_of("x", impact, {}).groups()
    lines = []
    for heading, items in groups:
        lines.append(heading)
        lines += [f"    {d.severity} {d.code} {d.entity}: {d.message}" for d in items]
    assert "\n".join(lines) + "\n" == impact_text(impact)
    (found,) = [items for _, items in groups if items]
    assert found == impact.findings


def test_a_what_if_and_a_scan_are_pinned_together() -> None:
    """A scan's differences stay pinned under a what-if's scenario (not replaced), and come
    back alone when the what-if is cleared."""
    from rackdesigner.tui.controllers.verify import pin_overlay
    from rackdesigner.tui.overlays import Verified, VerifyRequest
    from rackdesigner.tui.workspace import Workspace
    from tests.tui.fake_ui import FakeUI

    workspace = Workspace()
    ui = FakeUI(workspace)
    workspace.verified = Verified(VerifyRequest("scan.txt", "ibnetdiscover"), [], 3)
    impact = Impact([Failure("side", "A")], findings=[Diagnostic("PWR001", "warning", "lost")])
    workspace.shaded = shading_of("side:A", impact, {})
    pin_overlay(workspace, ui)  # type: ignore[arg-type]
    title, groups = ui.pinned
    assert title == "What if side:A fails: 1 new finding · Scan scan.txt: as designed (3 cables)"
    assert [heading for heading, _ in groups][:2] == [
        "What if side:A fails:",
        "  GPUs: 0 down, 0 degraded (power-capped), 0 cut off",
    ]
    workspace.shaded = None
    pin_overlay(workspace, ui)  # type: ignore[arg-type]
    assert ui.pinned == ("Scan scan.txt: as designed (3 cables)", [])


def test_warmer_water_is_said_as_a_condition_not_a_part_that_fails() -> None:
    """warmer-water:3K with cdu:c1: the header, the panel's title and the notice say "cdu:c1
    fails, on facility water 3 K warmer" as the command line's first line does, never
    "warmer-water:3K fails"; alone, "the facility water is 3 K warmer"."""
    both = Impact([Failure("cdu", "c1")], findings=[], warmer=3.0)
    shading = shading_of("cdu:c1", both, {})
    said = "cdu:c1 fails, on facility water 3 K warmer"
    assert shading.figures.startswith(f"what if {said}: ")
    assert shading.title.startswith(f"What if {said}: ")
    assert shading.notice(LINES).startswith(f"What if {said}: ")
    alone = shading_of("warmer-water:3K", Impact([], findings=[], warmer=3.0), {})
    assert alone.title == "What if the facility water is 3 K warmer: 0 new findings"
    assert alone.notice(LINES).startswith("What if the facility water is 3 K warmer: ")
