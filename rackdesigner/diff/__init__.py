"""Semantic diffs (``rackdesigner diff``): what a change to a layout means.

:func:`diff` compares two analyses by entity id (renames detected); :mod:`.render` prints
the result as text, JSON or a pull-request comment in Markdown.
"""

from __future__ import annotations

from rackdesigner.diff.compare import Change, Diff, Figures, diff

__all__ = ["Change", "Diff", "Figures", "diff"]
