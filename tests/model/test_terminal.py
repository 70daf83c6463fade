"""``is_terminal`` and ``wants_color``: the one test of a terminal, and of colour."""

from __future__ import annotations

import io

import pytest

from rackdesigner.model.terminal import is_terminal, wants_color


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Closed(io.StringIO):
    def isatty(self) -> bool:
        raise ValueError("I/O operation on closed file")


def test_is_terminal() -> None:
    assert is_terminal(_Terminal())
    assert not is_terminal(io.StringIO())  # a pipe or a file
    assert not is_terminal(_Closed())
    assert not is_terminal(object())  # no isatty at all


def test_colour_on_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert wants_color(_Terminal())
    assert not wants_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "")  # empty: as unset (no-color.org)
    assert wants_color(_Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_color(_Terminal())
