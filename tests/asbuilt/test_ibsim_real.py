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
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
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


def _faulty(text: str, free_ports: bool) -> str:
    """Swap two cables, move one end, drop one, add one, rename a switch: on both ends.
    Without ``free_ports`` (every switch port is cabled, as in the generated 1,024-GPU
    fabric) no end can move to a free port and no cable can be added: swap, drop, rename."""
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

    def connect(a: tuple[str, int], b: tuple[str, int]) -> None:
        links[a], links[b] = b, a

    def cut(a: tuple[str, int]) -> None:
        b = links.pop(a)
        links.pop(b)

    leaf_ports = sorted(ports(leaf))
    p1, p2, p3, p4 = leaf_ports[:4]
    far1, far2, far3 = links[(leaf, p1)], links[(leaf, p2)], links[(leaf, p3)]
    cut((leaf, p1))
    cut((leaf, p2))
    connect((leaf, p1), far2)  # swap
    connect((leaf, p2), far1)
    free = [p for p in range(1, size[leaf] + 1) if (leaf, p) not in links]
    if free_ports:
        cut((leaf, p3))
        connect((leaf, free[0]), far3)  # move one end
    cut((leaf, p4))  # drop one
    if free_ports:
        other_free = [p for p in range(1, size[other] + 1) if (other, p) not in links]
        connect((leaf, free[1]), (other, other_free[0]))  # add one
    out = []
    for node, lines in records.items():
        head = lines[0]
        if node == next(k for k in reversed(switches) if k not in (leaf, other)):
            head = re.sub(r'# "MF0;([^:"]+):', r'# "MF0;\1-renamed:', head)
            head = re.sub(r'# "([^";]+)"', r'# "\1-renamed"', head) if "MF0;" not in head else head
        out.append(head)
        for (n, p), (far, fp) in sorted(links.items()):
            if n == node:
                out.append(f'[{p}]\t"{far}"[{fp}]')
        out.append("")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("layout", ["training-128", "gpus-1024"])
def test_verify_reports_exactly_the_faults(tmp_path: Path, layout: str) -> None:
    if layout == "gpus-1024":
        path = tmp_path / "gpus-1024.toml"
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "generate.py"),
                "--gpus",
                "1024",
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
    clean = _discover(net, tmp_path / "clean.scan", f"rd-{os.getpid()}-{layout}-clean")
    code, findings = _verify(path, clean)
    assert (code, findings) == (0, [])
    faulty = tmp_path / "faulty.net"
    free_ports = layout != "gpus-1024"
    faulty.write_text(_faulty(net.read_text(), free_ports))
    scan = _discover(faulty, tmp_path / "faulty.scan", f"rd-{os.getpid()}-{layout}-faults")
    code, findings = _verify(path, scan)
    assert code == 1
    expected = ["extra", "missing", "miswired", "swapped", "unknown-device"]
    if not free_ports:
        expected = ["missing", "swapped", "unknown-device"]
    assert sorted(f["kind"] for f in findings) == expected, findings
