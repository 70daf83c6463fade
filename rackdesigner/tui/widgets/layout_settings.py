"""The inspector's pages beyond one table's fields: **Layout settings** (the layout's own
keys, ``[workload]``, ``[site]``, ``[rules]`` and every ``[rules.thresholds]`` value) and a
device's port groups. No Textual here: the workspace builds a page, the inspector draws it.

A page's keys say where a value goes (``SetField`` reads them): ``name``,
``workload.kind``, ``site.power_budget``, ``rules.select``, ``thresholds.cable_max``; a
device's ``ports.ib.speed``. Each field is the schema's own, so the inspector's hint, its
chooser and the loader's conversion are those of the file's key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rackdesigner.layout_io import schema as s
from rackdesigner.model.layout import DeviceType, Layout, Q
from rackdesigner.model.thresholds import THRESHOLDS
from rackdesigner.model.units import canonical_text, sci_text

# The sections of the settings page, in order: (key prefix, heading, schema fields).
SECTIONS: tuple[tuple[str, str, tuple[s.Field, ...]], ...] = (
    ("", "layout", tuple(f for f in s.TOP if f.key != "format")),
    ("workload.", "[workload]", s.WORKLOAD),
    ("site.", "[site]", s.SITE),
    ("rules.", "[rules] codes, comma-separated", tuple(f for f in s.RULES if f.kind == "str_list")),
)
THRESHOLDS_HEADING = "[rules.thresholds]"
# What the top of the settings page says.
SETTINGS_FACTS = (
    "What the rules read: the workload (NET002 1:1 for training, 4:1 for inference; the "
    "memory fit CMP009, the gradient sync NET003), the site's budget and cooling (PWR007, "
    "COOL006), rules and thresholds.",
    "Empty text removes a key (a threshold: back to its default).",
)
# The port group keys a device's page edits (its name is how links name the ports).
PORT_KEYS = ("count", "speed", "tech", "role")


@dataclass(slots=True)
class Page:
    """Fields with their keys, their text as the layout has them, the label shown for
    each (the key's last part), and the heading shown above a field (its first line in
    bold, further lines plain: the workload's figures under ``[workload]``)."""

    fields: tuple[s.Field, ...] = ()
    values: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    headings: dict[str, str] = field(default_factory=dict)

    def fields_keys(self) -> list[str]:
        return [f.key for f in self.fields]

    def add(self, key: str, schema_field: s.Field, text: str, heading: str | None = None) -> None:
        self.fields = (*self.fields, replace(schema_field, key=key))
        self.values[key] = text
        self.labels[key] = schema_field.key
        if heading:
            self.headings[key] = heading


def text_of(schema_field: s.Field, value: Any) -> str:
    """A value as the user would type it (the file's own text for a quantity read): the
    inspector's every field, a page's too."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"  # as TOML writes it, and as the field takes it
    if isinstance(value, Q):
        return value.text
    quantity = schema_field.kind in ("qty", "ratio") and schema_field.dim is not None
    if quantity and isinstance(value, int | float) and not isinstance(value, bool):
        assert schema_field.dim is not None
        return canonical_text(float(value), schema_field.dim)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if schema_field.sci and isinstance(value, int | float):  # 70e9, as the file writes it
        text = sci_text(float(value))
        return text if float(text) == float(value) else str(value)
    return str(value)


def threshold_field(key: str) -> s.Field:
    threshold = THRESHOLDS[key]
    doc = f"{threshold.description} (default {threshold.default_text})"
    if threshold.dim is None:
        return s.Field(key, "number", doc, minimum=0)
    return s.Field(key, "qty", doc, dim=threshold.dim)


def settings_page(layout: Layout) -> Page:
    """Every setting the rules read, as the layout has it now."""
    page = Page()
    tables: dict[str, Any] = {
        "": layout,
        "workload.": layout.workload,
        "site.": layout.site,
        "rules.": layout.rules,
    }
    for prefix, heading, fields in SECTIONS:
        table = tables[prefix]
        first = True
        for schema_field in fields:
            value = getattr(table, schema_field.key, None) if table is not None else None
            page.add(
                f"{prefix}{schema_field.key}",
                schema_field,
                text_of(schema_field, value),
                heading if first else None,
            )
            first = False
    set_values = layout.rules.thresholds if layout.rules is not None else {}
    first = True
    for key in THRESHOLDS:
        schema_field = threshold_field(key)
        page.add(
            f"thresholds.{key}",
            schema_field,
            text_of(schema_field, set_values.get(key)),
            THRESHOLDS_HEADING if first else None,
        )
        first = False
    return page


def port_page(dtype: DeviceType | None, users: int) -> Page:
    """A device's port groups (its model's): count, speed, tech and role of each group."""
    page = Page()
    if dtype is None:
        return page
    spec = {f.key: f for f in s.PORT}
    shared = f", all {users} devices of it" if users > 1 else ""
    for group in dtype.ports or ():
        first = True
        for key in PORT_KEYS:
            heading = f"ports {group.name} (model {dtype.key}{shared})" if first else None
            page.add(
                f"ports.{group.name}.{key}",
                spec[key],
                text_of(spec[key], getattr(group, key)),
                heading,
            )
            first = False
    return page
