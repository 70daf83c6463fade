"""Palette "New from template": the templates of ``rackdesigner new`` with their parametric
options in a form. Choosing a template fills the form with its values; any field can be
changed. Enter builds the layout in a worker (the same :func:`rackdesigner.design.templates.build`
as the command line); a request that cannot be built shows why here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static

from rackdesigner.design.fabric_choices import parse_ratio
from rackdesigner.design.generators import FABRICS, GenerateError
from rackdesigner.design.template_fill import CUSTOM, template_defaults
from rackdesigner.design.templates import RACK_SCALE_TEMPLATES, TEMPLATES, NewOptions
from rackdesigner.tui import safe
from rackdesigner.tui.screens.choice import Choice

if TYPE_CHECKING:
    from rackdesigner.design.templates import Built
    from rackdesigner.layout_io.catalog import Catalog

AUTO = "auto"
# The templates counted in scalable units (``new --template NAME --sus N``): the form asks
# for SUs, not GPUs.
SU_TEMPLATES = ("superpod", *RACK_SCALE_TEMPLATES)
# The fields a rack-scale template does not read (docs/rack-scale.md: the NVL72 rack fixes
# its GPU, trays, liquid cooling and a rail fabric), hidden so the form offers only what
# changes the hall.
RACK_SCALE_FIXED = ("gpu", "per-node", "cooling", "fabric", "link-speed")
COOLING = ("air", "liquid", "rear-door")
WORKLOADS = ("training", "fine-tuning", "inference")


@dataclass(frozen=True, slots=True)
class TemplateResult:
    template: str  # "" for a parametric layout
    built: Built
    named: bool = False  # the form's name field was filled in


def _choice(value: object) -> str:
    return AUTO if value is None else str(value)


class Built(Message):
    """The build worker's layout, or why there is none."""

    def __init__(self, result: TemplateResult | None, error: str | None) -> None:
        self.result = result
        self.error = error
        super().__init__()


def _line(key: str, label: str, widget: Input | Select[Any]) -> Horizontal:
    """One line of the form: its label and its field."""
    return Horizontal(Label(label, classes="template-key"), widget, id=f"tline-{key}")


def _list(options: list[tuple[str, Any]], ident: str, value: Any = None) -> Choice:
    """A compact list of ``options`` that is never blank (``value`` chosen, else the first)."""
    if value is None:
        return Choice(options, allow_blank=False, id=ident, compact=True)
    return Choice(options, value=value, allow_blank=False, id=ident, compact=True)


def _site_lines() -> list[tuple[str, str, Input | Select[Any]]]:
    """The last lines: the feeds' voltage and phases, the workload and the layout's name."""
    name = Input(
        placeholder="default: the open file's name, else the template's", id="t-name", compact=True
    )
    return [
        ("voltage", "voltage", Input(id="t-voltage", compact=True)),
        ("phases", "phases", _list([("3", 3), ("1", 1)], "t-phases")),
        ("workload", "workload", _list([(w, w) for w in WORKLOADS], "t-workload")),
        ("name", "name", name),
    ]


class TemplateScreen(ModalScreen[TemplateResult | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="template-cancel"),
        Binding("enter", "build", "build", id="template-build"),
    ]

    def __init__(self, catalog: Catalog, template: str = "inference-32") -> None:
        super().__init__(classes="dialog-screen")
        self.catalog = catalog
        self.template = template if template in TEMPLATES else CUSTOM
        self.building = False
        gpus = {d.gpu for d in catalog.devices.values() if d.kind == "gpu-node" and d.gpu}
        self.gpu_keys = sorted(gpus)
        self.switch_keys = sorted(
            k for k, d in catalog.devices.items() if d.kind == "switch" and _has_fabric(d)
        )
        self.link_speeds = _link_speeds(catalog)

    def compose(self) -> ComposeResult:
        templates = [(f"{t.name} · {t.summary}", t.name) for t in TEMPLATES.values()]
        templates.append(("custom · your own GPU count, GPU, cooling and fabric", CUSTOM))
        with Vertical(classes="dialog wide", id="template-dialog"):
            yield Static("New from template", classes="dialog-title")
            yield _line("template", "template", _list(templates, "t-template", self.template))
            with VerticalScroll(id="template-form", can_focus=False):
                for key, label, widget in [
                    *self._size_lines(),
                    *self._fabric_lines(),
                    *_site_lines(),
                ]:
                    yield _line(key, label, widget)
            yield Static("", id="template-status", classes="dialog-message")
            yield Static(
                "tab next · space or ↓ opens a list · enter builds a new, unsaved layout · "
                "escape cancels",
                id="template-hint",
                classes="dialog-message",
            )

    def _size_lines(self) -> list[tuple[str, str, Input | Select[Any]]]:
        """The form's first lines: how many GPUs (or SUs) of which GPU, per node, cooled how."""
        cooling = [("auto (liquid with cold plates, else rear door)", AUTO)]
        return [
            ("gpus", "GPUs", Input(id="t-gpus", type="integer", compact=True)),
            ("sus", "SUs", Input(id="t-sus", type="integer", compact=True)),
            ("gpu", "GPU", _list([(key, key) for key in self.gpu_keys], "t-gpu")),
            ("per-node", "per node", _list([("8", 8), ("4", 4)], "t-per-node")),
            ("cooling", "cooling", _list(cooling + [(c, c) for c in COOLING], "t-cooling")),
        ]

    def _fabric_lines(self) -> list[tuple[str, str, Input | Select[Any]]]:
        """The fabric's lines: its kind, switches, link speed, ratio and SU size."""
        fabrics = [("auto (direct ≤16, leaf-spine ≤64, rail above)", AUTO)]
        switches = [(AUTO, AUTO), *((key, key) for key in self.switch_keys)]
        speeds = [("auto (the nodes' ports)", AUTO)] + [
            (f"{speed / 1e9:g} Gbps", speed) for speed in self.link_speeds
        ]
        su_nodes = Input(
            id="t-su-nodes", type="integer", compact=True, placeholder="half the leaf's ports"
        )
        return [
            ("fabric", "fabric", _list(fabrics + [(f, f) for f in FABRICS], "t-fabric")),
            ("leaf", "leaf", _list(switches, "t-leaf")),
            ("spine", "spine", _list(switches, "t-spine")),
            ("link-speed", "link speed", _list(speeds, "t-link-speed")),
            ("oversubscription", "oversub.", Input(id="t-oversubscription", compact=True)),
            ("su-nodes", "SU nodes", su_nodes),
        ]

    def on_mount(self) -> None:
        self._fill(self.template)
        self.query_one("#t-template", Select).focus()

    def _fill(self, name: str) -> None:
        """The form shows what ``name`` builds with."""
        options = template_defaults(name)
        self.query_one("#t-gpus", Input).value = str(options.gpus or "")
        self.query_one("#t-sus", Input).value = str(options.sus or 1)
        self.query_one("#tline-gpus").display = name not in SU_TEMPLATES
        self.query_one("#tline-sus").display = name in SU_TEMPLATES
        for key in RACK_SCALE_FIXED:
            self.query_one(f"#tline-{key}").display = name not in RACK_SCALE_TEMPLATES
        # A rack-scale SU's leaves take trays (32 a leaf and rail), not 8-GPU nodes.
        label = "leaf trays" if name in RACK_SCALE_TEMPLATES else "SU nodes"
        self.query_one("#tline-su-nodes Label", Label).update(label)
        gpu = options.gpu or self._node_gpu(options.node) or "h100-sxm"
        self._set(
            "#t-gpu", gpu if gpu in self.gpu_keys else (self.gpu_keys[0] if self.gpu_keys else None)
        )
        self._set("#t-per-node", options.gpus_per_node or 8)
        self._set("#t-cooling", _choice(options.cooling))
        self._set("#t-fabric", _choice(options.fabric))
        self._set("#t-leaf", _choice(options.leaf))
        self._set("#t-spine", _choice(options.spine))
        self._set("#t-link-speed", AUTO if options.link_speed is None else options.link_speed)
        self.query_one("#t-oversubscription", Input).value = f"{options.oversubscription:g}:1"
        self.query_one("#t-su-nodes", Input).value = (
            "" if options.su_nodes is None else str(options.su_nodes)
        )
        self.query_one("#t-voltage", Input).value = options.voltage_text
        self._set("#t-phases", options.phases)
        self._set("#t-workload", options.workload)
        self.query_one("#t-name", Input).value = options.name or ""
        self._status(Text(self._summary(name), style="dim"))

    def _node_gpu(self, node: str | None) -> str | None:
        dtype = self.catalog.devices.get(node or "")
        return dtype.gpu if dtype is not None else None

    def _summary(self, name: str) -> str:
        if name == CUSTOM:
            return "a layout of your own: racks, feeds, cooling, nodes and fabric from the fields"
        return TEMPLATES[name].summary

    def _set(self, selector: str, value: object) -> None:
        if value is None:
            return
        select = self.query_one(selector, Select)
        try:
            select.value = value
        except Exception:  # a value the list does not hold (a layout's own switch): keep it
            return

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "t-template" and event.value != self.template:
            self.template = str(event.value)
            self._fill(self.template)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_build()

    # -- building -----------------------------------------------------------------------

    def options(self) -> NewOptions:
        """The form as ``rackdesigner new`` options; GenerateError names a bad field."""
        name = self.template

        def select(selector: str) -> object:
            value = self.query_one(selector, Select).value
            return None if value is Select.NULL or value == AUTO else value

        def whole(selector: str, what: str) -> int:
            text = self.query_one(selector, Input).value.strip()
            if not text.isdigit() or int(text) < 1:
                raise GenerateError(f"{what}: {text or '(empty)'} is not a whole number above 0")
            return int(text)

        def optional(selector: str, what: str) -> int | None:
            """Empty: the generator's default (half the leaf's ports)."""
            text = self.query_one(selector, Input).value.strip()
            return whole(selector, what) if text else None

        try:
            ratio = parse_ratio(self.query_one("#t-oversubscription", Input).value)
        except ValueError as error:
            raise GenerateError(f"oversubscription: {error}") from None
        volts, volt_text = _voltage(self.query_one("#t-voltage", Input).value)
        base = template_defaults(name)
        sus = whole("#t-sus", "SUs") if name in SU_TEMPLATES else None
        label = self.query_one("#t-name", Input).value.strip()
        # What every template takes from the form (leaf, spine, power, workload, name).
        common: dict[str, Any] = {
            "node": base.node,
            "leaf": select("#t-leaf"),
            "spine": select("#t-spine"),
            "oversubscription": ratio,
            "voltage": volts,
            "voltage_text": volt_text,
            "phases": int(select("#t-phases") or 3),  # type: ignore[call-overload]
            "workload": str(select("#t-workload") or "training"),
            "model_params": base.model_params,
            "name": label or None,
        }
        if name in RACK_SCALE_TEMPLATES:
            # The builder counts the hall in SUs of NVL72 racks itself (with_template); the
            # form's leaf, spine and power fields still apply.
            return NewOptions(
                template=name,
                sus=sus,
                su_nodes=optional("#t-su-nodes", "leaf trays"),
                **common,
            )
        gpus = sus * 32 * 8 if sus is not None else whole("#t-gpus", "GPUs")
        speed = select("#t-link-speed")
        return NewOptions(
            link_speed=float(speed) if speed is not None else None,  # type: ignore[arg-type]
            gpus=gpus,
            gpu=str(select("#t-gpu")) if select("#t-gpu") else None,
            gpus_per_node=int(select("#t-per-node") or 8),  # type: ignore[call-overload]
            cooling=select("#t-cooling"),  # type: ignore[arg-type]
            fabric=select("#t-fabric"),  # type: ignore[arg-type]
            su_nodes=optional("#t-su-nodes", "SU nodes"),
            **common,
        )

    def action_build(self) -> None:
        if self.building:
            return
        try:
            options = self.options()
        except GenerateError as error:
            self._status(safe.text(f"✖ {error}", style="bold red"))
            return
        self.building = True
        self._status(Text("building the layout…", style="dim"))
        self.build_worker(options, self.template)

    @work(thread=True, exclusive=True, group="template-build")
    def build_worker(self, options: NewOptions, template: str) -> None:
        from rackdesigner.design.templates import build

        command = f"rackdesigner designer: New from template {template or 'custom'}"
        try:
            built = build(options, command)
            if options.name is None:
                # A short name: the first save proposes "<name>.toml" (designer.md: a new
                # layout's name is its file's stem); the description keeps the long one.
                built.layout.name = template or f"custom-{options.gpus}-gpus"
        except GenerateError as error:
            self.post_message(Built(None, str(error)))
            return
        except Exception as error:  # a builder bug: one line here, never a traceback
            self.post_message(Built(None, f"the template failed: {type(error).__name__}: {error}"))
            return
        self.post_message(Built(TemplateResult(template, built, options.name is not None), None))

    @on(Built)
    def _built(self, event: Built) -> None:
        result, error = event.result, event.error
        self.building = False
        if not self.is_attached:
            return
        if result is None:
            # The builder speaks the command line's options (--gpus, --cooling): the form
            # names its fields without the dashes.
            text = re.sub(r"--(?=[a-z])", "", error or "the template gave no layout")
            self._status(safe.text(f"✖ {text}", style="bold red"))
            return
        self.dismiss(result)

    def _status(self, text: Text) -> None:
        self.query_one("#template-status", Static).update(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _link_speeds(catalog: Catalog) -> list[float]:
    """The rates the catalog's fabric switches run (bit/s), slowest first."""
    from rackdesigner.design.generators.base import fabric_group

    speeds = set()
    for dtype in catalog.devices.values():
        group = fabric_group(dtype) if dtype.kind == "switch" else None
        if group is not None and group.speed:
            speeds.add(float(group.speed))
    return sorted(speeds)


def _has_fabric(dtype: object) -> bool:
    from rackdesigner.design.generators.base import fabric_group

    return fabric_group(dtype) is not None  # type: ignore[arg-type]


def _voltage(text: str) -> tuple[float, str]:
    """``415 V`` or ``415V`` as volts (the command line's --voltage); GenerateError if not."""
    from rackdesigner.model.units import VOLTAGE, UnitError, parse

    value = text.strip()
    if value and value[-1] in "Vv" and not value[:-1].endswith(" "):
        value = f"{value[:-1].strip()} V"
    try:
        volts = parse(value, VOLTAGE)
    except UnitError as error:
        raise GenerateError(f"voltage: {error}") from None
    if volts <= 0:
        raise GenerateError(f"voltage: {text} is not a feed voltage")
    return volts, value
