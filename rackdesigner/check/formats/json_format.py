"""The JSON format: every diagnostic with its numbers in SI base units."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from rackdesigner.check.engine import FileResult
from rackdesigner.check.formats.options import Options, counts
from rackdesigner.model.diagnostics import Diagnostic


def diagnostic_dict(d: Diagnostic) -> dict[str, object]:
    out: dict[str, object] = {
        "file": d.file,
        "line": d.line,
        "code": d.code,
        "severity": d.severity,
        "entity": d.entity,
        "subject": d.subject.as_json() if d.subject is not None else None,
        "message": d.message,
        "hint": d.hint,
        # JSON has no infinity; an unbounded ratio (no uplinks) is written as null.
        "values": {k: (v if math.isfinite(v) else None) for k, v in d.values.items()},
    }
    if d.suppressed:
        # Listed but not counted: an entity's ignore key or the baseline covers it.
        out["suppressed"] = True
        out["suppression"] = d.suppressed
    return out


# The C string encoder json itself uses when ensure_ascii is off.
_string = json.encoder.encode_basestring


def _number(value: object) -> str:
    if type(value) is int:
        return int.__repr__(value)
    if isinstance(value, float):  # Q, a float subclass, too: as json writes floats
        return float.__repr__(value) if math.isfinite(value) else "null"
    return json.dumps(value)


def diagnostic_json(d: Diagnostic) -> str:
    """``diagnostic_dict(d)`` encoded exactly as ``json`` encodes it, several times faster:
    one ``JSONEncoder.encode`` per finding sets up the encoder anew each time, which
    dominated the output of 150,000 findings."""
    values = ", ".join(f"{_string(k)}: {_number(v)}" for k, v in d.values.items())
    subject = d.subject
    return (
        f'{{"file": {_string(d.file)}, "line": {_number(d.line)}, "code": {_string(d.code)}, '
        f'"severity": {_string(d.severity)}, "entity": {_string(d.entity)}, "subject": '
        + (
            "null"
            if subject is None
            else f'{{"kind": {_string(subject.kind)}, "id": {_string(subject.id)}}}'
        )
        + f', "message": {_string(d.message)}, "hint": '
        + ("null" if d.hint is None else _string(d.hint))
        + f', "values": {{{values}}}'
        # Listed but not counted: an entity's ignore key or the baseline covers it.
        + (
            f', "suppressed": true, "suppression": {_string(d.suppressed)}}}'
            if d.suppressed
            else "}"
        )
    )


def render(results: Sequence[FileResult], options: Options) -> str:
    # One diagnostic per line: readable in a diff; indent= would switch json to its
    # pure-Python encoder (seconds on 100,000 findings).
    dump = json.JSONEncoder(ensure_ascii=False).encode
    rows = [diagnostic_json(d) for r in results for d in r.diagnostics]
    body = "[\n    " + ",\n    ".join(rows) + "\n  ]" if rows else "[]"
    return "".join(
        [
            "{\n",
            '  "version": 1,\n',
            f'  "files": {dump([r.file for r in results])},\n',
            f'  "diagnostics": {body},\n',
            f'  "summary": {dump(counts(results))}\n',
            "}\n",
        ]
    )
