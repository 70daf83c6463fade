"""Applying a fix in the design tests: the fix removes its finding, brings no new error,
is one undo step, and undo restores the layout byte for byte."""

from __future__ import annotations

from rackdesigner.design.fixes import fix_for
from rackdesigner.design.guidance import key_of
from rackdesigner.edit import Batch, Session
from rackdesigner.layout_io import dumps
from tests.builders import first


def errors(session: Session) -> set[tuple[str, object]]:
    return {key_of(d) for d in session.findings if d.severity == "error" and not d.suppressed}


def apply_and_check(session: Session, code: str) -> Batch:
    """Fix the first ``code`` finding; it is gone, no error is new; undo restores."""
    finding = first(session, code)
    before_text = dumps(session.layout)
    before_errors = errors(session)
    fix = fix_for(session.layout, finding, session.index)
    assert isinstance(fix, Batch), f"no fix for {code}: {finding.message}"
    assert dumps(session.layout) == before_text  # finding a fix changes nothing
    session.do(fix)
    assert key_of(finding) not in {key_of(d) for d in session.findings}
    assert errors(session) - before_errors == set()
    assert session.revision == 1  # one step
    session.undo()
    assert dumps(session.layout) == before_text
    assert key_of(finding) in {key_of(d) for d in session.findings}
    return fix
