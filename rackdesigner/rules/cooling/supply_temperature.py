"""A CDU supplies coolant warmer than a cold-plate node in its racks takes.

Why it matters:
    (v1.4) A cold-plate node is rated for coolant up to its `max_supply_temperature`;
    warmer coolant and its GPUs throttle, then trip. The coolant a rack gets is its CDU
    group's secondary supply: the CDUs' `supply_setpoint`, else their loop's facility
    supply plus their rated approach (the warmest of the group's CDUs). One finding per
    rack and node type. Layouts without loops are not judged.

Example:
    [catalog.my-node]
    kind = "gpu-node"
    liquid_fraction = 0.8
    max_supply_temperature = "40 °C"   # on a CDU set to 45 °C

Fix:
    Lower the CDU's setpoint (or the facility water, where the setpoint follows it), or
    use nodes rated for warmer water.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import plant_of
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS


@rule("COOL015", "error", scope="site", reads=LOOP_READS)
def supply_too_warm(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.cooling_loops:
        return
    for group in plant_of(analysis).groups:
        supply = group.supply
        if supply is None:
            continue
        for rack in group.racks:
            worst: dict[str, tuple[float, int]] = {}
            for dev in rack.devices:
                dtype = dev.type
                if dtype is None or dev.liquid_heat <= 0 or dtype.max_supply_temperature is None:
                    continue
                most = float(dtype.max_supply_temperature)
                if supply > most:
                    _, count = worst.get(dev.device.model, (most, 0))
                    worst[dev.device.model] = (most, count + 1)
            for model, (most, count) in worst.items():
                yield Finding(
                    f"rack {rack.rack.id}",
                    rack.ref,
                    f"its CDUs supply {supply:g} °C coolant; {plural(count, 'device')} of "
                    f"{model} take at most {most:g} °C",
                    hint="lower the CDU's supply setpoint, or use nodes rated for warmer water",
                    values={"supply": supply, "limit": most},
                    related=(group.load.cdu.ref,),
                )
