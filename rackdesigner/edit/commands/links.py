"""Connecting and disconnecting cables."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import Command, remove_identity
from rackdesigner.edit.commands.common import _link, cables_read, check_link_ends
from rackdesigner.edit.fields import coerce
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Layout, Link


def _note_cable(command: Command, index: LayoutIndex, link: Link) -> None:
    """What adding or removing ``link`` touched: the cable itself and the fabric."""
    command.refs = [("link", index.link_ref(link))]
    command.effect.link(link)
    cables_read(command, index)
    command.effect.fabric = True


class AddLink(Command):
    """Cable two ports (``"a01-n01:ib1"``, ``"a01-leaf1:p1"``)."""

    def __init__(
        self, a: str, b: str, media: str | None = None, *, at: int | None = None, **fields: Any
    ):
        super().__init__()
        self._where = 0  # its place in layout.links, once applied
        self.a, self.b, self.media = a, b, media
        self._fields = fields
        self._at = at
        self._link: Link | None = None
        self.label = f"Connect {a} to {b}"

    @classmethod
    def of(cls, link: Link, *, at: int | None = None) -> AddLink:
        """Add this model link itself (a generator's, its values typed already; the layout
        takes the object): its fields are not read again as text, about a third of the
        cost of each of a fabric's 300,000 cables. Its ends are checked as any link's are."""
        command = cls(link.a, link.b, link.media, at=at)
        command._link = link
        return command

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        if self._link is None:
            entity = f"link {self.a} -> {self.b}"
            values = {
                key: coerce("link", key, value, entity)
                for key, value in (
                    ("a", self.a),
                    ("b", self.b),
                    ("media", self.media),
                    *self._fields.items(),
                )
            }
            link = Link(**values)
        else:
            link = self._link
        check_link_ends(index, link.a, link.b)
        at = len(layout.links) if self._at is None else max(0, min(self._at, len(layout.links)))
        layout.links.insert(at, link)
        index.add_link(link)
        self._link, self._where = link, at
        self._note(index)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._link is not None
        index.remove_link(self._link)
        if layout.links and layout.links[-1] is self._link:
            layout.links.pop()  # the common case, without a scan of 200,000 links
        else:
            remove_identity(layout.links, self._link)
        self._note(index)

    def _note(self, index: LayoutIndex) -> None:
        assert self._link is not None
        _note_cable(self, index, self._link)

    @property
    def link(self) -> Link | None:
        return self._link


class RemoveLink(Command):
    """Remove a cable, named by its reference id (its ``a`` end, or ``a -> b``) or itself."""

    def __init__(self, link: str | Link):
        super().__init__()
        self._where = 0  # its place in layout.links, before _apply removed it
        self._ref = link
        self._link: Link | None = link if isinstance(link, Link) else None
        self.label = f"Disconnect {link.name if isinstance(link, Link) else link}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        link = _link(index, self._link if self._link is not None else self._ref)
        index.remove_link(link)
        self._where = remove_identity(layout.links, link)
        self._link = link
        self._note(index)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._link is not None
        layout.links.insert(self._where, self._link)
        index.add_link(self._link)
        self._note(index)

    def _note(self, index: LayoutIndex) -> None:
        assert self._link is not None
        _note_cable(self, index, self._link)
