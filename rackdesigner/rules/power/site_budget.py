"""The site's total load exceeds its power budget.

Why it matters:
    The site feed (utility service, transformer, UPS) is sized to `site.power_budget`;
    the racks together must fit it, or the site feed must be sized up.

Example:
    [site]
    power_budget = "160 kW"   # 16 DGX H100 draw 163 kW

Fix:
    Raise `power_budget` to what the site can deliver (a larger site feed), or remove
    load.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.refs import SITE
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import estimated_text


@rule("PWR007", "error", scope="site", reads=())
def site_over_budget(analysis: Analysis) -> Iterator[Finding]:
    site = analysis.layout.site
    if site is None or site.power_budget is None:
        return
    budget = float(site.power_budget)
    # Told without a pass over every rack where it can be (Analysis.racks_sum_above).
    if not analysis.racks_sum_above("load", budget):
        return
    load = analysis.site_load
    if load <= budget:
        return
    bound = at_least(analysis.site_load_unknown)
    estimated = estimated_text(any(r.estimated_power for r in analysis.racks))
    load_text, budget_text = fmt_apart(load, budget, POWER)
    yield Finding(
        "[site]",
        SITE,
        f"site load {bound}{load_text}{estimated} exceeds power_budget {budget_text}",
        hint=f"size the site feed for {bound}{fmt(load, POWER)} or remove "
        f"{fmt(load - budget, POWER)} of load",
        values={"load": load, "budget": budget},
    )
