"""The editing core every front end shares (editing.md): commands, history, index, session.

No Textual, TOML or SVG in here. The designer app holds a :class:`Session`; the fabric
generators and ``rackdesigner new`` build :class:`Batch` es of commands.

    from rackdesigner.layout_io.document import load
    from rackdesigner.edit import Session, PlaceDevice, MoveDevice, EditError

    session = Session(load("cluster.toml"))           # a Document, or a Layout (+ path)
    session.findings                                  # list[Diagnostic], a full check's
    try:
        session.do(MoveDevice("a01-n02", position=11))  # applies and re-checks
    except EditError as error:                        # refused: nothing changed
        print(error)                                  # error.entity/.key/.message for fields
    session.undo(); session.redo()                    # the command, or None
    session.can_undo, session.can_redo, session.revision, session.dirty
    session.history.undo_label                        # "Move a01-n02 to U11"
    session.save()                                    # atomic; refuses a changed file
    session.mark_saved()                              # or: after writing it yourself
    session.index.next_id("a01-n")                    # "a01-n05"
    session.index.free_ports("a01-n01"), session.index.links_on_port("a01-n01:ib1")
    session.index.occupied("a01", "front")            # {unit: Device}
    session.analysis                                  # facts per rack, device, link, fabric

Findings equal a full check of the layout as it is (``rackdesigner.check.engine.check`` with
the document's source map): lines come from the text read or last saved, an entity
added since is reported at its nearest enclosing one (a new device at its rack).

``Session.do(command, fabric=False)`` leaves the fabric rules for a worker thread:
``job = session.fabric_job()`` (editing thread), ``job.run()`` (worker),
``session.accept_fabric(job)`` (editing thread; False when the layout changed meanwhile).
``session.fabric_stale`` tells whether fabric findings are due; ``session.fabric_error``
why the last fabric check failed (``"NET003: ZeroDivisionError: division by zero"``, None
after one that succeeded): a failed check is not due again before the next edit.

Commands (all refuse with :class:`EditError` and change nothing):

========================= =========================================================
``AddRack(rack, at=)``     a :class:`~rackdesigner.model.layout.Rack`, or an id and fields
``RemoveRack(id)``         with its devices and their links
``UpdateRack(id, **f)``    fields as text or values, checked as the loader does
``AddFeed(rack, feed)``    a Feed, or an id and fields; ``RemoveFeed(id)``,
                           ``UpdateFeed(id, **f)``
``PlaceDevice(rack, model, position, face, side, id=)``  next free id by default
``MoveDevice(id, rack=, position=, face=, side=)``       what is not given stays
``RemoveDevice(id)``       with its links; ``UpdateDevice(id, **f)``
``RenameEntity(kind, old, new)``  rewrites links' ends, ``cdu``, ``door``, PDU ``feed``
``AddLink(a, b, media)``   ``RemoveLink(ref)`` (its ``a`` end or ``a -> b``),
                           ``UpdateLink(ref, **f)``
``SetField(ref, key, text)``  ``ref`` = (kind, id): text parsed as the loader parses it
``UpdateSection(kind, **f)``  the layout's own keys (kind "layout"), ``[site]``,
                           ``[workload]``
``UpdateRules(**f)``       ``[rules]`` ``select`` / ``ignore``, codes checked against the rules
``UpdateThreshold(k, t)``  one ``[rules.thresholds]`` value from text; empty: the default
``SetPortGroup(model, group, **f)``  a model's port group (count, speed, tech, role) in
                           the layout's ``[catalog.MODEL]``; ``SetDevicePorts(device, ...)``
``Batch(commands, label)`` one step, all or none
========================= =========================================================
"""

from rackdesigner.edit.base import Command, EditError, Effect
from rackdesigner.edit.commands import (
    ID_PREFIX,
    KEEP,
    AddFeed,
    AddLink,
    AddRack,
    Batch,
    MoveDevice,
    PlaceDevice,
    RemoveDevice,
    RemoveFeed,
    RemoveLink,
    RemoveRack,
    RenameEntity,
    SetDevicePorts,
    SetField,
    SetPortGroup,
    UpdateDevice,
    UpdateFeed,
    UpdateLink,
    UpdateRack,
    UpdateRules,
    UpdateSection,
    UpdateThreshold,
    check_fit,
    check_link_ends,
)
from rackdesigner.edit.history import History
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.edit.session import FabricJob, Session
from rackdesigner.model.refs import KindId

__all__ = [
    "ID_PREFIX",
    "KEEP",
    "AddFeed",
    "AddLink",
    "AddRack",
    "Batch",
    "Command",
    "EditError",
    "Effect",
    "FabricJob",
    "History",
    "KindId",
    "LayoutIndex",
    "MoveDevice",
    "PlaceDevice",
    "RemoveDevice",
    "RemoveFeed",
    "RemoveLink",
    "RemoveRack",
    "RenameEntity",
    "Session",
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
