"""The layout's settings and a model's port groups as edit commands: every value through the
loader's own conversion, refusals that change nothing, and undo giving back the same text."""

from __future__ import annotations

import pytest

from rackdesigner.edit import (
    EditError,
    Session,
    SetDevicePorts,
    SetField,
    SetPortGroup,
    UpdateRules,
    UpdateThreshold,
)
from rackdesigner.layout_io import dumps, load_text
from rackdesigner.layout_io.document import load
from rackdesigner.model.diagnostics import LayoutError
from tests.conftest import ROOT

TEXT = """format = 1
name = "t"

[[racks]]
id = "a01"
row = "A"
slot = 1

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 2

[[racks.devices]]
id = "a01-n02"
model = "dgx-h100"
position = 10

[[racks.devices]]
id = "a01-leaf"
model = "qm8700"
position = 20

[[links]]
a = "a01-n01:ib8"
b = "a01-leaf:p1"
"""


def session() -> Session:
    return Session(load_text(TEXT))


def refused(s: Session, command: object) -> EditError:
    before, revision = dumps(s.layout), s.revision
    with pytest.raises(EditError) as caught:
        s.do(command)  # type: ignore[arg-type]
    assert dumps(s.layout) == before
    assert s.revision == revision
    return caught.value


def test_rules_select_and_ignore_are_read_as_the_loader_reads_them_and_undo_removes_the_table() -> (
    None
):
    s = session()
    before = dumps(s.layout)
    s.do(SetField(("layout", ""), "rules.ignore", "PLC006, STO"))
    assert s.layout.rules is not None and s.layout.rules.ignore == ["PLC006", "STO"]
    assert 'ignore = ["PLC006", "STO"]' in dumps(s.layout)
    s.undo()
    assert s.layout.rules is None and dumps(s.layout) == before
    # A TOML array is the same list; empty text removes the key.
    s.do(UpdateRules(select='["PWR", "COOL"]'))
    assert s.layout.rules.select == ["PWR", "COOL"]
    s.do(UpdateRules(select=""))
    assert s.layout.rules.select is None


def test_a_code_no_rule_matches_is_refused_like_the_file_would_be() -> None:
    error = refused(session(), UpdateRules(ignore="PWX001"))
    assert error.key == "ignore"
    assert "no rule matches 'PWX001'" in error.message
    error = refused(session(), SetField(("layout", ""), "rules.bogus", "x"))
    assert "has no field 'bogus'" in str(error)


def test_a_threshold_is_converted_by_the_loader_and_its_text_kept() -> None:
    s = session()
    before = dumps(s.layout)
    s.do(SetField(("layout", ""), "thresholds.cable_max", "7 m"))
    assert s.layout.rules is not None
    value = s.layout.rules.thresholds["cable_max"]
    assert float(value) == 7.0
    assert 'cable_max = "7 m"' in dumps(s.layout)
    s.do(UpdateThreshold("oversubscription_max_inference", "2.5"))
    assert s.layout.rules.thresholds["oversubscription_max_inference"] == 2.5
    # Empty text: back to the default (the key goes).
    s.do(UpdateThreshold("cable_max", ""))
    assert "cable_max" not in s.layout.rules.thresholds
    s.undo()
    s.undo()
    s.undo()
    assert dumps(s.layout) == before


@pytest.mark.parametrize(
    ("key", "text", "says"),
    [
        ("cable_max", "7 kW", "is a power"),
        ("cable_max", "-1 m", ""),
        ("oversubscription_max_training", "fast", "must be a number like"),
        ("feed_derate", "2", "must be at most 1"),
        ("cable_maxx", "7 m", "unknown threshold 'cable_maxx' (did you mean cable_max"),
    ],
)
def test_a_bad_threshold_gets_the_loaders_message(key: str, text: str, says: str) -> None:
    s = session()
    error = refused(s, SetField(("layout", ""), f"thresholds.{key}", text))
    assert says in error.message
    # The same message as a file with that value.
    if key in ("cable_max", "feed_derate"):
        shown = f'"{text}"' if " " in text else text
        with pytest.raises(LayoutError) as loaded:
            load_text(f'format = 1\nname = "x"\n[rules.thresholds]\n{key} = {shown}\n')
        assert error.message in str(loaded.value)


def test_workload_and_site_fields_of_the_settings_page_go_to_their_sections() -> None:
    s = session()
    s.do(SetField(("layout", ""), "workload.kind", "inference"))
    s.do(SetField(("layout", ""), "site.cooling_capacity", "300 kW"))
    s.do(SetField(("layout", ""), "name", "renamed"))
    assert s.layout.workload is not None and s.layout.workload.kind == "inference"
    assert s.layout.site is not None and float(s.layout.site.cooling_capacity) == 300e3
    assert s.layout.name == "renamed"
    error = refused(s, SetField(("layout", ""), "workload.kind", "serving"))
    assert "kind" in error.message and "inference" in error.message
    error = refused(s, SetField(("layout", ""), "site.power_budget", "40 A"))
    assert "is a current" in error.message


def test_a_port_group_is_set_on_the_model_in_the_layouts_catalog_and_undone() -> None:
    s = session()
    before = dumps(s.layout)
    s.do(SetField(("device", "a01-n01"), "ports.ib.speed", "200 Gbps"))
    entry = s.layout.catalog["dgx-h100"]
    ib = next(g for g in entry.ports or () if g.name == "ib")
    assert float(ib.speed or 0) == 200e9
    # Only ports are overridden: the built-in model keeps its other fields.
    assert entry.power is None and s.index.type_of(s.index.device("a01-n02")).power
    # Every device of the model: the other node's group is the same one.
    other = s.index.type_of(s.index.device("a01-n02")).port_group("ib")
    assert other is not None and float(other.speed or 0) == 200e9
    assert "[catalog.dgx-h100]" in dumps(s.layout)
    assert not [d for d in s.findings if d.code == "CAB004"]
    s.undo()
    assert dumps(s.layout) == before
    assert [d for d in s.findings if d.code == "CAB004"]


def test_port_group_refusals() -> None:
    s = session()
    assert "is a power" in refused(s, SetPortGroup("dgx-h100", "ib", speed="200 W")).message
    assert "tech" in refused(s, SetDevicePorts("a01-n01", "ib", tech="fibre")).message
    error = refused(s, SetPortGroup("dgx-h100", "ibb", speed="200 Gbps"))
    assert "no port group 'ibb' (did you mean ib" in error.message
    # A smaller count may not drop a cabled port.
    error = refused(s, SetPortGroup("dgx-h100", "ib", count="4"))
    assert "a01-n01:ib8 is cabled" in error.message
    s.do(SetPortGroup("dgx-h100", "ib", count="8", role="storage"))
    assert s.index.type_of(s.index.device("a01-n01")).port_group("ib").role == "storage"
    assert "missing key 'count'" in refused(s, SetPortGroup("dgx-h100", "ib", count="")).message


def test_a_layout_that_overrides_its_model_already_keeps_its_other_keys() -> None:
    s = Session(load(ROOT / "layouts" / "inference-32-b200.toml"))
    entry = s.layout.catalog["dgx-b200"]
    notes = entry.notes
    s.do(SetPortGroup("dgx-b200", "eth", speed="200 Gbps"))
    after = s.layout.catalog["dgx-b200"]
    assert after.notes == notes
    assert [g.name for g in after.ports or ()] == ["ib", "eth", "inband", "bmc"]
    s.undo()
    assert s.layout.catalog["dgx-b200"] is entry
