"""Mechanical fixes: the edit that makes a finding go away, where one can be stated exactly.

``fix_for(layout, finding)`` returns a :class:`~rackdesigner.edit.Batch` (one undoable step)
or None when the finding has no mechanical fix (a node to move, a model to buy: a person's
choice). Every fix is tried first on a copy of the finding's rack: it is offered only when
the finding is gone afterwards and no error appears that was not there before (a rear door
draws power, a blanking panel weighs something, a new feed changes which feed a PDU is on).

    from rackdesigner.design.fixes import fix_for
    batch = fix_for(session.layout, finding, session.index)
    if batch is not None:
        session.do(batch)        # the problem leaves; undo brings it back

Which rules have one (each a function in its family's module: cooling, placement, power,
pdus, cabling; registered in :data:`FIXERS`):

========= ================================================================================
COOL001   an air rack over the air limit: a rear door (an existing unnamed one, else the
          catalog's smallest that carries the rack), ``cooling = "rear-door"``, ``door``
COOL002   the same, for a rack past the liquid threshold on air
COOL007   a rear-door rack without a working door: name the rack's own door, else hang one
PLC006    open front units of an air rack: ``blanking = true`` on the rack (a rack that
          lists its panels as devices: 2U and 1U panels over each gap, named as its own)
PLC007    a half-depth device blowing against the rack's airflow: the other face, where its
          units there are free
PWR001    feeds too small, or none: another feed like the side's own on each short side
          (none: two 415 V 3-phase 63 A feeds on sides A and B, designer.md's defaults)
PWR008    a device that runs degraded on two sides: a third side, a copy of the strongest
          side's feeds (and PDUs, where the rack has them), so any side lost keeps enough
PWR013    a feed without a side: the side that makes the rack strongest (the weakest
          existing side, or a side of its own)
PWR011    a PDU rated above its feed: to a free feed of its side rated for it, else the
          largest catalog model made for its circuit (its inlet's voltage and current, rated
          within the feed); sides whose PDUs are rated below their load: the largest models
          made for their feeds, else another PDU on a new feed of its own per short side
PWR012    more PSU cords than a side's outlets: PDUs made for the same feeds with more
          outlets of the short kind, else more PDUs of the side's model on new feeds
CAB003    a cable whose media does not reach its length: OM4 for OM3 fibre where that
          reaches, else the first medium of the generators' preference that does; an
          optical (or active) cable where copper reaches (info): the copper medium
CAB004    ends of one technology at two speeds: the faster end's port group (on its model,
          in the layout's ``[catalog]``) at the slower end's speed, the rate the link runs
          at already; offered only when no other cable on that group runs faster
COOL003   a liquid rack naming no CDU (or a device that is not one): the nearest CDU (its
          rack, its row, then any) whose group has spare capacity for the rack's liquid heat
========= ================================================================================

Codes with no mechanical fix, and why: COOL003 on an overloaded CDU group (which racks
move, or which CDU to buy, is a plant decision); CAB004 across technologies (a different
switch or adapter); PWR011 and PWR012 where no catalog PDU is made for the circuit and a
new feed would itself be overloaded (larger circuits are the building's, a person's call;
moving a PDU to another side moves a shortfall, it does not remove it); PWR018 and PWR019
(power shelves on the wrong feeds: which circuits a rack-scale rack gets is the hall's
electrical design, and the shelves' order over the feeds follows the feeds' order).

No Textual here: the designer calls it, and so can scripts.
"""

from __future__ import annotations

# Each family registers its fixers in FIXERS when imported.
from rackdesigner.design.fixes import cabling, cooling, pdus, placement, power
from rackdesigner.design.fixes.base import FIXERS, Context, Plan, fixer, has_fixer
from rackdesigner.design.fixes.cooling import door_for, door_models
from rackdesigner.design.fixes.offer import fix_all, fix_for
from rackdesigner.design.fixes.pdus import pdus_for_feed
from rackdesigner.design.fixes.placement import blank_models, open_runs

__all__ = [
    "FIXERS",
    "Context",
    "Plan",
    "blank_models",
    "cabling",
    "cooling",
    "door_for",
    "door_models",
    "fix_all",
    "fix_for",
    "fixer",
    "has_fixer",
    "open_runs",
    "pdus",
    "pdus_for_feed",
    "placement",
    "power",
]
