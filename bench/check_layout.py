#!/usr/bin/env python3
"""Independent sanity checks of generated layouts (does not import rackdesigner).

    python bench/check_layout.py bench/out/gpus-*.toml
    python bench/check_layout.py --generate 8,128,1024      # generate in memory, then check

Checks, per file: it parses with tomllib; rack, device and feed ids and
circuits are unique, one rack per (row, slot); every device model is known
(the built-in keys the generator uses, or the file's [catalog]); positions lie
within 1..rack height and no two devices overlap; at most 4 GPU nodes per
rack; liquid racks name an existing CDU; every link end names an existing
device and a port index within its group's count, no port is used twice, both
ends have the same speed; cable runs computed as in layout-format.md's
Geometry stay within cable_max and the media's reach, dac only inside a rack;
leaves are non-blocking; the compute fabric is one connected graph holding
every GPU node; switches sit in the middle third of racks holding GPU nodes;
each feed side carries the rack's load (assumed figures, see MODELS).

Exit 0 when every file passes, 1 otherwise; problems are printed.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
BUILTIN_CATALOG = os.path.join(os.path.dirname(HERE), "assets", "catalog", "devices.toml")

# What the generator relies on in the built-in catalog, used when the repository's
# assets/catalog/devices.toml is absent (read as data when present; the package is
# never imported): height in U, port groups {name: (count, Gbps)}, max power in W.
MODELS: dict[str, dict] = {
    "dgx-h100": {
        "kind": "gpu-node",
        "height": 8,
        "power": 10_200,
        "ports": {"ib": (8, 400), "eth": (2, 400), "inband": (2, 400), "bmc": (1, 1)},
    },
    "dgx-b200": {
        "kind": "gpu-node",
        "height": 10,
        "power": 14_300,
        "ports": {"ib": (8, 400), "eth": (2, 200), "bmc": (1, 1)},
    },
    "qm9700": {
        "kind": "switch",
        "height": 1,
        "power": 1_720,
        "ports": {"p": (64, 400), "mgmt": (1, 1)},
    },
    "qm8700": {"kind": "switch", "height": 1, "power": 600, "ports": {"p": (40, 200)}},
    "sn2201": {
        "kind": "switch",
        "height": 1,
        "power": 200,
        "ports": {"mgmt": (48, 1), "up": (4, 100)},
    },
    "sys-421ge-tnhr2-lcc": {
        "kind": "gpu-node",
        "height": 4,
        "power": 9_000,
        "liquid_fraction": 0.7,
        "ports": {"ib": (8, 400), "eth": (2, 400), "bmc": (1, 1)},
    },
    "pdu-3ph-415v-32a": {"kind": "pdu", "height": 0, "power": 20, "ports": {}},
    "pdu-3ph-415v-63a": {"kind": "pdu", "height": 0, "power": 20, "ports": {}},
    "coolit-chx750": {
        "kind": "cdu",
        "height": 42,
        "power": 6_000,
        "ports": {},
        "capacity": 750_000,
    },
    "blank-1u": {"kind": "blank", "height": 1, "power": 0, "ports": {}},
    "patch-panel-1u": {"kind": "patch-panel", "height": 1, "power": 0, "ports": {}},
}
LIQUID_FRACTION = 0.0  # rules v1.1: no cold plates unless the type declares them
AIR_MAX_W = 15_000
RU = 0.04445
REACH = {"dac": 2.0, "acc": 5.0, "aoc": 100.0, "mmf": 50.0, "smf": 500.0, "copper-rj45": 100.0}
ENDPOINT = re.compile(r"^(?P<device>[^:\s]+):(?P<group>[^\s:]*?[^\s:0-9])(?P<index>[0-9]+)$")
QTY = re.compile(r"^\s*([-+0-9.eE]+)\s*([A-Za-z]*)\s*$")
SCALE = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "m": 1e-3}


def qty(text: str, unit: str) -> float:
    """'3 kW' -> 3000.0 (enough for the units the generator writes)."""
    m = QTY.match(text)
    if not m:
        raise ValueError(f"bad quantity {text!r}")
    value, u = float(m[1]), m[2]
    if u == unit:
        return value
    if u.endswith(unit) and u[: -len(unit)] in SCALE:
        return value * SCALE[u[: -len(unit)]]
    if unit == "bps" and u == "Gbps":
        return value * 1e9
    raise ValueError(f"unexpected unit in {text!r} (want {unit})")


class Checker:
    def __init__(self, name: str):
        self.name = name
        self.problems: list[str] = []
        self.stats: dict[str, object] = {}

    def bad(self, msg: str) -> None:
        if len(self.problems) < 50:
            self.problems.append(msg)
        elif len(self.problems) == 50:
            self.problems.append("... (more problems not shown)")

    def run(self, doc: dict, builtin: dict | None = None) -> None:
        models = {k: dict(v) for k, v in MODELS.items()}
        for table in (builtin or {}, doc.get("catalog", {})):
            for key, t in table.items():
                entry = dict(models.get(key, {}))
                if "kind" in t:
                    entry["kind"] = t["kind"]
                if "height" in t:
                    entry["height"] = qty(t["height"], "U")
                entry["power"] = qty(t["power"], "W") if "power" in t else entry.get("power", 0)
                if "ports" in t:
                    entry["ports"] = {
                        p["name"]: (
                            p["count"],
                            qty(p["speed"], "bps") / 1e9 if "speed" in p else None,
                        )
                        for p in t["ports"]
                    }
                entry.setdefault("ports", {})
                if "capacity" in t:
                    entry["capacity"] = qty(t["capacity"], "W")
                if "liquid_fraction" in t:
                    entry["liquid_fraction"] = t["liquid_fraction"]
                models[key] = entry
        if doc.get("format") != 1:
            self.bad("format is not 1")
        site = doc.get("site", {})
        rack_pitch = qty(site.get("rack_pitch", "600 mm"), "m")
        row_pitch = qty(site.get("row_pitch", "2.4 m"), "m")
        tray = qty(site.get("tray_rise", "0.3 m"), "m")
        slack = qty(site.get("slack", "0.5 m"), "m")
        thresholds = doc.get("rules", {}).get("thresholds", {})
        cable_max = qty(thresholds.get("cable_max", "5 m"), "m")

        rack_ids: set[str] = set()
        feed_ids: set[str] = set()
        circuits: set[str] = set()
        places: set[tuple[str, int]] = set()
        rows: dict[str, int] = {}
        devices: dict[str, tuple[dict, dict]] = {}  # id -> (device, rack)
        kinds: dict[str, int] = {}
        total_power = 0.0
        cdu_load: dict[str, float] = {}
        for rack in doc.get("racks", []):
            rid = rack["id"]
            if rid in rack_ids:
                self.bad(f"duplicate rack id {rid}")
            rack_ids.add(rid)
            rows.setdefault(rack.get("row", ""), len(rows))
            place = (rack.get("row", ""), rack.get("slot", 0))
            if place in places:
                self.bad(f"two racks at {place}")
            places.add(place)
            height = int(qty(rack.get("height", "42 U"), "U"))
            occupied: dict[int, str] = {}
            nodes = 0
            load = 0.0
            liquid_heat = 0.0
            switch_heat = 0.0
            for dev in rack.get("devices", []):
                did = dev["id"]
                if did in devices:
                    self.bad(f"duplicate device id {did}")
                devices[did] = (dev, rack)
                model = models.get(dev["model"])
                if model is None:
                    self.bad(f"{did}: unknown model {dev['model']}")
                    continue
                kinds[model["kind"]] = kinds.get(model["kind"], 0) + 1
                load += model["power"]
                if model["kind"] == "gpu-node":
                    nodes += 1
                    liquid_heat += model["power"] * model.get("liquid_fraction", LIQUID_FRACTION)
                elif model["kind"] == "switch":
                    switch_heat += model["power"]
                h = int(model["height"])
                if h == 0:
                    if "position" in dev or dev.get("side") not in ("left", "right"):
                        self.bad(f"{did}: 0U device needs side and no position")
                    continue
                pos = dev.get("position")
                if not isinstance(pos, int) or pos < 1 or pos + h - 1 > height:
                    self.bad(f"{did}: position {pos} (height {h}U) outside 1..{height}")
                    continue
                for u in range(pos, pos + h):
                    if u in occupied:
                        self.bad(f"{did} overlaps {occupied[u]} at U{u} in {rid}")
                    occupied[u] = did
                if model["kind"] == "switch":
                    dev["_centre"] = pos - 1 + h / 2
            if nodes > 4:
                self.bad(f"{rid}: {nodes} GPU nodes")
            if nodes:
                for dev in rack.get("devices", []):
                    c = dev.get("_centre")
                    if c is not None and not height / 3 <= c <= 2 * height / 3:
                        self.bad(f"{dev['id']}: switch outside the middle of {rid}")
            total_power += load
            cooling = rack.get("cooling", "air")
            if cooling == "liquid":
                named = rack.get("cdu", "")
                group = tuple(named) if isinstance(named, list) else (named,)
                cdu_load[group] = cdu_load.get(group, 0) + liquid_heat
                air = load - liquid_heat
            else:
                air = load
                if len(occupied) < height:
                    self.bad(f"{rid}: air-cooled with {height - len(occupied)} open units")
            if air > AIR_MAX_W:
                self.bad(f"{rid}: air heat {air / 1e3:.1f} kW > 15 kW")
            if load > 20_000 and cooling == "air":
                self.bad(f"{rid}: {load / 1e3:.1f} kW on air")
            side_cap: dict[str, float] = {}
            for feed in rack.get("feeds", []):
                if feed["id"] in feed_ids:
                    self.bad(f"duplicate feed id {feed['id']}")
                feed_ids.add(feed["id"])
                if feed.get("circuit") in circuits:
                    self.bad(f"circuit {feed['circuit']} used twice")
                circuits.add(feed.get("circuit"))
                v, a = qty(feed["voltage"], "V"), qty(feed["current"], "A")
                cap = v * a * feed.get("derate", 0.8) * (math.sqrt(3) if feed["phases"] == 3 else 1)
                side_cap[feed.get("side", "")] = side_cap.get(feed.get("side", ""), 0) + cap
                if nodes and (feed["phases"] != 3 or v < 208):
                    self.bad(f"{rid}: GPU rack fed below 3-phase 208 V")  # stricter than v1.1
            if load and not side_cap:
                self.bad(f"{rid}: no feed")
            if side_cap and set(side_cap) != {"A", "B"}:
                self.bad(f"{rid}: feeds are not sides A and B")
            if side_cap and min(side_cap.values()) < load:
                self.bad(
                    f"{rid}: load {load / 1e3:.1f} kW > side capacity "
                    f"{min(side_cap.values()) / 1e3:.1f} kW"
                )
        # CDU groups (the generator's racks name all of their row's CDUs): N+1, the group
        # less its largest CDU carries the heat.
        for group, heat in cdu_load.items():
            caps = []
            for cdu in group:
                dev = devices.get(cdu)
                if dev is None or models.get(dev[0]["model"], {}).get("kind") != "cdu":
                    self.bad(f"liquid racks name {cdu!r}, not a CDU")
                    break
                caps.append(models[dev[0]["model"]]["capacity"])
            else:
                spare = sum(caps) - max(caps)
                if heat > spare:
                    self.bad(
                        f"{'+'.join(group)}: liquid heat {heat / 1e3:.0f} kW > N+1 capacity "
                        f"{spare / 1e3:.0f} kW"
                    )
        budget = site.get("power_budget")
        if budget and qty(budget, "W") < total_power:
            self.bad(f"power budget {budget} < assumed load {total_power / 1e3:.0f} kW")

        # links
        used_ports: set[str] = set()
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        down_bw: dict[str, float] = {}
        up_bw: dict[str, float] = {}
        max_run = 0.0
        links = doc.get("links", [])
        for link in links:
            ends = []
            for key in ("a", "b"):
                ref = link[key]
                m = ENDPOINT.match(ref)
                if not m:
                    self.bad(f"bad endpoint {ref!r}")
                    break
                found = devices.get(m["device"])
                if found is None:
                    self.bad(f"{ref}: no such device")
                    break
                dev, rack = found
                model = models[dev["model"]]
                group = model["ports"].get(m["group"])
                if group is None or not 1 <= int(m["index"]) <= group[0]:
                    self.bad(f"{ref}: no such port on {dev['model']}")
                    break
                if ref in used_ports:
                    self.bad(f"{ref}: port used twice")
                used_ports.add(ref)
                ends.append((dev, rack, model, group))
            if len(ends) != 2:
                continue
            (da, ra, ma, ga), (db, rb, mb, gb) = ends
            if ga[1] != gb[1]:
                self.bad(f"{link['a']} -> {link['b']}: speeds differ")
            # geometry
            za = (da["position"] - 1 + ma["height"] / 2) * RU
            zb = (db["position"] - 1 + mb["height"] / 2) * RU
            if ra is rb:
                run = abs(za - zb) + slack
            else:
                top_a = qty(ra.get("height", "42 U"), "U") * RU
                top_b = qty(rb.get("height", "42 U"), "U") * RU
                run = (
                    (top_a - za)
                    + tray
                    + abs(ra["slot"] - rb["slot"]) * rack_pitch
                    + abs(rows[ra["row"]] - rows[rb["row"]]) * row_pitch
                    + tray
                    + (top_b - zb)
                    + slack
                )
                if link.get("media") == "dac":
                    self.bad(f"{link['a']} -> {link['b']}: dac between racks")
            max_run = max(max_run, run)
            if run > cable_max:
                self.bad(f"{link['a']} -> {link['b']}: run {run:.2f} m > cable_max {cable_max} m")
            if run > REACH.get(link.get("media", ""), 0):
                self.bad(
                    f"{link['a']} -> {link['b']}: {link.get('media')} cannot reach {run:.1f} m"
                )
            parent[find(da["id"])] = find(db["id"])
            # tiers: node-switch links are leaf downlinks; switch-switch links: leaf up
            bw = ga[1]
            if ma["kind"] == "gpu-node":
                down_bw[db["id"]] = down_bw.get(db["id"], 0) + bw
            elif mb["kind"] == "gpu-node":
                down_bw[da["id"]] = down_bw.get(da["id"], 0) + bw
            else:
                leaf, spine = (da, db) if da["id"] in down_bw else (db, da)
                up_bw[leaf["id"]] = up_bw.get(leaf["id"], 0) + bw
                down_bw[spine["id"]] = down_bw.get(spine["id"], 0) + bw
        leaves = [s for s in down_bw if s in up_bw or not up_bw]
        spines = [s for s in down_bw if s not in up_bw and up_bw]
        if up_bw:
            for leaf in leaves:
                if down_bw[leaf] > up_bw[leaf] + 1e-9:
                    self.bad(f"{leaf}: oversubscribed {down_bw[leaf] / up_bw[leaf]:.2f}:1")
        node_ids = [
            d
            for d, (dev, _) in devices.items()
            if models.get(dev["model"], {}).get("kind") == "gpu-node"
        ]
        roots = {find(n) for n in node_ids}
        if len(node_ids) > 1 and len(roots) != 1:
            self.bad(f"GPU nodes split over {len(roots)} fabrics")
        unlinked = [n for n in node_ids if n not in parent]
        if unlinked and len(node_ids) > 1:
            self.bad(f"{len(unlinked)} GPU nodes without a fabric link")
        self.stats = {
            "racks": len(rack_ids),
            "devices": len(devices),
            "gpu_nodes": kinds.get("gpu-node", 0),
            "switches": kinds.get("switch", 0),
            "leaves": len(leaves),
            "spines": len(spines),
            "links": len(links),
            "max_run_m": round(max_run, 2),
            "assumed_load_kW": round(total_power / 1e3),
        }


def load_builtin() -> dict:
    """The repository's built-in device catalog as data, or {} when it is absent."""
    try:
        with open(BUILTIN_CATALOG, "rb") as f:
            return tomllib.load(f).get("catalog", {})
    except FileNotFoundError:
        return {}


def check_text(name: str, data: bytes, builtin: dict | None = None) -> Checker:
    c = Checker(name)
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        c.bad(f"does not parse: {e}")
        return c
    c.run(doc, builtin)
    return c


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="layout files")
    ap.add_argument(
        "--generate",
        metavar="SIZES",
        help="comma-separated GPU counts to generate in memory and check",
    )
    args = ap.parse_args(argv)
    inputs: list[tuple[str, bytes]] = []
    if args.generate:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from generate import generate_layout_text

        for size in args.generate.split(","):
            inputs.append((f"gpus-{size}", generate_layout_text(int(size)).encode()))
    for path in args.files:
        with open(path, "rb") as f:
            inputs.append((path, f.read()))
    if not inputs:
        ap.error("give files or --generate")
    builtin = load_builtin()
    print(f"built-in catalog: {BUILTIN_CATALOG if builtin else 'absent, using MODELS'}")
    failed = 0
    for name, data in inputs:
        t0 = time.perf_counter()
        c = check_text(name, data, builtin)
        dt = time.perf_counter() - t0
        status = "ok" if not c.problems else f"{len(c.problems)} problem(s)"
        print(f"{name}: {status} ({dt:.1f} s) " + " ".join(f"{k}={v}" for k, v in c.stats.items()))
        for p in c.problems:
            print(f"  {p}")
        failed += bool(c.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
