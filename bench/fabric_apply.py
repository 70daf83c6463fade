"""Generate fabric's core path at scale: the generator, the Batch, the edit and its undo.

    python bench/fabric_apply.py --gpus 100000

``bench/generate.py``'s layout with its switches and cables taken out (GPU nodes in their
racks), opened in a Session; then the default fabric's plan, ``to_batch``, ``Session.do``
(apply and re-check, fabric rules apart) and ``undo``. In the designer the last two run in
a worker behind a busy screen from 1,000 commands on (rackdesigner/tui/controllers/long_edit.py).
``tomllib`` parsing the layout with its generated fabric is the reference. Prints markdown.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def main() -> int:
    from generate import generate_layout_text  # bench/generate.py: no rackdesigner import

    from rackdesigner.design.generators import FabricRequest, generate
    from rackdesigner.design.generators.apply import to_batch
    from rackdesigner.edit import Session
    from rackdesigner.layout_io import dumps, load_text
    from rackdesigner.layout_io.catalog import builtin
    from rackdesigner.layout_io.document import load

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpus", type=int, default=8192)
    args = parser.parse_args()
    layout = load_text(generate_layout_text(args.gpus))
    kinds = builtin().devices
    layout.links = []
    for rack in layout.racks:
        rack.devices = [
            d for d in rack.devices if getattr(kinds.get(d.model), "kind", None) != "switch"
        ]
    rows: list[tuple[str, float]] = []

    def timed(what: str, call):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        result = call()
        rows.append((what, time.perf_counter() - began))
        return result

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"nodes-{args.gpus}.toml"
        path.write_text(dumps(layout), encoding="utf-8")
        session = timed("open the nodes-only layout (Session)", lambda: Session(load(path)))
        plan = timed(
            "the generator (the preview worker)", lambda: generate(session.layout, FabricRequest())
        )
        batch = timed("to_batch", lambda: to_batch(session.layout, plan))
        timed("Session.do: apply and re-check", lambda: session.do(batch, fabric=False))
        text = dumps(session.layout)
        timed("reference: tomllib parses the layout with its fabric", lambda: tomllib.loads(text))
        timed("Session.undo", lambda: session.undo(fabric=False))
    print(f"\n#### Generate fabric's core path, {args.gpus:,} GPUs: {plan.label}\n")
    print("| step | s |\n|---|---:|")
    for what, seconds in rows:
        print(f"| {what} | {seconds:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
