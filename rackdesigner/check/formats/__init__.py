"""Output formats of ``rackdesigner validate``: each turns results into text."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rackdesigner.check.engine import FileResult
from rackdesigner.check.formats.options import Options, counts

__all__ = ["Options", "Renderer", "counts", "renderer"]


Renderer = Callable[[Sequence[FileResult], Options], str]


def renderer(name: str) -> Renderer:
    if name == "text":
        from rackdesigner.check.formats.text import render
    elif name == "json":
        from rackdesigner.check.formats.json_format import render
    elif name == "sarif":
        from rackdesigner.check.formats.sarif import render
    elif name == "junit":
        from rackdesigner.check.formats.junit import render
    elif name == "github":
        from rackdesigner.check.formats.github import render
    else:
        raise ValueError(f"unknown format {name}")
    return render
