"""Output formats of ``rackdesigner validate``: each turns results into text.

:data:`FORMATS` lists them, one :class:`Format` each; the command line's ``--format``
choices and help are built from it, and a format's module is imported only when it is
used (so is the checking machinery: this module imports neither). Adding a format is a
module with a ``render(results, options)`` function and one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.check.formats.options import Options, counts

if TYPE_CHECKING:
    from rackdesigner.check.engine import FileResult

__all__ = ["FORMATS", "Format", "Options", "Renderer", "counts", "named", "renderer"]


Renderer = Callable[["Sequence[FileResult]", Options], str]


@dataclass(frozen=True, slots=True)
class Format:
    name: str  # as --format names it
    module: str  # the module of this package that renders it
    help: str  # what it is for, in a few words (the --format help)
    # For people (text): shown as it is. Else a machine format, written exactly to a file
    # or a pipe and escaped only on a terminal.
    for_people: bool = False

    def load(self) -> Renderer:
        render: Renderer = importlib.import_module(f"{__name__}.{self.module}").render
        return render


FORMATS = (
    Format("text", "text", "one line a finding, for people", for_people=True),
    Format("json", "json_format", "every finding with its figures"),
    Format("sarif", "sarif", "SARIF 2.1.0, for code scanning"),
    Format("junit", "junit", "JUnit XML, a test case per rule"),
    Format("github", "github", "GitHub Actions annotations"),
)
_BY_NAME = {format_.name: format_ for format_ in FORMATS}


def named(name: str) -> Format:
    """The format called ``name``; ValueError when there is none."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown format {name}") from None


def renderer(name: str) -> Renderer:
    return named(name).load()
