"""Loading a layout for a command (``cli/loading.py``): one way for every command, from a
path or standard input, with the same limits and the same messages."""

from __future__ import annotations

import gc

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from rackdesigner.layout_io import reader
from tests.builders import HEADER, rack_text
from tests.conftest import ROOT

SCANS = ROOT / "tests" / "asbuilt" / "data" / "lldp"

# A small valid layout, then comment lines: cut anywhere in the padding it still loads, so
# a command that read only the first bytes of a too-long input would carry on silently.
LAYOUT = HEADER + rack_text("a01", ["dgx-h100"]) + "# padding\n" * 200


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, list(args), input=stdin)


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "-"),
        ("report", "-"),
        ("export", "-", "--toml", "-"),
        ("whatif", "-", "--each", "rack"),
        ("diff", "-", "NEW"),
        ("generate", "-", "--fabric", "direct", "-o", "OUT"),
        ("verify", "-", "--lldp", "SCAN"),
    ],
)
def test_standard_input_over_the_size_limit_is_refused_by_every_command(
    args: tuple[str, ...], tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layout on standard input larger than RACKDESIGNER_MAX_FILE_BYTES is an E000, as a
    file of that size is, for every command that reads one: never checked cut short
    (whatif and diff read the first limit + 1 bytes and went on with them)."""
    new = tmp_path / "new.toml"
    new.write_text(HEADER + rack_text("a01", ["dgx-h100"]))  # within the limit
    args = tuple(
        {"NEW": str(new), "OUT": str(tmp_path / "out.toml"), "SCAN": str(SCANS)}.get(word, word)
        for word in args
    )
    limit = len(LAYOUT) - 500  # the cut falls in the padding: valid text either way
    monkeypatch.setattr(reader, "MAX_FILE_BYTES", limit)
    result = invoke(*args, stdin=LAYOUT)
    assert result.exit_code == 2, result.output
    assert "E000" in result.output and "a layout may be" in result.output
    assert not (tmp_path / "out.toml").exists()


def test_generate_reads_standard_input_and_writes_the_file_named(tmp_path) -> None:
    out = tmp_path / "out.toml"
    two = HEADER + rack_text("a01", ["dgx-h100", "dgx-h100"])
    result = invoke("generate", "-", "--fabric", "direct", "-o", str(out), stdin=two)
    assert result.exit_code == 1, result.output  # written; a rack without feeds: PWR001
    assert f"wrote {out}" in result.output and "8 node-to-node cables" in result.output
    assert out.read_text().count("[[links]]") == 8  # 8 rails between two nodes


def test_generate_from_standard_input_needs_an_output(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("generate", "-", "--fabric", "direct", "--force", stdin=LAYOUT)
    assert result.exit_code == 2
    assert "give -o FILE" in result.output
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    "args",
    [("generate", "IN", "--fabric", "direct", "-o", "OUT"), ("verify", "IN", "--lldp", "SCAN")],
)
def test_an_unknown_rule_code_is_refused_as_validate_refuses_it(args, tmp_path) -> None:
    """The loader's E001 (a code in [rules] that names no rule), one line, exit 2, in
    every command that loads a layout (generate and verify loaded it their own way)."""
    path = tmp_path / "in.toml"
    path.write_text(LAYOUT.replace(HEADER, HEADER + '[rules]\nignore = ["PWX001"]\n'))
    names = {"IN": str(path), "OUT": str(tmp_path / "o.toml"), "SCAN": str(SCANS)}
    result = invoke(*(names.get(word, word) for word in args))
    assert result.exit_code == 2
    assert "E001" in result.output and "'PWX001'" in result.output


def test_a_command_leaves_the_garbage_collector_as_it_found_it() -> None:
    """The commands pause the collector while they run (model/collector.py), and switch it
    back on after: a command run in this process (a test, a notebook) leaves it on."""
    assert gc.isenabled()
    result = invoke("validate", "-", stdin=LAYOUT)
    assert result.exit_code in (0, 1), result.output
    assert gc.isenabled()
