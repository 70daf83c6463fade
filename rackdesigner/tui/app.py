"""The designer app: open a layout, see it, fix it, save it.

A thin shell: the app holds the look (themes, style sheet), the user's keymap, the
notifications (kept, for the help and the tests), the command palette and the crash
guard. Everything else is the :class:`~rackdesigner.tui.main_screen.MainScreen` (the
workflow) and the :class:`~rackdesigner.tui.workspace.Workspace` it works on (the session
and the file, no Textual).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from textual.actions import SkipAction
from textual.actions import parse as parse_action
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from rackdesigner.tui import actions, safe
from rackdesigner.tui.main_screen import MainScreen
from rackdesigner.tui.notices import NOTICE_CSS, titled
from rackdesigner.tui.workspace import Workspace


def keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "rackdesigner" / "keymap.toml"


def read_keymap(path: Path) -> tuple[dict[str, str], str | None]:
    """``binding-id = "keys"`` pairs; a broken file is reported, never fatal."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return {}, f"{path}: {error}"
    keymap = {k: v for k, v in data.items() if isinstance(v, str)}
    unknown = sorted(set(keymap) - set(actions.BY_ID))
    problem = f"{path}: unknown binding ids {', '.join(unknown)}" if unknown else None
    return {k: v for k, v in keymap.items() if k in actions.BY_ID}, problem


def through_main(bindings: list[Binding]) -> list[Binding]:
    """App-wide bindings that run a main screen action: ``main.<name>`` (the action
    registry's spelling) becomes the app's own action ``main('<name>')``, which runs it on
    the main screen (:meth:`DesignerApp.action_main`), under a dialog too.

    Textual resolves the namespaces ``app``, ``screen`` and ``focused`` only (``screen``
    under a dialog is the dialog); a binding's action without a namespace runs on the node
    that holds the binding, here the app. That, ``App.run_action``'s default namespace and
    ``check_action`` are Textual's public API for this; the namespace set Textual reads
    (``App._action_targets``) is not."""
    out = []
    for binding in bindings:
        namespace, dot, action = binding.action.partition(".")
        if dot and namespace == "main":
            binding = dataclasses.replace(binding, action=f"main({action!r})")
        out.append(binding)
    return out


class DesignerApp(App[None], inherit_bindings=False):
    CSS_PATH = "app.tcss"
    CSS = NOTICE_CSS  # one compact notice (notices.py)
    TITLE = "rackdesigner"
    # The catalog panel opens fully from 40 lines up (app.tcss: Screen.-tall).
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [(0, "-short"), (40, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = [
        *through_main(actions.bindings("app")),
        *through_main(actions.bindings("views")),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(
        self,
        path: str | None = None,
        *,
        keymap_file: Path | None = None,
        autosave: bool = True,
        views_ahead: bool = True,
        sigterm: bool = False,
    ) -> None:
        """``autosave`` and ``views_ahead`` off: no autosave timer, no views built ahead of
        being shown (tests that do not test them run without their timers and workers).
        ``sigterm``: handle SIGTERM (:meth:`handle_sigterm`; the command line's designer)."""
        super().__init__()
        self.sigterm = sigterm
        self.exit_line = ""  # what run() says on the terminal as the app ends (SIGTERM)
        self.workspace = Workspace(str(path) if path is not None else None)
        self.keymap_file = keymap_file if keymap_file is not None else keymap_path()
        self.keymap_overrides: dict[str, str] = {}
        self.notices: list[tuple[str, str]] = []  # (severity, text) of every notification
        self.main = MainScreen(self.workspace, autosave=autosave, views_ahead=views_ahead)
        # The theme is chosen before the first style pass: set in on_mount, it parsed and
        # applied every style sheet a second time on each start (about 0.1 s). Set without
        # its watcher too: the watcher re-parses every style sheet into a fresh one whose
        # parse cache is dropped, so app.tcss was parsed twice on each start (about 20 ms
        # of CPU, bench/tui.py); before the first parse, all it does is give the style
        # sheet the theme's variables and the app the theme's classes.
        from rackdesigner.tui.themes import DARK, themes

        for theme in themes():
            self.register_theme(theme)
        self.set_reactive(DesignerApp.theme, DARK)
        self.stylesheet.set_variables(self.get_css_variables())
        dark = self.current_theme.dark
        self.set_class(True, f"-theme-{DARK}", update=False)
        self.set_class(dark, "-dark-mode", update=False)
        self.set_class(not dark, "-light-mode", update=False)

    def get_default_screen(self) -> Screen[Any]:
        return self.main

    def on_mount(self) -> None:
        if self.sigterm:
            self.handle_sigterm()
        self.keymap_overrides, problem = read_keymap(self.keymap_file)
        self.main.keymap = self.keymap_overrides
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        if problem:
            self.notify(problem, title="Keymap", severity="warning")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # An app-wide key for the main screen: the main screen says whether it acts now (and
        # the footer shows it so).
        if action == "main" and parameters and isinstance(parameters[0], str):
            _, name, arguments = parse_action(parameters[0])
            return self.main.check_action(name, arguments)
        # A long edit is changing the layout in a worker: no key acts until it is done (the
        # busy screen says what it is doing); the main screen refuses its own actions too.
        return self.main.busy is None

    async def action_main(self, action: str) -> None:
        """Run the main screen's ``action`` (``"cursor(0, 1)"``): the app-wide bindings
        reach the main screen this way while a dialog is on top too (the palette runs it
        with the main screen as the default namespace). A refused or missing action is
        skipped, so the key goes on to the next binding, as Textual does for any action."""
        if not await self.run_action(action, self.main):
            raise SkipAction()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Notifications are kept (``notices``) as well as shown: tests and the help read them.
        Markup is off and control characters are shown escaped: messages quote user text
        such as ids and values.

        One compact notice at a time (:mod:`rackdesigner.tui.notices`)."""
        message, title = safe.lines(message), safe.plain(title)
        text = titled(title, str(message))
        self.notices.append((str(severity), text))
        del self.notices[:-200]
        self.main.notice_board.give(str(severity), text, timeout)

    @property
    def notice(self) -> tuple[str, str] | None:
        """The notice on screen (severity, text), if any."""
        return self.main.notice_board.notice

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for action in actions.palette():
            yield SystemCommand(action.name, action.help, self._palette_callback(action.action))
        # Textual's own (Theme, Keys, Screenshot, Quit); Quit runs action_quit, which asks.
        yield from super().get_system_commands(screen)

    def _palette_callback(self, action: str) -> Any:
        def run() -> None:
            self.call_later(self.run_action, action, self.main)

        return run

    async def action_quit(self) -> None:
        """Textual's Quit (palette, ctrl+c's help): the designer's, which asks first."""
        self.main.action_quit()

    # -- a bug must not cost the user's work ----------------------------------------------

    def _handle_exception(self, error: Exception) -> None:
        """An unexpected error ends the app (Textual's way); first the unsaved layout goes to
        its autosave sidecar, and the terminal gets one line with where the details are."""
        saved = self.workspace.rescue()
        log = crash_log(error)
        super()._handle_exception(error)
        if not os.environ.get("RACKDESIGNER_DEBUG"):
            self._exit_renderables[:] = [
                safe.text(
                    f"rackdesigner: internal error: {type(error).__name__}: {error}{saved}; "
                    f"details in {log} (please report it)"
                )
            ]

    # -- SIGTERM: like Ctrl-C on the command line, after an autosave ----------------------

    def handle_sigterm(self) -> None:
        """From now on (the app running) SIGTERM (``kill``, a closing session manager) is
        handled between events: the unsaved layout goes to its autosave sidecar, the
        terminal is restored, and the process exits 143 with one line. A second SIGTERM
        while that runs kills the process as usual."""
        import asyncio
        import signal

        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._terminated)

    def _terminated(self) -> None:
        import asyncio
        import signal

        asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        saved = self.workspace.rescue()
        # Written by run() once the terminal is restored: one line, however narrow the
        # terminal (Textual's exit message is wrapped by Rich at its width).
        self.exit_line = safe.plain(f"rackdesigner: terminated (SIGTERM){saved}")
        self.exit(return_code=143)


def crash_log(error: BaseException) -> str:
    """Write the traceback where a bug report can pick it up; the path, or "-"."""
    import tempfile
    import traceback

    try:
        handle, name = tempfile.mkstemp(prefix="rackdesigner-crash-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write("".join(traceback.format_exception(error)))
        return name
    except OSError:
        return "-"


def run(path: str | None) -> int:
    """Run the designer on ``path``; the exit code (143 after a SIGTERM)."""
    import asyncio
    import signal

    app = DesignerApp(path, sigterm=True)
    before = signal.getsignal(signal.SIGTERM)
    # The app's own event loop, not asyncio.run's: that one waits, as it closes, for every
    # thread worker to end, and a check of 100,000 GPUs still running made ctrl+q take 8 s.
    # Here the app returns at once; the command line then ends the process with its
    # threads (cli.main's os._exit), and the workers' results are not wanted any more.
    loop = asyncio.new_event_loop()
    try:
        app.run(loop=loop)
    finally:
        # The event loop's handler is gone with the loop: the command line's comes back.
        if before is not None:
            signal.signal(signal.SIGTERM, before)
    if app.exit_line:
        print(app.exit_line, file=sys.stderr)
    return app.return_code or 0
