"""Shared by the as-built tests: the bundled layouts' designs and scans in lldpd's form."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.asbuilt import Design, design_of
from rackdesigner.layout_io.reader import load_path
from tests.conftest import ROOT

DATA = ROOT / "tests" / "asbuilt" / "data"
TRAINING = ROOT / "layouts" / "training-128.toml"
INFERENCE = ROOT / "layouts" / "inference-32-b200.toml"


@cache
def analysis(path: str) -> Analysis:
    return Analysis(load_path(path), file=path)


def design(path: object, tech: str = "infiniband") -> Design:
    return design_of(analysis(str(path)), tech)


def ifname(design: Design, device: str, port: str) -> str:
    digits = len(port) - len(port.rstrip("0123456789"))
    return design.devices[device].ports.ifname(port[:-digits], int(port[-digits:]))


def lldp_documents(design: Design, hosts: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """``lldpctl -f json`` as lldpd 1.0 writes it, per host of ``design`` (Ethernet): one
    interface object per cabled port, a list of them when there are several."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for cable in design.cables:
        for me, other in ((cable.a, cable.b), (cable.b, cable.a)):
            mine, theirs = design.devices[me.device], design.devices[other.device]
            entry = {
                ifname(design, me.device, me.port): {
                    "via": "LLDP",
                    "rid": "1",
                    "age": "0 day, 00:10:00",
                    "chassis": {
                        theirs.host: {
                            "id": {"type": "mac", "value": "02:00:00:00:00:01"},
                            "descr": "Cumulus Linux" if theirs.switch else "DGX OS",
                            "capability": [{"type": "Bridge", "enabled": theirs.switch}],
                        }
                    },
                    "port": {
                        "id": {"type": "ifname", "value": ifname(design, other.device, other.port)},
                        "descr": ifname(design, other.device, other.port),
                        "ttl": "120",
                    },
                }
            }
            tables.setdefault(mine.host, []).append(entry)
    wanted = hosts if hosts is not None else list(tables)
    out = {}
    for host in wanted:
        entries = tables.get(host, [])
        interface: Any = entries[0] if len(entries) == 1 else entries
        out[host] = {"lldp": {"interface": interface}}
    return out


def dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2) + "\n"
