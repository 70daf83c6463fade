"""The command-line conventions (docs/reliability.md), checked on every command there is.

The commands come from the click group itself (``cli``, walked recursively, lazy ones
included); each must be classified in :data:`SPECS`, so a new command fails here until it
says how it keeps the conventions:

- **escaping**: run on a layout (and catalog, scan, NetBox) whose names hold an escape
  sequence, an OSC title, a bell, a right-to-left override and a newline, with standard
  output taken for a terminal: nothing reaches it raw, and no name starts a line of its own;
- **output onto an input**: ``-o`` (or an export option) naming one of the command's
  inputs is refused, exit 2, the input unchanged;
- **no overwrite without the flag**: where a command creates a file that is work (a new
  layout, a catalog entry), an existing one is refused without the documented flag and
  replaced with it.

In process (click's CliRunner) on a 16-GPU layout: about a second for all of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from rackdesigner.cli import conventions
from rackdesigner.cli.main import cli
from tests.conftest import ROOT

HOSTILE = "EVIL\x1b[31mRED\x1b]0;pwned\x07\u202eTXET\nFORGED"
RAW = set("\x1b\x07\u202e")
HOSTILE_RACK = "a\u202e01"  # an id holds no control or whitespace; a bidi override it may
HOSTILE_ID = "x01-\u202en01"


@dataclass
class World:
    """The hostile inputs, made once per test in its own folder."""

    root: Path
    layout: Path = field(init=False)
    changed: Path = field(init=False)
    yaml: Path = field(init=False)
    node_map: Path = field(init=False)
    user_catalog: Path = field(init=False)

    def __post_init__(self) -> None:
        base = (ROOT / "tests" / "data" / "conventions-small.toml").read_text(encoding="utf-8")
        text = base.replace('name = "small"', f"name = {json.dumps(HOSTILE)}")
        text = text.replace('row = "A"', f"row = {json.dumps('A' + HOSTILE)}")
        text = text.replace('"a01-n01', f'"{HOSTILE_ID}').replace('"a01', f'"{HOSTILE_RACK}')
        text = text.replace('label = "door"', f"label = {json.dumps(HOSTILE)}")
        self.layout = self.root / "hostile.toml"
        self.layout.write_text(text, encoding="utf-8")
        self.changed = self.root / "changed.toml"
        self.changed.write_text(text.replace('max_weight = "1500 kg"', 'max_weight = "1400 kg"'))
        self.yaml = self.root / "evil.yaml"
        self.yaml.write_text(
            f"manufacturer: Acme\nmodel: {json.dumps(HOSTILE)}\nslug: evil\nu_height: 1\n"
            "is_full_depth: true\n",
            encoding="utf-8",
        )
        self.user_catalog = self.root / "config" / "rackdesigner" / "catalog.toml"
        self.user_catalog.parent.mkdir(parents=True)
        self.user_catalog.write_text(
            f'[catalog.evil]\nkind = "other"\nname = {json.dumps(HOSTILE)}\nheight = "1 U"\n',
            encoding="utf-8",
        )
        names = (ROOT / "tests/asbuilt/data/inference-32-b200.node-name-map").read_text()
        self.node_map = self.root / "names.map"
        # A map line holds any character but a newline and a quote.
        one_line = HOSTILE.replace("\n", " ")
        self.node_map.write_text(names.replace('"a01-leaf"', f'"=x{one_line}"'))


Args = list[str]


@dataclass
class Spec:
    """How one command keeps the conventions; ``exempt`` says why a check does not apply
    (and where else it is tested)."""

    prints: Callable[[World], list[Args]] | None = None
    onto_input: Callable[[World], list[Args]] | None = None  # each refused, exit 2
    overwrite: Callable[[World], tuple[Args, Args, Path]] | None = None
    exempt: dict[str, str] = field(default_factory=dict)


def _verify(w: World, fmt: str) -> Args:
    return [
        "verify", str(ROOT / "layouts/inference-32-b200.toml"), "--ignore-speed",
        "--ibnetdiscover", str(ROOT / "tests/asbuilt/data/unmanaged.scan"),
        "--node-name-map", str(w.node_map), "--format", fmt,
    ]  # fmt: skip


def _new_overwrite(w: World) -> tuple[Args, Args, Path]:
    target = w.root / "existing.toml"
    target.write_text("# my work\n", encoding="utf-8")
    args = ["new", str(target), "--template", "small"]
    return args, [*args, "--force"], target


def _generate_overwrite(w: World) -> tuple[Args, Args, Path]:
    target = w.root / "existing.toml"
    target.write_text("# my work\n", encoding="utf-8")
    args = ["generate", str(w.layout), "--fabric", "direct", "--replace", "-o", str(target)]
    return args, [*args, "--force"], target


def _import_overwrite(w: World) -> tuple[Args, Args, Path]:
    args = ["catalog", "import", str(w.yaml), "--kind", "other"]
    return args, [*args, "--replace"], w.user_catalog


NETWORK = "needs a NetBox: tests/netbox/test_push_pull.py runs it against a stand-in"

SPECS: dict[tuple[str, ...], Spec] = {
    ("catalog",): Spec(
        prints=lambda w: [["catalog"], ["catalog", "evil"], ["catalog", "--format", "json"]],
        exempt={"onto_input": "no -o", "overwrite": "writes nothing"},
    ),
    ("catalog", "import"): Spec(
        prints=lambda w: [["catalog", "import", str(w.yaml), "--kind", "other", "--replace"]],
        overwrite=_import_overwrite,
        exempt={"onto_input": "no -o: it edits the catalog it is told to (--into)"},
    ),
    ("diff",): Spec(
        prints=lambda w: [
            ["diff", str(w.layout), str(w.changed), "--format", fmt]
            for fmt in ("text", "markdown", "json")
        ],
        onto_input=lambda w: [
            ["diff", str(w.layout), str(w.changed), "-o", str(w.layout)],
            ["diff", str(w.layout), str(w.changed), "--format", "json", "-o", str(w.changed)],
        ],
        exempt={"overwrite": "a report: -o replaces the file, as a shell redirect"},
    ),
    ("edit",): Spec(
        exempt={
            "prints": "the designer draws a full screen: its widgets escape through "
            "model.terminal.shown (tests/tui)",
            "onto_input": "saves the layout it opened, on purpose (document.save)",
            "overwrite": "refuses a file changed on disk since it was read (tests/tui)",
        }
    ),
    ("export",): Spec(
        prints=lambda w: [["export", str(w.layout), "--toml", "-"]],
        onto_input=lambda w: [
            ["export", str(w.layout), option, str(w.layout)]
            for option in (
                "--cables",
                "--power",
                "--bom",
                "--hostfile",
                "--topology",
                "--labels",
                "--pull-sheets",
            )
        ],
        exempt={
            "overwrite": "outputs replace files, as a shell redirect; --toml onto the "
            "input is the formatter, which refuses to drop comments without --force"
        },
    ),
    ("generate",): Spec(
        prints=lambda w: [
            ["generate", str(w.layout), "--fabric", "direct", "--replace", "-o", "made.toml"]
        ],
        onto_input=lambda w: [
            ["generate", str(w.layout), "--fabric", "direct", "--replace", "-o", str(w.layout)]
        ],
        overwrite=_generate_overwrite,
    ),
    ("new",): Spec(
        prints=lambda w: [
            ["new", str(w.root / "made.toml"), "--template", "small", "--name", HOSTILE]
        ],
        overwrite=_new_overwrite,
        exempt={"onto_input": "reads no file"},
    ),
    ("pull",): Spec(exempt={"prints": NETWORK, "onto_input": NETWORK, "overwrite": NETWORK}),
    ("push",): Spec(exempt={"prints": NETWORK, "onto_input": "no -o", "overwrite": NETWORK}),
    ("report",): Spec(
        prints=lambda w: [
            ["report", str(w.layout), "--format", f] for f in ("text", "json", "csv")
        ],
        onto_input=lambda w: [["report", str(w.layout), "--format", "csv", "-o", str(w.layout)]],
        exempt={"overwrite": "a report: -o replaces the file, as a shell redirect"},
    ),
    ("rules",): Spec(
        prints=lambda w: [["rules"], ["rules", HOSTILE]],
        exempt={"onto_input": "no -o", "overwrite": "writes nothing"},
    ),
    ("schema",): Spec(
        prints=lambda w: [["schema"]],
        exempt={"onto_input": "reads no file", "overwrite": "a report: -o replaces the file"},
    ),
    ("validate",): Spec(
        prints=lambda w: [
            ["validate", str(w.layout), "--format", fmt]
            for fmt in ("text", "json", "sarif", "junit", "github")
        ],
        onto_input=lambda w: [
            ["validate", str(w.layout), "-o", str(w.layout)],
            ["validate", str(w.layout), "--write-baseline", str(w.layout)],
        ],
        exempt={"overwrite": "a report: -o replaces the file, as a shell redirect"},
    ),
    ("verify",): Spec(
        prints=lambda w: [_verify(w, fmt) for fmt in ("text", "json", "csv")],
        exempt={"onto_input": "no -o", "overwrite": "writes nothing"},
    ),
    ("whatif",): Spec(
        prints=lambda w: (
            [
                ["whatif", str(w.layout), "--fail", f"rack:{HOSTILE_RACK}", "--format", fmt]
                for fmt in ("text", "markdown", "json")
            ]
            + [["whatif", str(w.layout), "--each", "rack", "--format", "markdown"]]
        ),
        onto_input=lambda w: [
            ["whatif", str(w.layout), "--each", "rack", "-o", str(w.layout)],
            [
                "whatif",
                str(w.layout),
                "--fail",
                f"rack:{HOSTILE_RACK}",
                "--format",
                "json",
                "-o",
                str(w.layout),
            ],
        ],
        exempt={"overwrite": "a report: -o replaces the file, as a shell redirect"},
    ),
}


def every_command() -> list[tuple[str, ...]]:
    """Every command reachable from ``cli``: leaves, and groups that run on their own."""
    found: list[tuple[str, ...]] = []

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            assert command is not None, name
            if isinstance(command, click.Group):
                if command.invoke_without_command:
                    found.append((*path, name))
                walk(command, (*path, name))
            else:
                found.append((*path, name))

    walk(cli, ())
    return found


def test_every_command_is_classified() -> None:
    """A new command has to say, here, how it keeps the conventions."""
    assert sorted(every_command()) == sorted(SPECS)
    for name, spec in SPECS.items():
        for check in ("prints", "onto_input", "overwrite"):
            assert (getattr(spec, check) is None) == (check in spec.exempt), (name, check)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(conventions, "on_terminal", lambda: True)
    monkeypatch.chdir(tmp_path)
    return World(tmp_path)


def _run(args: Args) -> Result:
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def _with(check: str) -> list[tuple[str, ...]]:
    return [name for name, spec in SPECS.items() if getattr(spec, check) is not None]


@pytest.mark.parametrize("name", _with("prints"), ids=" ".join)
def test_hostile_names_reach_the_terminal_escaped(world: World, name: tuple[str, ...]) -> None:
    spec = SPECS[name]
    assert spec.prints is not None
    for args in spec.prints(world):
        result = _run(args)
        assert result.exit_code in (0, 1, 2), (args, result.output)
        shown = result.stdout + result.stderr
        assert not RAW & set(shown), (args, shown)
        forged = [line for line in shown.splitlines() if line.lstrip(" -|`").startswith("FORGED")]
        assert not forged, (args, shown)
        assert "internal error" not in shown and "Traceback" not in shown, (args, shown)


@pytest.mark.parametrize("name", _with("onto_input"), ids=" ".join)
def test_an_output_onto_an_input_is_refused(world: World, name: tuple[str, ...]) -> None:
    spec = SPECS[name]
    assert spec.onto_input is not None
    inputs = {p: p.read_bytes() for p in (world.layout, world.changed)}
    for args in spec.onto_input(world):
        result = _run(args)
        assert result.exit_code == 2, (args, result.output)
        assert "input" in result.stderr or "in place" in result.stderr, (args, result.stderr)
        assert {p: p.read_bytes() for p in inputs} == inputs, args


@pytest.mark.parametrize("name", _with("overwrite"), ids=" ".join)
def test_no_overwrite_without_the_flag(world: World, name: tuple[str, ...]) -> None:
    spec = SPECS[name]
    assert spec.overwrite is not None
    without, with_flag, target = spec.overwrite(world)
    before = target.read_bytes()
    refused = _run(without)
    assert refused.exit_code in (1, 2), (without, refused.output)
    assert target.read_bytes() == before, without
    done = _run(with_flag)
    assert done.exit_code == 0, (with_flag, done.output)
    assert target.read_bytes() != before, with_flag
