"""Output formats of ``rackdesigner validate``: each turns results into text."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..engine import FileResult
from .options import Options, counts

__all__ = ["Options", "Renderer", "counts", "renderer"]


Renderer = Callable[[Sequence[FileResult], Options], str]


def renderer(name: str) -> Renderer:
    if name == "text":
        from .text import render
    elif name == "json":
        from .json_format import render
    elif name == "sarif":
        from .sarif import render
    elif name == "junit":
        from .junit import render
    elif name == "github":
        from .github import render
    else:
        raise ValueError(f"unknown format {name}")
    return render
