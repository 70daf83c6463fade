"""``export --slurm-topology`` and ``--slurm-conf`` read by the real thing: Debian's
``slurmctld`` and ``slurmd`` (22.05).

A throwaway controller on 127.0.0.1 only (a network namespace of its own, no
authentication, state in a temporary folder, one ``NodeName`` per exported host) loads
the exported ``topology.conf`` with ``TopologyPlugin=topology/tree``; ``scontrol show
topology`` must then show one switch that reaches every node, and the controller's log
must not warn that none does (what the Dragonfly+ export did before: no job could span
two groups). ``export --slurm-conf``: the controller loads the node and partition lines
(Included, the nodes' names resolving to 127.0.0.1 in its own /etc/hosts) and shows each
node's CPUs, memory, GPUs and features; ``slurmd -G`` reads the gres.conf beside them.

The tests skip where ``slurmctld`` or ``scontrol`` is missing, and fail instead with
``RACKDESIGNER_REQUIRE_REAL=1`` (``.ci/slurm-test`` installs them). Every wait is bounded
and every process started here is stopped by its PID, whatever happens.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from tests.conftest import ROOT
from tests.export.test_slurm import expand

TRAINING = ROOT / "layouts" / "training-128.toml"
START_TIMEOUT = 30.0  # seconds for the controller to answer
COMMAND_TIMEOUT = 10.0

pytestmark = [pytest.mark.slow, pytest.mark.real]  # its own .ci/run step


def _program(name: str) -> str:
    found = shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.access(p, os.X_OK)), None
    )
    if found is None:
        message = f"{name} is not installed (Debian: apt-get install slurmctld slurm-client)"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _isolation() -> tuple[list[str], str]:
    """How to start the controller where only 127.0.0.1 reaches it: in a network namespace
    of its own (slurmctld 22.05 listens on every address; ``auth/none`` must not be on
    the machine's network even for seconds). Root only, as CI runs; else skip (or fail)."""
    tools = [shutil.which(name) for name in ("unshare", "nsenter", "ip")]
    if os.geteuid() != 0 or None in tools:
        message = "starting slurmctld on loopback only needs root, unshare, nsenter and ip"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    unshare, nsenter, ip = tools
    # Slurm resolves even "127.0.0.1" with AI_ADDRCONFIG, which wants an address other than
    # loopback: an unconnected veth pair with a documentation address (TEST-NET-1) gives
    # one and leads nowhere. Namespace and pair go when the controller exits.
    script = (
        f"{ip} link set lo up && {ip} link add rd0 type veth peer name rd1 && "
        f'{ip} addr add 192.0.2.1/32 dev rd0 && exec "$0" "$@"'
    )
    return [unshare, "--net", "--", "sh", "-c", script], str(nsenter)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _export(layout: Path, out: Path) -> tuple[Path, list[str]]:
    """The layout's topology.conf and its GPU nodes' names (from the hostfile)."""
    conf = out / "topology.conf"
    hosts = out / "hostfile"
    result = CliRunner().invoke(
        cli, ["export", str(layout), "--slurm-topology", str(conf), "--hostfile", str(hosts)]
    )
    assert result.exit_code == 0, result.output
    names = [
        line.split()[0]
        for line in hosts.read_text().splitlines()
        if line and not line.startswith("#")
    ]
    return conf, names


def _slurm_conf(folder: Path, nodes: list[str], dragonfly: bool) -> Path:
    for sub in ("state", "spool"):
        (folder / sub).mkdir()
    lines = [
        "ClusterName=rackdesigner",
        "SlurmctldHost=localhost(127.0.0.1)",
        f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}",
        "AuthType=auth/none",
        "CredType=cred/none",
        "MailProg=/bin/true",
        f"SlurmUser={pwd.getpwuid(os.geteuid()).pw_name}",  # whoever runs the test
        f"StateSaveLocation={folder / 'state'}",
        f"SlurmdSpoolDir={folder / 'spool'}",
        f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "MpiDefault=none",
        "SelectType=select/cons_tres",
        "TopologyPlugin=topology/tree",
        *(["TopologyParam=dragonfly"] if dragonfly else []),
        # One line per node: every name as exported, nothing compressed on our side.
        *(f"NodeName={name} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" for name in nodes),
        "PartitionName=all Nodes=ALL Default=YES State=UP",
    ]
    path = folder / "slurm.conf"
    path.write_text("\n".join(lines) + "\n")
    return path


def _ask_controller(
    start: list[str], nsenter: str, slurm_conf: Path, questions: list[tuple[str, str]]
) -> tuple[list[str], Path]:
    """Run slurmctld (``start`` puts it in its namespaces) on ``slurm_conf``, ask it each
    ``scontrol show`` question until the answer holds the expected text, and stop it by
    its PID whatever happens; the answers, and its log (slurmctld.log beside the conf)."""
    slurmctld, scontrol = _program("slurmctld"), _program("scontrol")
    env = {**os.environ, "SLURM_CONF": str(slurm_conf)}
    log = slurm_conf.with_name("slurmctld.log")
    answers = []
    with log.open("wb") as sink:
        # unshare and sh exec in turn: the PID is the controller's from the start.
        process = subprocess.Popen(
            [*start, slurmctld, "-D", "-vvv", "-f", str(slurm_conf)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT
            for what, expected in questions:
                while True:
                    if process.poll() is not None:
                        pytest.fail(f"slurmctld exited ({process.returncode}):\n{log.read_text()}")
                    shown = subprocess.run(
                        [nsenter, f"--net=/proc/{process.pid}/ns/net", scontrol, "show", what],
                        capture_output=True,
                        text=True,
                        env=env,
                        timeout=COMMAND_TIMEOUT,
                    )
                    if shown.returncode == 0 and expected in shown.stdout:
                        answers.append(shown.stdout)
                        break
                    if time.monotonic() > deadline:
                        pytest.fail(
                            f"slurmctld did not answer within {START_TIMEOUT:.0f} s: "
                            f"{shown.stderr}\n{log.read_text()}"
                        )
                    time.sleep(0.3)
        finally:
            process.terminate()
            try:
                process.wait(timeout=COMMAND_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=COMMAND_TIMEOUT)
    return answers, log


def _topology_in_slurm(tmp_path: Path, conf: Path, nodes: list[str], dragonfly: bool) -> str:
    """``scontrol show topology`` of a controller that loaded ``conf``; its log after."""
    start, nsenter = _isolation()
    folder = tmp_path / "slurm"
    folder.mkdir()
    shutil.copyfile(conf, folder / "topology.conf")
    slurm_conf = _slurm_conf(folder, nodes, dragonfly)
    (shown,), log = _ask_controller(start, nsenter, slurm_conf, [("topology", "SwitchName=")])
    said = log.read_text(errors="replace").splitlines()
    topology = [line for line in said if "topology/tree" in line or "TOPOLOGY" in line]
    assert not [line for line in topology if "warning" in line or "error" in line], topology
    return shown


def _switches(shown: str) -> dict[str, dict[str, str]]:
    """``scontrol show topology``: one ``SwitchName=... Level=... Nodes=...`` line each."""
    switches = {}
    for line in shown.splitlines():
        if not line.startswith("SwitchName="):
            continue
        fields = dict(item.split("=", 1) for item in line.split())
        switches[fields.pop("SwitchName")] = fields
    return switches


def _check_one_root(shown: str, nodes: list[str]) -> str:
    """The highest switch that reaches every node (there must be one)."""
    switches = _switches(shown)
    assert switches, shown
    everyone = sorted(nodes)
    roots = [
        name for name, fields in switches.items() if sorted(expand(fields["Nodes"])) == everyone
    ]
    assert roots, f"no switch reaches all {len(nodes)} nodes:\n{shown}"
    return max(roots, key=lambda name: int(switches[name]["Level"]))


def test_rail_optimised_topology_loads_in_slurmctld(tmp_path: Path) -> None:
    conf, nodes = _export(TRAINING, tmp_path)
    shown = _topology_in_slurm(tmp_path, conf, nodes, dragonfly=False)
    root = _check_one_root(shown, nodes)
    assert "spine" in root


def test_dragonfly_topology_loads_in_slurmctld_with_one_root(tmp_path: Path) -> None:
    layout = tmp_path / "dragonfly.toml"
    made = CliRunner().invoke(cli, ["new", "--gpus", "256", "--fabric", "dragonfly", str(layout)])
    assert made.exit_code in (0, 1), made.output  # written even with findings
    conf, nodes = _export(layout, tmp_path)
    assert "TopologyParam=dragonfly" in conf.read_text()
    shown = _topology_in_slurm(tmp_path, conf, nodes, dragonfly=True)
    root = _check_one_root(shown, nodes)
    switches = _switches(shown)
    # The added top joins every group's spines: it is the one switch above them all.
    assert int(switches[root]["Level"]) == max(int(f["Level"]) for f in switches.values())
    assert root.endswith("-global")


# -- export --slurm-conf: the node and partition lines, and gres.conf ---------------------


def _controller_with_nodes(tmp_path: Path, layout: Path) -> tuple[str, str, Path]:
    """Start slurmctld on the exported node lines (Included from a slurm.conf with
    GresTypes=gpu) and gres.conf, every node name resolving to 127.0.0.1 through an
    /etc/hosts of the controller's own mount namespace; ``scontrol show node`` and
    ``show partition`` once it answers, and its folder."""
    start, nsenter = _isolation()
    folder = tmp_path / "slurm"
    folder.mkdir()
    nodes_conf, hostfile = folder / "nodes.conf", folder / "hostfile"
    result = CliRunner().invoke(
        cli, ["export", str(layout), "--slurm-conf", str(nodes_conf), "--hostfile", str(hostfile)]
    )
    assert result.exit_code == 0, result.output
    assert (folder / "gres.conf").is_file()  # beside FILE, where slurmctld looks for it
    names = [line.split()[0] for line in hostfile.read_text().splitlines() if line[:1] != "#"]
    hosts = folder / "hosts"
    hosts.write_text("127.0.0.1 localhost\n" + "".join(f"127.0.0.1 {n}\n" for n in names))
    slurm_conf = _slurm_conf(folder, [], dragonfly=False)
    text = slurm_conf.read_text().replace("TopologyPlugin=topology/tree\n", "")
    text = text.replace("PartitionName=all Nodes=ALL Default=YES State=UP\n", "")
    slurm_conf.write_text(text + f"GresTypes=gpu\nInclude {nodes_conf}\n")
    # The controller's own mount namespace, /etc/hosts bound over with the nodes' names.
    unshare, *rest = start
    start = [unshare, "--mount", *rest]
    start[-1] = f"mount --bind {hosts} /etc/hosts && " + start[-1]
    questions = [("node", "NodeName="), ("partition", "PartitionName=")]
    (nodes, partitions), _ = _ask_controller(start, nsenter, slurm_conf, questions)
    return nodes, partitions, folder


def _gres_in_slurmd(folder: Path, node: str, gpus: int) -> str:
    """``slurmd -G`` (print the node's GRES from slurm.conf and gres.conf, and exit) for
    ``node``, in a mount namespace whose /dev holds ``gpus`` NVIDIA device nodes (slurmd
    stats each File=), so nothing is added to the machine's own /dev."""
    slurmd = _program("slurmd")
    unshare = shutil.which("unshare")
    assert unshare is not None  # _isolation checked it
    make = " && ".join(f"mknod -m 666 /dev/nvidia{i} c 195 {i}" for i in range(gpus))
    script = f'mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 && {make} && exec "$0" "$@"'
    conf = folder / "slurm.conf"
    shown = subprocess.run(
        [unshare, "--mount", "--", "sh", "-c", script, slurmd, "-N", node, "-G", "-f", str(conf)],
        capture_output=True,
        text=True,
        env={**os.environ, "SLURM_CONF": str(conf)},
        timeout=COMMAND_TIMEOUT,
    )
    assert shown.returncode == 0, shown.stderr
    return shown.stdout + shown.stderr


def _records(shown: str) -> list[dict[str, str]]:
    """``scontrol show`` output: one record per blank-line-separated block."""
    out = []
    for block in shown.strip().split("\n\n"):
        fields: dict[str, str] = {}
        for item in block.split():
            key, _, value = item.partition("=")
            fields.setdefault(key, value)
        out.append(fields)
    return out


def test_slurm_conf_nodes_and_gres_load_in_slurmctld(tmp_path: Path) -> None:
    """training-128: 16 SYS-421GE-TNHR2-LCC nodes, each 112 cores (2 x 56), 2 TB =
    2e12 B / 1,048,576 = 1,907,348 MiB, 8 H100 SXM: slurmctld knows each node with those
    figures, GPU GRES and the features, and one default partition holds all 16."""
    nodes, partitions, folder = _controller_with_nodes(tmp_path, TRAINING)
    records = _records(nodes)
    assert len(records) == 16
    for node in records:
        assert node["CPUTot"] == "112", node
        assert node["RealMemory"] == "1907348", node
        assert node["Gres"] == "gpu:8", node
        assert node["AvailableFeatures"] == "h100-sxm,sys-421ge-tnhr2-lcc", node
    (partition,) = _records(partitions)
    assert partition["PartitionName"] == "gpu" and partition["Default"] == "YES"
    assert partition["TotalNodes"] == "16" and partition["TotalCPUs"] == str(16 * 112)
    # gres.conf, as slurmd on a node reads it: 8 GPUs on /dev/nvidia0..7, no complaint
    gres = _gres_in_slurmd(folder, "a01-n01", 8)
    assert "Gres Name=gpu" in gres and "Count=8" in gres and "File=/dev/nvidia[0-7]" in gres
    assert "error" not in gres and "fatal" not in gres, gres
