"""The dialogs of building a layout: a form of fields (Add rack, Add feed), a list to pick
one entry from (Remove feed), and Set cooling with its CDU and door pickers.

Every dialog has defaults that Enter accepts and Escape cancels. A form checks what was
typed with a function of the core (``rackdesigner.design.rack_build``): a refused value stays in
its field with the loader's message under it, and nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from rackdesigner.design.rack_build import Checked, CoolingChoices
from rackdesigner.tui import safe

# (key, label, default text, placeholder)
FormField = tuple[str, str, str, str]


class FormScreen(ModalScreen[Any]):
    """Fields with defaults; Enter (in any field) checks them all and accepts, Escape
    cancels. Dismisses with the command ``check`` built, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="form-cancel"),
    ]

    def __init__(
        self,
        title: str,
        fields: list[FormField],
        check: Callable[[dict[str, str]], Checked],
        *,
        hint: str = "",
        dialog_id: str = "form-dialog",
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.fields = fields
        self.check = check
        self.hint = hint
        self.dialog_id = dialog_id

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form", id=self.dialog_id):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            for key, label, default, placeholder in self.fields:
                with Horizontal(classes="form-line"):
                    yield Label(label, classes="form-key")
                    yield Input(default, placeholder=placeholder, id=f"form-{key}", classes="form")
                yield Static("", id=f"form-error-{key}", classes="form-error")
            yield Static(
                self.hint or "enter accepts · tab: next field · escape cancels",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def values(self) -> dict[str, str]:
        return {key: self.query_one(f"#form-{key}", Input).value for key, *_ in self.fields}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.accept()

    def accept(self) -> None:
        checked = self.check(self.values())
        first: Input | None = None
        for key, *_ in self.fields:
            box = self.query_one(f"#form-{key}", Input)
            note = self.query_one(f"#form-error-{key}", Static)
            message = checked.errors.get(key)
            box.set_class(message is not None, "-invalid")
            note.set_class(message is not None, "-shown")
            note.update(safe.text(f"✖ {message}") if message else "")
            if message is not None and first is None:
                first = box
        if first is not None:
            first.focus()
            return
        self.dismiss(checked.command)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(ModalScreen[str | None]):
    """One entry from a list (Remove feed's feeds, a rail, a face); Enter takes the
    highlighted one (the default first), Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="choice-cancel"),
    ]

    def __init__(
        self,
        title: str,
        choices: list[tuple[str, str]],
        default: str | None = None,
        *,
        hint: str = "",
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.choices = choices  # (id, text)
        self.default = default
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="choice-dialog"):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            yield OptionList(
                *(Option(safe.text(text), id=key) for key, text in self.choices), id="choice-list"
            )
            yield Static(
                self.hint or "↑↓ choose · enter accepts · escape cancels",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        options = self.query_one("#choice-list", OptionList)
        options.focus()
        keys = [key for key, _ in self.choices]
        options.highlighted = keys.index(self.default) if self.default in keys else 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True, slots=True)
class CoolingAnswer:
    mode: str
    cdus: list[str]
    door: str | None
    new_door_model: str | None


COOLING_MODES = (
    ("air", "air: the room's air units take the heat"),
    ("liquid", "liquid: direct-to-chip cold plates on CDUs (choose them below)"),
    ("rear-door", "rear door: a rear-door heat exchanger (choose it below)"),
    ("immersion", "immersion: the devices sit in dielectric fluid"),
)


class CoolingScreen(ModalScreen[CoolingAnswer | None]):
    """Set cooling: the mode, then for liquid the CDUs serving the rack (space toggles) and
    for a rear door the door (an existing free one, or a new one placed in the rack).
    Enter accepts from anywhere; Escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="cooling-cancel"),
        Binding("enter", "accept", "accept", id="cooling-accept", priority=True),
    ]

    def __init__(
        self,
        rack_id: str,
        current: str,
        choices: CoolingChoices,
        describe: Callable[[str], str],
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.rack_id = rack_id
        self.current = current
        self.choices = choices
        self.describe = describe  # device id -> "coolit-chx750 in a06"

    def compose(self) -> ComposeResult:
        choices = self.choices
        with Vertical(classes="dialog", id="cooling-dialog"):
            yield Static(
                safe.content(f"Set cooling of rack {self.rack_id}"), classes="dialog-title"
            )
            yield OptionList(
                *(Option(text, id=key) for key, text in COOLING_MODES), id="cooling-mode"
            )
            with Vertical(id="cooling-liquid", classes="cooling-part"):
                if choices.cdus:
                    yield Label("CDUs serving the rack (space toggles; N+1 wants two):")
                    yield SelectionList[str](
                        *(
                            (
                                safe.text(f"{cdu}  {self.describe(cdu)}"),
                                cdu,
                                cdu in choices.chosen_cdus,
                            )
                            for cdu in choices.cdus
                        ),
                        id="cooling-cdus",
                    )
                else:
                    yield Static(
                        "No CDU in the layout yet: place one first (a, then a CDU type "
                        "such as coolit-chx80), then set the cooling.",
                        classes="dialog-message -error",
                    )
            with Vertical(id="cooling-door", classes="cooling-part"):
                yield Label("The rack's rear door:")
                options = [
                    Option(safe.text(f"{door}  {self.describe(door)}"), id=f"door:{door}")
                    for door in choices.doors
                ]
                options += [
                    Option(
                        safe.text(f"a new {model} placed on {self.rack_id}'s rear"),
                        id=f"new:{model}",
                    )
                    for model in choices.door_models
                ]
                yield OptionList(*options, id="cooling-doors")
            yield Static(
                "↑↓ · tab: the CDUs / doors · enter accepts · esc cancels",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        modes = self.query_one("#cooling-mode", OptionList)
        keys = [key for key, _ in COOLING_MODES]
        modes.highlighted = keys.index(self.current) if self.current in keys else 0
        doors = self.query_one("#cooling-doors", OptionList)
        if doors.option_count:
            wanted = self.choices.chosen_door
            ids = [doors.get_option_at_index(i).id for i in range(doors.option_count)]
            doors.highlighted = ids.index(f"door:{wanted}") if f"door:{wanted}" in ids else 0
        modes.focus()
        self._show_parts()

    @property
    def mode(self) -> str:
        modes = self.query_one("#cooling-mode", OptionList)
        option = modes.highlighted_option
        return option.id if option is not None and option.id else "air"

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "cooling-mode":
            self._show_parts()

    def _show_parts(self) -> None:
        mode = self.mode
        self.query_one("#cooling-liquid").display = mode == "liquid"
        self.query_one("#cooling-door").display = mode == "rear-door"

    def answer(self) -> CoolingAnswer:
        mode = self.mode
        cdus: list[str] = []
        door = new_model = None
        if mode == "liquid":
            for picker in self.query("#cooling-cdus").results(SelectionList):
                cdus = [str(value) for value in picker.selected]
        if mode == "rear-door":
            doors = self.query_one("#cooling-doors", OptionList)
            option = doors.highlighted_option
            if option is not None and option.id:
                what, _, name = option.id.partition(":")
                door, new_model = (name, None) if what == "door" else (None, name)
        return CoolingAnswer(mode, cdus, door, new_model)

    def action_accept(self) -> None:
        self.dismiss(self.answer())

    def action_cancel(self) -> None:
        self.dismiss(None)
