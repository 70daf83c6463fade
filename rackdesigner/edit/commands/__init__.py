"""The edit commands of editing.md: racks, feeds, devices, links, fields, renames, batches.

Each command checks everything first and raises :class:`EditError` before it changes
anything; then it changes the layout and keeps the index current. Its ``revert`` puts back
exactly what it changed (the same objects, at the same places in their lists), so undoing
any sequence gives back an equal layout, and redo re-applies the same objects.

One module per entity: :mod:`.racks`, :mod:`.updates` (fields), :mod:`.feeds`,
:mod:`.devices`, :mod:`.renames`, :mod:`.links`, :mod:`.batches`; what they share is in
:mod:`.common`.
"""

from rackdesigner.edit.commands.batches import Batch, SetField
from rackdesigner.edit.commands.common import ID_PREFIX, KEEP, check_fit, check_link_ends
from rackdesigner.edit.commands.devices import MoveDevice, PlaceDevice, RemoveDevice
from rackdesigner.edit.commands.feeds import AddFeed, RemoveFeed
from rackdesigner.edit.commands.links import AddLink, RemoveLink
from rackdesigner.edit.commands.racks import AddRack, RemoveRack
from rackdesigner.edit.commands.renames import RenameEntity
from rackdesigner.edit.commands.settings import (
    SetDevicePorts,
    SetPortGroup,
    UpdateRules,
    UpdateThreshold,
)
from rackdesigner.edit.commands.updates import (
    UpdateDevice,
    UpdateFeed,
    UpdateLink,
    UpdateRack,
    UpdateSection,
)

__all__ = [
    "ID_PREFIX",
    "KEEP",
    "AddFeed",
    "AddLink",
    "AddRack",
    "Batch",
    "MoveDevice",
    "PlaceDevice",
    "RemoveDevice",
    "RemoveFeed",
    "RemoveLink",
    "RemoveRack",
    "RenameEntity",
    "SetDevicePorts",
    "SetField",
    "SetPortGroup",
    "UpdateDevice",
    "UpdateFeed",
    "UpdateLink",
    "UpdateRack",
    "UpdateRules",
    "UpdateSection",
    "UpdateThreshold",
    "check_fit",
    "check_link_ends",
]
