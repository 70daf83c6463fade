"""``export --netbox DIR``: NetBox's bulk-import files, numbered in the order they must be
imported (docs/netbox.md).

The rows are :func:`rackdesigner.netbox.bulk.bulk_rows`; this module only writes them:
device types as YAML documents (the device type import takes their interface and power
port templates only as YAML or JSON), every other object type as CSV. An object type with
nothing to import writes no file.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rackdesigner.export.registry import ExportContext, ExportError, Output
from rackdesigner.model.spreadsheet import Writer

__all__ = ["csv_text", "export_netbox", "file_name", "netbox_version", "yaml_text"]

YAML_TYPES = ("device-types",)
# The NetBox the files are written for unless --netbox-version says otherwise; from 4.7
# on they hold its cooling objects (rackdesigner/netbox/cooling.py, COOLING_SINCE).
NETBOX_VERSION = "4.7"


def file_name(number: int, kind: str) -> str:
    return f"{number:02d}-{kind}.{'yaml' if kind in YAML_TYPES else 'csv'}"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_text(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV with a header of every field used, in first-use order."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    out = io.StringIO()
    writer = Writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(column)) for column in columns])
    return out.getvalue()


def yaml_text(rows: list[dict[str, Any]]) -> str:
    """The rows as YAML documents, each opened by ``---`` (as NetBox's import detects)."""
    import yaml

    return "".join(
        "---\n" + yaml.safe_dump(row, sort_keys=False, allow_unicode=True, width=100)
        for row in rows
    )


def netbox_version(value: object) -> tuple[int, int]:
    """``--netbox-version``: the target NetBox as (major, minor), from ``4.7`` or
    ``4.7.3``; anything else is an :class:`ExportError`."""
    text = str(value).strip().removeprefix("v")
    parts = text.split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ExportError(f"--netbox-version {value!r}: give the NetBox version as 4.7 or 4.7.3")
    return int(parts[0]), int(parts[1])


def export_netbox(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.netbox.bulk import bulk_rows

    if path.exists() and not path.is_dir():
        raise ExportError(f"--netbox {path}: not a directory")
    from rackdesigner.netbox.cooling import COOLING_SINCE, with_cooling

    target = netbox_version(context.setting("netbox_version", NETBOX_VERSION))
    rows = bulk_rows(context.analysis)
    if target >= COOLING_SINCE:
        rows = with_cooling(rows, context.analysis)
    outputs: list[Output] = []
    for number, (kind, rows_of_kind) in enumerate(rows, 1):
        if not rows_of_kind:
            continue
        text = yaml_text(rows_of_kind) if kind in YAML_TYPES else csv_text(rows_of_kind)
        outputs.append(Output(path / file_name(number, kind), text.encode("utf-8")))
    return outputs
