"""One compact notice at a time: the designer's notifications, shown across the foot of the
screen over the footer's keys, the whole width, up to ``NOTICE_LINES`` lines.

A new notice replaces the last; the next edit clears it (it may have been about what the
edit fixed); within one edit a notice does not replace a graver one (the edit's own
"Placed …" after guidance's "✖ COOL001 …"); it lasts at most ``NOTICE_MAX_S``; and it
never covers a dialog: one given while a dialog is open waits for the main screen. Every
notice is kept in the app's ``notices`` all the same; the problems panel is the record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

# A notice stays at most this long (seconds); the next edit replaces it sooner.
NOTICE_MAX_S = 6.0
_GRAVITY = {"information": 0, "warning": 1, "error": 2}

# The longest a notice gets, in lines: its text wraps to the screen's width up to here.
NOTICE_LINES = 3
# The toast: across the foot of the screen, over the footer (the keys come back when it
# goes), the screen's whole width so a long notice is read whole. Under the header it would
# share a line with the view tabs and cover the inspector's top, cut to what was left.
NOTICE_CSS = f"""
ToastRack {{
    dock: bottom;
    align: left bottom;
    margin: 0;
    padding: 0;
    overflow: hidden hidden;
}}
ToastHolder {{ align-horizontal: left; }}
Toast {{
    width: 100%;
    max-width: 100%;
    height: auto;
    max-height: {NOTICE_LINES};
    margin: 0;
    padding: 0 1;
    text-wrap: wrap;
    text-overflow: ellipsis;
}}
"""


def titled(title: str, message: str) -> str:
    """``Title: message``, unless the message already starts with its title ("What if
    side:A fails: …" under "What if" is not said twice)."""
    if not title or message.casefold().startswith(title.casefold()):
        return message
    return f"{title}: {message}"


def one_line(text: str) -> str:
    """A notice's lines run on, `` · `` between them; a line that ends in a colon leads
    into the next ("What if side:A fails: GPUs: …")."""
    line = ""
    for part in (p.strip() for p in text.splitlines()):
        if part:
            line += (" " if line.endswith(":") else " · " if line else "") + part
    return line


class NoticeBoard:
    """The notice on screen for ``screen`` (the main screen), shown through its app."""

    def __init__(self, screen: Screen[None]) -> None:
        self.screen = screen
        self.notice: tuple[str, str] | None = None  # (severity, text) on screen
        self._held: tuple[str, str, float] | None = None  # waiting for a dialog to close
        self._same_turn = False  # a notice was shown while this message is handled
        self._generation = 0  # the newest notice posted (older ones are dropped)

    def give(self, severity: str, text: str, timeout: float | None) -> None:
        seconds = min(timeout if timeout is not None else NOTICE_MAX_S, NOTICE_MAX_S)
        graver = self.notice is not None and _GRAVITY.get(self.notice[0], 0) > _GRAVITY.get(
            severity, 0
        )
        if self._same_turn and graver:
            return  # a graver notice of the same edit stays
        stack = self.screen.app.screen_stack
        if stack and stack[-1] is not self.screen:
            self._held = (severity, text, seconds)
            return
        self._show(severity, text, seconds)

    def _show(self, severity: str, text: str, seconds: float) -> None:
        app = self.screen.app
        self.notice = (severity, text)
        if not self._same_turn:  # notices given while this message is handled: one edit
            self._same_turn = True
            app.call_later(self._turn_over)
        line = one_line(text)
        level: SeverityLevel = (
            "error"
            if severity == "error"
            else "warning"
            if severity == "warning"
            else "information"
        )
        # Textual adds a notification when its message is handled: clearing the last one
        # now would miss one still on its way. The newest is posted after those, alone.
        self._generation += 1
        app.call_later(self._post, self._generation, line, level, seconds)

    def _post(self, generation: int, line: str, level: SeverityLevel, seconds: float) -> None:
        if generation != self._generation:
            return  # a newer notice (or an edit, or a dialog) came since
        app = self.screen.app
        app.clear_notifications()
        # Textual's own notify: the app's records the notice and comes here.
        App.notify(app, line, severity=level, timeout=seconds, markup=False)

    def _turn_over(self) -> None:
        self._same_turn = False

    def clear(self) -> None:
        """An edit was applied: the last notice goes (a held one too)."""
        self._held = None
        self.hide()

    def hide(self) -> None:
        """A dialog opened: the notice on screen goes (a later one waits for it)."""
        self.notice = None
        self._generation += 1
        self.screen.app.clear_notifications()

    def show_held(self) -> None:
        """The main screen is on top again: the notice that came under a dialog shows."""
        held, self._held = self._held, None
        if held is not None:
            self._show(*held)
