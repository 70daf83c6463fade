"""What the designer's workers send back: one typed message per result.

A worker never calls into the screen; it posts one of these (``post_message`` is safe from
a thread) and the main screen handles it on the app's thread, between keys. Each
background job ends in exactly one message, also when it fails, so the screen can tell
when everything started has come back (:attr:`MainScreen.idle`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from rackdesigner.asbuilt import Finding
    from rackdesigner.design.guidance import Announcement
    from rackdesigner.edit import EditError, FabricJob, Session
    from rackdesigner.tui.overlays import VerifyRequest
    from rackdesigner.tui.workspace import Loaded
    from rackdesigner.whatif import Impact


class LoadProgress(Message):
    """The load worker got this far (percent, what it does now)."""

    def __init__(self, percent: float, text: str) -> None:
        self.percent = percent
        self.text = text
        super().__init__()


class LoadDone(Message):
    """The file is read (``loaded``), or reading it failed unexpectedly (``error``)."""

    def __init__(self, path: str | None, loaded: Loaded | None, error: BaseException | None):
        self.path = path
        self.loaded = loaded
        self.error = error
        super().__init__()


class FirstCheckDone(Message):
    """Racks, power and cooling of a layout just opened are checked."""

    def __init__(self, session: Session) -> None:
        self.session = session
        super().__init__()


class FabricDone(Message):
    """A fabric check ended (``job`` holds its findings or its error; None: cancelled).
    ``views_follow``: its child still builds the views' data, which a FabricViews brings."""

    def __init__(
        self, session: Session, job: FabricJob | None, *, views_follow: bool = False
    ) -> None:
        self.session = session
        self.job = job
        self.views_follow = views_follow
        super().__init__()


class FabricViews(Message):
    """The views' data a fabric check's child built after its findings (``job.views``;
    None: superseded, cancelled or failed, and the app builds them itself)."""

    def __init__(self, session: Session, job: FabricJob | None) -> None:
        self.session = session
        self.job = job
        super().__init__()


class FindingsChanged(Message):
    """The check pipeline has news of the session's findings for the screen to show: a
    check came back (``first``: the first one of a layout just opened), with what it
    announces (``said``), or the fabric check failed (``failed``: why, said once)."""

    def __init__(
        self,
        session: Session,
        *,
        first: bool = False,
        said: Announcement | None = None,
        failed: str | None = None,
    ) -> None:
        self.session = session
        self.first = first
        self.said = said
        self.failed = failed
        super().__init__()


class AutosaveText(Message):
    """The unsaved layout's text for its sidecar (None: the layout changed under it)."""

    def __init__(self, session: Session, path: str, revision: int, text: str | None) -> None:
        self.session = session
        self.path = path
        self.revision = revision
        self.text = text
        super().__init__()


class LongEditDone(Message):
    """A long edit ended: its result, or the core's refusal."""

    def __init__(self, token: object, result: Any, refusal: EditError | None) -> None:
        self.token = token
        self.result = result
        self.refusal = refusal
        super().__init__()


class ViewBuilt(Message):
    """A view's data (None: its build failed) for the session's state ``stamp``."""

    def __init__(self, session: Session, name: str, stamp: object, data: object) -> None:
        self.session = session
        self.name = name
        self.stamp = stamp
        self.data = data
        super().__init__()


class ViewsBuilt(Message):
    """A views worker finished (every view it built has been posted)."""


class Idle(Message):
    """Every background job started has come back (posted to the app)."""


class VerifyDone(Message):
    """The scan is read and compared (``findings``, ``checked`` cables), or could not be
    read (``error``: the file, line and reason)."""

    def __init__(
        self,
        token: object,
        request: VerifyRequest,
        findings: list[Finding] | None,
        checked: int,
        error: str | None,
    ) -> None:
        self.token = token
        self.request = request
        self.findings = findings
        self.checked = checked
        self.error = error
        super().__init__()


class WhatIfDone(Message):
    """A failure's impact (``impact``), or why it names no part (``error``)."""

    def __init__(self, token: object, part: str, impact: Impact | None, error: str | None):
        self.token = token
        self.part = part
        self.impact = impact
        self.error = error
        super().__init__()
