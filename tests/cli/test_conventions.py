"""The conventions every command keeps (cli.md v1.1), end to end through the console script.

Each convention has one real-process test (what a user or CI sees: exit code, stdout,
stderr, the files left behind); the variations run in process with click's CliRunner.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.cli.main import cli
from rackdesigner.export.registry import ExportContext, ExportKind, Output
from tests.conftest import ROOT, rackdesigner_command
from tests.processes import console, one_line
from tests.strategies import examples

CLEAN = ROOT / "layouts" / "finetune-8gpu.toml"
FAILING = ROOT / "tests" / "data" / "overlap.toml"
LAYOUT = FAILING.read_text()
runner = CliRunner()


# -- an output is never one of the inputs ------------------------------------------------------


def test_report_and_validate_output_onto_their_input_are_refused(tmp_path: Path) -> None:
    layout = tmp_path / "f.toml"
    layout.write_text(LAYOUT)
    link = tmp_path / "link.toml"
    link.symlink_to(layout)
    for args in (
        ("validate", str(layout), "-o", str(layout)),
        ("report", str(layout), "--output", str(link)),
    ):
        result = console(*args)
        assert result.returncode == 2 and result.stdout == ""
        assert "it is the input layout" in one_line(result.stderr) or "an input layout" in (
            result.stderr
        )
        assert layout.read_text() == LAYOUT


def test_output_onto_an_input_is_refused_for_every_command_and_format(tmp_path: Path) -> None:
    folder = tmp_path / "layouts"
    folder.mkdir()
    layout = folder / "a.toml"
    layout.write_text(LAYOUT)
    hard = tmp_path / "hard.toml"
    os.link(layout, hard)
    for args in (
        ["validate", str(folder), "--format", "json", "-o", str(layout)],
        ["validate", str(layout), "--format", "sarif", "--output", str(hard)],
        ["validate", str(layout), "--write-baseline", str(layout)],
        ["report", str(layout), "--format", "csv", "-o", str(hard)],
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code == 2, (args, result.output)
        assert "nothing was written" in result.stderr or "input" in result.stderr
        assert layout.read_text() == LAYOUT


def test_export_toml_onto_its_input_is_the_formatter(tmp_path: Path) -> None:
    layout = tmp_path / "f.toml"
    layout.write_text("format = 1\nname = 'x'\n[[racks]]\nid='r1'\n")
    result = runner.invoke(cli, ["export", str(layout), "--toml", str(layout)])
    assert result.exit_code == 0, result.output
    assert layout.read_text() == 'format = 1\nname = "x"\n\n[[racks]]\nid = "r1"\n'


def fake_dir_exporter(context: ExportContext, path: Path) -> list[Output]:
    """Like --svg-dir: one file per rack, named from the rack, in the option's folder."""
    return [Output(path / f"{rack.id}.toml", b"x") for rack in context.layout.racks]


def fake_file_exporter(context: ExportContext, path: Path) -> list[Output]:
    return [Output(path, b"y")]


def test_every_export_option_is_checked_against_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any kind in the registry, including ones added later and the files they derive."""
    import click

    from rackdesigner.cli import export as cli_module
    from rackdesigner.export import registry as exporters

    kinds = [
        ExportKind("--fake-dir", "DIR", "one file per rack", f"{__name__}:fake_dir_exporter", True),
        ExportKind("--fake", "FILE", "one file", f"{__name__}:fake_file_exporter"),
    ]
    monkeypatch.setattr(exporters, "KINDS", kinds)
    # The export command with the options of this registry, as the command line builds it.
    command = click.command()(cli_module.export.callback)
    command = click.option("--force", is_flag=True)(command)
    command = click.option("--toml", "toml_out")(command)
    command = cli_module._export_options(command)  # type: ignore[arg-type]
    command = click.argument("layout")(command)
    layout = tmp_path / "a01.toml"
    layout.write_text(LAYOUT)
    # The option names the input itself.
    result = runner.invoke(command, [str(layout), "--fake", str(layout)])
    assert result.exit_code == 2 and "input layout" in result.stderr, result.output
    # The option is a folder, and a file the exporter derives in it is the input.
    result = runner.invoke(command, [str(layout), "--fake-dir", str(tmp_path)])
    assert result.exit_code == 2 and "a01.toml" in result.stderr, result.output
    assert layout.read_text() == LAYOUT
    # Two options onto one file.
    out = tmp_path / "out.toml"
    result = runner.invoke(command, [str(layout), "--fake", str(out), "--toml", str(out)])
    assert result.exit_code == 2 and "both name" in result.stderr, result.output
    assert not out.exists()
    # Elsewhere, it writes, creating the folder.
    result = runner.invoke(
        command, [str(layout), "--fake-dir", str(tmp_path / "racks"), "--fake", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "racks" / "a01.toml").read_bytes() == b"x"
    assert out.read_bytes() == b"y"


# -- Ctrl-C ------------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="signals and FIONREAD are POSIX")
def test_ctrl_c_exits_130_with_no_partial_output(tmp_path: Path) -> None:
    """Interrupted while it reads a layout from a pipe: exit 130 (not 1, the findings
    code), nothing on stdout, no output file, no temporary file left."""
    read_end, write_end = os.pipe()
    out = tmp_path / "out.json"
    process = subprocess.Popen(
        [*rackdesigner_command(), "validate", "-", "--format", "json", "-o", str(out)],
        # As from an interactive shell: a test runner started in the background ignores
        # SIGINT, and its children would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdin=read_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    try:
        os.write(write_end, LAYOUT[:40].encode())
        # Once the command has read what is in the pipe it is running and waits for more.
        deadline = time.monotonic() + 30
        while struct.unpack("i", fcntl.ioctl(read_end, termios.FIONREAD, b"\0" * 4))[0]:
            assert time.monotonic() < deadline, "the command never read its input"
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        os.close(read_end)
        os.close(write_end)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert stdout == b"" and b"Traceback" not in stderr
    assert stderr.decode().strip() == "rackdesigner: interrupted"
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "report.json"
    out.write_text("previous report\n")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    result = runner.invoke(cli, ["validate", str(FAILING), "--format", "json", "-o", str(out)])
    assert result.exit_code == 130 and result.stdout == ""
    assert out.read_text() == "previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


# -- file-system errors ------------------------------------------------------------------------


def test_file_system_errors_are_one_line_naming_the_path(tmp_path: Path) -> None:
    layout = tmp_path / "f.toml"
    layout.write_text(LAYOUT)
    # Too long a name: stat() itself fails (it was "internal error ... please report it").
    long_name = tmp_path / ("a" * 300 + ".toml")
    result = console("export", str(layout), "--toml", str(long_name))
    assert result.returncode == 2
    assert one_line(result.stderr) == f"rackdesigner: cannot write {long_name}: File name too long"
    # Not a directory.
    result = console("validate", str(layout), "-o", str(layout / "x.json"))
    assert result.returncode == 2 and result.stdout == ""
    assert (
        one_line(result.stderr)
        == f"rackdesigner: cannot write {layout / 'x.json'}: Not a directory"
    )


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux sysfs")
def test_permission_denied_even_for_root_is_one_line() -> None:
    # sysfs refuses new files to every user, root included.
    result = console("report", str(CLEAN), "-o", "/sys/kernel/rackdesigner-report.txt")
    assert result.returncode == 2 and result.stdout == ""
    assert one_line(result.stderr) == (
        "rackdesigner: cannot write /sys/kernel/rackdesigner-report.txt: Permission denied: "
        "the folder /sys/kernel does not allow new files"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root may enter and write anything")
def test_locked_folder_and_read_only_file_as_a_user(tmp_path: Path) -> None:
    layout = tmp_path / "f.toml"
    layout.write_text(LAYOUT)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o000)
    try:
        result = console("export", str(layout), "--toml", str(locked / "x.toml"))
        assert result.returncode == 2
        assert one_line(result.stderr).endswith(
            f"{locked / 'x.toml'}: Permission denied: the folder {locked} does not allow new files"
        )
    finally:
        locked.chmod(0o755)
    read_only = tmp_path / "report.txt"
    read_only.write_text("keep me\n")
    read_only.chmod(0o444)
    result = console("report", str(layout), "-o", str(read_only))
    assert result.returncode == 2
    assert one_line(result.stderr) == f"rackdesigner: cannot write {read_only}: Permission denied"
    assert read_only.read_text() == "keep me\n"


def test_a_read_only_output_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename would replace a file the user made read-only; writing refuses, as open()."""
    out = tmp_path / "report.txt"
    out.write_text("keep me\n")
    real_access = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda path, mode, **kw: (
            False if Path(path) == out and mode == os.W_OK else real_access(path, mode, **kw)
        ),
    )
    result = runner.invoke(cli, ["report", str(CLEAN), "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr == f"rackdesigner: cannot write {out}: Permission denied\n"
    assert out.read_text() == "keep me\n"


def test_unreadable_inputs_are_one_line_or_a_finding(tmp_path: Path) -> None:
    result = runner.invoke(cli, ["validate", str(FAILING), "--baseline", str(FAILING / "x")])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "cannot read baseline" in result.stderr
    result = runner.invoke(cli, ["report", str(FAILING / "x.toml")])
    assert result.exit_code == 2 and "Not a directory" in result.stderr


# -- symlinks ----------------------------------------------------------------------------------


def test_export_force_through_a_symlink_writes_the_target_and_keeps_the_link(
    tmp_path: Path,
) -> None:
    real = tmp_path / "shared" / "cluster.toml"
    real.parent.mkdir()
    real.write_text("# header\nformat = 1\nname = 'x'\n[[racks]]\nid = 'r1'  # trailing\n")
    link = tmp_path / "cluster.toml"
    link.symlink_to(Path("shared") / "cluster.toml")
    result = console("export", str(link), "--toml", str(link), "--force")
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(Path("shared") / "cluster.toml")
    assert real.read_text() == '# header\n\nformat = 1\nname = "x"\n\n[[racks]]\nid = "r1"\n'
    assert sorted(p.name for p in real.parent.iterdir()) == ["cluster.toml"]


# -- terminal text -----------------------------------------------------------------------------

RLO = "\u202e"
ESC = "\x1b"
# As written in TOML: a basic string holds control characters only as escapes.
TOML_RLO = "\\u202e"
TOML_ESC = "\\u001b"


def test_stdin_escapes_and_singular_words_end_to_end() -> None:
    """One real run: a layout on standard input, named <stdin>, whose device id holds a
    right-to-left override and whose name holds a clear-screen sequence."""
    text = LAYOUT.replace('id = "a01-n02"', f'id = "a01-{RLO}n02"').replace(
        'name = "overlap"', f'name = "over{TOML_ESC}[2Jlap"'
    )
    result = console("validate", "-", "--totals", "always", stdin=text)
    assert result.returncode == 1
    assert RLO not in result.stdout and ESC not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[0].startswith("<stdin>:5: warning PLC006 rack a01: 41 open units")
    assert lines[1].startswith("<stdin>:18: error PLC001 device a01-\\u202en02: overlaps")
    assert "<stdin>: over\\x1b[2Jlap" in lines  # the totals table's title
    assert lines[-1] == "1 error, 1 warning, 0 info in 1 file"


def test_load_errors_and_paths_are_escaped_too(tmp_path: Path) -> None:
    folder = tmp_path / f"odd{ESC}[31m"
    folder.mkdir()
    (folder / "b.toml").write_text(f'format = 1\nname = "x"\n[[racks]]\nid = "r{TOML_ESC}[31m"\n')
    result = runner.invoke(cli, ["validate", str(folder)])
    assert result.exit_code == 2 and ESC not in result.stdout
    assert 'id must not contain control characters, got "r\\x1b[31m"' in result.stdout
    assert result.stdout.startswith(str(tmp_path / "odd\\x1b[31m" / "b.toml"))
    result = runner.invoke(cli, ["report", str(folder / "b.toml")])
    assert result.exit_code == 2 and ESC not in result.stderr and "\\x1b[31m" in result.stderr


def test_machine_formats_keep_the_exact_text(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text(LAYOUT.replace('id = "a01-n02"', f'id = "a01-{RLO}n02"'))
    result = runner.invoke(cli, ["validate", str(path), "--format", "json"])
    entities = {d["entity"] for d in json.loads(result.stdout)["diagnostics"]}
    assert f"device a01-{RLO}n02" in entities
    sarif = runner.invoke(cli, ["validate", str(path), "--format", "sarif"]).stdout
    texts = [r["message"]["text"] for r in json.loads(sarif)["runs"][0]["results"]]
    assert any(f"device a01-{RLO}n02: overlaps" in text for text in texts)
    # XML cannot hold an escape character at all: JUnit shows it escaped, and parses.
    from xml.etree import ElementTree

    bad = tmp_path / "b.toml"
    bad.write_text(f'format = 1\nname = "x"\n[[racks]]\nid = "r{TOML_ESC}"\n')
    junit = runner.invoke(cli, ["validate", str(bad), "--format", "junit"]).stdout
    assert "r\\x1b" in junit and ESC not in junit
    ElementTree.fromstring(junit)
    # A report for people is escaped; its CSV and JSON are exact.
    named = tmp_path / "n.toml"
    named.write_text(LAYOUT.replace('name = "overlap"', f'name = "over{TOML_RLO}lap"'))
    assert "over\\u202elap" in runner.invoke(cli, ["report", str(named)]).stdout
    assert f"over{RLO}lap" in runner.invoke(cli, ["report", str(named), "--format", "json"]).stdout


# -- words agree with numbers, standard input --------------------------------------------------


def test_stdin_variations() -> None:
    result = runner.invoke(cli, ["report", "-", "--format", "json"], input=CLEAN.read_text())
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["file"] == "<stdin>" and data["layout"]
    result = runner.invoke(cli, ["validate", "-", "--format", "json"], input="format = 1\nname=\n")
    assert result.exit_code == 2
    (finding,) = json.loads(result.stdout)["diagnostics"]
    assert finding["file"] == "<stdin>" and finding["code"] == "E000" and finding["line"] == 2
    result = runner.invoke(cli, ["validate", "-", "-"], input=LAYOUT)
    assert result.exit_code == 2 and "only once" in result.stderr
    result = runner.invoke(cli, ["report", "-"], input=b"\xff\xfe")
    assert result.exit_code == 2 and "<stdin>:1: error E000" in result.stderr
    result = runner.invoke(cli, ["validate", "-", str(FAILING), "--quiet"], input=LAYOUT)
    assert result.stdout == "2 errors, 2 warnings, 0 info in 2 files\n"


def test_words_agree_with_numbers() -> None:
    from rackdesigner.model.wording import plural

    assert plural(1, "file") == "1 file" and plural(2, "file") == "2 files"
    assert plural(0, "error") == "0 errors" and plural(1, "info") == "1 info"
    assert plural(2, "entry", "entries") == "2 entries"
    text = runner.invoke(cli, ["report", str(CLEAN)]).stdout
    assert "in 1 GPU node " in text and "1 rack holds GPUs" in text
    assert "(s)" not in text


# -- bare rackdesigner, rackdesigner LAYOUT, export --help -------------------------------------


def _designer_runs(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The paths the real ``edit`` command opens the designer on; the app itself does not
    start (it needs a terminal: tests/tui/test_terminal.py drives it in one)."""
    import rackdesigner.tui.app

    opened: list[str | None] = []
    monkeypatch.setattr(rackdesigner.tui.app, "run", opened.append)
    return opened


def test_bare_command_prints_help_and_a_layout_path_opens_the_designer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = console()
    assert result.returncode == 0 and result.stdout.startswith("Usage: rackdesigner")
    assert "validate" in result.stdout
    layout = tmp_path / "f.toml"
    layout.write_text(LAYOUT)
    # The designer's shortcut: `rackdesigner LAYOUT` is `rackdesigner edit LAYOUT`.
    opened = _designer_runs(monkeypatch)
    result = runner.invoke(cli, [str(layout)], catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == ""
    assert opened == [str(layout)]


def test_without_the_designer_a_layout_path_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A build without the edit command says so in one line, exit 2 (cli.md before v1.1's
    # designer; kept for installs that leave the designer out).
    monkeypatch.delitem(cli.commands, "edit")
    layout = tmp_path / "f.toml"
    layout.write_text(LAYOUT)
    result = runner.invoke(cli, [str(layout)])
    assert result.exit_code == 2 and result.stdout == ""
    assert "designer is not available yet" in one_line(result.stderr)
    result = runner.invoke(cli, [str(tmp_path / "new.toml")])
    assert result.exit_code == 2 and "cannot create" in result.stderr


def test_a_command_name_wins_and_typos_are_not_layouts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = runner.invoke(cli, ["valdiate", str(FAILING)])
    assert result.exit_code == 2 and "Did you mean 'validate'" in result.stderr
    (tmp_path / "rules").write_text(LAYOUT)
    result = runner.invoke(cli, ["rules"], catch_exceptions=False)
    assert result.exit_code == 0 and "PWR001" in result.stdout
    # A path that does not exist yet is a new layout for the designer (created on its
    # first save, cli.md), not a typo.
    opened = _designer_runs(monkeypatch)
    result = runner.invoke(cli, [str(tmp_path / "new.toml")], catch_exceptions=False)
    assert result.exit_code == 0 and opened == [str(tmp_path / "new.toml")]
    assert not (tmp_path / "new.toml").exists()


def test_a_layout_path_opens_the_designer_once_it_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    import click

    opened: list[tuple[str | None, tuple[str, ...]]] = []

    @click.command("edit")
    @click.argument("layout", required=False)
    @click.argument("rest", nargs=-1)
    def edit(layout: str | None, rest: tuple[str, ...]) -> None:
        opened.append((layout, rest))

    monkeypatch.setitem(cli.commands, "edit", edit)
    result = runner.invoke(cli, ["cluster.toml"])
    assert result.exit_code == 0, result.output
    assert opened == [("cluster.toml", ())]
    result = runner.invoke(cli, ["validate", str(FAILING), "--quiet"])
    assert result.exit_code == 1 and opened == [("cluster.toml", ())]


def test_export_help_lists_what_it_really_writes() -> None:
    from rackdesigner.export.registry import KINDS

    result = console("export", "--help")
    assert result.returncode == 0
    assert "--toml FILE" in result.stdout
    for entry in KINDS:
        assert entry.option in result.stdout
    # The list of what it writes reads on an 80-column terminal.
    writes = result.stdout.split("Writes:", 1)[1].split("\n\n", 1)[0]
    assert all(len(line) <= 80 for line in writes.splitlines()), writes
    if not KINDS:
        assert "diagram" not in result.stdout.lower() and "svg" not in result.stdout.lower()
        assert "Write a layout in canonical TOML form" in result.stdout


def test_dash_output_is_standard_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["validate", str(FAILING), "-o", "-", "--quiet"])
    assert result.exit_code == 1 and result.stdout == "1 error, 1 warning, 0 info in 1 file\n"
    result = runner.invoke(cli, ["report", str(CLEAN), "-o", "-", "--format", "csv"])
    assert result.exit_code == 0 and result.stdout
    assert list(tmp_path.iterdir()) == []


@settings(max_examples=examples(100), deadline=None)
@given(st.text())
def test_terminal_text_never_holds_a_control_or_bidi_character(text: str) -> None:
    from rackdesigner.model.terminal import shown, shown_lines

    unsafe = set(map(chr, [*range(0x20), *range(0x7F, 0xA0)])) | set(
        "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    )
    # Invisible characters: zero-width, joiners, separators, tags.
    unsafe |= set(
        "\u00ad\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u200b\u200c"
        "\u200d\u2028\u2029\u2060\u2061\u2062\u2063\u2064\u206a\u206b\u206c\u206d"
        "\u206e\u206f\u3164\ufeff\uffa0\ufff9\ufffa\ufffb"
    ) | set(map(chr, range(0xE0000, 0xE0080)))
    assert not unsafe & set(shown(text))
    assert not (unsafe - {"\n"}) & set(shown_lines(text))
    if not unsafe & set(text):
        assert shown(text) == text


def test_a_folder_where_a_file_is_expected_is_one_line(tmp_path: Path) -> None:
    for args in (
        ["validate", str(FAILING), "-o", str(tmp_path)],
        ["report", str(FAILING), "-o", str(tmp_path)],
        ["validate", str(FAILING), "--baseline", str(tmp_path)],
        ["schema", "-o", str(tmp_path)],
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
        assert "Is a directory" in result.stderr and str(tmp_path) in result.stderr


# -- the shared option blocks -----------------------------------------------------------------


def _option(command: str, name: str) -> object:
    found = cli.get_command(None, command)  # type: ignore[arg-type]
    assert found is not None
    return next(p for p in found.params if name in getattr(p, "opts", ()))


@pytest.mark.parametrize(
    ("command", "choices"),
    [
        ("validate", ["text", "json", "sarif", "junit", "github"]),
        ("report", ["text", "json", "csv"]),
        ("rules", ["text", "json", "markdown"]),
        ("diff", ["text", "json", "markdown"]),
        ("whatif", ["text", "json", "markdown"]),
        ("verify", ["text", "json", "csv"]),
    ],
)
def test_format_is_one_option_everywhere(command: str, choices: list[str]) -> None:
    """``--format`` comes from conventions.format_option: named fmt_, its first choice the
    default, shown in --help."""
    option = _option(command, "--format")
    assert option.name == "fmt_"  # type: ignore[attr-defined]
    assert list(option.type.choices) == choices  # type: ignore[attr-defined]
    assert option.default == "text" and option.show_default  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "command", ["validate", "report", "schema", "diff", "whatif", "generate", "pull"]
)
def test_output_is_one_option_everywhere(command: str) -> None:
    option = _option(command, "--output")
    assert option.opts == ["--output", "-o"] and option.name == "output"  # type: ignore[attr-defined]


def test_no_command_writes_the_format_block_out_again() -> None:
    """One home: the option blocks are conventions' (a copy would drift in its help)."""
    for path in sorted((ROOT / "rackdesigner" / "cli").glob("*.py")):
        if path.name == "conventions.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert '"--format",\n' not in text and '"--format", "' not in text, path.name
        assert '"--output",\n' not in text and '"--output", "-o"' not in text, path.name
        assert '"-o",\n    "--output"' not in text and '"-o", "--output"' not in text, path.name


# -- a read-only file system is named as one ---------------------------------------------------


def _read_only_mount(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    """Make ``root`` behave as a read-only mount for the checks (access and statvfs), as
    `mount -o ro` does; writing there for real is refused by the test's own probe hook."""
    real_access, real_statvfs = os.access, os.statvfs

    def access(path, mode, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).startswith(str(root)) and mode & os.W_OK:
            return False
        return real_access(path, mode, *args, **kwargs)

    class Flags:
        def __init__(self, flags: int) -> None:
            self.f_flag = flags

    def statvfs(path):  # type: ignore[no-untyped-def]
        found = real_statvfs(path)
        if str(path).startswith(str(root)):
            return Flags(found.f_flag | os.ST_RDONLY)
        return found

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "statvfs", statvfs)


def test_a_read_only_file_system_is_not_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EROFS was reported as "Permission denied", which sends people to chmod."""
    mount = tmp_path / "ro"
    mount.mkdir()
    existing = mount / "old.txt"
    existing.write_text("old")
    _read_only_mount(monkeypatch, mount)
    for args, path in (
        (["report", str(CLEAN), "-o", str(mount / "new.txt")], mount / "new.txt"),
        (["report", str(CLEAN), "-o", str(existing)], existing),
        (["export", str(CLEAN), "--cables", str(mount / "c.csv")], mount / "c.csv"),
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith(f"rackdesigner: cannot write {path}: Read-only file system")
        assert "Permission denied" not in result.stderr
    from rackdesigner.layout_io.saving import write_atomic

    with pytest.raises(OSError, match="Read-only file system") as raised:
        write_atomic(existing, b"new")
    assert raised.value.errno == errno.EROFS and existing.read_text() == "old"


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or sys.platform != "linux", reason="mounts need root")
def test_a_real_read_only_mount(tmp_path: Path) -> None:
    mount = tmp_path / "ro"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "none", str(mount)],
        capture_output=True,
        timeout=30,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode(errors='replace')}")
    try:
        result = console("report", str(CLEAN), "-o", str(mount / "out.txt"))
        assert result.returncode == 2
        assert one_line(result.stderr).startswith(
            f"rackdesigner: cannot write {mount / 'out.txt'}: Read-only file system"
        )
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True, timeout=30)
