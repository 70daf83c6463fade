"""(v1.4) The liquid loop's load errors: a loop that gives no temperature or contradicts its
class, a loop id used twice, a device that names an unknown loop or takes a key its kind
does not (docs/liquid-cooling.md, Errors). The loader reports each with its line (E001);
no rule is needed to see them, and none is imported.
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
    """Every problem of the layout's loops and of the devices that name one. ``written``
    holds each loop's keys as the file has them: a temperature whose value was refused
    (an E002 of its own) is not also reported as missing."""
    ids: dict[str, int] = {}
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
    kinds: dict[str, str] | None = None
    for rack_index, rack in enumerate(layout.racks):
        for device_index, device in enumerate(rack.devices):
            if device.loop is None and device.supply_setpoint is None:
                continue
            dtype = layout.catalog.get(device.model)
            kind = dtype.kind if dtype is not None else None
            if kind is None:
                if kinds is None:
                    kinds = builtin_kinds()
                kind = kinds.get(device.model)
            where = (rack_index, device_index)
            entity = f"device {device.id}"
            if device.loop is not None:
                yield from _loop_key_problems(device, kind, ids, entity, where)
            if device.supply_setpoint is not None and kind is not None and kind != "cdu":
                yield LoopProblem(
                    entity,
                    f"supply_setpoint is a key of CDUs only; {device.model} is a {kind}",
                    "supply_setpoint",
                    "remove supply_setpoint: a CDU sets its secondary's supply",
                    device=where,
                )


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


def _loop_key_problems(
    device: m.Device,
    kind: str | None,
    ids: dict[str, int],
    entity: str,
    where: tuple[int, int],
) -> Iterator[LoopProblem]:
    if kind is not None and kind not in m.LOOP_DEVICE_KINDS:
        yield LoopProblem(
            entity,
            f"loop is a key of CDUs, rear doors and in-row coolers; {device.model} is a {kind}",
            "loop",
            "remove loop: the device's heat reaches water through its rack's CDU or door",
            device=where,
        )
        return
    name = device.loop
    assert name is not None
    if name not in ids:
        known = ", ".join(ids) if ids else "none: add [[cooling.loops]]"
        close = difflib.get_close_matches(name, list(ids), n=1, cutoff=0.6)
        suggestion = f" (did you mean '{close[0]}'?)" if close else ""
        yield LoopProblem(
            entity,
            f'loop = "{name}" names no loop of the layout (its loops: {known}){suggestion}',
            "loop",
            device=where,
        )
