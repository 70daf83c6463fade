"""``g``: generate a fabric for the selected GPU nodes (no selection: all of them).

Choose the generator, the port speed (it narrows the switch lists to the catalog's switches
of that speed that fit the nodes), the leaf, spine and core models, the oversubscription and
the scalable unit where the generator takes them, and whether the fabric is redundant (each
node's ports over two leaves, two spines or more; on by default). Every change previews the
plan (switches, cables by medium, racks added) in a worker thread; a request the generator
refuses shows its reason here. Enter applies the previewed plan; the app makes it one undoable step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Checkbox, Input, Label, Select, Static

from rackdesigner.design.fabric_choices import (
    OPTIONS,
    SUMMARIES,
    Nodes,
    Preview,
    SwitchOption,
    default_fabric,
    default_leaf,
    dialog_wording,
    fitting_switches,
    parse_ratio,
    preview,
    speeds,
)
from rackdesigner.design.generators import FABRICS, FabricRequest, GenerateError, generate
from rackdesigner.model.wording import plural
from rackdesigner.tui import safe
from rackdesigner.tui.screens.choice import Choice, Tick

if TYPE_CHECKING:
    from rackdesigner.design.generators import FabricPlan
    from rackdesigner.layout_io.catalog import Catalog
    from rackdesigner.model.layout import Layout

SAME = "same"  # the spine's "same as the leaf", the core's "same as the spine"
ANY = 0.0  # the speed filter's "any speed"
PREVIEW_AFTER_S = 0.15  # typing settles before a preview starts


@dataclass(frozen=True, slots=True)
class GenerateResult:
    request: FabricRequest
    plan: FabricPlan
    preview: Preview
    seconds: float  # how long the generator took


class PreviewDone(Message):
    """The preview worker's plan (or why there is none) for request number ``token``."""

    def __init__(
        self,
        token: int,
        request: FabricRequest,
        plan: FabricPlan | None,
        error: str | None,
        seconds: float,
    ) -> None:
        self.token = token
        self.request = request
        self.plan = plan
        self.error = error
        self.seconds = seconds
        super().__init__()


class GenerateScreen(ModalScreen[GenerateResult | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="generate-cancel"),
        Binding("enter", "apply", "apply", id="generate-apply"),
    ]

    def __init__(self, layout: Layout, catalog: Catalog, nodes: Nodes) -> None:
        super().__init__(classes="dialog-screen")
        self.design = layout
        self.catalog = catalog
        self.nodes = nodes
        self.switches: list[SwitchOption] = fitting_switches(catalog, nodes.tech)
        self.result: GenerateResult | None = None
        self.error: str | None = None
        self.pending: FabricRequest | None = None  # the request being previewed
        self.apply_when_ready = False
        self._timer: Timer | None = None
        self._token = 0
        self.preview_seconds: float | None = None

    # -- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        fabric = default_fabric(self.nodes)
        speed_values = speeds(self.switches)
        speed = self.nodes.speed if self.nodes.speed in speed_values else ANY
        leaf = default_leaf(self.switches, self.nodes, None if speed == ANY else speed)
        with Vertical(classes="dialog wide", id="generate-dialog"):
            yield Static("Generate fabric", classes="dialog-title")
            yield Static(self._nodes_line(), id="generate-nodes", classes="generate-nodes")
            with Horizontal(classes="generate-line", id="line-fabric"):
                yield Label("generator", classes="generate-key")
                yield Choice(
                    [(f"{name} · {SUMMARIES[name]}", name) for name in FABRICS],
                    value=fabric,
                    allow_blank=False,
                    id="generate-fabric",
                    compact=True,
                )
            with Horizontal(classes="generate-line", id="line-speed"):
                yield Label("speed", classes="generate-key")
                yield Choice(
                    [("any speed", ANY), *((f"{s / 1e9:g} Gbps", s) for s in speed_values)],
                    value=speed,
                    allow_blank=False,
                    id="generate-speed",
                    compact=True,
                )
            for tier, blank in (
                ("leaf", None),
                ("spine", "same as leaf"),
                ("core", "same as spine"),
            ):
                with Horizontal(classes="generate-line", id=f"line-{tier}"):
                    yield Label(tier, classes="generate-key")
                    yield Choice(
                        self._switch_options(speed, blank),
                        value=leaf if blank is None and leaf else SAME,
                        allow_blank=False,
                        id=f"generate-{tier}",
                        compact=True,
                    )
            with Horizontal(classes="generate-line", id="line-oversubscription"):
                yield Label("oversub.", classes="generate-key")
                yield Input(
                    "1:1",
                    placeholder="down:up, e.g. 1:1, 2:1",
                    id="generate-oversubscription",
                    compact=True,
                )
            with Horizontal(classes="generate-line", id="line-su_nodes"):
                yield Label("SU nodes", classes="generate-key")
                yield Input(
                    id="generate-su-nodes",
                    compact=True,
                    type="integer",
                    placeholder="half the leaf's ports",
                )
            with Horizontal(classes="generate-line", id="line-flags"):
                yield Tick("allow new racks", True, id="generate-new-racks", compact=True)
                yield Tick("replace existing links", False, id="generate-replace", compact=True)
                yield Tick("redundant", True, id="generate-redundant", compact=True)
            with VerticalScroll(id="generate-preview-box", can_focus=False):
                yield Static("", id="generate-preview")
            yield Static(
                "tab next · space or ↓ opens a list · enter applies · escape cancels",
                id="generate-hint",
                classes="dialog-message",
            )

    def _nodes_line(self) -> Text:
        n = self.nodes
        which = "selected" if n.from_selection else "all (no selection)"
        text = Text(f"{plural(len(n.ids), 'GPU node')}, {plural(n.gpus, 'GPU')} · {which}")
        if n.speed:
            text.append(f" · compute ports {n.speed / 1e9:g} Gbps {n.tech or 'infiniband'}")
        if n.ignored:
            ignored = len(n.ignored)
            verb = "is no GPU node" if ignored == 1 else "are no GPU nodes"
            text.append(f" · {plural(ignored, 'selected device')} {verb}", style="dim")
        return text

    def _switch_options(self, speed: float, blank: str | None) -> list[tuple[str, str]]:
        shown = [s for s in self.switches if speed == ANY or s.speed == speed]
        options = [(s.describe(), s.key) for s in shown]
        if blank is not None:
            options.insert(0, (blank, SAME))
        return options

    def on_mount(self) -> None:
        self._show_fields()
        self.query_one("#generate-fabric", Select).focus()
        if not self.nodes.ids:
            self._show_error("no GPU nodes to cable: place GPU nodes first")
            return
        if not self.switches and default_fabric(self.nodes) != "direct":
            self._show_error(
                f"the catalog has no {self.nodes.tech or 'infiniband'} switch for these nodes"
            )
        self._start_preview()  # the defaults' plan at once; later changes settle first

    def _show_fields(self) -> None:
        fabric = str(self.query_one("#generate-fabric", Select).value)
        takes = OPTIONS.get(fabric, ())
        for name in ("leaf", "spine", "core", "oversubscription", "su_nodes"):
            self.query_one(f"#line-{name}").display = name in takes
        self.query_one("#line-speed").display = "leaf" in takes
        self.query_one("#generate-redundant").display = "redundant" in takes

    # -- changes ------------------------------------------------------------------------

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "generate-fabric":
            self._show_fields()
        elif event.select.id == "generate-speed":
            self._refill_switches()
        self._schedule()

    def _refill_switches(self) -> None:
        value = self.query_one("#generate-speed", Select).value
        speed = float(value) if isinstance(value, int | float) else ANY
        leaf = self.query_one("#generate-leaf", Select)
        current = leaf.value
        leaf.set_options(self._switch_options(speed, None))
        keys = [s.key for s in self.switches if speed == ANY or s.speed == speed]
        if current in keys:
            leaf.value = current
        else:
            chosen = default_leaf(self.switches, self.nodes, None if speed == ANY else speed)
            if chosen:
                leaf.value = chosen
        for tier, blank in (("spine", "same as leaf"), ("core", "same as spine")):
            select = self.query_one(f"#generate-{tier}", Select)
            old = select.value
            select.set_options(self._switch_options(speed, blank))
            select.value = old if old in keys else SAME

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._schedule()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._schedule()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    # -- the request and its preview ----------------------------------------------------

    def request(self) -> FabricRequest:
        """The request the fields describe; GenerateError says what is wrong with them."""
        fabric = str(self.query_one("#generate-fabric", Select).value)
        takes = OPTIONS.get(fabric, ())

        def model(tier: str) -> str | None:
            value = self.query_one(f"#generate-{tier}", Select).value
            if tier not in takes or value is Select.NULL or value == SAME:
                return None
            return str(value)

        ratio = 1.0
        if "oversubscription" in takes:
            try:
                ratio = parse_ratio(self.query_one("#generate-oversubscription", Input).value)
            except ValueError as error:
                raise GenerateError(f"oversubscription: {error}") from None
        su_nodes = None  # the generator's default: half the leaf's ports (32 on a QM9700)
        text = self.query_one("#generate-su-nodes", Input).value.strip()
        if "su_nodes" in takes and text:
            if not text.isdigit() or int(text) < 1:
                raise GenerateError(f"SU nodes: {text or '(empty)'} is not a count of nodes")
            su_nodes = int(text)
        # Ticked: the generators' default (redundant wherever it can be); else off.
        redundant = None
        if "redundant" in takes and not self.query_one("#generate-redundant", Checkbox).value:
            redundant = False
        return FabricRequest(
            fabric=fabric,
            nodes=self.nodes.ids if self.nodes.from_selection else None,
            leaf=model("leaf"),
            spine=model("spine"),
            core=model("core"),
            oversubscription=ratio,
            su_nodes=su_nodes,
            new_racks=self.query_one("#generate-new-racks", Checkbox).value,
            replace=self.query_one("#generate-replace", Checkbox).value,
            redundant=redundant,
        )

    def _schedule(self) -> None:
        self.result = None
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(PREVIEW_AFTER_S, self._start_preview)
        self._set_preview(Text("previewing…", style="dim"))

    def _start_preview(self) -> None:
        self._timer = None
        try:
            request = self.request()
        except GenerateError as error:
            self._show_error(str(error))
            return
        self._token += 1
        self.pending = request
        self.error = None
        self.preview_worker(request, self._token)

    @work(thread=True, exclusive=True, group="fabric-preview")
    def preview_worker(self, request: FabricRequest, token: int) -> None:
        """The generator reads the whole layout (and analyses it): off the UI thread."""
        began = time.perf_counter()
        plan: FabricPlan | None = None
        error: str | None = None
        try:
            plan = generate(self.design, request)
            if self.design.pathways:  # media by the routes along them, as `new` chooses
                from rackdesigner.design.cable_plant import plan_by_route

                plan_by_route(self.design, plan)
        except GenerateError as problem:
            error = str(problem)
        except Exception as problem:  # a generator bug: one line here, never a traceback
            error = f"the generator failed: {type(problem).__name__}: {problem}"
        seconds = time.perf_counter() - began
        self.post_message(PreviewDone(token, request, plan, error, seconds))

    @on(PreviewDone)
    def _preview_done(self, event: PreviewDone) -> None:
        token, request, plan, error, seconds = (
            event.token,
            event.request,
            event.plan,
            event.error,
            event.seconds,
        )
        if token != self._token or not self.is_attached:
            return  # a newer request is on its way
        self.pending = None
        self.preview_seconds = seconds
        if plan is None:
            self.apply_when_ready = False
            self._show_error(error or "the generator gave no plan")
            return
        shown = preview(plan, self.catalog)
        self.result = GenerateResult(request, plan, shown, seconds)
        text = Text()
        for index, line in enumerate(shown.lines()):
            if index:
                text.append("\n")
            text.append(safe.plain(line), style="yellow" if line.startswith("⚠") else "")
        text.append("\nenter applies it as one step (ctrl+z undoes)", "dim")
        self._set_preview(text)
        if self.apply_when_ready:
            self.action_apply()

    def _set_preview(self, text: Text) -> None:
        self.query_one("#generate-preview", Static).update(text)

    def _show_error(self, message: str) -> None:
        self.error = dialog_wording(message)
        self.result = None
        self._set_preview(safe.text(f"✖ {self.error}", style="bold red"))

    # -- answers ------------------------------------------------------------------------

    def action_apply(self) -> None:
        if self.result is not None:
            self.dismiss(self.result)
            return
        if self.pending is not None or self._timer is not None:
            self.apply_when_ready = True  # applied as soon as the preview is in
            return
        if self.error:
            self._show_error(self.error)

    def action_cancel(self) -> None:
        self.dismiss(None)
