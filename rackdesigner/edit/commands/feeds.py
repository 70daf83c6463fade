"""Adding and removing a rack's power feeds."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import Command, remove_identity
from rackdesigner.edit.commands.common import _feed, _free_id, _rack
from rackdesigner.edit.fields import coerce
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Device, Feed, Layout, Rack


class AddFeed(Command):
    """Add a feed to a rack: a :class:`Feed`, or an id and its fields as text or values
    (``voltage="415 V", phases=3, current="63 A", side="A"``)."""

    def __init__(self, rack_id: str, feed: Feed | str, *, at: int | None = None, **fields: Any):
        super().__init__()
        self._rack: Rack | None = None  # where _apply put it
        self._where = 0
        self.rack_id = rack_id
        self._given = feed
        self._fields = fields
        self._feed: Feed | None = feed if isinstance(feed, Feed) else None
        self._at = at
        self.label = f"Add feed {feed.id if isinstance(feed, Feed) else feed} to {rack_id}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = _rack(index, self.rack_id)
        if self._feed is None:
            feed_id = str(self._given)
            entity = f"rack {rack.id} feed {feed_id}"
            values = {key: coerce("feed", key, v, entity) for key, v in self._fields.items()}
            for key in ("voltage", "phases", "current"):
                if values.get(key) is None:
                    coerce("feed", key, None, entity)  # the loader's "missing key" message
            self._feed = Feed(feed_id, **values)
        feed = self._feed
        _free_id(index, "feed", feed.id)
        at = len(rack.feeds) if self._at is None else max(0, min(self._at, len(rack.feeds)))
        rack.feeds.insert(at, feed)
        index.add_feed(feed, rack)
        self._rack, self._where = rack, at
        self.refs = [("feed", feed.id), ("rack", rack.id)]
        self.effect.rack(rack)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._rack is not None
        assert self._feed is not None
        index.remove_feed(self._feed, self._rack)
        remove_identity(self._rack.feeds, self._feed)
        self.effect.rack(self._rack)


class RemoveFeed(Command):
    """Remove a feed; PDUs plugged into it (their ``feed``) are unplugged with it."""

    def __init__(self, feed_id: str):
        super().__init__()
        self._feed: Feed | None = None  # what _apply removed, and where
        self._rack: Rack | None = None
        self._where = 0
        self.feed_id = feed_id
        self.label = f"Remove feed {feed_id}"
        self._unplugged: list[Device] = []

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        feed, rack = _feed(index, self.feed_id)
        self._unplugged = [d for d in rack.devices if d.feed == feed.id]
        for device in self._unplugged:
            device.feed = None
        index.remove_feed(feed, rack)
        self._where = remove_identity(rack.feeds, feed)
        self._feed, self._rack = feed, rack
        self.refs = [("feed", feed.id), ("rack", rack.id)]
        self.effect.rack(rack)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._feed is not None and self._rack is not None
        self._rack.feeds.insert(self._where, self._feed)
        index.add_feed(self._feed, self._rack)
        for device in self._unplugged:
            device.feed = self._feed.id
        self.effect.rack(self._rack)
