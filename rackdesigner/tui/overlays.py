"""What the designer shows over a layout and never writes into it: a scan's differences
(Verify against scan) and a what-if's shading. No Textual here: the workspace holds them,
the screens and views draw them.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rackdesigner.asbuilt import KINDS
from rackdesigner.model.diagnostics import Diagnostic, Severity
from rackdesigner.model.wording import plural
from rackdesigner.tui.findings import worst

if TYPE_CHECKING:
    from rackdesigner.asbuilt import Finding
    from rackdesigner.tui.findings import Ref
    from rackdesigner.whatif import Impact

# The narrowest screen a notice is fitted to, and the columns its border and padding take.
NOTICE_WIDTH = 80
NOTICE_MARGIN = 4

FORMS = (
    ("auto", "from the path (a folder or .json: LLDP)"),
    ("ibnetdiscover", "ibnetdiscover output (InfiniBand)"),
    ("lldp", "lldpctl -f json (Ethernet)"),
)


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    scan: str
    form: str  # "ibnetdiscover" or "lldp"
    names: str = ""  # a node-name map's path ("" none)
    speed: bool = True  # compare the rate too (not only the width)


def form_of(path: str, chosen: str = "auto") -> str:
    """The scan's form: as chosen, else a folder or a ``.json`` file is LLDP."""
    if chosen != "auto":
        return chosen
    target = Path(path)
    return "lldp" if target.is_dir() or target.suffix.lower() == ".json" else "ibnetdiscover"


# The problems panel's code for a scan's difference (its groups say which kind).
CODE = "VERIFY"

# How each kind is marked: a cable to move or to lay is an error, one more than designed
# or a device not named a warning, a slow link advice.
SEVERITY: dict[str, Severity] = {
    "missing": "error",
    "miswired": "error",
    "swapped": "error",
    "extra": "warning",
    "unknown-device": "warning",
    "speed": "info",
}
HEADINGS = {
    "missing": "missing: designed cables not seen",
    "miswired": "miswired: one end elsewhere",
    "swapped": "swapped: two cables crossed",
    "extra": "extra: seen, not designed",
    "unknown-device": "unknown devices: no name matches",
    "speed": "speed: slower or narrower than designed",
}


def diagnostic_of(finding: Finding) -> Diagnostic:
    """A difference as the problems panel lists it; choosing it goes to the end to work
    on."""
    from rackdesigner.model.refs import Ref

    at = finding.at
    entity = f"link {finding.cable}" if finding.cable else f"device {at.device}"
    unit = f" U{at.unit}" if at.unit is not None else ""
    where = f"{at.rack}{unit} {at.face}".strip()
    return Diagnostic(
        CODE,
        SEVERITY.get(finding.kind, "warning"),
        f"{finding.kind}: {finding.message}" + (f" ({where})" if where else ""),
        entity=entity,
        subject=Ref("device", at.device) if at.device else None,
    )


@dataclass(slots=True)
class Verified:
    """A scan's differences, shown over the layout (never part of it)."""

    request: VerifyRequest
    findings: list[Finding]
    checked: int  # designed cables compared
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.diagnostics:
            self.diagnostics = [diagnostic_of(f) for f in self.findings]

    @property
    def title(self) -> str:
        name = Path(self.request.scan).name
        if not self.findings:
            return f"Scan {name}: as designed ({plural(self.checked, 'cable')})"
        return f"Scan {name}: {plural(len(self.findings), 'difference')} · w: work order"

    def groups(self) -> list[tuple[str, list[Diagnostic]]]:
        """One group per kind, in the work order's order of kinds."""
        out = []
        for kind in KINDS:
            rows = [
                d for f, d in zip(self.findings, self.diagnostics, strict=True) if f.kind == kind
            ]
            if rows:
                out.append((f"{HEADINGS[kind]} · {len(rows)}", rows))
        return out

    def devices(self) -> dict[str, str]:
        """Every designed device a difference names (either end), with its worst mark."""
        out: dict[str, str] = {}
        for finding in self.findings:
            severity = SEVERITY.get(finding.kind, "warning")
            for port in (finding.at, *finding.ends):
                if port.device:
                    out[port.device] = worst((severity, out.get(port.device, "info"))) or severity
        return out

    def marks(self) -> list[tuple[Ref, str]]:
        """(device, severity) for the racks view's marks."""
        return [(("device", device), mark) for device, mark in self.devices().items()]

    def csv(self) -> str:
        """The technician's sheet: ``rackdesigner verify --format csv``'s."""
        from rackdesigner.asbuilt.report import render

        return render(self.findings, "csv", self.checked)


@dataclass(slots=True)
class Shading:
    """A what-if shown over the layout (never part of it)."""

    part: str
    impact: Impact
    shade: dict[str, str] = field(default_factory=dict)  # device -> down / degraded / cut off
    where: dict[str, str] = field(default_factory=dict)  # device -> rack

    @property
    def figures(self) -> str:
        """The header's line: GPUs lost, the fabric left, what to press."""
        from rackdesigner.whatif.render import summary

        impact = self.impact
        parts = [f"what if {self.scenario}: {summary(impact)}"]
        if impact.down:
            parts.append(f"{plural(len(impact.down), 'device')} down")
        for fabric in impact.fabrics:
            if fabric.switches_lost or fabric.cables_lost:
                parts.append(
                    f"{fabric.name}: {plural(fabric.switches_lost, 'switch', 'switches')}, "
                    f"{plural(fabric.cables_lost, 'cable')} lost, largest job "
                    f"{fabric.largest_gpus} of {plural(fabric.gpus, 'GPU')}"
                )
        if impact.findings:
            parts.append(plural(len(impact.findings), "new finding"))
        if impact.harmless:
            parts.append("nothing is lost")
        parts.append("esc clears")
        return " · ".join(parts)

    @property
    def scenario(self) -> str:
        """What is asked, after "what if": the part as chosen (``side:A fails``); with
        warmer water, the command line's words (a condition, not a part that fails)."""
        if not self.impact.warmer:
            return f"{self.part} fails"
        from rackdesigner.whatif.render import title

        return title(self.impact)

    @property
    def title(self) -> str:
        """The problems panel's title while the what-if is shown."""
        found = self.impact.findings or ()
        return f"What if {self.scenario}: {plural(len(found), 'new finding')}"

    def groups(self) -> list[tuple[str, list[Diagnostic]]]:
        """The scenario as ``rackdesigner whatif --fail`` prints it, for the problems
        panel: its lines as headings, and under "new findings" the findings themselves
        (each a line that goes to its entity), in the command line's order."""
        from rackdesigner.whatif.render import impact_lines

        found = list(self.impact.findings or ())
        out: list[tuple[str, list[Diagnostic]]] = []
        # Listed 0: the findings' block is its count line and "… and N more", which the
        # findings' own lines replace here.
        for line in impact_lines(self.impact, findings_listed=0):
            if line.startswith("  new findings:"):
                out.append((line, found))
            elif not (line.startswith("    … and") and out and out[-1][1] is found):
                out.append((line, []))
        return out

    def notice(self, lines: int, width: int = NOTICE_WIDTH) -> str:
        """The notice: the figures and where the rest is, in at most ``lines`` lines of
        a ``width``-column screen, whole (the problems panel has the whole scenario)."""
        from rackdesigner.whatif.render import summary

        impact = self.impact
        if impact.harmless:
            return f"What if {self.scenario}: nothing is lost, no new finding · esc clears"
        found = impact.findings or []
        counts = Counter(d.severity for d in found)
        kinds = ", ".join(plural(counts[s], s) for s in ("error", "warning", "info") if counts[s])
        if found:
            them = "it" if len(found) == 1 else "them"
            news = f"{plural(len(found), 'new finding')} ({kinds})"
            wheres = [
                f"{news}: the problems panel lists {them} with what is lost",
                f"{news} in the problems panel",
            ]
        else:
            wheres = ["no new finding: the problems panel lists what is lost"]
        said = summary(impact)
        # Shorter: the GPUs lost without their split, then without the other figures.
        gpus, *others = said.split("; ")
        lost = gpus.split(" (")[0]
        tries = [
            f"What if {self.scenario}: {head}; {where} · esc clears"
            for head in (said, "; ".join([lost, *others]), lost)
            for where in wheres
        ]
        room = max(width - NOTICE_MARGIN, 20)
        for text in tries:
            if len(textwrap.wrap(text, room)) <= lines:
                return text
        return textwrap.shorten(tries[-1], room * lines, placeholder=" …")


def shading_of(part: str, impact: Impact, rack_of: dict[str, str]) -> Shading:
    """Which devices to shade how: down, degraded (power-capped, or a rail cut), cut off
    from their fabric's largest part or from the parallel file system."""
    shading = Shading(part, impact)
    for loss in impact.down:
        shading.shade[loss.id] = "down"
        shading.where[loss.id] = loss.rack
    for loss in impact.degraded:
        shading.shade.setdefault(loss.id, "degraded")
        shading.where[loss.id] = loss.rack
    for fabric in impact.fabrics:
        for node in fabric.cut_off:
            shading.shade.setdefault(node, "cut off")
        for node in fabric.rails_cut:
            shading.shade.setdefault(node, "degraded")
    for node in impact.storage.cut_off if impact.storage is not None else ():
        shading.shade.setdefault(node, "cut off")  # from the parallel file system
    for device in shading.shade:
        if device not in shading.where and device in rack_of:
            shading.where[device] = rack_of[device]
    return shading
