"""What the designer is working on, without the screen: the session, the file it came from
and goes to, the autosave and recovery state, the selection, the device being moved and
the entity in the inspector.

No Textual here, directly or not (a test imports this module in a fresh interpreter and
checks): the screens ask the questions this module returns and show the outcomes it
returns. An edit (:meth:`Workspace.do`) gives an :class:`Outcome` (its refusal, the racks
it touched, the problems it brought, worded); saving (:meth:`Workspace.save_flow`) is a
generator of the :class:`Question` s to ask, sent each answer, ending in a
:class:`SaveOutcome`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rackdesigner.design.placing import nearest_fit
from rackdesigner.layout_io.saving import same_file
from rackdesigner.tui import autosave as sidecar
from rackdesigner.tui.findings import Ref, subject_of
from rackdesigner.tui.widgets.layout_settings import (
    SETTINGS_FACTS,
    Page,
    port_page,
    settings_page,
)

# The guidance, the fixes and the facts' wording (with the rules and the check engine they
# read) are imported when first used: the designer's first frame does not wait for them.
if TYPE_CHECKING:
    from rackdesigner.design.dependants import Dependants
    from rackdesigner.design.guidance import Announcement
    from rackdesigner.edit import Batch, Command, FabricJob, Session
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.tui.overlays import Shading, Verified

Progress = Callable[[float, str], None]


# -- loading -------------------------------------------------------------------------------


@dataclass
class Loaded:
    """What loading a file gives: a session, or the errors that stopped it."""

    path: str | None
    session: Session | None = None
    errors: list[Diagnostic] = field(default_factory=list)
    recovered: bool = False


def load_layout(path: str | None, progress: Progress | None = None) -> Loaded:
    """Read, convert and prepare ``path`` (None: an untitled layout; a path that does not
    exist: an empty layout named after it). Not checked: the screen comes first."""
    from rackdesigner.edit import Session
    from rackdesigner.layout_io.catalog import for_layout
    from rackdesigner.layout_io.document import load
    from rackdesigner.model.diagnostics import LayoutError
    from rackdesigner.model.layout import Layout

    step = progress or (lambda _percent, _text: None)
    if path is None:
        return Loaded(None, Session(Layout(name="untitled")))
    if not Path(path).exists():
        return Loaded(path, Session(Layout(name=Path(path).stem)))
    step(5, "reading and converting…")
    try:
        document = load(path)
    except LayoutError as error:
        return Loaded(path, errors=error.diagnostics)
    step(80, "reading the catalog…")
    for_layout(document.layout)  # the built-in catalog, built here rather than on screen
    step(90, "drawing…")
    return Loaded(path, Session(document, check=False))


def count_racks(path: str | None) -> int | None:
    """How many racks ``path`` holds, counted from its ``[[racks]]`` lines before it is
    parsed (the designer says "Loading 2,048 racks…" while it loads); None when the file
    cannot be read (the load says why)."""
    if path is None:
        return None
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    return data.count(b"\n[[racks]]") + data.startswith(b"[[racks]]")


def loading_text(racks: int | None) -> str:
    """What the racks view and the loading screen say while the file loads."""
    if racks is None:
        return "Loading…"
    return f"Loading {racks:,} {'rack' if racks == 1 else 'racks'}…"


def empty_session(path: str | None) -> tuple[Session, str | None]:
    """An empty layout for ``path`` when that file does not exist (else untitled), and the
    path it keeps."""
    from rackdesigner.edit import Session
    from rackdesigner.model.layout import Layout

    missing = bool(path) and not Path(path or "").exists()
    name = Path(path or "").stem if missing else "untitled"
    return Session(Layout(name=name)), path if missing else None


# -- questions and outcomes ----------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """One thing to ask: a choice among ``choices`` (value, label), or, when ``prompt``,
    a line of text (``default`` prefilled, ``hint`` under it)."""

    title: str
    text: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    default: str = ""
    prompt: bool = False
    hint: str = ""


@dataclass
class SaveOutcome:
    saved: bool
    target: str | None = None
    error: str | None = None  # the notice when the file could not be written


@dataclass
class Outcome:
    """What an edit did: refused (``refusal``, ``error`` the full text) or applied
    (``touched``: the racks it changed, None for all; ``said``: the problems it brought)."""

    command: Any = None
    refusal: str | None = None
    error: str | None = None
    touched: set[str] | None = None
    said: Announcement | None = None
    autosave_due: bool = False

    @property
    def applied(self) -> bool:
        return self.refusal is None


@dataclass
class FabricResult:
    """What a finished fabric check means for the screen."""

    accepted: bool = False  # its findings are now the session's
    again: bool = False  # the layout changed while it ran: check again
    failed: str | None = None  # it failed: the error, said once, not retried until an edit
    said: Announcement | None = None


def _holds_text(target: str) -> bool:
    """Whether a save to ``target`` would replace something: a file that is not empty."""
    try:
        return Path(target).stat().st_size > 0
    except OSError:
        return False


def _overwrite(target: str) -> Question:
    return Question(
        "Overwrite?",
        f"{target} exists. Replace it with this layout?",
        (("overwrite", "Overwrite"), ("cancel", "Cancel")),
        "cancel",
    )


def _changed_on_disk(target: str) -> Question:
    return Question(
        "Changed on disk",
        f"{target} changed on disk since it was opened. Overwrite it with "
        "this layout (its changes are lost), or cancel?",
        (("overwrite", "Overwrite"), ("cancel", "Cancel")),
        "cancel",
    )


class Workspace:
    """The designer's state and the flows that change it, for one app."""

    def __init__(self, path: str | None = None) -> None:
        self.session: Session | None = None
        self.path: str | None = str(path) if path is not None else None
        self.recovered = False  # the layout came from an autosave: unsaved until saved
        self.edits_since_autosave = 0
        self.autosaved_revision: int | None = None
        # Why the last autosave could not be written ("" once one is): the header says
        # so until an autosave or a save succeeds; the notice is given once per failure.
        self.autosave_failed = ""
        self.selection: set[str] = set()  # device ids marked with space
        self.moving: str | None = None  # the device id being moved with ``m``
        self.inspected: Ref | None = None
        self.timings: dict[str, float] = {}
        # Shown over the layout, never part of it: a scan's differences (Verify against
        # scan) until cleared, and a what-if's shading until escape.
        self.verified: Verified | None = None
        self.shaded: Shading | None = None
        # Deleting something with dependants asks first, until "don't ask again".
        self.ask_before_delete = True
        # Guidance: the session an edit was made in, the session whose fabric was checked
        # once and its last fabric findings (as keys), the last "has a fix" answer.
        self._edited: Session | None = None
        self._fabric_seen: Session | None = None
        self._fabric_keys: frozenset[object] | set[object] = frozenset()
        self._fixable: tuple[object, bool] | None = None
        self._fabric_failed: tuple[int, int, str] | None = None  # (session, revision, error)
        self._users: tuple[tuple[int, int], dict[str, int]] | None = None  # devices per model

    # -- the session -----------------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        return self.session is not None and (self.session.dirty or self.recovered)

    def delete_dependants(self, device_ids: list[str]) -> Dependants | None:
        """What deleting these devices takes or breaks, when it should be asked about:
        None when nothing depends on them or "don't ask again" was chosen."""
        from rackdesigner.design.dependants import dependants

        if self.session is None or not self.ask_before_delete:
            return None
        index = self.session.index
        found = dependants(self.session.layout, index.catalog.devices, device_ids, index=index)
        return found if found else None

    def use(self, session: Session, path: str | None) -> None:
        """Work on ``session`` (of the file ``path``) from now on: a clean slate."""
        self.session = session
        self.recovered = False
        self.path = path
        self.moving = None
        self.inspected = None
        self.edits_since_autosave = 0
        self.autosaved_revision = None
        self.autosave_failed = ""
        self.selection.clear()
        self.verified = None
        self.shaded = None

    def overlay(self) -> dict[str, str]:
        """The devices marked over the layout: a what-if's shades while one is shown,
        else the scan's differences (device -> shade or severity)."""
        if self.shaded is not None:
            return dict(self.shaded.shade)
        return self.verified.devices() if self.verified is not None else {}

    def overlay_marks(self) -> list[tuple[Ref, str]]:
        """The scan's differences for the racks view's marks (a what-if shades instead)."""
        return self.verified.marks() if self.verified is not None else []

    # -- editing ---------------------------------------------------------------------------

    def do(self, command: Command) -> Outcome:
        """Run ``command`` through the session; a refusal changes nothing."""
        from rackdesigner.edit import EditError

        session = self.session
        if session is None:
            return Outcome(command, "no layout is open", "no layout is open")
        before = self.before_edit()
        try:
            session.do(command, fabric=False)
        except EditError as error:
            return Outcome(command, getattr(error, "message", None) or str(error), str(error))
        return self.edited(command, before)

    def before_edit(self) -> tuple[Diagnostic, ...]:
        """The findings as they stand before an edit (a copy: the list is kept in place)."""
        return tuple(self.session.findings) if self.session is not None else ()

    def edited(self, command: Any, before: tuple[Diagnostic, ...]) -> Outcome:
        """An edit was applied (by :meth:`do`, or by a long edit's worker): the problems it
        brought, worded (read before anything else reads the findings: the session's
        record of what re-ran is read once)."""
        from rackdesigner.design.guidance import new_problems

        session = self.session
        assert session is not None
        self._edited = session
        changes = session.finding_changes()
        # None: checked from scratch, so compare the whole lists.
        new = new_problems(*changes) if changes else new_problems(before, session.findings)
        outcome = self.changed(command)
        outcome.said = self._announce(new)
        return outcome

    def changed(self, command: Any) -> Outcome:
        """Count an applied command (done, undone, redone): the racks it touched, and
        whether the autosave is due."""
        effect = getattr(command, "effect", None)
        touched = None
        if effect is not None and not getattr(effect, "everything", False):
            touched = {rack.id for rack in effect.racks.values()}
        self.edits_since_autosave += 1
        due = self.edits_since_autosave >= sidecar.EVERY_EDITS
        return Outcome(command, touched=touched, autosave_due=due)

    def upcoming(self, which: str) -> Command | None:
        """The command an undo (``which="undo"``) or redo would take back or do again."""
        if self.session is None:
            return None
        history = self.session.history
        return history.next_undo if which == "undo" else history.next_redo

    def history_step(self, which: str) -> Command | None:
        """Undo or redo one step (raises the core's EditError for a redo refused)."""
        assert self.session is not None
        if which == "undo":
            return self.session.undo(fabric=False)
        return self.session.redo(fabric=False)

    def duplicate(self, device_id: str) -> Command | str | None:
        """A PlaceDevice for a copy of ``device_id`` into the next free units above it
        (else below), or the refusal's text; None when the device is gone."""
        from rackdesigner.edit import PlaceDevice

        session = self.session
        if session is None:
            return None
        index = session.index
        device = index.device(device_id)
        rack = index.rack_of(device_id)
        if device is None or rack is None:
            return None
        height = len(index.units_of(device))
        if height == 0 or device.position is None:
            return PlaceDevice(rack.id, device.model, None, side=device.side)
        taken: set[int] = set()
        for face in index.faces_of(device):
            taken.update(index.occupied(rack.id, face))
        near = device.position + height
        position = nearest_fit(taken, int(rack.height_u), height, near, upward=True)
        if position is None:
            return f"No {height} free units in rack {rack.id} for a copy of {device_id}."
        return PlaceDevice(rack.id, device.model, position, face=device.face)

    # -- what the inspector shows ------------------------------------------------------------

    def entity(self, ref: Ref) -> Any:
        if self.session is None:
            return None
        index = self.session.index
        kind, ident = ref
        if kind == "layout":  # Layout settings
            return self.session.layout
        lookup = {"rack": index.rack, "device": index.device, "feed": index.feed}
        found = lookup.get(kind)
        if found is not None:
            return found(ident)
        return index.link(ident) if kind == "link" else None

    def facts(self, ref: Ref | None) -> list[str]:
        from rackdesigner.design.facts_text import facts_lines, layout_lines

        if self.session is None:
            return []
        if ref is not None and ref[0] == "layout":
            return list(SETTINGS_FACTS)
        if ref is None:
            return layout_lines(self.session.layout)
        return facts_lines(self.session, ref)

    def _workload_facts(self) -> list[str]:
        """The settings page's workload figures as the layout has them now (the memory fit,
        the gradient sync, the storage a GPU and the checkpoint), so that a key's edit shows
        what it changes."""
        from rackdesigner.report.storage import storage_section
        from rackdesigner.report.workload import build_workload
        from rackdesigner.report.workload_brief import storage_lines, workload_lines

        analysis = self.session.analysis if self.session is not None else None
        if analysis is None:
            return []
        lines = workload_lines(build_workload(analysis), analysis)
        lines += storage_lines(storage_section(analysis), analysis)
        return [f"{label.lower()}: {text}" if label else f"  {text}" for label, text, _ in lines]

    def findings_of(self, ref: Ref | None) -> list[Diagnostic]:
        if self.session is None or ref is None:
            return []
        if ref[0] == "layout":  # the settings page: the findings about its sections
            kinds = ("site", "workload", "rules")
            return [d for d in self.session.findings if d.subject and d.subject[0] in kinds]
        found = [d for d in self.session.findings if subject_of(d) == ref]
        shaded = self.shaded
        if shaded is not None:  # a what-if's first, said as one (the panel cuts them)
            said = f"if {shaded.scenario}: "
            found[:0] = [
                replace(d, message=said + d.message)
                for d in shaded.impact.findings or ()
                if subject_of(d) == ref
            ]
        return found

    def _model_users(self, model: str) -> int:
        """How many devices have ``model`` (a known one: the port page is of its type)."""
        session = self.session
        assert session is not None
        analysis = session.analysis
        if analysis is not None:
            # Kept by the analysis across edits; a walk over 100,000 GPUs' devices was
            # 30 ms of every edit (the inspector shows the moved device again).
            return len(analysis.types_used.get(model, ()))
        state = (id(session), session.revision)
        if self._users is None or self._users[0] != state:
            counts: dict[str, int] = {}
            for _, device in session.layout.devices():
                counts[device.model] = counts.get(device.model, 0) + 1
            self._users = (state, counts)
        return self._users[1].get(model, 0)

    def page(self, ref: Ref | None) -> Page | None:
        """The inspector's page beyond the entity's own fields: the layout's settings, or a
        device's port groups (its model's)."""
        session = self.session
        if session is None or ref is None:
            return None
        if ref[0] == "layout":
            page = settings_page(session.layout)
            figures = self._workload_facts()
            if figures:  # under the [workload] heading, beside the keys that change them
                key = next(k for k in page.fields_keys() if k.startswith("workload."))
                page.headings[key] = "\n".join([page.headings[key], *figures])
            return page
        if ref[0] == "device":
            device = session.index.device(ref[1])
            if device is None:
                return None
            return port_page(session.index.type_of(device), self._model_users(device.model))
        return None

    def ref_for(self, target: str) -> Ref | str:
        """The entity ``target`` names (rack, device, feed, or a link by its a end), or
        the notice saying there is none."""
        from rackdesigner.edit.base import nearest

        if self.session is None:
            return "no layout is open"
        index = self.session.index
        if index.rack(target) is not None:
            return ("rack", target)
        if index.device(target) is not None:
            return ("device", target)
        if index.feed(target) is not None:
            return ("feed", target)
        if index.link(target) is not None:
            return ("link", target)
        known = [*index.rack_ids(), *index.device_ids()]
        return f"No rack, device, feed or link {target!r}{nearest(target, known)}"

    # -- guidance --------------------------------------------------------------------------

    def _announce(self, new: list[Diagnostic]) -> Announcement | None:
        from rackdesigner.design.guidance import announce

        session = self.session
        if session is None or not new:
            return None
        return announce(session.layout, new, session.index, fixable=self.has_fix)

    def fix_of(self, finding: Diagnostic) -> Batch | None:
        """A fresh Batch for the finding's fix (commands keep state: never reuse one)."""
        from rackdesigner.design.fixes import fix_for, has_fixer

        session = self.session
        if session is None or not has_fixer(finding.code):
            return None
        try:
            return fix_for(session.layout, finding, session.index)
        except Exception:  # a fix is an offer: a layout it cannot read gets none, no crash
            return None

    def fix_group(self, findings: list[Diagnostic]) -> tuple[Batch | None, int]:
        """One Batch fixing every finding of a group that has a mechanical fix, and how
        many it fixes (None, 0: none has)."""
        from rackdesigner.design.fixes import fix_all

        session = self.session
        if session is None:
            return None, 0
        try:
            return fix_all(session.layout, findings, session.index)
        except Exception:  # an offer, never a crash
            return None, 0

    def group_fix_question(self, findings: list[Diagnostic]) -> Question:
        """Fix all of a group's findings (one step) or the highlighted one."""
        code, count = findings[0].code, len(findings)
        return Question(
            "Apply fix",
            f"{count} {code} findings: fix every one that has a mechanical fix, as one step "
            "(one ctrl+z undoes them all), or only the highlighted one?",
            (("all", f"Fix all {count}"), ("one", "Only this one"), ("cancel", "Cancel")),
            "all",
        )

    def of_what_if(self, finding: Diagnostic) -> bool:
        """Whether ``finding`` is a what-if's (pinned in the problems panel): a finding of
        the layout as the failure leaves it, which no edit of the layout fixes as such."""
        shaded = self.shaded
        return shaded is not None and any(f is finding for f in shaded.impact.findings or ())

    def has_fix(self, finding: Diagnostic) -> bool:
        """Whether the finding has a mechanical fix now; asked on every repaint of the
        footer and the problems panel, so kept for the layout's revision."""
        from rackdesigner.design.fixes import has_fixer
        from rackdesigner.design.guidance import key_of

        session = self.session
        if session is None or not has_fixer(finding.code) or self.of_what_if(finding):
            return False
        state = (id(session), session.revision, key_of(finding), finding.message)
        cached = self._fixable
        if cached is not None and cached[0] == state:
            return cached[1]
        found = self.fix_of(finding) is not None
        self._fixable = (state, found)
        return found

    def finding_hint(self, finding: Diagnostic) -> str:
        """The problems panel's line under the list: the selected finding's fix."""
        from rackdesigner.design.guidance import advise

        session = self.session
        if session is None:
            return ""
        if self.of_what_if(finding):
            # The rule's own hint, worded on the layout as the failure leaves it: advice
            # worked out on the layout itself would be about a problem it does not have.
            return f"hint: {finding.hint}" if finding.hint else ""
        try:
            advice = advise(session.layout, finding, session.index)
        except Exception:  # wording a hint must never take the app down: the rule's own
            return f"fix: {finding.hint}" if finding.hint else ""
        if not advice.fix:
            return ""
        # Info findings are advice, not problems: their line is a hint, not a fix.
        label = "hint" if finding.severity == "info" else "fix"
        return f"{label}: {advice.fix}" + (" · x applies it" if self.has_fix(finding) else "")

    def no_fix_text(self, finding: Diagnostic) -> str:
        """Why Apply fix changes nothing for ``finding``."""
        from rackdesigner.design.guidance import advise

        assert self.session is not None
        where = f"{finding.code} {finding.entity}".strip()
        advice = advise(self.session.layout, finding, self.session.index)
        todo = f": {advice.fix}" if advice.fix else ""
        return f"{where} has no mechanical fix; nothing changed{todo}"

    # -- the fabric check ------------------------------------------------------------------

    def fabric_due(self) -> bool:
        """Whether a fabric check should start: the fabric findings are stale, and the
        last check of this very revision did not fail."""
        session = self.session
        if session is None or not session.fabric_stale:
            return False
        return self._failed_now() is None

    def _failed_now(self) -> str | None:
        session = self.session
        failed = self._fabric_failed
        if session is None or failed is None:
            return None
        if failed[:2] != (id(session), session.revision):
            return None  # an edit since: the next check may well succeed
        return failed[2]

    @property
    def fabric_error(self) -> str | None:
        """The last fabric check's error for the layout as it is (None: it succeeded or
        has not run)."""
        session = self.session
        if session is None:
            return None
        return self._failed_now()

    def fabric_done(self, session: Session, job: FabricJob) -> FabricResult:
        """A fabric check finished: adopt its findings, or say why not."""
        if session is not self.session:
            return FabricResult()
        accepted = session.accept_fabric(job)
        if job.error is not None and job.revision == session.revision:
            # Failed on the layout as it is: said once, not started again until an edit.
            text = session.fabric_error or f"{type(job.error).__name__}: {job.error}"
            self._fabric_failed = (id(session), session.revision, text)
            return FabricResult(failed=text)
        if accepted:
            self._fabric_failed = None
            return FabricResult(accepted=True, said=self._fabric_news(session))
        return FabricResult(again=session.fabric_stale)

    def _fabric_news(self, session: Session) -> Announcement | None:
        """The fabric findings just accepted that the last fabric check did not have, when
        an edit brought them. They are replaced as one group, so what was added is the
        whole new list; the last one is kept as keys (a check from scratch empties the
        group without a record of what it held)."""
        from rackdesigner.design.guidance import key_of, new_problems

        changes = session.finding_changes()
        added = changes[1] if changes is not None else list(session.findings)
        known = self._fabric_keys if self._fabric_seen is session else None
        self._fabric_seen = session
        self._fabric_keys = {key_of(d) for d in added}
        if known is None or self._edited is not session:
            return None  # the file's own fabric problems, or nothing edited: not news
        return self._announce([d for d in new_problems((), added) if key_of(d) not in known])

    # -- saving ----------------------------------------------------------------------------

    def save_flow(self, path: str | None) -> Generator[Question, str | None, SaveOutcome]:
        """Save through the core (atomic; it refuses a file changed on disk or comments a
        canonical rewrite would drop). Yields each question to ask and is sent its answer
        (None: dismissed)."""
        from rackdesigner.layout_io import CommentsLostError, FileChangedError, SaveError

        session = self.session
        if session is None:
            return SaveOutcome(False)
        if path is None and self.path is None:
            default = f"{session.layout.name}.toml"
            path = yield Question(
                "Save as", default=default, prompt=True, hint="the layout has no file yet"
            )
            if not path:
                return SaveOutcome(False)
        target = path or self.path
        assert target is not None
        # A layout not read from the target (another file, or a new one, such as a
        # template, for the file the user opened) asks before it replaces what is there.
        read_from = session.document.path
        other_file = read_from is None or not same_file(target, read_from)
        if other_file and _holds_text(target) and (yield _overwrite(target)) != "overwrite":
            return SaveOutcome(False, target)
        force = False
        while True:
            try:
                session.save(target, force=force)
                break
            except FileChangedError:
                if (yield _changed_on_disk(target)) != "overwrite":
                    return SaveOutcome(False, target)
                question = self._comments_question(target)
                if question is not None and (yield question) != "save":
                    return SaveOutcome(False, target)
                force = True
            except CommentsLostError:
                question = self._comments_question(target)
                if question is not None and (yield question) != "save":
                    return SaveOutcome(False, target)
                force = True
            except (SaveError, OSError) as error:
                reason = getattr(error, "strerror", None) or error
                return SaveOutcome(False, target, f"Cannot save {target}: {reason}")
        self.recovered = False
        if self.path and not same_file(target, self.path):
            sidecar.remove(self.path)
        self.path = target
        sidecar.remove(target)
        self.autosaved_revision = None
        self.autosave_failed = ""  # the layout is on disk: nothing is only in memory now
        return SaveOutcome(True, target)

    def _comments_question(self, target: str) -> Question | None:
        """Ask before a save drops comments the canonical form cannot keep."""
        assert self.session is not None
        dropped = list(self.session.document.dropped_comments)
        if not dropped:
            return None
        lines = ", ".join(str(n) for n in dropped[:8]) + (" …" if len(dropped) > 8 else "")
        return Question(
            "Comments would be lost",
            f"Saving rewrites {target} canonically and drops {len(dropped)} comment "
            f"line(s) it cannot place (lines {lines}). Save anyway?",
            (("save", "Save anyway"), ("cancel", "Cancel")),
            "cancel",
        )

    def save_as_question(self) -> Question | None:
        if self.session is None:
            return None
        default = self.path or f"{self.session.layout.name}.toml"
        return Question("Save as", default=default, prompt=True, hint="a .toml path")

    def unsaved_question(self, what: str) -> Question | None:
        """Save / discard / cancel, when there are unsaved changes (else None: go on).
        Cancel is the default (the focused button, what Enter takes), as in any dialog
        whose other answers cannot be taken back: Enter pressed by habit changes nothing."""
        if self.session is None or not self.dirty:
            return None
        return Question(
            what,
            f"{self.session.layout.name} has unsaved changes.",
            (("save", "Save"), ("discard", "Discard"), ("cancel", "Cancel")),
            "cancel",
        )

    def discard_unsaved(self) -> None:
        """The unsaved changes are given up: their autosave goes too."""
        self.recovered = False
        if self.path:
            sidecar.remove(self.path)
        if self.session is not None:
            self.autosaved_revision = self.session.revision

    # -- never losing work -----------------------------------------------------------------

    def autosave_job(self, busy: bool = False) -> tuple[Session, str, int] | None:
        """What to autosave now (session, path, revision), or None: nothing unsaved, no
        file, already written, or a long edit is half way (the next tick saves it)."""
        session = self.session
        if session is None or not self.dirty or self.path is None or busy:
            return None
        if self.autosaved_revision == session.revision:
            return None
        return session, self.path, session.revision

    def autosave_write(
        self, session: Session, path: str, revision: int, text: str, busy: bool = False
    ) -> str | None:
        """Keep ``text`` (made off the app's thread) in the sidecar if nothing changed
        meanwhile. When it cannot be written (a full disk, a folder that refuses new
        files), :attr:`autosave_failed` says why until one succeeds, the next interval
        tries again, and the first failure's notice is returned (offering Save as); a
        failure again returns None: the header still says it."""
        if session is not self.session or session.revision != revision or self.path != path:
            return None
        if busy or not self.dirty:
            return None
        self.edits_since_autosave = 0  # failed or not, the next try is the next interval
        try:
            sidecar.write(path, text)
        except OSError as error:
            reason = str(error.strerror or error)
            first = not self.autosave_failed
            self.autosave_failed = reason.split(" (")[0]
            if not first:
                return None
            return (
                f"Autosave failed: cannot write {sidecar.sidecar(path)}: {reason}. The "
                "changes are only in memory: save them elsewhere with Save as (ctrl+p); "
                "the autosave tries again every "
                f"{sidecar.INTERVAL_S:g} s."
            )
        self.autosaved_revision = revision
        self.autosave_failed = ""
        return None

    def rescue(self) -> str:
        """Write the unsaved layout to its sidecar as the app goes down; the words that
        say where (or "")."""
        try:
            if self.session is not None and self.dirty and self.path is not None:
                from rackdesigner.layout_io import dumps

                kept = sidecar.write(self.path, dumps(self.session.layout))
                return f"; unsaved changes kept in {kept}"
        except OSError as error:  # a full disk: say the changes are gone, and why
            return f"; the unsaved changes could not be kept: {error.strerror or error}"
        except Exception:  # the layout itself may be what broke
            return ""
        return ""

    def newer_autosave(self, loaded: Loaded) -> Path | None:
        if not loaded.path or loaded.session is None or not Path(loaded.path).exists():
            return None
        return sidecar.newer(loaded.path)

    def recovery_question(self, path: str, side: Path) -> Question:
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(side.stat().st_mtime))
        return Question(
            "Recover unsaved changes?",
            f"{side.name} (autosaved {stamp}) is newer than {path}: it holds changes "
            "that were never saved. Recover them (the file stays as it is until you save), "
            "or discard the autosave?",
            (("recover", "Recover"), ("discard", "Discard autosave"), ("later", "Not now")),
            "recover",
        )

    def recover(self, path: str, side: Path) -> str | None:
        """Work on the autosave's text as the layout of ``path``: unsaved, and guarded
        against the file changing on disk (or losing comments) like the file itself. The
        error's notice, or None."""
        from rackdesigner.edit import Session
        from rackdesigner.layout_io import load_path
        from rackdesigner.model.diagnostics import LayoutError

        try:
            layout = load_path(side)
        except (LayoutError, OSError) as error:
            return f"Cannot recover {side.name}: {error}"
        # A session on a layout and a path describes that file (its hash, its comments).
        self.use(Session(layout, path, check=False), path)
        self.recovered = True
        return None
