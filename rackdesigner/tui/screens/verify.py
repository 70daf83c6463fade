"""Verify against scan: the dialog that asks for the scan, and the worker's message.

Enter accepts from any field; the form is taken from the path (a folder or a ``.json`` file
is ``lldpctl -f json``, anything else ``ibnetdiscover`` output) unless chosen; Escape
cancels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from rackdesigner.asbuilt import KINDS
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.wording import plural
from rackdesigner.tui import safe
from rackdesigner.tui.findings import worst
from rackdesigner.tui.screens.choice import Choice, Tick

if TYPE_CHECKING:
    from rackdesigner.asbuilt import Finding
    from rackdesigner.tui.findings import Ref

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
SEVERITY = {
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


class VerifyDone(Message):
    """The scan is read and compared (``findings``, ``checked`` cables), or could not be
    read (``error``: the file, line and reason)."""

    def __init__(
        self,
        token: object,
        request: VerifyRequest,
        findings: list[Finding] | None,
        checked: int,
        error: str | None,
    ) -> None:
        self.token = token
        self.request = request
        self.findings = findings
        self.checked = checked
        self.error = error
        super().__init__()


class VerifyScreen(ModalScreen[VerifyRequest | None]):
    """The scan's path, its form, a node-name map, and whether to compare the rate."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="verify-cancel"),
        # Enter on the form's list or the checkbox accepts too (a field submits itself).
        Binding("enter", "accept", "verify", show=False, id="verify-accept"),
    ]

    def __init__(self, default: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="verify-dialog"):
            yield Static("Verify against scan", classes="dialog-title")
            yield Static("Scan file (ibnetdiscover output, or lldpctl -f json: file or folder)")
            yield Input(safe.plain(self.default), id="verify-scan")
            yield Choice(
                [(text, key) for key, text in FORMS],
                value="auto",
                allow_blank=False,
                id="verify-form",
            )
            yield Static('Node-name map (optional: 0x<guid> "name" per line)')
            yield Input("", id="verify-names")
            yield Tick("compare link width only, not the rate (ibsim)", id="verify-width")
            yield Static(
                "enter verifies · the layout is not changed · escape cancels",
                id="verify-hint",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        self.query_one("#verify-scan", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def action_accept(self) -> None:
        scan = safe.typed(self.query_one("#verify-scan", Input).value, self.default).strip()
        if not scan:
            self.show_error("give the scan's path")
            return
        if not Path(scan).exists():
            self.show_error(f"{scan}: no such file or folder")
            return
        names = self.query_one("#verify-names", Input).value.strip()
        if names and not Path(names).is_file():
            self.show_error(f"{names}: no such file")
            return
        chosen = str(self.query_one("#verify-form", Choice).value)
        speed = not self.query_one("#verify-width", Tick).value
        self.dismiss(VerifyRequest(scan, form_of(scan, chosen), names, speed))

    def show_error(self, message: str) -> None:
        hint = self.query_one("#verify-hint", Static)
        hint.update(safe.content(f"✖ {message}"))
        hint.add_class("-error")

    def action_cancel(self) -> None:
        self.dismiss(None)
