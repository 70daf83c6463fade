"""What the placement rules share: the devices that take units and the faces they take
(what a rack weighs is :mod:`rackdesigner.analysis.weight`'s: the summary and the
drawings print it too)."""

from __future__ import annotations

from rackdesigner.analysis.open_units import faces, mounted_devices

__all__ = ["faces", "mounted_devices"]
