"""NET009: deleting the only leaf must not make a design look healthier (issue 21)."""

from __future__ import annotations

from rackdesigner.design.templates import NewOptions, build
from rackdesigner.edit import RemoveDevice, Session
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.document import loads
from tests.conftest import ROOT

LAYOUT = ROOT / "tests" / "rules" / "NET009" / "silent.toml"


def _warnings(session: Session) -> list[tuple[str, str]]:
    return sorted(
        (d.code, d.entity)
        for d in session.findings
        if d.severity == "warning" and not d.suppressed and d.code.startswith("NET")
    )


def test_deleting_the_only_leaf_raises_the_warning_count() -> None:
    """The issue's design: 32 GPUs for inference on one leaf (NET005 warns about the leaf;
    ``new`` builds two leaves by default since issue 21, so one is asked for here)."""
    built = build(NewOptions(gpus=32, workload="inference", redundant=False))
    session = Session(loads(dumps(built.layout)))
    before = _warnings(session)
    assert [code for code, _ in before] == ["NET005"]
    [leaf] = [d.id for _, d in session.layout.devices() if d.model == "qm9700"]
    session.do(RemoveDevice(leaf))
    after = _warnings(session)
    assert [code for code, _ in after] == ["NET009"] * 4  # one per DGX H100
    assert len(after) > len(before)


def test_each_uncabled_node_is_named_once() -> None:
    session = Session(loads(LAYOUT.read_text(encoding="utf-8")))
    assert [code for code, _ in _warnings(session) if code == "NET009"] == []
    session.do(RemoveDevice("a01-leaf"))
    named = [entity for code, entity in _warnings(session) if code == "NET009"]
    assert named == ["device a01-n01", "device a01-n02"]


def test_training_leaves_the_uncabled_node_to_net006() -> None:
    text = LAYOUT.read_text(encoding="utf-8").replace('kind = "inference"', 'kind = "training"')
    session = Session(loads(text))
    session.do(RemoveDevice("a01-leaf"))
    codes = {d.code for d in session.findings}
    assert "NET006" in codes and "NET009" not in codes


def test_one_gpu_node_alone_needs_no_fabric() -> None:
    text = LAYOUT.read_text(encoding="utf-8")
    session = Session(loads(text))
    session.do(RemoveDevice("a01-n02"))
    session.do(RemoveDevice("a01-leaf"))
    assert "NET009" not in {d.code for d in session.findings}
