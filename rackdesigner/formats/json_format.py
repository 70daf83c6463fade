"""The JSON format: every diagnostic with its numbers in SI base units."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from ..diagnostics import Diagnostic
from ..engine import FileResult
from .options import Options, counts


def diagnostic_dict(d: Diagnostic) -> dict[str, object]:
    return {
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


def render(results: Sequence[FileResult], options: Options) -> str:
    # One diagnostic per line: readable in a diff, and encoded by json's C encoder, which
    # indent= would replace with the pure-Python one (seconds on 100,000 findings).
    dump = json.JSONEncoder(ensure_ascii=False).encode
    rows = [dump(diagnostic_dict(d)) for r in results for d in r.diagnostics]
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
