"""Diagnostics: what validation and loading report, one finding each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rackdesigner.model.refs import Ref

# What a finding weighs. The strings are what JSON, SARIF and the text output say.
Severity = Literal["error", "warning", "info"]

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}

# Load errors are not rules: the file could not be turned into a layout (exit 2).
LOAD_CODES = {
    "E000": "TOML syntax, encoding or file error",
    "E001": "schema: unknown key, wrong type, missing key, bad value or format version",
    "E002": "units: wrong dimension, missing unit or unparsable quantity",
}


@dataclass(slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    entity: str = ""
    # 1-based, looked up in the document's source map when the finding is reported; 0 when
    # the finding belongs to the whole file or its entity has no line yet.
    line: int = 0
    file: str = ""
    hint: str | None = None
    values: dict[str, float] = field(default_factory=dict)
    column: int = 0
    # The entity the finding is about, and the others it names (load errors have none).
    subject: Ref | None = None
    related: tuple[Ref, ...] = ()
    # Why the finding is not counted: "ignore" (an entity's ignore key) or "baseline";
    # None when it is reported (suppressions.py).
    suppressed: str | None = None

    @property
    def is_load_error(self) -> bool:
        return self.code in LOAD_CODES

    def text(self) -> str:
        """The finding as one sentence: ``rack a03: load 41.6 kW exceeds ...``."""
        return f"{self.entity}: {self.message}" if self.entity else self.message

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line, SEVERITY_RANK[self.severity], self.code, self.entity)


class LayoutError(Exception):
    """A layout that could not be loaded; ``diagnostics`` say why (E000, E001, E002)."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.text() for d in diagnostics))
