"""History: the commands done and undone, a revision counter, and whether the layout
differs from the last save."""

from __future__ import annotations

from rackdesigner.edit.base import Command
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Layout


class History:
    """``do`` applies a command (a refused one leaves layout and history as they were);
    ``undo`` and ``redo`` step back and forth; a new command after an undo drops the
    commands undone.

    Every state of the layout the history can reach has a number: ``dirty`` compares the
    current one with the one last saved, so undoing back to the saved state is clean again.
    """

    def __init__(self, layout: Layout, index: LayoutIndex | None = None):
        self.layout = layout
        self.index = index if index is not None else LayoutIndex(layout)
        self._done: list[tuple[Command, int]] = []  # (command, state it led to)
        self._undone: list[tuple[Command, int]] = []
        self._states = 0  # state numbers given out; 0 is the state the history began in
        self._saved: int | None = 0
        self.revision = 0  # counts every change: do, undo and redo

    @property
    def state(self) -> int:
        return self._done[-1][1] if self._done else 0

    @property
    def can_undo(self) -> bool:
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        return bool(self._undone)

    @property
    def dirty(self) -> bool:
        return self.state != self._saved

    @property
    def undo_label(self) -> str | None:
        return self._done[-1][0].label if self._done else None

    @property
    def redo_label(self) -> str | None:
        return self._undone[-1][0].label if self._undone else None

    @property
    def next_undo(self) -> Command | None:
        """The command an undo would revert."""
        return self._done[-1][0] if self._done else None

    @property
    def next_redo(self) -> Command | None:
        """The command a redo would apply again."""
        return self._undone[-1][0] if self._undone else None

    @property
    def done(self) -> list[Command]:
        return [command for command, _ in self._done]

    def do(self, command: Command) -> Command:
        command.apply(self.layout, self.index)
        self._states += 1
        self._done.append((command, self._states))
        if self._saved is not None and any(s == self._saved for _, s in self._undone):
            self._saved = None  # the saved state was undone and is now out of reach
        self._undone.clear()
        self.revision += 1
        return command

    def undo(self) -> Command | None:
        if not self._done:
            return None
        command, state = self._done.pop()
        command.revert(self.layout, self.index)
        self._undone.append((command, state))
        self.revision += 1
        return command

    def redo(self) -> Command | None:
        if not self._undone:
            return None
        command, state = self._undone[-1]
        command.apply(self.layout, self.index)  # raises before changing anything, if at all
        self._undone.pop()
        self._done.append((command, state))
        self.revision += 1
        return command

    def mark_saved(self) -> None:
        self._saved = self.state
