"""The registry of ``rackdesigner export`` kinds: one entry per option, loaded lazily.

Each exporter is a function ``(context, path) -> list[Output]``: it takes the layout
and its analysis (never TOML) and returns the files to write, as bytes. The command
line (and the designer's export dialog) checks every output path against the inputs,
renders every file first, then writes them all (:func:`write_outputs`) and removes what
it created when a write fails or is interrupted; an exporter
never writes a file itself. Several exports in one run share one load and one analysis.

Adding an export kind is adding one :class:`ExportKind` to :data:`KINDS`; its module is
imported only when the option is used, so ``validate`` never pays for drawing code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rackdesigner.export.pack import section_names

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.layout import Layout


@dataclass(slots=True)
class Output:
    """One file an exporter produces."""

    path: Path
    data: bytes


class ExportError(Exception):
    """An export that cannot be made as asked; the message says why (exit 2)."""


@dataclass
class ExportContext:
    """What every exporter reads: the layout, its analysis, and the shared settings."""

    layout: Layout
    file: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    _analysis: Analysis | None = None

    @cached_property
    def analysis(self) -> Analysis:
        if self._analysis is not None:
            return self._analysis
        from rackdesigner.analysis import Analysis
        from rackdesigner.model.progress import report

        report("analysing the layout", 0, 0)
        return Analysis(self.layout, file=self.file)

    @cached_property
    def diagnostics(self) -> list[Diagnostic]:
        """The layout's findings, as ``validate`` reports them (the layout's own rule
        selection). One check per run; its analysis becomes :attr:`analysis` when none was
        built yet, so drawings with findings cost one analysis, not two."""
        from rackdesigner.check.engine import check
        from rackdesigner.model.progress import report

        report("checking the layout", 0, 0)
        analysis, diagnostics = check(self.layout, file=self.file)
        if self._analysis is None and "analysis" not in self.__dict__:
            self.__dict__["analysis"] = analysis
        return diagnostics

    def setting(self, name: str, default: Any = None) -> Any:
        value = self.settings.get(name)
        return default if value is None else value


@dataclass(frozen=True, slots=True)
class ExportKind:
    """One ``--option FILE`` of ``rackdesigner export``."""

    option: str  # "--elevations"
    metavar: str  # "FILE.svg"
    help: str
    target: str  # "module:function", imported on use
    directory: bool = False  # the path is a folder (--svg-dir)

    @property
    def dest(self) -> str:
        return self.option.lstrip("-").replace("-", "_")

    def load(self) -> Callable[[ExportContext, Path], list[Output]]:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module, __package__), name)


@dataclass(frozen=True, slots=True)
class ExportSetting:
    """An option shared by several kinds (``--theme``, ``--paper``, ``--date``, ...)."""

    option: str
    help: str
    choices: tuple[str, ...] = ()
    flag: bool = False
    default: Any = None
    metavar: str | None = None
    # The kinds (their options) it changes; the designer's export dialog offers it for
    # those. Empty: every kind.
    kinds: tuple[str, ...] = ()

    @property
    def dest(self) -> str:
        return self.option.lstrip("-").replace("-", "_")

    def applies_to(self, kind: ExportKind) -> bool:
        return not self.kinds or kind.option in self.kinds


# The drawings: what --theme and --date change.
DRAWINGS = (
    "--elevations",
    "--svg-dir",
    "--floorplan",
    "--topology",
    "--one-line",
    "--pdf",
    "--png",
    "--cooling-diagram",
)

# In the order ``export --help`` lists them. ``--toml`` is the command line's own (the
# in-place formatter) and is not listed here.
KINDS: list[ExportKind] = [
    # Drawings: export/render/.
    ExportKind(
        "--elevations",
        "FILE.svg",
        "Rack elevations, front and rear, every rack on one sheet in row order.",
        "rackdesigner.export.drawings:elevations",
    ),
    ExportKind(
        "--svg-dir",
        "DIR",
        "One elevation SVG per rack: DIR/<rack id>.svg.",
        "rackdesigner.export.drawings:svg_dir",
        directory=True,
    ),
    ExportKind(
        "--floorplan",
        "FILE.svg",
        "The hall from above: racks by power density, cooling, feed use, longest cables, "
        "pathways by fill; FILE.png for a PNG (long side at most 16,000 px).",
        "rackdesigner.export.drawings:floorplan",
    ),
    ExportKind(
        "--topology",
        "FILE.svg",
        "The compute fabric in tiers; large fabrics aggregated into scalable units.",
        "rackdesigner.export.drawings:topology",
    ),
    ExportKind(
        "--pdf",
        "FILE.pdf",
        "Print pack: elevations, floor plan, topology, the single-line diagram, device table "
        "per rack, power cords, liquid cooling, cable schedule, findings (see --pages).",
        "rackdesigner.export.drawings:pdf",
    ),
    ExportKind(
        "--png",
        "FILE.png",
        "The elevations sheet as a PNG (long side at most 16,000 px).",
        "rackdesigner.export.drawings:png",
    ),
    ExportKind(
        "--one-line",
        "FILE.svg",
        "The power chain's single-line diagram: sources at the top, racks (or rows) at the "
        "bottom, each element's load, rating and margin (docs/power-chain.md).",
        "rackdesigner.export.drawings:one_line",
    ),
    ExportKind(
        "--cooling-diagram",
        "FILE.svg",
        "The liquid cooling: facility water loops, CDU groups and their racks, chilled water "
        "to the rear doors, with heat, flow, temperatures and margins (docs/liquid-cooling.md).",
        "rackdesigner.export.drawings:cooling_diagram",
    ),
    ExportKind(
        "--graph",
        "FILE",
        "Topology graph file, format by suffix: .graphml, .gexf, .json (networkx "
        "node-link) or .dot (Graphviz); see --scope and --aggregate.",
        "rackdesigner.export.graph_files:export_graph",
    ),
    ExportKind(
        "--slurm-topology",
        "FILE",
        "Slurm topology/tree: topology.conf, or topology.yaml by suffix (Slurm 25.05+).",
        "rackdesigner.export.slurm:export_topology",
    ),
    ExportKind(
        "--hostfile",
        "FILE",
        "OpenMPI hostfile (host slots=GPUs), GPU nodes in layout order; with several "
        "compute fabrics one file per fabric, FILE.<fabric>.",
        "rackdesigner.export.slurm:export_hostfile",
    ),
    ExportKind(
        "--slurm-conf",
        "FILE",
        "Slurm NodeName and PartitionName lines of the GPU nodes (CPUs, RealMemory, "
        "Gres=gpu:N, Features from the catalog) to Include from slurm.conf, and gres.conf "
        "beside FILE.",
        "rackdesigner.export.slurm_conf:export_slurm_conf",
    ),
    ExportKind(
        "--ibsim",
        "FILE",
        "The InfiniBand compute fabric as an ibsim net file (deterministic GUIDs, adapter "
        "and switch port numbers from the port identity tables), to simulate the design.",
        "rackdesigner.export.ibsim:export_ibsim",
    ),
    ExportKind(
        "--netbox",
        "DIR",
        "NetBox bulk-import files, numbered in import order: manufacturers, device types "
        "(YAML), roles, site, racks, power panels and feeds, devices, interfaces, cables, "
        "and for NetBox 4.7 its cooling objects (docs/netbox.md; see --netbox-version).",
        "rackdesigner.export.netbox:export_netbox",
        directory=True,
    ),
    ExportKind(
        "--cables",
        "FILE.csv",
        "Cable schedule: both ends (rack, U, device, port), media, grade, length and "
        "stock length, label.",
        "rackdesigner.export.tables:export_cables",
    ),
    ExportKind(
        "--pull-sheets",
        "DIR",
        "Pull sheets: one CSV per pathway (or rack pair where none joins them) of the runs "
        "to pull there, in the order of the work, and DIR/index.csv (docs/cable-plant.md).",
        "rackdesigner.export.pull_sheets:export_pull_sheets",
        directory=True,
    ),
    ExportKind(
        "--labels",
        "FILE.csv",
        "TIA-606-style labels: both ends of every cable, patch cord and trunk, and every "
        "patch-panel port, one row per label to print (docs/cable-plant.md).",
        "rackdesigner.export.labels:export_labels",
    ),
    ExportKind(
        "--power",
        "FILE.csv",
        "Power-cord schedule: each PSU cord to its side's PDU, with the outlet type.",
        "rackdesigner.export.tables:export_power",
    ),
    ExportKind(
        "--bom",
        "FILE.csv",
        "Bill of materials: devices by model, then cables by media and stock length and "
        "optics; an unknown cost is empty.",
        "rackdesigner.export.tables:export_bom",
    ),
]

SETTINGS: list[ExportSetting] = [
    ExportSetting(
        "--theme",
        "Colours of SVG, PNG and PDF drawings.",
        choices=("light", "dark"),
        default="light",
        kinds=DRAWINGS,
    ),
    ExportSetting(
        "--paper",
        "Paper size of the --pdf print pack.",
        choices=("a4", "letter"),
        default="a4",
        kinds=("--pdf",),
    ),
    ExportSetting(
        "--pages",
        "--pdf: the print pack's sections, comma-separated, in that order (default all but "
        "pulls and labels): " + ", ".join(section_names()) + ".",
        metavar="LIST",
        kinds=("--pdf",),
    ),
    ExportSetting(
        "--date",
        "Date for title blocks (drawings carry no date without it).",
        metavar="YYYY-MM-DD",
        kinds=(*DRAWINGS, "--graph"),
    ),
    ExportSetting(
        "--scope",
        "What --graph covers: every compute fabric (default), fabric:<id>, rack:<id>, "
        "switches, storage (the storage fabric and its appliances), or all (every cabled "
        "device and cable).",
        metavar="SCOPE",
        kinds=("--graph",),
    ),
    ExportSetting(
        "--slurm-plugin",
        "--slurm-topology: tree (switches, the default) or block (one block per NVLink "
        "domain, BlockSizes as Topograph advises; a .yaml file holds the tree as well).",
        choices=("tree", "block"),
        default="tree",
        kinds=("--slurm-topology",),
    ),
    ExportSetting(
        "--netbox-version",
        "--netbox: the NetBox the files are for (default 4.7); from 4.7 on they hold its "
        "cooling objects (sources, feeds, intakes, outflows; docs/netbox.md), before it not.",
        metavar="X.Y",
        kinds=("--netbox",),
    ),
    ExportSetting(
        "--aggregate",
        "--graph: one edge per device pair with `cables` and summed `bandwidth_bps`, "
        "instead of one per cable.",
        flag=True,
        kinds=("--graph",),
    ),
]


def kind(option: str) -> ExportKind:
    for entry in KINDS:
        if entry.option == option:
            return entry
    raise KeyError(option)


def input_clash(outputs: list[Path], inputs: list[str]) -> str | None:
    """Why one of ``outputs`` must not be written (it is an input layout), or None: the
    command line's refusal, for the designer's export dialog."""
    from rackdesigner.layout_io.saving import same_file

    for output in outputs:
        for source in inputs:
            if same_file(output, source):
                return f"not writing {output}: it is the input layout"
    return None


def write_outputs(outputs: list[Output]) -> None:
    """Write the outputs as one, making their folders: every file is staged before any is
    renamed into place, and a failure or interruption removes what this run created
    (never a file that existed before). OSError names the file that failed; its note
    (``__notes__``) says what was undone (layout_io.saving.write_all)."""
    from rackdesigner.layout_io.saving import write_all

    write_all([(output.path, output.data) for output in outputs], make_folders=True)
