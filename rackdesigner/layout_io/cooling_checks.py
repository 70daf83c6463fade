"""(v1.4) The liquid loop's load errors: a loop that gives no temperature or contradicts its
class, a loop id used twice, a loop that lists a device the layout does not hold, one that
is no CDU, rear door or in-row cooler, or one another loop lists too; a ``supply_setpoint``
on a device that is no CDU (docs/liquid-cooling.md, Errors). The loader reports each with
its line (E001); no rule is needed to see them, and none is imported.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rackdesigner.model import layout as m


@dataclass(frozen=True, slots=True)
class LoopProblem:
    entity: str
    message: str
    key: str | None = None
    hint: str | None = None
    loop: int = 0  # the loop's index, where the problem is a loop's
    device: tuple[int, int] | None = None  # (rack index, device index), a device's


def loop_problems(
    layout: m.Layout,
    builtin_kinds: Callable[[], dict[str, str]],
    written: list[set[str]] | None = None,
) -> Iterator[LoopProblem]:
    """Every problem of the layout's loops and of the devices they list. ``written`` holds
    each loop's keys as the file has them: a temperature whose value was refused (an E002
    of its own) is not also reported as missing."""
    kinds: dict[str, str] | None = None

    def kind_of(device: m.Device) -> str | None:
        nonlocal kinds
        dtype = layout.catalog.get(device.model)
        if dtype is not None and dtype.kind is not None:
            return dtype.kind
        if kinds is None:
            kinds = builtin_kinds()
        return kinds.get(device.model)

    def in_row(device: m.Device) -> bool:  # a layout's own in-row cooler type
        dtype = layout.catalog.get(device.model)
        return dtype is not None and bool(dtype.in_row)

    ids: dict[str, int] = {}
    devices: dict[str, m.Device] | None = None
    listed: dict[str, str] = {}
    for index, loop in enumerate(layout.cooling_loops):
        entity = f"loop {loop.id}"
        if loop.id in ids:
            yield LoopProblem(entity, f"id {loop.id!r} is used by two loops", "id", loop=index)
        ids.setdefault(loop.id, index)
        keys = written[index] if written is not None and index < len(written) else set()
        if not keys & {"supply_temperature", "ashrae_class"} or (
            loop.supply_temperature is not None or loop.ashrae_class is not None
        ):
            yield from _temperature_problems(loop, entity, index)
        if loop.devices:
            if devices is None:
                devices = {d.id: d for _, d in layout.devices()}
            for name in loop.devices:
                problem = _listed_problem(name, devices, kind_of, listed.get(name), loop.id, in_row)
                if problem is not None:
                    yield LoopProblem(entity, problem, "devices", loop=index)
                listed.setdefault(name, loop.id)
    for rack_index, rack in enumerate(layout.racks):
        for device_index, device in enumerate(rack.devices):
            if device.supply_setpoint is None:
                continue
            kind = kind_of(device)
            if kind is not None and kind != "cdu":
                yield LoopProblem(
                    f"device {device.id}",
                    f"supply_setpoint is a key of CDUs only; {device.model} is a {kind}",
                    "supply_setpoint",
                    "remove supply_setpoint: a CDU sets its secondary's supply",
                    device=(rack_index, device_index),
                )


def _listed_problem(
    name: str,
    devices: dict[str, m.Device],
    kind_of: Callable[[m.Device], str | None],
    other: str | None,
    loop: str,
    in_row: Callable[[m.Device], bool],
) -> str | None:
    device = devices.get(name)
    if device is None:
        close = difflib.get_close_matches(name, list(devices), n=1, cutoff=0.6)
        suggestion = f" (did you mean '{close[0]}'?)" if close else ""
        return f'devices lists "{name}", which names no device of the layout{suggestion}'
    kind = kind_of(device)
    if kind is not None and kind not in m.LOOP_DEVICE_KINDS and not in_row(device):
        return (
            f'devices lists "{name}", a {kind} ({device.model}): a loop feeds CDUs, rear doors '
            "and in-row coolers"
        )
    if other is not None:
        where = "twice" if other == loop else f"by loop {other} too"
        return f'devices lists "{name}", which is listed {where}: a device hangs on one loop'
    return None


def _temperature_problems(loop: m.CoolingLoop, entity: str, index: int) -> Iterator[LoopProblem]:
    supply, grade = loop.supply_temperature, loop.ashrae_class
    if supply is None and grade is None:
        yield LoopProblem(
            entity,
            'gives no temperature: set supply_temperature (e.g. "30 °C") or ashrae_class '
            '(e.g. "W32")',
            loop=index,
        )
        return
    if supply is None and grade == "W+":
        yield LoopProblem(
            entity,
            "ashrae_class W+ is any supply above 45 °C: give its supply_temperature",
            "ashrae_class",
            loop=index,
        )
        return
    if supply is None or grade is None:
        return
    top = m.ASHRAE_CLASSES[grade]
    if top is not None and supply > top:
        yield LoopProblem(
            entity,
            f"supply_temperature {supply:g} °C is warmer than its class {grade} allows "
            f"({top:g} °C at most)",
            "supply_temperature",
            "lower the supply or name the class it is in",
            loop=index,
        )
    elif top is None and supply <= 45.0:
        yield LoopProblem(
            entity,
            f"supply_temperature {supply:g} °C is not in class W+ (above 45 °C)",
            "supply_temperature",
            loop=index,
        )
    elif supply < m.ASHRAE_CLASS_MIN:
        yield LoopProblem(
            entity,
            f"supply_temperature {supply:g} °C is below the {m.ASHRAE_CLASS_MIN:g} °C every "
            "ASHRAE liquid class starts at",
            "supply_temperature",
            loop=index,
        )
