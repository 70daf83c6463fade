"""GitHub Actions workflow commands: annotations on the changed lines of a pull request."""

from __future__ import annotations

from collections.abc import Sequence

from rackdesigner.check.engine import FileResult
from rackdesigner.check.formats.options import Options
from rackdesigner.check.formats.text import summary

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(results: Sequence[FileResult], options: Options) -> str:
    out = []
    for result in results:
        for d in result.reported:
            command = _COMMAND[d.severity]
            if d.severity == "warning" and options.strict:
                command = "error"
            where = f"file={_property(d.file)}"
            if d.line:
                where += f",line={d.line}"
                if d.column:
                    where += f",col={d.column}"
            title = _property(f"{d.code} {d.entity}".strip())
            text = d.text() + (f"; {d.hint}" if d.hint else "")
            out.append(f"::{command} {where},title={title}::{_data(text)}")
    out.append(summary(results))
    return "\n".join(out) + "\n"
