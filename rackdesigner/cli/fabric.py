"""``rackdesigner new`` and ``rackdesigner generate``: layouts and fabrics from a few options.

Both run the fabric generators (``design/generators``) and apply their plan to the layout
directly (the designer applies the same plan as one undoable ``Batch``), validate the result
with the rules and write it canonically and atomically.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rackdesigner.cli import progress
from rackdesigner.cli.conventions import STDIN, F, fail, output_option
from rackdesigner.cli.loading import open_or_exit
from rackdesigner.model.collector import collection_paused
from rackdesigner.model.terminal import shown
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.design.generators import FabricPlan
    from rackdesigner.layout_io.document import Document
    from rackdesigner.layout_io.sourcemap import SourceMap
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.layout import Layout

# design.generators.FABRICS, not imported for it: the generators load the catalog (0.1 s)
# that the other commands do not need; a test holds the two equal.
FABRIC_CHOICES = ("rail", "leaf-spine", "dragonfly", "direct")
CABLING_CHOICES = ("p2p", "structured")
CABLING_HELP = (
    "p2p: every link one cable; structured: switch-to-switch fibre through patch panels in "
    "the switches' racks and trunks between them (docs/cable-plant.md)."
)


def _options(*options: Callable[[F], F]) -> Callable[[F], F]:
    """Several click options as one decorator, in the order given."""

    def apply(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


# The generators' options, shared by `new` and `generate` (the designer's fabric dialog
# asks the same questions: design/fabric_choices.py).
_switch_options = _options(
    click.option("--leaf", metavar="MODEL", help="Leaf switch (default qm9700 for NDR400)."),
    click.option("--spine", metavar="MODEL", help="Spine switch (default: the leaf model)."),
    click.option("--core", metavar="MODEL", help="Core switch (default: the spine model)."),
    click.option("--oversubscription", metavar="R", help="Leaf down:up, e.g. 2 or 2:1 (1)."),
    click.option(
        "--su-nodes",
        type=click.IntRange(min=1),
        default=None,
        help="Nodes per SU (rail); default half the leaf's ports (32 on a QM9700, 72 on a Q3400).",
    ),
)
_cabling_options = _options(
    click.option(
        "--strict-cables",
        is_flag=True,
        help="Refuse runs over cable_max (5 m unless the layout sets it).",
    ),
    click.option("--rail-planes", is_flag=True, help="rail: one spine plane per rail."),
    click.option(
        "--redundant/--no-redundant",
        default=None,
        help="Each node's ports over two leaves, two spines or more (default: on for 2+ nodes).",
    ),
    click.option(
        "--cabling", type=click.Choice(CABLING_CHOICES), help=CABLING_HELP + " Default p2p."
    ),
)


def _command_line(ctx: click.Context) -> str:
    """The command as a user would type it: the arguments given, in the options' order
    (from the parsed values, so the same request always writes the same header)."""
    words = ["rackdesigner", ctx.info_name or "new"]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        source = ctx.get_parameter_source(param.name or "")
        if source is not click.core.ParameterSource.COMMANDLINE or value is None:
            continue
        if value is False:
            if isinstance(param, click.Option) and param.secondary_opts:
                words.append(param.secondary_opts[0])  # --no-redundant
            continue
        if isinstance(param, click.Argument):
            words.append(str(value))
            continue
        flag = max(param.opts, key=len)
        if isinstance(param, click.Option) and param.is_flag:
            words.append(flag)
        else:
            shown = value[1] if isinstance(value, tuple) else value
            words += [flag, _number_text(shown) if isinstance(shown, float) else str(shown)]
    return " ".join(shlex.quote(w) for w in words)


def _number_text(value: float) -> str:
    """An option's number as a user types it: ``2``, ``200e9``, ``405e9``."""
    from rackdesigner.model.units import sci_text

    return sci_text(value) if abs(value) >= 1e6 else f"{value:g}"


def parse_ratio(value: str | None) -> float:
    """``4``, ``4:1`` or ``4.0`` (None: 1); at least 1, else one line and exit 2."""
    if value is None:
        return 1.0
    text = value.strip()
    head, sep, tail = text.partition(":")
    try:
        number = float(head) / (float(tail) if sep else 1.0)
    except (ValueError, ZeroDivisionError):
        fail(f"--oversubscription {value}: not a ratio (e.g. 1, 2:1, 4)")
    if not number >= 1.0 or number == float("inf"):
        fail(
            f"--oversubscription {value}: below 1 (it is downlink ÷ uplink bandwidth; 1:1 is "
            "non-blocking, the least there is)"
        )
    return number


def _voltage(ctx: click.Context, param: click.Parameter, value: str) -> tuple[float, str]:
    from rackdesigner.model.units import VOLTAGE, UnitError, parse

    text = value.strip()
    if text and text[-1] in "Vv" and not text[:-1].endswith(" "):
        text = f"{text[:-1].strip()} V"
    try:
        volts = parse(text, VOLTAGE)
    except UnitError as error:
        raise click.BadParameter(str(error)) from None
    if volts <= 0:
        raise click.BadParameter(f"{value} is not a feed voltage")
    return volts, text


def _link_speed(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    from rackdesigner.model.units import BANDWIDTH, UnitError, parse

    if value is None:
        return None
    try:
        speed = parse(value, BANDWIDTH)
    except UnitError as error:
        raise click.BadParameter(str(error)) from None
    if not speed > 0:
        raise click.BadParameter(f"{value} is not a link rate")
    return speed


def _model_params(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a number of parameters (e.g. 70e9)") from None
    if not number > 0:
        raise click.BadParameter("the model needs more than 0 parameters")
    return number


def _check(layout: Layout, file: str, source_map: SourceMap | None = None) -> list[Diagnostic]:
    """The rules' findings, with lines from the text written (``source_map``), after the
    load errors of the chain written: what a later ``validate`` of the file would say."""
    from rackdesigner.check.engine import check

    _, diagnostics = check(layout, file=file, source_map=source_map)
    return [*_chain_errors(layout, file, source_map), *diagnostics]


def _chain_errors(layout: Layout, file: str, source_map: SourceMap | None) -> list[Diagnostic]:
    """The loader's E001s on the power chain a command wrote (the rules take a chain as
    read; a chain that would not load must not pass as written)."""
    from rackdesigner.layout_io.assets import builtin_power_models
    from rackdesigner.layout_io.power_checks import chain_problems
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.refs import Ref

    found = []
    for problem in chain_problems(layout, builtin_power_models()):
        if problem.feed is not None:
            ref = Ref("rack", layout.racks[problem.feed[0]].id)
        else:
            ref = Ref("power", layout.power_elements[problem.element].id)
        line = source_map.line(ref) if source_map is not None else None
        found.append(
            Diagnostic(
                "E001", "error", problem.message, problem.entity, line or 0, file, problem.hint
            )
        )
    return found


def _report(
    file: str,
    plan: FabricPlan,
    diagnostics: list[Diagnostic],
    lead: str,
    chosen: tuple[str, ...] = (),
) -> int:
    """Print what was written (and ``chosen``, what the command decided for the user) and
    what the rules found; the exit code (1 with errors)."""
    from rackdesigner.check.formats.text import line

    click.echo(shown(lead))
    for note in (*chosen, *plan.notes):
        click.echo(f"  {shown(note)}")
    for warning in plan.warnings:
        click.echo(f"rackdesigner: warning: {shown(warning)}", err=True)
    errors = [d for d in diagnostics if d.severity == "error"]
    for d in errors:
        click.echo(line(d), err=True)
    tally = Counter(d.severity for d in diagnostics)
    by_code = Counter(d.code for d in diagnostics if d.severity == "warning")
    detail = ", ".join(f"{code} x{count:,}" for code, count in sorted(by_code.items()))
    click.echo(
        f"validate: {plural(tally['error'], 'error')}, {plural(tally['warning'], 'warning')}"
        f"{f' ({detail})' if detail else ''}, {tally['info']} info"
    )
    return 1 if errors else 0


def _write(layout: Layout, path: str) -> SourceMap:
    """Write ``layout`` canonically and atomically; the source map of the text written."""
    from rackdesigner.layout_io import dumps
    from rackdesigner.layout_io.linemap import scan
    from rackdesigner.layout_io.saving import write_atomic
    from rackdesigner.layout_io.sources import source_map

    text = dumps(layout)
    try:
        write_atomic(Path(path), text.encode("utf-8"))
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or error}")
    return source_map(layout, scan(text))


EPILOG_NEW = """\b
Examples:
  rackdesigner new cluster.toml --gpus 1024
  rackdesigner new pod.toml --template superpod --sus 4
  rackdesigner new infer.toml --gpus 64 --gpu b200 --fabric leaf-spine --oversubscription 2
  rackdesigner new train.toml --gpus 1024 --storage-level best
  rackdesigner new --list
  rackdesigner new small.toml --gpus 64 --model-params 7e9

\b
The guide's decision flow, with --model-params and no --node:
  below 10e9 parameters    4-GPU nodes (xe8640 for h100-sxm)
  10e9 to 100e9            8-GPU nodes
  100e9 and more           8-GPU nodes with liquid cooling (cold plates, CDUs)
  The sizes are the rules' eight_gpu_model_params_min (CMP004) and
  liquid_model_params_min (COOL005). --node, --gpus-per-node and --cooling always
  win; where the catalog has no node of the size for the GPU, new says so.

\b
Exit codes: 0 written and valid, 1 written but the rules found errors, 2 nothing written
(bad options, a request that cannot be built, FILE exists without --force).
"""


@click.command(epilog=EPILOG_NEW)
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--template", "-t", metavar="NAME", help="A named template (--list shows them).")
@click.option("--list", "list_", is_flag=True, help="List the templates, one line each.")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.option("--gpus", type=int, metavar="N", help="GPUs in all: a multiple of the node size.")
@click.option("--gpu", metavar="MODEL", help="GPU model (catalog key; default h100-sxm).")
@click.option("--node", metavar="MODEL", help="GPU node model (catalog key).")
@click.option(
    "--gpus-per-node",
    type=click.Choice(["4", "8"]),
    help="Default 8; with --model-params the guide's flow (below).",
)
@click.option(
    "--cooling",
    type=click.Choice(["air", "liquid", "rear-door"]),
    help="Default: liquid where the node type has cold plates, else rear-door; with "
    "--model-params of 100e9 or more, liquid (below).",
)
@click.option(
    "--fabric",
    type=click.Choice(FABRIC_CHOICES),
    help="Default: direct up to 16 GPUs; leaf-spine up to 64 (two leaves, each node on both, "
    "and two spines; one switch with --no-redundant); rail above.",
)
@_switch_options
@click.option(
    "--link-speed",
    callback=_link_speed,
    metavar="SPEED",
    help="The compute links' rate, e.g. 200Gbps: picks the leaf that runs it (default: the "
    "nodes' ports).",
)
@click.option("--sus", type=int, metavar="N", help="Scalable units (--template superpod).")
@click.option(
    "--voltage",
    default="415 V",
    show_default=True,
    callback=_voltage,
    help="Feed voltage (line-to-line for 3-phase).",
)
@click.option("--phases", type=click.Choice(["1", "3"]), default="3", show_default=True)
@click.option(
    "--workload",
    type=click.Choice(["training", "fine-tuning", "inference"]),
    help="Default training.",
)
@click.option(
    "--model-params",
    callback=_model_params,
    metavar="N",
    help="The model's parameters, e.g. 70e9: written to [workload] and, without --node, "
    "picks the node size and cooling (below).",
)
@_cabling_options
@click.option(
    "--power-redundancy",
    type=click.Choice(["2n", "n+1", "block"]),
    default="2n",
    show_default=True,
    help="The power chain behind the feeds (docs/power-chain.md): 2N (the A and B feeds' "
    "promise), N+1 UPS modules, or block redundant with a reserve UPS.",
)
@click.option(
    "--peak-factor",
    type=click.FloatRange(min=1.0, max=10.0),
    default=None,
    metavar="F",
    help="The GPU nodes' transient peak ÷ steady draw the chain is sized for ([workload] "
    "peak_factor; default none: no published figure gives one).",
)
@click.option(
    "--storage/--no-storage",
    default=None,
    help="The parallel file system and its storage fabric (default: on for training and "
    "fine-tuning; docs/storage.md).",
)
@click.option(
    "--storage-level",
    type=click.Choice(["good", "better", "best"]),
    default="good",
    show_default=True,
    help="NVIDIA's DGX SuperPOD storage level the appliances are sized for.",
)
@click.option("--storage-model", metavar="MODEL", help="Storage appliance (default ddn-ai400x2t).")
@click.option(
    "--storage-appliances",
    type=click.IntRange(min=1),
    metavar="N",
    help="Appliances (default: the fewest that meet the level).",
)
@click.option(
    "--storage-pod-sus",
    type=click.IntRange(min=1),
    default=4,  # design.storage_fabric.POD_SUS, not imported for it; a test holds them equal
    show_default=True,
    metavar="N",
    help="Scalable units a storage pod spans: each pod is a storage fabric of its own, with "
    "its appliances and spines (4: the RA's tested size). The GB200/GB300 templates keep "
    "their storage per SU.",
)
@click.option("--name", metavar="TEXT", help="The layout's name.")
@click.pass_context
@collection_paused()
def new(
    ctx: click.Context,
    file: str | None,
    template: str | None,
    list_: bool,
    force: bool,
    gpus: int | None,
    gpu: str | None,
    node: str | None,
    gpus_per_node: str | None,
    cooling: str | None,
    fabric: str | None,
    leaf: str | None,
    spine: str | None,
    core: str | None,
    oversubscription: str | None,
    link_speed: float | None,
    su_nodes: int | None,
    sus: int | None,
    voltage: tuple[float, str],
    phases: str,
    workload: str | None,
    model_params: float | None,
    strict_cables: bool,
    rail_planes: bool,
    redundant: bool | None,
    power_redundancy: str,
    peak_factor: float | None,
    storage: bool | None,
    storage_level: str,
    storage_model: str | None,
    storage_appliances: int | None,
    storage_pod_sus: int,
    cabling: str | None,
    name: str | None,
) -> None:
    """Write a complete, valid layout: racks, feeds, cooling, nodes, switches and cables,
    with the trays they run in (v1.4).

    The layout is validated; FILE is written even when the rules find errors (exit 1).
    """
    from rackdesigner.design.generators import GenerateError
    from rackdesigner.design.templates import TEMPLATES, NewOptions, build

    if list_:
        width = max(len(t) for t in TEMPLATES)
        for t in TEMPLATES.values():
            click.echo(f"{t.name:<{width}}  {t.summary}")
        return
    if file is None:
        raise click.UsageError("missing FILE (or --list)")
    if template is None and gpus is None:
        raise click.UsageError("--gpus is required without --template")
    if template is not None and template not in TEMPLATES:
        fail(
            f"unknown template {template!r}: choose one of {', '.join(TEMPLATES)} "
            "(rackdesigner new --list)"
        )
    if os.path.exists(file) and not force:
        fail(f"{file} exists; rerun with --force to overwrite it")
    folder = os.path.dirname(file) or "."
    if not os.path.isdir(folder):
        fail(f"cannot write {file}: no folder {folder}")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    options = NewOptions(
        gpus=gpus,
        gpu=gpu,
        node=node,
        gpus_per_node=int(gpus_per_node) if gpus_per_node else None,
        cooling=cooling,
        fabric=fabric,
        leaf=leaf,
        spine=spine,
        core=core,
        oversubscription=parse_ratio(oversubscription),
        link_speed=link_speed,
        su_nodes=su_nodes,
        voltage=voltage[0],
        voltage_text=voltage[1],
        phases=int(phases),
        workload=workload or "training",
        model_params=model_params,
        strict_cables=strict_cables,
        rail_planes=rail_planes,
        redundant=redundant,
        template=template,
        sus=sus,
        name=name,
        power_redundancy=power_redundancy,
        peak_factor=peak_factor,
        storage=storage,
        storage_level=storage_level,
        storage_model=storage_model,
        storage_appliances=storage_appliances,
        storage_pod_sus=storage_pod_sus,
        cabling=cabling or "p2p",
    )
    with progress.bar():
        progress.report("building the layout", 0, 0)
        try:
            built = build(options, _command_line(ctx))
        except GenerateError as error:
            fail(f"new: {error}")
        progress.report(f"writing {shown(file)}", 0, 0)
        written = _write(built.layout, file)
        progress.report("checking the layout", 0, 0)
        diagnostics = _check(built.layout, file, written)
    code = _report(file, built.plan, diagnostics, f"wrote {file}: {built.summary}", built.notes)
    sys.exit(code)


EPILOG_GENERATE = """\b
Examples:
  rackdesigner generate hall.toml --fabric rail -o hall-rail.toml
  rackdesigner generate hall.toml --fabric leaf-spine --nodes 'b*' --oversubscription 2 --force
  rackdesigner generate hall.toml --fabric rail --replace --no-new-racks -o out.toml

\b
Exit codes: 0 written and valid, 1 written but the rules found errors, 2 nothing written.
"""


@click.command(epilog=EPILOG_GENERATE)
@click.argument("layout", type=click.Path(dir_okay=False))
@click.option("--fabric", type=click.Choice(FABRIC_CHOICES), required=True)
@click.option("--nodes", "pattern", metavar="GLOB", help="GPU nodes whose id matches (all).")
@_switch_options
@click.option("--no-new-racks", is_flag=True, help="Refuse instead of adding network racks.")
@click.option("--replace", is_flag=True, help="Remove the nodes' compute links first.")
@_cabling_options
@output_option("Write here.", metavar="OUT", dir_okay=False)
@click.option("--force", is_flag=True, help="Rewrite LAYOUT in place, or overwrite OUT.")
@collection_paused()
def generate(
    layout: str,
    fabric: str,
    pattern: str | None,
    leaf: str | None,
    spine: str | None,
    core: str | None,
    oversubscription: str | None,
    su_nodes: int | None,
    no_new_racks: bool,
    replace: bool,
    strict_cables: bool,
    rail_planes: bool,
    redundant: bool | None,
    cabling: str | None,
    output: str | None,
    force: bool,
) -> None:
    """Add a fabric for the GPU nodes of an existing layout, and write it canonically.

    The same generators as `new` and the designer. LAYOUT is rewritten only with --force;
    comments are kept where canonical form can keep them.
    """
    from rackdesigner.design.generators import FabricRequest, GenerateError
    from rackdesigner.design.generators import generate as run
    from rackdesigner.design.generators.apply import apply_plan

    target, in_place = _generate_target(layout, output, force)
    document = open_or_exit(layout)
    model = document.layout
    request = FabricRequest(
        fabric=fabric,
        nodes=None if pattern is None else _gpu_nodes(model, pattern),
        leaf=leaf,
        spine=spine,
        core=core,
        oversubscription=parse_ratio(oversubscription),
        su_nodes=su_nodes,
        new_racks=not no_new_racks,
        strict_cables=strict_cables,
        rail_planes=rail_planes,
        replace=replace,
        redundant=redundant,
    )
    try:
        plan = run(model, request)
    except GenerateError as error:
        fail(f"generate: {error}")
    apply_plan(model, plan)
    if cabling is not None or model.pathways:
        from rackdesigner.design.cable_plant import install_in_place

        plan.notes.extend(install_in_place(model, cabling).notes)
    _save(document, layout, target, in_place)
    diagnostics = _check(model, target, document.source_map)
    sys.exit(_report(target, plan, diagnostics, _generated(target, fabric, plan)))


def _generate_target(layout: str, output: str | None, force: bool) -> tuple[str, bool]:
    """Where generate writes, and whether that is LAYOUT itself; one line and exit 2 where
    it would write a file named "-", or rewrite or overwrite a file without --force."""
    from rackdesigner.layout_io.saving import same_file

    if output == "-":  # a file named "-" would be made, and stdout would carry the summary
        fail("generate writes a layout file: give -o FILE, or --force to rewrite LAYOUT")
    if layout == STDIN and output is None:
        fail("generate - reads the layout from standard input: give -o FILE to write it to")
    target = output or layout
    in_place = output is None or same_file(output, layout)
    if in_place and not force:
        fail(f"not rewriting {layout} in place without --force; give -o OUT for a new file")
    if not in_place and os.path.exists(target) and not force:
        fail(f"{target} exists; rerun with --force to overwrite it")
    return target, in_place


def _gpu_nodes(model: Layout, pattern: str) -> tuple[str, ...]:
    """The ids of the GPU nodes that ``pattern`` (a glob) matches; exit 2 when none does."""
    from rackdesigner.layout_io.catalog import for_layout

    catalog = for_layout(model)
    nodes = tuple(
        d.id
        for _, d in model.devices()
        if fnmatch.fnmatchcase(d.id, pattern)
        and (t := catalog.devices.get(d.model)) is not None
        and t.kind == "gpu-node"
    )
    if not nodes:
        fail(f"generate: no GPU node id matches {pattern!r}")
    return nodes


def _save(document: Document, layout: str, target: str, in_place: bool) -> None:
    """Write the changed layout to ``target`` canonically; in place (--force) this drops
    the comments canonical form cannot keep, and says how many."""
    from rackdesigner.layout_io import FileChangedError
    from rackdesigner.layout_io.document import CommentsLostError, save

    dropped = document.dropped_comments
    if dropped and in_place:
        click.echo(
            f"rackdesigner: note: {plural(len(dropped), 'comment line')} of {shown(layout)} "
            "cannot be kept in canonical form (only the header comment and comments directly "
            "above a table are kept)",
            err=True,
        )
    try:
        # In place needs --force, which also accepts the comments canonical form drops
        # (the note above named them).
        save(document, target, force=in_place)
    except (FileChangedError, CommentsLostError) as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {target}: {error.strerror or error}")


def _generated(target: str, fabric: str, plan: FabricPlan) -> str:
    """The first line of generate's report: what was written, and what it holds."""
    from rackdesigner.design.templates import count

    counts = plan.counts
    switches = counts.get("leaves", 0) + counts.get("spines", 0) + counts.get("cores", 0)
    return (
        f"wrote {target}: {fabric} fabric for {plural(counts.get('nodes', 0), 'node')}: "
        f"{count(switches, 'switch', 'switches')}, {count(len(plan.links), 'cable', 'cables')}"
        + (f", {len(plan.remove_links):,} old links removed" if plan.remove_links else "")
        + (
            f" with {count(len(plan.remove_devices), 'old switch', 'old switches')}"
            if plan.remove_devices
            else ""
        )
        + (f", {len(plan.new_racks)} network racks added" if plan.new_racks else "")
    )
