"""``l``: connect two ports. Each end is a device (searchable by typing) and one of its free
ports; the cable's length is computed as the cabling rules compute it and the medium is
proposed from it by CAB003's reach table. Media and length stay editable; Enter connects.

The dialog only asks (every figure comes from :mod:`rackdesigner.design.connect`); the app turns
the answer into one ``AddLink``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from rackdesigner.analysis.reach import link_tech
from rackdesigner.design.connect import (
    PortChoice,
    Proposal,
    free_ports,
    has_free_port,
    link_form,
    link_speed,
    proposal,
    propose_media,
    rank_ports,
    search_devices,
    speed_text,
)
from rackdesigner.layout_io.schema import LINK
from rackdesigner.tui import safe
from rackdesigner.tui.screens.choice import Choice

if TYPE_CHECKING:
    from rackdesigner.edit import LayoutIndex
    from rackdesigner.model.layout import Layout

MEDIA = next(f.choices for f in LINK if f.key == "media")
SHOWN_DEVICES = 200


@dataclass(frozen=True, slots=True)
class ConnectRequest:
    a: str
    b: str
    media: str | None
    length: str | None  # the declared length as typed; None: computed from the geometry


def _length_text(length: float | None) -> str:
    return "" if length is None else f"{length:.1f} m"


class ConnectScreen(ModalScreen[ConnectRequest | None]):
    """End A (preselected: the device under the cursor), end B, media and length."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="connect-cancel"),
        Binding("enter", "accept", "connect", id="connect-accept"),
    ]

    def __init__(self, layout: Layout, index: LayoutIndex, device: str | None) -> None:
        super().__init__(classes="dialog-screen")
        self.design = layout
        self.index = index
        self.cursor = device  # lists start near it
        # The device under the cursor is end A when it has a port to give.
        self.start = device if device and has_free_port(index, device) else None
        self.devices: dict[str, str | None] = {"a": None, "b": None}
        self.ports: dict[str, list[PortChoice]] = {"a": [], "b": []}
        self.port: dict[str, PortChoice | None] = {"a": None, "b": None}
        self.proposed: Proposal | None = None
        self.media_touched = False
        self.length_touched = False
        self._media_shown: str | None = None
        self._length_shown = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="connect-dialog"):
            yield Static("Connect ports", classes="dialog-title")
            with Horizontal(id="connect-ends"):
                for end, title in (("a", "End A"), ("b", "End B")):
                    with Vertical(classes="connect-end", id=f"connect-end-{end}"):
                        yield Label(title, classes="connect-end-title")
                        yield Input(
                            self.start or "" if end == "a" else "",
                            placeholder="type a device id",
                            id=f"connect-{end}-search",
                            compact=True,
                        )
                        yield OptionList(id=f"connect-{end}-devices", compact=True)
                        yield OptionList(id=f"connect-{end}-ports", compact=True)
            with Horizontal(id="connect-cable"):
                yield Label("media", classes="connect-key")
                yield Choice(
                    [(m, m) for m in MEDIA],
                    allow_blank=True,
                    prompt="none",
                    id="connect-media",
                    compact=True,
                )
                yield Label("length", classes="connect-key")
                yield Input(placeholder="computed", id="connect-length", compact=True)
            yield Static("", id="connect-status", classes="dialog-message")
            yield Static(
                "type to search · tab next · ↑↓ choose · enter connects · escape cancels",
                id="connect-hint",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        self._search("a", self.start or "")
        self._search("b", "")
        # With end A chosen (the device under the cursor) the next thing to give is end B.
        target = "#connect-b-search" if self.devices["a"] else "#connect-a-search"
        self.query_one(target, Input).focus()

    # -- choosing ---------------------------------------------------------------------

    def _search(self, end: str, query: str) -> None:
        other = self.devices["b" if end == "a" else "a"]
        near = other if end == "b" and other else self.cursor
        found, more = search_devices(
            self.index,
            query,
            near=near,
            exclude=[other] if other else [],
            limit=SHOWN_DEVICES,
        )
        options = [Option(device, id=device) for device in found]
        if more:
            more_line = Text("… more: type to narrow", style="dim")
            options.append(Option(more_line, id="", disabled=True))
        self._fill(f"#connect-{end}-devices", options, "no device with a free port matches")
        self._choose_device(end, found[0] if found else None)

    def _choose_device(self, end: str, device: str | None) -> None:
        if device == self.devices[end] and self.ports[end]:
            return
        self.devices[end] = device
        ports = free_ports(self.index, device) if device else []
        if end == "b":
            ports = rank_ports(ports, self.port["a"])
        self.ports[end] = ports
        self._show_ports(end)

    def _show_ports(self, end: str) -> None:
        ports = self.ports[end]
        other = self.port["a"] if end == "b" else None
        options = []
        for port in ports:
            label = Text(safe.plain(port.describe()), no_wrap=True, overflow="ellipsis")
            if other is not None and port.role != other.role:
                label.stylize("dim")
            options.append(Option(label, id=port.end))
        self._fill(f"#connect-{end}-ports", options, "no free port")
        self._choose_port(end, ports[0] if ports else None)

    def _fill(self, selector: str, options: list[Option], empty: str) -> None:
        """A device or port list: ``options``, the first highlighted, or a dim line saying
        why there are none."""
        listing = self.query_one(selector, OptionList)
        listing.clear_options()
        listing.add_options(options or [Option(Text(empty, style="dim"), disabled=True)])
        if options and not options[0].disabled:
            listing.highlighted = 0

    def _choose_port(self, end: str, port: PortChoice | None) -> None:
        self.port[end] = port
        if end == "a" and self.devices["b"]:
            # End B's ports follow end A's: those that carry the same traffic come first.
            ranked = rank_ports(self.ports["b"], port)
            if ranked != self.ports["b"]:
                self.ports["b"] = ranked
                self._show_ports("b")
                return
        self._propose()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "connect-a-search":
            self._search("a", event.value)
            self._search("b", self.query_one("#connect-b-search", Input).value)
        elif event.input.id == "connect-b-search":
            self._search("b", event.value)
        elif event.input.id == "connect-length":
            self.length_touched = event.value.strip() != self._length_shown
            self._propose()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        ident = event.option.id
        list_id = event.option_list.id or ""
        end = "a" if list_id.startswith("connect-a") else "b"
        if list_id.endswith("-devices"):
            if ident:
                self._choose_device(end, ident)
        elif list_id.endswith("-ports"):
            port = next((p for p in self.ports[end] if p.end == ident), None)
            if port is not None and port is not self.port[end]:
                self._choose_port(end, port)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._accept()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._accept()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = None if event.value is Select.NULL else str(event.value)
        if value != self._media_shown:
            self.media_touched = True
            self._status()

    # -- the cable ----------------------------------------------------------------------

    def _typed_length(self) -> tuple[float | None, str | None]:
        """The declared length (m) when one was typed, and why a typed one is wrong."""
        if not self.length_touched:
            return None, None
        text = self.query_one("#connect-length", Input).value.strip()
        if not text:
            return None, None
        from rackdesigner.edit.base import EditError
        from rackdesigner.edit.fields import coerce

        try:
            value = coerce("link", "length", text, "length")
        except EditError as error:
            return None, getattr(error, "message", None) or str(error)
        return (float(value) if value is not None else None), None

    def _propose(self) -> None:
        a, b = self.port["a"], self.port["b"]
        if a is None or b is None:
            self.proposed = None
            self._status()
            return
        typed, problem = self._typed_length()
        if problem is None and typed is not None:
            overrides = dict(self.design.rules.thresholds) if self.design.rules else {}
            form = link_form(self.index, a.end, b.end)
            self.proposed = propose_media(
                typed, link_speed(a, b), overrides, form, link_tech(a.tech, b.tech)
            )
        else:
            self.proposed = proposal(self.design, self.index, a, b)
        # The proposal fills the length and media fields without their Changed messages:
        # handled later, after faster typing had proposed again, an earlier one looked like
        # the user's own choice and pinned a stale medium (fast typing, tmux send-keys).
        if not self.length_touched:
            self._length_shown = _length_text(self.proposed.length)
            field = self.query_one("#connect-length", Input)
            if field.value != self._length_shown:
                with field.prevent(Input.Changed):
                    field.value = self._length_shown
        if not self.media_touched:
            self._media_shown = self.proposed.media
            select = self.query_one("#connect-media", Select)
            wanted = self.proposed.media if self.proposed.media else Select.NULL
            if select.value != wanted:
                with select.prevent(Select.Changed):
                    select.value = wanted
        self._status(problem)

    def _status(self, problem: str | None = None) -> None:
        status = self.query_one("#connect-status", Static)
        a, b = self.port["a"], self.port["b"]
        if a is None or b is None:
            missing = "end A" if a is None else "end B"
            status.update(safe.text(f"choose a device and a free port for {missing}"))
            return
        if problem:
            status.update(safe.text(f"✖ length: {problem}", style="bold"))
            return
        found = self.proposed
        assert found is not None
        where = "declared" if self.length_touched and found.length is not None else "computed"
        length = f"{found.length:.1f} m ({where})" if found.length is not None else "length unknown"
        speed = speed_text(link_speed(a, b)) or "speed unknown"
        line = safe.text(f"{a.end} → {b.end} · {length} · {speed}\n")
        if found.media is None:
            line.append(f"✖ {found.reason}", style="bold")
        else:
            line.append(f"proposed {found.media}: {found.reason}")
        media = self.query_one("#connect-media", Select).value
        if self.media_touched and media is not Select.NULL and media != found.media:
            line.append(f" · you chose {media}")
        if a.role != b.role or (a.tech or "ethernet") != (b.tech or "ethernet"):
            line.append(
                f"\n⚠ {a.port} is {a.tech or 'ethernet'} {a.role}, {b.port} "
                f"{b.tech or 'ethernet'} {b.role}"
            )
        status.update(line)

    def _accept(self) -> None:
        a, b = self.port["a"], self.port["b"]
        if a is None or b is None:
            self._status()
            self.query_one("#connect-b-search" if a else "#connect-a-search", Input).focus()
            return
        typed, problem = self._typed_length()
        if problem:
            self._status(problem)
            return
        value = self.query_one("#connect-media", Select).value
        media = None if value is Select.NULL else str(value)
        length = self.query_one("#connect-length", Input).value.strip() if typed else None
        self.dismiss(ConnectRequest(a.end, b.end, media, length))

    def action_accept(self) -> None:
        self._accept()

    def action_cancel(self) -> None:
        self.dismiss(None)
