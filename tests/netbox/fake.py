"""An in-memory NetBox: records stored as NetBox's REST API answers them (related objects
nested with their id and name, choices as value and label), the writes counted."""

from __future__ import annotations

import itertools
from typing import Any

# Which REST fields are related objects (of which kind) and which are choices.
RELATED = {
    "manufacturer": "manufacturers",
    "device_type": "device-types",
    "role": "device-roles",
    "site": "sites",
    "location": "locations",
    "rack": "racks",
    "power_panel": "power-panels",
    "device": "devices",
}
CHOICES = {
    "status",
    "face",
    "airflow",
    "type",
    "phase",
    "supply",
    "weight_unit",
    "length_unit",
    "outer_unit",
    "width",
}


class FakeNetBox:
    """Records per kind, stored as NetBox answers them; counts the writes."""

    def __init__(self) -> None:
        self.records: dict[str, dict[int, dict[str, Any]]] = {}
        self.ids = itertools.count(1)
        self.created: list[tuple[str, dict[str, Any]]] = []
        self.updated: list[tuple[str, int, dict[str, Any]]] = []

    def _shape(self, kind: str, data: dict[str, Any], record: dict[str, Any]) -> None:
        for name, value in data.items():
            if name in RELATED and value is not None:
                target = self.records[RELATED[name]][value]
                record[name] = {"id": value, "name": target.get("name") or target.get("model")}
            elif name in {"a_terminations", "b_terminations"}:
                record[name] = [
                    {"object_type": t["object_type"], "object_id": t["object_id"]} for t in value
                ]
            elif name in CHOICES and not (kind == "device-types" and name == "type"):
                record[name] = {"value": value, "label": str(value).title()}
            else:
                record[name] = value

    def create(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        id_ = next(self.ids)
        record: dict[str, Any] = {"id": id_}
        self._shape(kind, data, record)
        self.records.setdefault(kind, {})[id_] = record
        self.created.append((kind, data))
        if kind == "devices":  # NetBox makes a new device's components from its type's templates
            for template in self.list("interface-templates", device_type_id=data["device_type"]):
                self._instantiate(id_, template)
        return dict(record)

    def _instantiate(self, device: int, template: dict[str, Any]) -> None:
        id_ = next(self.ids)
        record = {"id": id_, "name": template["name"], "type": template["type"]}
        self._shape("interfaces", {"device": device}, record)
        self.records.setdefault("interfaces", {})[id_] = record

    def update(self, kind: str, id_: int, data: dict[str, Any]) -> None:
        self._shape(kind, data, self.records[kind][id_])
        self.updated.append((kind, id_, data))

    def _site_of(self, kind: str, record: dict[str, Any]) -> int | None:
        if "site" in record:
            return record["site"]["id"]
        if kind == "power-feeds":
            return self.records["power-panels"][record["power_panel"]["id"]]["site"]["id"]
        if kind == "interfaces":
            return self.records["devices"][record["device"]["id"]]["site"]["id"]
        if kind == "cables":
            term = record["a_terminations"][0]
            return self._site_of("interfaces", self.records["interfaces"][term["object_id"]])
        return None

    def list(self, kind: str, **filters: Any) -> list[dict[str, Any]]:
        out = []
        for record in self.records.get(kind, {}).values():
            if "name" in filters and record.get("name") != filters["name"]:
                continue
            if "device_id" in filters and record["device"]["id"] != filters["device_id"]:
                continue
            if "site_id" in filters and self._site_of(kind, record) != filters["site_id"]:
                continue
            if "device_type_id" in filters:
                wanted = filters["device_type_id"]
                wanted = wanted if isinstance(wanted, list) else [wanted]
                if record["device_type"]["id"] not in wanted:
                    continue
            out.append(dict(record))
        return out
