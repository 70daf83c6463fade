"""The designer's What if… says what ``rackdesigner whatif --fail`` says: both call
:func:`rackdesigner.whatif.what_if`, so the controller's result, findings included, is the
command line's on the same file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from rackdesigner.cli.main import cli
from rackdesigner.tui.controllers.whatif import WhatIfController
from rackdesigner.tui.messages import WhatIfDone
from rackdesigner.tui.workspace import Workspace, load_layout
from rackdesigner.whatif.render import impact_data, to_json
from tests.tui.pilot import copy


class _Header:
    def set_state(self, **_: Any) -> None:
        pass


class _UI:
    """What the controller asks of the screen, run at once: its thread, its message."""

    def __init__(self) -> None:
        self.header = _Header()
        self.posted: list[Any] = []

    def set_status(self, text: str) -> None:  # the designer's status line
        pass

    def run_thread(self, job: Any, *, group: str, exclusive: bool) -> None:
        job()

    def post_result(self, message: Any) -> None:
        self.posted.append(message)

    def notify(self, *_: Any, **__: Any) -> None:
        raise AssertionError("no notice expected")


def _app_result(path: Path, part: str) -> dict[str, Any]:
    loaded = load_layout(str(path))
    assert loaded.session is not None and not loaded.errors
    loaded.session.check_fast()
    workspace = Workspace(str(path))
    workspace.use(loaded.session, loaded.path)
    ui = _UI()
    WhatIfController(workspace, ui).run(part)  # type: ignore[arg-type]
    (done,) = ui.posted
    assert isinstance(done, WhatIfDone) and done.error is None and done.impact is not None
    return json.loads(to_json(impact_data(done.impact)))  # type: ignore[no-any-return]


def test_the_app_and_the_command_line_say_the_same(tmp_path: Path) -> None:
    """training-128 side:A: the four-sided compute racks run on B, C and D, the others on
    B alone; no capacity error and 7 "redundancy lost" warnings, in both."""
    path = copy("training-128.toml", tmp_path)
    app = _app_result(path, "side:A")
    result = CliRunner().invoke(cli, ["whatif", str(path), "--fail", "side:A", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert app == json.loads(result.output)
    codes = [(f["code"], f["severity"]) for f in app["findings"]]
    assert codes == [("PWR001", "warning")] * 7


def _same(path: Path, part: str) -> dict[str, Any]:
    app = _app_result(path, part)
    result = CliRunner().invoke(cli, ["whatif", str(path), "--fail", part, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert app == json.loads(result.output)
    return app


def test_a_power_chain_failure_says_the_same(tmp_path: Path) -> None:
    """The false 2N hall (tests/rules/PWR024/fires.toml): utility:utility-1 takes ats-1 and
    both UPSs: every feed is dead, 64 GPUs down, in both."""
    from tests.conftest import ROOT

    path = tmp_path / "false-2n.toml"
    shutil.copy(ROOT / "tests" / "rules" / "PWR024" / "fires.toml", path)
    app = _same(path, "utility:utility-1")
    assert app["gpus_down"] == 64
    assert [(c["id"], c["state"]) for c in app["power_chain"]] == [
        ("utility-1", "failed"),
        ("ats-1", "lost"),
        ("ups-a", "lost"),
        ("ups-b", "lost"),
    ]


def test_a_water_loop_failure_says_the_same(tmp_path: Path) -> None:
    """The GB200 SU (layouts/gb200-nvl72-su.toml): loop:fws-1 stops its 3 CDUs; the 8 NVL72
    racks' 838 kW of cold plates have no CDU left: their 144 compute trays (576 GPUs) trip,
    in both."""
    app = _same(copy("gb200-nvl72-su.toml", tmp_path), "loop:fws-1")
    assert app["gpus_down"] == 576
    assert app["cooling"][0]["cause"] == "water loop fws-1 lost"


def test_the_app_offers_the_storage_appliances_and_says_what_the_command_line_says(
    tmp_path: Path,
) -> None:
    """training-128's two IBM ESS 3500 are in What if…'s list; both lost (figures worked in
    tests/whatif/test_storage_whatif.py): nothing to read, the 16 nodes cut off from the
    parallel file system and shaded so; the app's result is the command line's."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.layout_io import load_path
    from rackdesigner.tui.controllers.whatif import choices
    from rackdesigner.tui.overlays import shading_of
    from rackdesigner.whatif import parse_failure, what_if

    path = copy("training-128.toml", tmp_path)
    analysis = Analysis(load_path(path))
    offered = dict(choices(analysis, "a03-stor1", "a03"))
    assert next(iter(offered)) == "storage:a03-stor1"  # the appliance under the cursor first
    assert offered["storage:a03-stor2"] == (
        "storage:a03-stor2  (a parallel file system appliance, a03)"
    )
    app = _app_result(path, "storage:a03-stor1")
    result = CliRunner().invoke(
        cli, ["whatif", str(path), "--fail", "storage:a03-stor1", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert app == json.loads(result.output)
    both = what_if(
        analysis, [parse_failure("storage:a03-stor1"), parse_failure("storage:a03-stor2")]
    )
    shading = shading_of("storage:a03-stor1, storage:a03-stor2", both, {})
    assert shading.shade["a01-n01"] == "cut off" and shading.shade["a03-stor2"] == "down"
