"""Suppressions and baselines: ignore keys on entities, --baseline, --write-baseline,
--exclude and --group-by."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.check.engine import check
from rackdesigner.check.suppressions import (
    apply_baseline,
    baseline_json,
    parse_baseline,
    parse_entity,
    subject_of,
)
from rackdesigner.cli.main import cli
from rackdesigner.layout_io import load_text
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.refs import Ref
from tests.conftest import ROOT, rackdesigner_command
from tests.strategies import examples

PWR008 = (ROOT / "tests" / "rules" / "PWR008" / "fires.toml").read_text()
OVERLAP = (ROOT / "tests" / "data" / "overlap.toml").read_text()
runner = CliRunner()


def with_key(text: str, after: str, key: str) -> str:
    """``text`` with ``key`` added on the line after the first ``after``."""
    assert after in text
    return text.replace(after, f"{after}\n{key}", 1)


# -- subjects ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entity", "subject"),
    [
        ("device a01-n01", ("device", "a01-n01")),
        ("rack a03", ("rack", "a03")),
        ("rack a03 feed a03-A", ("feed", "a03-A")),
        ("link a01-n02:ib3 -> a01-leaf1:p7", ("link", "a01-n02:ib3")),
        ("fabric a01-leaf1", ("fabric", "a01-leaf1")),
        ("catalog entry dgx-h100", ("catalog", "dgx-h100")),
        ("GPU my-gpu", ("gpu", "my-gpu")),
        ("[site]", ("site", "")),
        ("[workload]", ("workload", "")),
        ("[rules.thresholds]", ("rules", "")),
        ("", ("layout", "")),
    ],
)
def test_subject_from_the_entity_text(entity: str, subject: tuple[str, str]) -> None:
    assert parse_entity(entity) == subject
    assert subject_of(Diagnostic("PWR001", "error", "m", entity=entity)) == subject


def test_the_subject_wins_over_the_entity_text() -> None:
    # Findings carry their subject (refs.Ref); the entity text is only read without one.
    found = Diagnostic("PWR008", "warning", "m", entity="device x", subject=Ref("device", "y"))
    assert subject_of(found) == ("device", "y")
    shared = Ref("link", "a:p1 -> b:p2", 1)
    assert subject_of(Diagnostic("CAB005", "error", "m", entity="link a:p1", subject=shared)) == (
        "link",
        "a:p1 -> b:p2",
    )


# -- ignore keys -------------------------------------------------------------------------------


def test_an_ignore_key_silences_one_device_but_not_another_of_its_type() -> None:
    text = with_key(PWR008, 'id = "a01-n01"', 'ignore = ["PWR008"]')
    _, diagnostics = check(load_text(text), select=["PWR008"])
    state = {d.entity: d.suppressed for d in diagnostics}
    assert state == {
        "device a01-n01": "ignore",
        "device a01-n02": None,  # the same type, no key
        "device a01-n03": None,
        "device a05-n01": None,  # on three sides (the fixture's v1.1 case)
    }


def test_racks_cover_their_feeds_not_their_devices_and_prefixes_match_any_case() -> None:
    text = with_key(PWR008, 'id = "a01"', 'ignore = ["pwr"]')
    text = with_key(text, 'id = "a02"', 'ignore = ["PLC00"]')
    _, diagnostics = check(load_text(text))
    for d in diagnostics:
        subject = subject_of(d)
        if subject == ("rack", "a01") and d.code.startswith("PWR"):
            assert d.suppressed == "ignore"
        if subject[0] == "feed" and subject[1].startswith("a01-") and d.code.startswith("PWR"):
            assert d.suppressed == "ignore"
        if subject == ("rack", "a02"):
            assert d.suppressed == ("ignore" if d.code.startswith("PLC00") else None), d
        if subject[0] == "device":
            assert d.suppressed is None, d


def test_a_link_ignore_key_covers_that_link_only() -> None:
    text = OVERLAP + (
        '\n[[links]]\na = "a01-n01:eth9"\nb = "a01-n02:eth1"\nignore = ["CAB005"]\n'
        '\n[[links]]\na = "a01-n01:eth8"\nb = "a01-n02:eth2"\n'
    )
    _, diagnostics = check(load_text(text), select=["CAB005"])
    state = {d.entity: d.suppressed for d in diagnostics}
    assert state == {
        "link a01-n01:eth9 -> a01-n02:eth1": "ignore",
        "link a01-n01:eth8 -> a01-n02:eth2": None,
    }


def test_suppressed_findings_in_every_format(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text(with_key(OVERLAP, 'id = "a01-n02"', 'ignore = ["PLC001"]'))
    # JSON: listed with "suppressed": true, not counted; the run passes.
    result = runner.invoke(cli, ["validate", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    (finding,) = [d for d in document["diagnostics"] if d["code"] == "PLC001"]
    assert finding["suppressed"] is True and finding["suppression"] == "ignore"
    assert document["summary"] == {"errors": 0, "warnings": 1, "info": 0}
    assert "suppressed" not in next(d for d in document["diagnostics"] if d["code"] == "PLC006")
    # SARIF: the result carries an inSource suppression, as code scanning expects.
    sarif = json.loads(runner.invoke(cli, ["validate", str(path), "--format", "sarif"]).stdout)
    (entry,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "PLC001"]
    assert entry["suppressions"][0]["kind"] == "inSource"
    # Text: not printed, but said how many.
    text = runner.invoke(cli, ["validate", str(path), "--totals", "never"]).stdout
    assert "PLC001" not in text
    assert text.splitlines()[-2:] == [
        "1 finding suppressed (1 by ignore keys)",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
    # Annotations and JUnit: absent.
    github = runner.invoke(cli, ["validate", str(path), "--format", "github"]).stdout
    junit = runner.invoke(cli, ["validate", str(path), "--format", "junit"]).stdout
    assert "PLC001" not in github and "overlaps" not in junit
    # --strict counts warnings, still not suppressed errors.
    assert runner.invoke(cli, ["validate", str(path), "--quiet", "--strict"]).exit_code == 1


# -- baselines ---------------------------------------------------------------------------------


NEW_RACK = """
[[racks]]
id = "a03"
row = "A"
slot = 3
feeds = [
  { id = "a03-A", side = "A", circuit = "A-03", voltage = "415 V", phases = 3, current = "63 A" },
  { id = "a03-B", side = "B", circuit = "B-03", voltage = "415 V", phases = 3, current = "63 A" },
]

[[racks.devices]]
id = "a03-n01"
model = "dgx-h100"
position = 2
"""


def test_write_baseline_then_only_new_problems_fail(tmp_path: Path) -> None:
    layout = tmp_path / "cluster.toml"
    layout.write_text(PWR008)
    today = json.loads(runner.invoke(cli, ["validate", str(layout), "--format", "json"]).stdout)
    count = len(today["diagnostics"])
    baseline = tmp_path / "baseline.json"
    result = runner.invoke(
        cli, ["validate", str(layout), "--strict", "--quiet", "--write-baseline", str(baseline)]
    )
    # Today's findings are recorded and known: the run passes, as the next ones will.
    assert result.exit_code == 0, result.output
    assert f"wrote {count} findings to the baseline" in result.stderr
    recorded = json.loads(baseline.read_text())
    assert recorded["version"] == 1 and len(recorded["findings"]) == count
    entry = {"file": str(layout), "code": "PWR008", "subject": ["device", "a01-n01"]}
    assert entry in recorded["findings"]
    assert all(set(f) == {"file", "code", "subject"} for f in recorded["findings"])
    again = ["validate", str(layout), "--strict", "--baseline", str(baseline)]
    result = runner.invoke(cli, [*again, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert all(d["suppressed"] for d in json.loads(result.stdout)["diagnostics"])
    # A new rack of the same devices brings new findings: they fail, the known ones do not.
    layout.write_text(PWR008 + NEW_RACK)
    result = runner.invoke(cli, [*again, "--totals", "never"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any("warning PWR008 device a03-n01:" in line for line in lines)
    assert not any("a01-n01" in line or "a02" in line for line in lines)
    assert lines[-2] == f"{count} findings suppressed ({count} by the baseline)"
    # The same layout, written the same way, gives the same baseline bytes.
    first = baseline.read_bytes()
    layout.write_text(PWR008)
    runner.invoke(cli, ["validate", str(layout), "--write-baseline", str(baseline)])
    assert baseline.read_bytes() == first


def test_baseline_counts_each_finding_and_reports_fixed_ones(tmp_path: Path) -> None:
    known = parse_baseline(
        json.dumps(
            {
                "version": 1,
                "findings": [
                    {"file": "./a.toml", "code": "CAB005", "subject": ["link", "x:p1"]},
                    {"file": "a.toml", "code": "PWR001", "subject": ["rack", "gone"]},
                    {"file": "other.toml", "code": "PWR001", "subject": ["rack", "r"]},
                ],
            }
        ),
        "b.json",
    )
    found = [
        Diagnostic("CAB005", "error", "m", entity="link x:p1 -> y:p1", file="a.toml"),
        Diagnostic("CAB005", "error", "m", entity="link x:p1 -> z:p1", file="a.toml"),
        Diagnostic("E001", "error", "m", entity="rack r", file="a.toml"),
    ]
    marked, stale = apply_baseline(known, found, ["a.toml"])
    assert (marked, stale) == (1, 1)  # other.toml was not checked: not stale
    assert [d.suppressed for d in found] == ["baseline", None, None]
    assert baseline_json(found).count('"code"') == 2  # load errors are never recorded


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not a baseline: not JSON"),
        ('{"findings": []}', "is a baseline of version None"),
        ('{"version": 1, "findings": [{"code": 1}]}', "finding 1 is not"),
        ("[]", "is not a baseline: expected"),
    ],
)
def test_a_bad_baseline_is_one_line_exit_2(tmp_path: Path, content: str, message: str) -> None:
    baseline = tmp_path / "b.json"
    baseline.write_text(content)
    layout = tmp_path / "a.toml"
    layout.write_text(OVERLAP)
    result = runner.invoke(cli, ["validate", str(layout), "--baseline", str(baseline)])
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr


def test_updating_a_baseline_in_place_and_stale_entries(tmp_path: Path) -> None:
    layout = tmp_path / "a.toml"
    layout.write_text(OVERLAP)
    baseline = tmp_path / "b.json"
    runner.invoke(cli, ["validate", str(layout), "--write-baseline", str(baseline)])
    assert "PLC001" in baseline.read_text()
    # The overlap is fixed: its entry no longer matches.
    layout.write_text(OVERLAP[: OVERLAP.rindex("position = 10")] + "position = 12\n")
    result = runner.invoke(cli, ["validate", str(layout), "--baseline", str(baseline), "-q"])
    assert result.exit_code == 0
    assert "1 baseline entry no longer matches a finding" in result.stderr
    # Rewriting the baseline it reads is how it is updated.
    result = runner.invoke(
        cli,
        ["validate", str(layout), "--baseline", str(baseline), "--write-baseline", str(baseline)],
    )
    assert result.exit_code == 0, result.output
    assert "PLC001" not in baseline.read_text() and "PLC006" in baseline.read_text()
    # -o onto the baseline is refused: it is an input.
    result = runner.invoke(
        cli, ["validate", str(layout), "--baseline", str(baseline), "-o", str(baseline)]
    )
    assert result.exit_code == 2 and "it is the baseline" in result.stderr


# -- --exclude and --group-by ------------------------------------------------------------------


def make_tree(root: Path) -> Path:
    layouts = root / "layouts"
    (layouts / "problems" / "deep").mkdir(parents=True)
    (layouts / "good.toml").write_text(OVERLAP)
    (layouts / "problems" / "bad.toml").write_text("format = 1\nname = \n")
    (layouts / "problems" / "deep" / "worse.toml").write_text("format = 1\nname = \n")
    (layouts / "draft.wip.toml").write_text("format = 1\nname = \n")
    return layouts


@pytest.mark.parametrize(
    "patterns",
    [
        ["problems/*", "*.wip.toml"],
        ["problems", "draft.wip.toml"],
        ["layouts/problems/*", "layouts/draft*"],
        ["problems/", "*wip*"],
    ],
)
def test_exclude_skips_matching_files_under_a_folder(
    tmp_path: Path, patterns: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    layouts = make_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["validate", str(layouts.relative_to(tmp_path)), "--format", "json"]
    for pattern in patterns:
        args += ["--exclude", pattern]
    result = runner.invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["files"] == ["layouts/good.toml"]


def test_exclude_everything_and_explicit_files(tmp_path: Path) -> None:
    layouts = make_tree(tmp_path)
    result = runner.invoke(cli, ["validate", str(layouts), "--exclude", "*"])
    assert result.exit_code == 2 and "excluded by --exclude" in result.stderr
    bad = str(layouts / "problems" / "bad.toml")
    result = runner.invoke(
        cli, ["validate", bad, str(layouts / "good.toml"), "--exclude", "*bad*", "-q"]
    )
    assert result.exit_code == 1 and result.stdout.endswith("in 1 file\n")


def test_group_by_code_prints_one_line_per_code(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text(PWR008)
    result = runner.invoke(cli, ["validate", str(path), "--group-by", "code"])
    lines = result.stdout.splitlines()
    # Four devices (the fixture's v1.1 three-sided rack a05 adds one): the first three named.
    assert "PWR008 warning 4: device a01-n01, device a01-n02, device a01-n03, …" in lines
    assert "NET007 info 3: device a01-n01, device a01-n03, device a01-n04" in lines
    more = runner.invoke(cli, ["validate", str(path), str(path), "--group-by", "code"]).stdout
    assert "PWR008 warning 8: device a01-n01, device a01-n02, device a01-n03, …" in more
    assert lines[-1].endswith("in 1 file")
    assert not any(line.startswith(str(path)) for line in lines)
    assert all(line.count(": ") <= 1 for line in lines[:-1])
    result = runner.invoke(cli, ["validate", str(path), "--group-by", "code", "--format", "json"])
    assert result.exit_code == 2 and "--format text only" in result.stderr


# -- the CI recipe, end to end -----------------------------------------------------------------


def test_ci_recipe_exclude_and_baseline_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's recipe: record a baseline once, then fail CI only on new problems (the
    CI run through the real console script)."""
    layouts = make_tree(tmp_path)
    (layouts / "cluster.toml").write_text(PWR008)
    monkeypatch.chdir(tmp_path)
    excludes = ["--exclude", "problems/*", "--exclude", "*.wip.toml"]
    adopt = runner.invoke(
        cli,
        [
            "validate",
            "layouts/",
            *excludes,
            "--write-baseline",
            ".rackdesigner-baseline.json",
            "-q",
        ],
    )
    assert adopt.exit_code == 0, adopt.output
    assert adopt.stdout == "0 errors, 0 warnings, 0 info in 2 files\n"
    (layouts / "cluster.toml").write_text(PWR008.replace("position = 40", "position = 30", 1))
    check = subprocess.run(
        [
            *rackdesigner_command(),
            "validate",
            "layouts/",
            *excludes,
            "--baseline",
            ".rackdesigner-baseline.json",
            "--format",
            "github",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert "Traceback" not in check.stderr
    assert check.returncode == 1
    new = [line for line in check.stdout.splitlines() if line.startswith("::")]
    assert len(new) == 1 and new[0].startswith("::error file=layouts/cluster.toml,line=")
    assert "PLC001 device a01-c01::device a01-c01: overlaps device a01-n03" in new[0]


@settings(max_examples=examples(100), deadline=None)
@given(st.text())
def test_any_entity_text_gives_a_subject(entity: str) -> None:
    kind, ident = parse_entity(entity)
    assert isinstance(kind, str) and isinstance(ident, str)


def test_read_baseline_names_the_file_that_cannot_be_one(tmp_path: Path) -> None:
    """Reading a baseline is the suppressions' job, with every way it fails one
    BaselineError (validate prints it as one line, exit 2)."""
    from rackdesigner.check.suppressions import BaselineError, read_baseline

    with pytest.raises(BaselineError, match=r"cannot read baseline .*missing\.json"):
        read_baseline(str(tmp_path / "missing.json"))
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"version": 1, "findings": ["\xe9"]}')
    with pytest.raises(BaselineError, match="utf-8"):
        read_baseline(str(latin))
    good = tmp_path / "good.json"
    good.write_text(baseline_json([Diagnostic("PWR001", "error", "m", "rack a01", file="x")]))
    assert read_baseline(str(good)) == {("x", "PWR001", "rack", "a01"): 1}


def test_record_baseline_adopts_todays_findings() -> None:
    """The text to write records each finding but load errors and those an ignore key
    silences, and the recorded ones are known for this run too."""
    from rackdesigner.check.suppressions import BY_BASELINE, BY_IGNORE, record_baseline

    found = Diagnostic("PWR001", "error", "m", "rack a01", file="x")
    ignored = Diagnostic("PWR002", "error", "m", "rack a01", file="x", suppressed=BY_IGNORE)
    load_error = Diagnostic("E000", "error", "m", "file", file="x")
    text, recorded = record_baseline([found, ignored, load_error])
    assert recorded == 1 and found.suppressed == BY_BASELINE
    assert ignored.suppressed == BY_IGNORE and not load_error.suppressed
    assert json.loads(text)["findings"] == [
        {"file": "x", "code": "PWR001", "subject": ["rack", "a01"]}
    ]
