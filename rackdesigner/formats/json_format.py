"""The JSON format: every diagnostic with its numbers in SI base units."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from ..diagnostics import Diagnostic
from ..engine import FileResult
from . import Options, counts


def diagnostic_dict(d: Diagnostic) -> dict[str, object]:
    return {
        "file": d.file,
        "line": d.line,
        "code": d.code,
        "severity": d.severity,
        "entity": d.entity,
        "message": d.message,
        "hint": d.hint,
        # JSON has no infinity; an unbounded ratio (no uplinks) is written as null.
        "values": {k: (v if math.isfinite(v) else None) for k, v in d.values.items()},
    }


def render(results: Sequence[FileResult], options: Options) -> str:
    document = {
        "version": 1,
        "files": [r.file for r in results],
        "diagnostics": [diagnostic_dict(d) for r in results for d in r.diagnostics],
        "summary": counts(results),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
