"""``export --ibsim`` and ``verify`` against the real programs: Debian's ``ibsim`` and
``infiniband-diags``' ``ibnetdiscover`` through the ``umad2sim`` preload.

Each test exports a layout's fabric, applies known faults to the net file (swap two
cables, move one end to a free port, drop one, add one, rename a switch), simulates it,
discovers it, and ``verify`` must report exactly those faults; the unaltered fabric must
verify clean. ibsim talks over abstract unix sockets only (``@sim:ctl``, no network); each
run names its own (``IBSIM_SOCKNAME``), so runs in parallel do not meet. Every wait is
bounded (ibnetdiscover hangs against a dead ibsim) and ibsim is stopped by its PID.
Skipped without the programs, failed instead with ``RACKDESIGNER_REQUIRE_REAL=1``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from tests.asbuilt import helpers
from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.real]  # its own .ci/run step
PRELOAD = Path("/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so")
TIMEOUT = 60.0


def _programs() -> tuple[str, str, str]:
    ibsim = shutil.which("ibsim")
    discover = shutil.which("ibnetdiscover") or (
        "/usr/sbin/ibnetdiscover" if os.access("/usr/sbin/ibnetdiscover", os.X_OK) else None
    )
    preload = str(PRELOAD) if PRELOAD.exists() else None
    if preload is None and shutil.which("dpkg"):
        listed = subprocess.run(["dpkg", "-L", "libumad2sim0"], capture_output=True, text=True)
        preload = next((p for p in listed.stdout.split() if p.endswith("libumad2sim.so")), None)
    if ibsim is None or discover is None or preload is None:
        message = "ibsim, ibnetdiscover or libumad2sim missing (apt-get install ibsim-utils "
        message += "infiniband-diags)"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return ibsim, discover, preload


def _discover(net: Path, out: Path, socket: str) -> Path:
    ibsim, discover, preload = _programs()
    host = re.search(r'^Ca\s+\d+\s+"(H-[0-9a-f]+)"', net.read_text(), re.M)
    assert host is not None
    env = {**os.environ, "IBSIM_SOCKNAME": socket}
    log = out.with_suffix(".ibsim.log")
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [ibsim, "-s", "-n", str(net)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        try:
            deadline = time.monotonic() + TIMEOUT
            while b"Network simulator ready" not in log.read_bytes():
                if process.poll() is not None:
                    pytest.fail(f"ibsim exited ({process.returncode}):\n{log.read_text()}")
                if time.monotonic() > deadline:
                    pytest.fail("ibsim did not get ready")
                time.sleep(0.1)
            run = subprocess.run(
                [discover],
                env={**env, "SIM_HOST": host.group(1), "LD_PRELOAD": preload},
                capture_output=True,
                timeout=TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
            assert run.returncode == 0, run.stderr.decode(errors="replace")
            out.write_bytes(run.stdout)
        finally:
            process.kill()
            process.wait(timeout=10)
    return out


def _export(layout: Path, net: Path) -> None:
    result = CliRunner().invoke(cli, ["export", str(layout), "--ibsim", str(net)])
    assert result.exit_code == 0, result.output


def _verify(layout: Path, scan: Path) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(
        cli,
        ["verify", str(layout), "--ibnetdiscover", str(scan), "--ignore-speed", "--format", "json"],
    )
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)["findings"]


def _records(text: str) -> dict[str, list[str]]:
    """Net file records by node id: the node line and its port lines."""
    records: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        node = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
        if node:
            current = records.setdefault(node.group(2), [])
        elif not line.strip():
            current = None
        if current is not None:
            current.append(line)
    return records


Fault = tuple[str, tuple[tuple[str, int], ...]]  # kind, the net-file ports it is about


def _faulty(text: str, free_ports: bool) -> tuple[str, list[Fault]]:
    """Swap two cables, move one end, drop one, add one, rename a switch: on both ends.
    Returns the net file and each fault with the ports a finding about it names (the
    renamed switch: its port 0).

    Without ``free_ports`` (every switch port is cabled, as in the 1:1 1,024-GPU preset) no
    end can move to a free port and no cable can be added: swap, drop, rename. Freeing a
    port by dropping a cable does not help: a cable moved into it, or added to it, shares a
    port with the dropped one as well as with its own, so the scan reads equally well as
    either cable moved (or as a move instead of an addition) and the verdict would rest on
    a tie-break, not on the faults."""
    records = _records(text)
    switches = [k for k, lines in records.items() if lines[0].startswith("Switch")]
    size = {k: int(records[k][0].split()[1]) - 1 for k in switches}
    port_re = re.compile(r'^\[(\d+)\]\t"([^"]+)"\[(\d+)\]')

    def ports(node: str) -> dict[int, tuple[str, int]]:
        found = {}
        for line in records[node][1:]:
            m = port_re.match(line)
            if m:
                found[int(m.group(1))] = (m.group(2), int(m.group(3)))
        return found

    links = {(n, p): far for n in records for p, far in ports(n).items()}
    roomy = [k for k in switches if size[k] - len(ports(k)) >= 2 and len(ports(k)) >= 4]
    leaf = roomy[0] if free_ports else switches[0]
    other = next(k for k in switches if k != leaf and (size[k] > len(ports(k)) or not free_ports))
    renamed = next(k for k in reversed(switches) if k not in (leaf, other))

    def connect(a: tuple[str, int], b: tuple[str, int]) -> None:
        links[a], links[b] = b, a

    def cut(a: tuple[str, int]) -> None:
        b = links.pop(a)
        links.pop(b)

    leaf_ports = sorted(ports(leaf))
    p1, p2, p3, p4 = leaf_ports[:4]
    far1, far2, far3, far4 = (links[(leaf, p)] for p in (p1, p2, p3, p4))
    # No fault may reach the renamed switch: its cables are compared as the designed one's.
    assert renamed not in {end[0] for end in (far1, far2, far3, far4)}
    faults: list[Fault] = []
    cut((leaf, p1))
    cut((leaf, p2))
    connect((leaf, p1), far2)  # swap
    connect((leaf, p2), far1)
    faults.append(("swapped", ((leaf, p1), (leaf, p2))))
    free = [p for p in range(1, size[leaf] + 1) if (leaf, p) not in links]
    if free_ports:
        cut((leaf, p3))
        connect((leaf, free[0]), far3)  # move one end
        faults.append(("miswired", ((leaf, p3), far3)))
    cut((leaf, p4))  # drop one
    faults.append(("missing", ((leaf, p4), far4)))
    if free_ports:
        other_free = [p for p in range(1, size[other] + 1) if (other, p) not in links]
        connect((leaf, free[1]), (other, other_free[0]))  # add one
        faults.append(("extra", ((leaf, free[1]), (other, other_free[0]))))
    faults.append(("unknown-device", ((renamed, 0),)))
    out = []
    for node, lines in records.items():
        head = lines[0]
        if node == renamed:
            head = re.sub(r'# "MF0;([^:"]+):', r'# "MF0;\1-renamed:', head)
            head = re.sub(r'# "([^";]+)"', r'# "\1-renamed"', head) if "MF0;" not in head else head
        out.append(head)
        for (n, p), (far, fp) in sorted(links.items()):
            if n == node:
                out.append(f'[{p}]\t"{far}"[{fp}]')
        out.append("")
    return "\n".join(out) + "\n", faults


def _designed_names(text: str, layout: Path) -> Callable[[tuple[str, int]], str]:
    """A net-file port as the design names it (``a01-leaf1:p3``, ``a01-n01:ib4``; a node's
    port 0: the device), from the node descriptions ``export --ibsim`` writes."""
    design = helpers.design(layout)
    described: dict[str, str] = {}
    for node, lines in _records(text).items():
        found = re.search(r'# "(?:MF0;)?([^:"]+)[^"]*"', lines[0])
        assert found is not None, lines[0]
        described[node] = found.group(1)

    def name(end: tuple[str, int]) -> str:
        node, port = end
        words = described[node].split()
        device = design.by_name.get(words[0], words[0])
        if port == 0:
            return device
        designed = design.devices[device]
        if node.startswith("S-"):
            found = next(
                (
                    (g, i)
                    for g, n in designed.groups.items()
                    for i in range(1, n + 1)
                    if designed.ports.number(g, i) == port
                ),
                None,
            )
        else:
            found = designed.ports.host_port(words[1], port, designed.groups)
        assert found is not None, (end, described[node])
        return f"{device}:{found[0]}{found[1]}"

    return name


@pytest.mark.parametrize(
    ("layout", "oversubscription"),
    [("training-128", None), ("gpus-1024", "2"), ("gpus-1024", "1")],
    ids=["training-128", "gpus-1024-2to1", "gpus-1024-1to1"],
)
def test_verify_reports_exactly_the_faults(
    tmp_path: Path, layout: str, oversubscription: str | None
) -> None:
    """The generated 1,024-GPU fabric at 2:1 (leaves with 32 nodes down, 16 uplinks and
    16 free ports) takes all five faults; the 1:1 preset, every port cabled, the three
    that need no free port (see :func:`_faulty`)."""
    if oversubscription is not None:
        path = tmp_path / f"{layout}.toml"
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "generate.py"),
                "--gpus",
                layout.removeprefix("gpus-"),
                "--oversubscription",
                oversubscription,
                "-o",
                str(path),
            ],
            check=True,
            timeout=120,
        )
    else:
        path = ROOT / "layouts" / f"{layout}.toml"
    net = tmp_path / "fabric.net"
    _export(path, net)
    name = f"rd-{os.getpid()}-{layout}-{oversubscription}"
    clean = _discover(net, tmp_path / "clean.scan", f"{name}-clean")
    code, findings = _verify(path, clean)
    assert (code, findings) == (0, [])
    faulty = tmp_path / "faulty.net"
    free_ports = oversubscription != "1"
    text, faults = _faulty(net.read_text(), free_ports)
    faulty.write_text(text)
    scan = _discover(faulty, tmp_path / "faulty.scan", f"{name}-faults")
    code, findings = _verify(path, scan)
    assert code == 1
    designed = _designed_names(net.read_text(), path)
    expected = sorted((kind, tuple(sorted(map(designed, ends)))) for kind, ends in faults)
    seen = sorted((f["kind"], tuple(sorted(f["ends"] or [f["device"]]))) for f in findings)
    assert seen == expected, findings
    kinds = ["extra", "missing", "miswired", "swapped", "unknown-device"]
    assert sorted(kind for kind, _ in expected) == (
        kinds if free_ports else ["missing", "swapped", "unknown-device"]
    )
