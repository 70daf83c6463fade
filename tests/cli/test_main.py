"""Command-line tests: most in process through click's CliRunner, a few through the real
console script (``run_script``) to check what only a process shows: the entry points, exit
codes from ``main`` and the environment."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.cli.main import cli
from tests.conftest import ROOT, SHARED
from tests.processes import console
from tests.strategies import examples

EXAMPLES = sorted((ROOT / "layouts").glob("*.toml"))
PROBLEMS = sorted((ROOT / "layouts" / "problems").glob("*.toml"))
CLEAN = ROOT / "layouts" / "finetune-8gpu.toml"
FAILING = ROOT / "tests" / "data" / "overlap.toml"


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> Ran:
    """Run the command line in this process (fast: no interpreter start per case)."""
    collecting = gc.isenabled()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1", **(env or {})})
    finally:
        os.chdir(before)
        if collecting:  # batch commands switch the collector off for their short process
            gc.enable()
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


def run_script(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script in a process of its own, as users and CI do."""
    return console(*args, cwd=cwd, env=env, timeout=120)


def test_version() -> None:
    result = run_script("--version")
    assert result.returncode == 0 and "0.1.0" in result.stdout


def test_module_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rackdesigner", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and "rackdesigner" in result.stdout


def test_validate_clean_layout_exits_0() -> None:
    result = run_script("validate", str(CLEAN))
    assert result.returncode == 0, result.stdout
    assert re.search(r"^0 errors, \d+ warnings, \d+ info in 1 file$", result.stdout, re.M)


def test_validate_rule_errors_exit_1_with_file_line_code() -> None:
    result = run_script("validate", str(FAILING.relative_to(ROOT)))
    assert result.returncode == 1
    assert (
        "tests/data/overlap.toml:18: error PLC001 device a01-n02: overlaps device "
        "a01-n01 at U10 in rack a01"
    ) in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("1 error, ")


def test_strict_fails_on_warnings(tmp_path: Path) -> None:
    text = FAILING.read_text().replace("position = 10\n", "position = 11\n", 1)
    path = tmp_path / "warn.toml"
    path.write_text(text)
    assert run("validate", str(path)).returncode == 0
    assert run("validate", "--strict", str(path)).returncode == 1


def test_quiet_prints_only_the_summary() -> None:
    result = run("validate", "--quiet", str(FAILING))
    assert result.stdout.strip().splitlines() == [result.stdout.strip()]


def test_select_and_ignore() -> None:
    assert run("validate", "--select", "PLC001", str(FAILING)).returncode == 1
    result = run("validate", "--ignore", "PLC001", "--format", "json", str(FAILING))
    codes = {d["code"] for d in json.loads(result.stdout)["diagnostics"]}
    assert "PLC001" not in codes and codes
    assert result.returncode == 0


def test_unknown_rule_code_is_a_usage_error() -> None:
    result = run("validate", "--select", "XYZ9", str(FAILING))
    assert result.returncode == 2 and "no rule matches XYZ9" in result.stderr


def test_json_output_shape_and_si_values(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = run("validate", "--format", "json", "--output", str(out), str(FAILING))
    assert result.returncode == 1 and result.stdout == ""
    document = json.loads(out.read_text())
    assert document["version"] == 1
    assert document["files"] == [str(FAILING)]
    assert set(document["summary"]) == {"errors", "warnings", "info"}
    (finding,) = [d for d in document["diagnostics"] if d["code"] == "PLC001"]
    assert set(finding) == {
        "file",
        "line",
        "code",
        "severity",
        "entity",
        "message",
        "hint",
        "values",
        "subject",
    }
    assert finding["line"] == 18 and finding["entity"] == "device a01-n02"
    assert finding["subject"] == {"kind": "device", "id": "a01-n02"}


def test_directory_expands_to_layouts_and_unloadable_files_exit_2(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text(FAILING.read_text())
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "broken.toml").write_text("format = 1\nname = \n")
    (tmp_path / "notes.txt").write_text("not a layout")
    result = run("validate", "--format", "json", str(tmp_path))
    assert result.returncode == 2
    document = json.loads(result.stdout)
    assert sorted(Path(f).name for f in document["files"]) == ["broken.toml", "good.toml"]
    codes = {(Path(d["file"]).name, d["code"]) for d in document["diagnostics"]}
    assert ("broken.toml", "E000") in codes and ("good.toml", "PLC001") in codes


def test_empty_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = run("validate", str(tmp_path))
    assert result.returncode == 2 and "no *.toml layouts" in result.stderr


@pytest.mark.parametrize(
    ("content", "code", "needle"),
    [
        (b'format = 1\nname = "x\n', "E000", "TOML syntax"),
        (b'format = 1\nname = "caf\xe9"\n', "E000", "not UTF-8"),
        (
            b'format = 1\nname = "x"\n[site]\npower_budget = "3 m"\n',
            "E002",
            'power_budget "3 m" is a length, expected a power',
        ),
        (
            b'format = 1\nname = "x"\n[catalog.n]\nkind = "gpu-node"\npower = "-1 kW"\n',
            "E002",
            "negative",
        ),
        (b'format = 7\nname = "x"\n', "E001", "format 7 is newer"),
        (
            b'format = 1\nname = "x"\n[[racks]]\nid = "r"\nhieght = "42 U"\n',
            "E001",
            "did you mean 'height'",
        ),
    ],
)
def test_bad_input_gets_one_clear_message_and_exit_2(
    tmp_path: Path, content: bytes, code: str, needle: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    result = run("validate", str(path))
    assert result.returncode == 2
    lines = [line for line in result.stdout.splitlines() if f" {code} " in line]
    assert len(lines) == 1 and needle in lines[0], result.stdout


def test_huge_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    with open(path, "wb") as stream:
        stream.truncate(70 * 1024 * 1024)
    result = run("validate", str(path))
    assert result.returncode == 2 and "MiB" in result.stdout


# Positions below 1 are load errors since format v1.1 (tests/layout_io/test_load_refusals.py).
@pytest.mark.parametrize("position", [43])
def test_impossible_positions_are_findings(tmp_path: Path, position: int) -> None:
    path = tmp_path / "pos.toml"
    text = FAILING.read_text()
    cut = text.rindex("position = 10")
    path.write_text(text[:cut] + f"position = {position}\n")
    result = run("validate", "--select", "PLC002", str(path))
    assert result.returncode == 1 and "error PLC002 device a01-n02" in result.stdout


def test_link_to_missing_port_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "link.toml"
    path.write_text(FAILING.read_text() + '\n[[links]]\na = "a01-n01:eth9"\nb = "a01-n02:eth1"\n')
    result = run("validate", "--select", "CAB005", str(path))
    assert result.returncode == 1
    assert "not eth9" in result.stdout


def test_export_toml_is_canonical_and_idempotent(tmp_path: Path) -> None:
    source = tmp_path / "in.toml"
    source.write_text("# header\nformat = 1\nname = 'x'\n[[racks]]\nid='r1'  # trailing\n")
    out = tmp_path / "out.toml"
    result = run("export", str(source), "--toml", str(out))
    assert result.returncode == 0
    assert "1 comment line of" in result.stderr
    first = out.read_bytes()
    assert first.startswith(b'# header\n\nformat = 1\nname = "x"\n')
    assert run("export", str(out), "--toml", str(out)).returncode == 0
    assert out.read_bytes() == first
    assert run("export", str(out), "--toml", "-").stdout.encode() == first


def test_export_of_unloadable_layout_exits_2(tmp_path: Path) -> None:
    source = tmp_path / "in.toml"
    source.write_text("format = 1\n")
    result = run("export", str(source), "--toml", str(tmp_path / "out.toml"))
    assert result.returncode == 2 and "missing key 'name'" in result.stderr


def test_catalog_list_and_entry() -> None:
    listing = run("catalog")
    assert listing.returncode == 0
    for key in ("dgx-h100", "qm9700", "h100-sxm", "mi300x", "rtx-4090", "coolit-chx750"):
        assert key in listing.stdout
    entry = run("catalog", "dgx-h100")
    assert "10.2 kW" in entry.stdout and "Source:" in entry.stdout
    data = json.loads(run("catalog", "h100-sxm", "--format", "json").stdout)
    assert data["tdp"] == 700.0 and data["memory"] == 80e9 * 8
    missing = run("catalog", "dgx-h10")
    assert missing.returncode == 2 and "dgx-h100" in missing.stderr


def test_rules_list_and_explain() -> None:
    listing = run("rules")
    assert listing.returncode == 0
    # PWR001 also warns ("redundancy lost") on a what-if's failed layout.
    assert re.search(r"PWR001\s+error/warning\s+\S", listing.stdout)
    assert re.search(r"PWR003\s+error\s+\S", listing.stdout)
    explained = run("rules", "COOL001")
    assert "Why it matters" in explained.stdout and "air_cooling_max" in explained.stdout
    assert run("rules", "NOPE1").returncode == 2


def test_schema_is_json_schema_that_accepts_the_examples() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import tomllib

    schema = json.loads(run("schema").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in EXAMPLES:
        errors = list(validator.iter_errors(tomllib.loads(path.read_text())))
        assert not errors, (path, errors[0].message)


def test_sarif_validates_against_the_official_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema_path = SHARED / "data" / "sarif-schema-2.1.0.json"
    if not schema_path.exists():
        pytest.skip(f"the SARIF 2.1.0 schema is not at {schema_path}")
    (tmp_path / "bad.toml").write_text("format = 1\nname = 'x\n")
    result = run("validate", "--format", "sarif", str(FAILING), str(tmp_path / "bad.toml"))
    document = json.loads(result.stdout)
    jsonschema.validate(document, json.loads(schema_path.read_text()))
    results = document["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"PLC001", "E000"}
    plc = next(r for r in results if r["ruleId"] == "PLC001")
    assert plc["locations"][0]["physicalLocation"]["region"]["startLine"] == 18


def test_junit_has_a_test_case_per_rule_per_file() -> None:
    result = run("validate", "--format", "junit", str(FAILING))
    suites = ElementTree.fromstring(result.stdout)
    cases = suites.findall(".//testcase")
    names = [c.get("name") for c in cases]
    assert "PLC001" in names and len(names) == len(set(names))
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == ["PLC001"]


def test_github_annotations() -> None:
    result = run("validate", "--format", "github", str(FAILING))
    assert re.search(
        r"^::error file=.*overlap\.toml,line=18,title=PLC001 device a01-n02::", result.stdout, re.M
    )


def test_examples_validate_clean_of_errors() -> None:
    assert EXAMPLES, "no example layouts"
    result = run("validate", "--format", "json", *map(str, EXAMPLES))
    document = json.loads(result.stdout)
    assert result.returncode == 0, [d for d in document["diagnostics"] if d["severity"] == "error"]


def test_pre_commit_hook_entry_works_on_the_examples() -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    entry = re.search(r"^\s*entry:\s*(.+)$", hooks, re.M).group(1).split()
    assert entry[0] == "rackdesigner"
    result = run_script(*entry[1:], *map(str, EXAMPLES))
    assert result.returncode == 0, result.stdout


def test_timings_on_request() -> None:
    result = run_script("validate", str(CLEAN), env={"RACKDESIGNER_TIMINGS": "1"})
    timings = json.loads(result.stderr.strip().splitlines()[-1])["timings"]
    assert {"read", "parse", "model", "analysis", "rules", "output"} <= set(timings)


def test_report_text_json_and_csv() -> None:
    layout = str(ROOT / "layouts" / "training-128.toml")
    text = run("report", layout)
    assert text.returncode == 0
    for heading in (
        "Power:",
        "Cooling:",
        "Compute: 128 GPUs",
        "Network:",
        "Storage:",
        "Bill of materials:",
        "per GPU",
    ):
        assert heading in text.stdout
    data = json.loads(run("report", layout, "--format", "json").stdout)
    assert set(data) >= {"power", "cooling", "compute", "network", "storage", "cost"}
    assert data["compute"]["gpus"] == 128
    (fabric,) = data["network"]["fabrics"]
    assert fabric["tech"] == "infiniband" and fabric["gpus"] == 128
    assert fabric["oversubscription_by_tier"]["1"] == pytest.approx(1.0)
    # 128 GPUs × 400 Gbps injected, half of it across the bisection.
    assert fabric["bisection"] == pytest.approx(128 * 400e9 / 2)
    assert data["cost"]["per_gpu"] > 0
    rows = run("report", layout, "--format", "csv").stdout.splitlines()
    assert rows[0] == "section,entity,metric,value,unit"
    assert any(row.startswith("compute,site,gpus,128") for row in rows)


def test_report_of_unloadable_layout_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("format = 1\nname = 'x'\n[site]\nslack = 3\n")
    result = run("report", str(path))
    assert result.returncode == 2 and "E002" in result.stderr


def test_docs_rules_md_is_generated_from_the_registry() -> None:
    result = run("rules", "--format", "markdown")
    assert result.returncode == 0
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == result.stdout, (
        "docs/rules.md is stale: rackdesigner rules --format markdown > docs/rules.md"
    )


def test_findings_are_sorted_by_file_then_line(tmp_path: Path) -> None:
    for name in ("b.toml", "a.toml"):
        (tmp_path / name).write_text(FAILING.read_text())
    result = run(
        "validate", "--totals", "never", str(tmp_path / "b.toml"), str(tmp_path / "a.toml")
    )
    files = [line.split(":")[0] for line in result.stdout.splitlines()[:-1]]
    assert files == sorted(files) and len(set(files)) == 2


def test_unwritable_output_exits_2_without_traceback(tmp_path: Path) -> None:
    missing = str(tmp_path / "no" / "such" / "dir" / "out.txt")
    for args in (
        ("validate", str(FAILING), "--output", missing),
        ("report", str(CLEAN), "--output", missing),
        ("schema", "--output", missing),
    ):
        result = run(*args)
        assert result.returncode == 2 and "cannot write" in result.stderr


def test_colour_only_on_a_terminal_and_never_with_no_color() -> None:
    from click.testing import CliRunner

    from rackdesigner.cli.main import cli

    piped = run("validate", str(FAILING))
    assert "\x1b[" not in piped.stdout
    # CliRunner is not a terminal either: the text stays plain without NO_COLOR too.
    result = CliRunner().invoke(cli, ["validate", str(FAILING)], env={"NO_COLOR": ""})
    assert "\x1b[" not in result.output


@pytest.mark.parametrize(
    "text",
    [
        'format = 1\nname = "x"\n[[racks]]\nid = "r"\nheight = "9**9**9 U"\n',
        'format = 1\nname = "x"\n[catalog.big]\nkind = "other"\nheight = "1e9 U"\n',
        'format = 1\nname = "x"\n[catalog.hot]\nkind = "other"\npower = "1e308 W"\n',
        'format = 1\nname = "x"\n[[racks]]\nid = "r"\nfeeds = [{ id = "f", voltage = "415 V", '
        'phases = 3, current = "63 A", derate = nan }]\n',
        'format = 1\nname = "x"\n[rules.thresholds]\nair_cooling_max = "0 kW"\n',
        'format = 1\nname = "x"\n[rules.thresholds]\nfeed_derate = -1\n',
        'format = 1\nname = "x"\n[[racks]]\nid = "r"\nheight = "42.5 U"\n',
        'format = 1\nname = "x"\nmeta = ' + "[" * 3000 + "]" * 3000 + "\n",
        'format = 1\nname = "x"\n[[racks]]\nid = "r"\nfeeds = [ { id = "f1", voltage = "415 V",\n'
        ' phases = 3, current = "63 A", } ]\n',
    ],
)
def test_impossible_or_hostile_values_are_load_errors(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = run("validate", str(path))
    assert result.returncode == 2, result.stdout
    assert re.search(r" error E00[012] ", result.stdout), result.stdout


def test_junit_lists_only_the_rules_that_ran() -> None:
    result = run("validate", "--format", "junit", "--select", "PLC001,PLC002", str(FAILING))
    names = [c.get("name") for c in ElementTree.fromstring(result.stdout).findall(".//testcase")]
    assert names == ["PLC001", "PLC002"]


def test_a_0u_device_with_a_position_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "pdu.toml"
    path.write_text(
        FAILING.read_text() + '\n[[racks.devices]]\nid = "a01-pdu"\n'
        'model = "pdu-3ph-415v-32a"\nposition = 5\n'
    )
    result = run("validate", "--select", "PLC002", str(path))
    assert result.returncode == 1 and "is a 0U device" in result.stdout


def test_directories_skip_toml_files_that_are_not_layouts(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / "cluster.toml").write_text(FAILING.read_text())
    result = run("validate", "--format", "json", str(tmp_path))
    assert [Path(f).name for f in json.loads(result.stdout)["files"]] == ["cluster.toml"]
    assert "skipped 1 TOML file" in result.stderr
    # Named files are checked as given, unless --only-layouts (the pre-commit hook's flag).
    named = run("validate", str(tmp_path / "pyproject.toml"))
    assert named.returncode == 2
    hooked = run(
        "validate",
        "--only-layouts",
        "--format",
        "json",
        str(tmp_path / "pyproject.toml"),
        str(tmp_path / "cluster.toml"),
    )
    assert [Path(f).name for f in json.loads(hooked.stdout)["files"]] == ["cluster.toml"]


def test_rewriting_in_place_is_refused_before_comments_would_be_lost(tmp_path: Path) -> None:
    source = tmp_path / "in.toml"
    text = "# header\nformat = 1\nname = 'x'\n[[racks]]\nid='r1'  # trailing\n"
    source.write_text(text)
    refused = run("export", str(source), "--toml", str(source))
    assert refused.returncode == 2 and "not rewriting" in refused.stderr
    assert source.read_text() == text
    forced = run("export", str(source), "--toml", str(source), "--force")
    assert forced.returncode == 0 and "# trailing" not in source.read_text()


def test_rules_explains_load_error_codes() -> None:
    result = run("rules", "E002")
    assert result.returncode == 0 and "units" in result.stdout and "exit 2" in result.stdout


@pytest.mark.parametrize(
    ("text", "code", "needle"),
    [
        (
            'format = 1\nname = "x"\n[[racks]]\nid = "r"\nfeeds = [{ id = "f", voltage = "415 V", '
            'phases = 3, current = "0 A" }]\n',
            "E001",
            "current must be more than 0",
        ),
        (
            'format = 1\nname = "x"\n[[racks]]\nid = "r"\n[[racks.devices]]\nid = "d"\n'
            'model = "blank-1u"\nposition = 99999999999999999999\n',
            "E001",
            "at most 100",
        ),
        (
            'format = 1\nname = "x"\n[site]\npower_budget = "-15 kW"\n',
            "E002",
            "a power cannot be negative",
        ),
        (
            'format = 1\nname = "x"\n[catalog.x]\nkind = "gpu-node"\ngpu = "h100-sxn"\ngpus = 8\n',
            "PLC005",
            "did you mean h100-sxm",
        ),
    ],
)
def test_more_impossible_values(tmp_path: Path, text: str, code: str, needle: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = run("validate", str(path))
    assert result.returncode == (2 if code.startswith("E") else 1)
    assert f" {code} " in result.stdout and needle in result.stdout, result.stdout


def test_a_load_just_over_capacity_reads_over_it(tmp_path: Path) -> None:
    # 230 V x 32 A x 0.8 = 5,888 W of capacity against 5,889 W of load.
    path = tmp_path / "edge.toml"
    path.write_text(
        'format = 1\nname = "x"\n[catalog.box]\nkind = "other"\nheight = "1 U"\n'
        'power = "5889 W"\n[[racks]]\nid = "r"\nfeeds = [{ id = "f", '
        'voltage = "230 V", phases = 1, current = "32 A" }]\n[[racks.devices]]\n'
        'id = "d"\nmodel = "box"\nposition = 1\n'
    )
    result = run("validate", "--select", "PWR001", str(path))
    assert "load 5.889 kW exceeds usable feed capacity 5.888 kW" in result.stdout


def test_export_toml_in_place_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.toml"
    real.write_text(FAILING.read_text())
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    result = run("export", str(link), "--toml", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    again = run("export", str(real), "--toml", "-")
    assert again.stdout == real.read_text()


@settings(max_examples=examples(200), deadline=None)
@given(
    st.text(max_size=30),
    st.integers(0, 10**6),
    st.dictionaries(
        st.text(max_size=8),
        st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**20), 10**20),
        max_size=3,
    ),
    st.none() | st.text(max_size=20),
    st.none() | st.tuples(st.sampled_from(["device", "link"]), st.text(max_size=12)),
)
def test_json_rows_are_what_json_itself_writes(text, line, values, hint, subject) -> None:
    from rackdesigner.check.formats.json_format import diagnostic_dict, diagnostic_json
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.layout import Q
    from rackdesigner.model.refs import Ref

    values = {k: Q(v, "x") if isinstance(v, float) and v > 1 else v for k, v in values.items()}
    d = Diagnostic(
        "PWR001",
        "error",
        text + '\u2028 é \x00 "q" \\',
        entity=text,
        line=line,
        file=text[::-1],
        hint=hint,
        values=values,  # type: ignore[arg-type]
        subject=None if subject is None else Ref(*subject),
    )
    expected = json.JSONEncoder(ensure_ascii=False).encode(diagnostic_dict(d))
    assert diagnostic_json(d) == expected
