"""The designer's cabling journeys, pressing real keys: Connect ports (``l``), Generate
fabric (``g``), a fabric large enough to be applied off the UI thread and the keys that
wait for it, in one app boot; New from template (palette) and a large template in another.
(The field guide's 32-GPU inference cluster built from an empty file: test_journey.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rackdesigner.edit import AddRack
from rackdesigner.layout_io import dumps
from rackdesigner.tui import autosave
from rackdesigner.tui.app import DesignerApp
from rackdesigner.tui.screens.confirm import ConfirmScreen
from rackdesigner.tui.screens.connect import ConnectScreen
from rackdesigner.tui.screens.fabric import GenerateScreen
from rackdesigner.tui.screens.template import TemplateScreen
from tests.conftest import ROOT
from tests.edit.test_stateful import full_check
from tests.tui.pilot import (
    SMALL,
    app_for,
    busy_details,
    four_nodes,
    palette,
    run,
    settle,
    type_text,
    until,
    wait_for_preview,
)

SIZE = SMALL


# Slow step: it generates a fabric large enough to be applied off the UI thread (the
# longest journey, about 9 s of CPU), as the whole-hall tests do.
@pytest.mark.slow
def test_connect_ports_generate_a_fabric_a_long_one_off_the_ui_thread_and_keys_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connect two free ports (the link in both inspectors and the topology; a typed
    length); a refused plan shown in the Generate dialog; leaf-spine at 2:1 on 200 Gbps
    InfiniBand for three selected nodes (preview counts = the plan's, one undo step). Then
    a fabric large enough is applied and undone off the UI thread (300,000 cables on
    100,000 GPUs take the core seconds: the threshold is lowered to the four nodes'
    fabric), and nothing reads or edits the layout while a worker changes it."""
    import threading

    from rackdesigner.tui.controllers import long_edit
    from rackdesigner.tui.screens.busy import BusyScreen

    path = four_nodes(tmp_path / "nodes.toml")
    release = threading.Event()
    finished: list[object] = []

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            # -- connect ports
            await settle(pilot)
            assert app.main.go_to("a01-n01")
            await pilot.press("l")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ConnectScreen)
            # End A is the device under the cursor, its first free port chosen; the search
            # of end B has the focus.
            assert screen.port["a"] is not None and screen.port["a"].end == "a01-n01:ib1"
            assert app.focused is not None and app.focused.id == "connect-b-search"
            await type_text(pilot, "n02")  # ids that contain it: a01-n02 only
            await pilot.pause()
            assert screen.port["b"] is not None and screen.port["b"].end == "a01-n02:ib1"
            # Two nodes 10 U apart in one rack: 0.44 m up, 0.5 m slack; DAC at 400G.
            assert screen.proposed is not None and screen.proposed.media == "dac"
            assert abs(screen.proposed.length - (10 * 0.04445 + 0.5)) < 1e-6
            near = screen.proposed.length
            # To the node in the next rack: the run goes over the tray, past DAC's 2 m.
            await pilot.press("ctrl+u")
            await type_text(pilot, "a02")
            await pilot.pause()
            assert screen.port["b"] is not None and screen.port["b"].end == "a02-n01:ib1"
            assert screen.proposed.length > near and screen.proposed.media == "acc"
            await pilot.press("ctrl+u")
            await type_text(pilot, "n02")
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            assert [(lk.a, lk.b, lk.media) for lk in session.index.links_of("a01-n01")] == [
                ("a01-n01:ib1", "a01-n02:ib1", "dac")
            ]
            facts = app.main.inspector.facts_text()
            assert "ib1 → a01-n02:ib1 · dac 0.9 m" in facts
            assert app.main.go_to("a01-n02")
            facts = app.main.inspector.facts_text()
            assert "ib1 → a01-n01:ib1 · dac 0.9 m" in facts
            assert app.main.go_to("a01-n01:ib1")  # the link itself: its run and speed
            facts = app.main.inspector.facts_text()
            assert "dac · 0.9 m computed · 400 Gbps" in facts
            await pilot.press("3")
            await settle(pilot)
            await until(
                pilot,
                lambda: any("2 nodes" in str(n.label) for n in app.main.topology.root.children),
                lambda: f"a leaf with 2 nodes in {app.main.topology.root.children}",
            )
            # One undo step takes the cable away again.
            await pilot.press("1", "ctrl+z")
            await settle(pilot)
            assert session.index.links_of("a01-n01") == []
            # A typed length is declared and the media follow it: 30 m is past ACC's reach.
            assert app.main.go_to("a01-n01")
            await pilot.press("l")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ConnectScreen)
            await type_text(pilot, "n02")
            await pilot.press("tab", "tab", "tab", "tab")  # devices, ports, media, length
            assert app.focused is not None and app.focused.id == "connect-length"
            await pilot.press("ctrl+a", *["delete"] * 8)
            await type_text(pilot, "30 m")
            await pilot.pause()
            assert screen.proposed is not None and screen.proposed.media == "mmf"
            await type_text(pilot, "x")
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ConnectScreen)  # a bad length is refused inline
            assert "length" in str(screen.query_one("#connect-status").render())
            await pilot.press("backspace", "enter")
            await settle(pilot)
            link = session.index.links_of("a01-n01")[0]
            assert link.media == "mmf" and abs(float(link.length) - 30.0) < 1e-9
            # One undo step takes it away again.
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert session.layout.links == []

            # -- generate fabric
            session = app.workspace.session
            assert session is not None
            # A plan the generator refuses is shown in the dialog, never applied: direct
            # cables one or two nodes, and there are four.
            await pilot.press("g")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GenerateScreen)
            await pilot.press("down")  # the generator list opens; direct is its last entry
            await pilot.pause()
            await pilot.press("end", "enter")
            await wait_for_preview(pilot, screen)
            assert screen.result is None and screen.error is not None
            assert "4 nodes need switches" in screen.error
            assert "--fabric" not in screen.error  # the dialog's own words
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, GenerateScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert session.layout.links == []
            # Select three of the four nodes with space.
            for node in ("a01-n01", "a01-n02", "a01-n03"):
                assert app.main.go_to(node)
                await pilot.press("space")
            # Moving the cursor refills the inspector's fields; the selection stays (Textual's
            # inputs call App.clear_selection for text selection, which must not touch it).
            await pilot.press("up", "up", "down", "end", "home")
            assert app.main.racks.selection == {"a01-n01", "a01-n02", "a01-n03"}
            await pilot.press("g")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GenerateScreen)
            assert screen.nodes.ids == ("a01-n01", "a01-n02", "a01-n03")
            # generator: leaf-spine is the default for 24 GPUs; speed: open the list, pick
            # 200 Gbps; the leaf follows (the only 200G InfiniBand switch).
            assert choose(screen, "#generate-fabric") == "leaf-spine"
            await pilot.press("tab", "down")
            await pilot.pause()
            await pilot.press("down", "enter")
            await pilot.pause()
            assert choose(screen, "#generate-speed") == str(200e9)
            assert choose(screen, "#generate-leaf") == "qm8700"
            # spine: a 40-port switch would take the 24 node ports alone; redundant (the
            # default), two leaves take 12 each with 6 uplinks at 2:1, over two spines.
            # Oversubscription field: type over 1:1.
            await pilot.press("tab", "tab", "tab")
            assert app.focused is not None and app.focused.id == "generate-oversubscription"
            await type_text(pilot, "2:1")
            await wait_for_preview(pilot, screen)
            assert screen.result is not None
            assert screen.result.request.oversubscription == 2.0
            assert screen.result.request.leaf == "qm8700"
            from rackdesigner.design.generators import generate

            plan = generate(session.layout, screen.result.request)
            shown = screen.result.preview
            assert (shown.leaves, shown.spines, shown.cables) == (
                plan.counts["leaves"],
                plan.counts["spines"],
                len(plan.links),
            )
            text = str(screen.query_one("#generate-preview").render())
            assert f"cables {len(plan.links)}" in text
            before = dumps(session.layout)
            await pilot.press("enter")
            await settle(pilot)
            assert not isinstance(app.screen, GenerateScreen)
            assert len(session.layout.links) == len(plan.links) == 24 + 12
            assert (plan.counts["leaves"], plan.counts["spines"]) == (2, 2)
            assert not app.main.racks.selection  # the selection was for this fabric
            assert any(d.model == "qm8700" for _, d in session.layout.devices())
            assert session.history.undo_label == plan.label
            # One ctrl+z takes the whole fabric away.
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert dumps(session.layout) == before

            # -- a fabric large enough is applied and undone off the UI thread
            monkeypatch.setattr(long_edit, "LONG_EDIT_COMMANDS", 2)
            session = app.workspace.session
            assert session is not None
            before = dumps(session.layout)
            shown = busy_details(app, monkeypatch)
            await pilot.press("g")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GenerateScreen)
            await wait_for_preview(pilot, screen)
            assert screen.result is not None
            cables = len(screen.result.plan.links)
            await pilot.press("enter")
            await settle(pilot)
            assert shown and f"{cables:,} cables" in shown[0]
            assert not isinstance(app.screen, BusyScreen) and app.main.busy is None
            assert len(session.layout.links) == cables > 0
            assert session.history.undo_label == screen.result.plan.label
            assert "long_edit" in app.workspace.timings
            assert any("ctrl+z undoes" in text for _, text in app.notices)
            assert session.findings == full_check(session)  # checked as any edit is
            # ctrl+z: the same way back.
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert len(shown) == 2 and shown[1].startswith("Undoing: ")
            assert dumps(session.layout) == before

            # -- keys wait while a long edit runs: no undo, no view switch, no palette; the
            # busy screen says what runs, and goes when it is done.
            monkeypatch.undo()
            session = app.workspace.session
            assert session is not None
            assert app.main.do(AddRack("z99")) is None
            revision = session.revision
            app.main.run_long_edit(
                "Test",
                "waiting for the test…",
                lambda: release.wait(10),
                lambda r, e: finished.append(r),
            )
            await pilot.pause()
            assert isinstance(app.screen, BusyScreen)
            await pilot.press("ctrl+z", "2", "ctrl+p", "ctrl+s")
            assert isinstance(app.screen, BusyScreen)
            assert session.revision == revision and not finished
            # The autosave tick writes nothing of a layout being changed, and timers (the
            # floor view's inspector, the views built ahead) read nothing of it.
            app.main.files.autosave_now()
            assert not [w for w in app.workers if w.group == "autosave"]
            shown_before = app.workspace.inspected
            app.main.update_inspector(("rack", "z99"))
            assert app.workspace.inspected == shown_before
            app.main.views.build_ahead()
            assert not [w for w in app.workers if w.group == "views" and w.is_running]
            release.set()
            await settle(pilot)
            assert finished == [True] and app.main.busy is None
            assert not isinstance(app.screen, BusyScreen)
            assert autosave.newer(path) is None
            await pilot.press("ctrl+z")  # keys act again
            await settle(pilot)
            assert session.revision != revision

    run(journey)


def choose(screen: GenerateScreen, selector: str) -> str:
    return str(screen.query_one(selector).value)  # type: ignore[attr-defined]


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_new_from_template_replaces_the_layout_and_a_large_one_fills_off_the_ui_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New from template: an unsaved, untitled layout (the dialog, the form's refusal, the
    first save's proposed name). Then a template of 100,000 GPUs takes the core seconds to
    index and check: it fills the new layout behind the busy screen too (the threshold
    lowered to the small template; the template as the dialog gives it)."""
    from rackdesigner.design.template_fill import template_defaults
    from rackdesigner.design.templates import build
    from rackdesigner.tui.controllers import long_edit
    from rackdesigner.tui.screens.template import TemplateResult

    path = tmp_path / "finetune-8gpu.toml"
    shutil.copy(ROOT / "layouts" / "finetune-8gpu.toml", path)
    built = build(template_defaults("small"), "test")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            # An unsaved change: New from template asks first, as Open does.
            assert app.main.go_to("a01-blank1")
            await pilot.press("delete")
            await settle(pilot)
            assert app.workspace.dirty
            await palette(pilot, "New from template")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.click("#answer-discard")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TemplateScreen)
            # The template list opens with ↓; "small" is the first template.
            await pilot.press("down")
            await pilot.pause()
            await pilot.press("home", "enter")
            await pilot.pause()
            assert screen.template == "small"
            assert str(screen.query_one("#t-gpus").value) == "16"  # type: ignore[attr-defined]
            # A count that is no multiple of the node's 8 GPUs is refused in the form.
            await pilot.press("tab")
            assert app.focused is not None and app.focused.id == "t-gpus"
            await type_text(pilot, "12")
            await pilot.press("enter")
            await until(pilot, lambda: not screen.building, "the form checked")
            status = str(screen.query_one("#template-status").render())
            assert "a multiple of 8" in status and "--" not in status
            assert isinstance(app.screen, TemplateScreen)
            await pilot.press("ctrl+u")
            await type_text(pilot, "16")
            await pilot.press("enter")
            await until(pilot, lambda: not isinstance(app.screen, TemplateScreen), "built")
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            # The file the user opened stays the layout's file, and names it.
            assert app.workspace.path == str(path) and app.workspace.dirty
            assert session.layout.name == "finetune-8gpu"
            assert session.layout.description.startswith("16 x h100-sxm")
            models = [d.model for _, d in session.layout.devices()]
            assert models.count("dgx-h100") == 2
            assert not [d for d in session.findings if d.severity == "error"]
            assert path.read_text(encoding="utf-8").startswith("# Fine-tuning node")
            # The first save asks before it replaces the layout the file holds; cancel.
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "finetune-8gpu.toml exists" in app.screen.message
            await pilot.press("escape")
            await pilot.pause()
            assert path.read_text(encoding="utf-8").startswith("# Fine-tuning node")
            # -- a large template
            monkeypatch.setattr(long_edit, "LONG_EDIT_COMMANDS", 2)
            shown = busy_details(app, monkeypatch)
            app.main.wiring.use_template(TemplateResult("small", built))
            await settle(pilot)
            assert shown and shown[0].startswith("New from template small: ")
            session = app.workspace.session
            assert session is not None and app.main.busy is None
            assert [d.model for _, d in session.layout.devices()].count("dgx-h100") == 2
            assert session.findings == full_check(session)
            assert any("New layout from small" in text for _, text in app.notices)

    run(journey)


def test_the_main_screen_has_the_actions_by_their_palette_names() -> None:
    from rackdesigner.tui import actions
    from rackdesigner.tui.main_screen import MainScreen

    names = {a.name: a for a in actions.palette()}
    assert names["Connect ports"].keys == "l"
    assert names["Generate fabric"].keys == "g"
    assert "New from template" in names
    for action in actions.ACTIONS:  # every key and palette entry reaches a method
        assert callable(getattr(MainScreen, f"action_{action.action.partition('(')[0]}"))


def test_no_designer_method_shadows_a_textual_one_by_accident() -> None:
    """A designer method named like one of Textual's App or Screen methods replaces it for
    Textual's own callers too (``clear_selection`` once cleared the racks' selection
    whenever an input's cursor moved). Only these overrides are meant."""
    from textual.app import App
    from textual.screen import Screen

    from rackdesigner.tui.main_screen import MainScreen

    meant = {
        DesignerApp: {
            "notify",
            "get_system_commands",
            "get_default_screen",
            "action_quit",
            "_handle_exception",
            "check_action",
        },
        MainScreen: {"compose", "notify", "check_action"},
    }
    for klass, base in ((DesignerApp, App), (MainScreen, Screen)):
        shadowed = {
            name
            for owner in klass.__mro__
            if owner.__module__.startswith("rackdesigner.")
            for name in vars(owner)
            if hasattr(base, name) and not name.startswith("__") and callable(getattr(base, name))
        }
        assert shadowed <= meant[klass], shadowed - meant[klass]


def test_app_wide_keys_reach_the_main_screen_through_public_api_only() -> None:
    """The app-wide bindings run ``main('<action>')``, the app's own action that runs the
    main screen's: no namespace Textual does not know (it resolves app, screen and focused;
    adding one means writing its private ``App._action_targets``)."""
    from textual.actions import parse

    from rackdesigner.tui import actions
    from rackdesigner.tui.main_screen import MainScreen

    relayed = [b for b in DesignerApp.BINDINGS if getattr(b, "id", None) in actions.BY_ID]
    assert len(relayed) == len(actions.bindings("app")) + len(actions.bindings("views"))
    for binding in relayed:
        namespace, name, (action,) = parse(binding.action)  # type: ignore[union-attr]
        assert (namespace, name) == ("", "main"), binding
        assert action == actions.BY_ID[binding.id].action  # type: ignore[union-attr]
        assert callable(getattr(MainScreen, f"action_{parse(str(action))[1]}"))
