"""Documents: a layout with its source map and origin; saving that never loses work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.document import (
    CommentsLostError,
    FileChangedError,
    load,
    loads,
    save,
)
from rackdesigner.model.layout import Device, Layout
from rackdesigner.model.refs import Ref
from tests.layout_io.test_reader import BASE


def test_the_model_holds_no_lines_and_no_origin() -> None:
    layout = loads(BASE).layout
    for entity in (layout, layout.racks[0], layout.racks[0].devices[0], layout.links[0]):
        assert not hasattr(entity, "line")
        assert not hasattr(entity, "origin")


def test_save_is_atomic_and_refuses_a_file_changed_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(BASE)
    document = load(path)
    save(document)
    assert path.read_text() == dumps(document.layout)
    assert [p.name for p in tmp_path.iterdir()] == ["layout.toml"]  # no temp file left
    # Someone else edits the file, keeping its size and time: the hash still tells.
    info = path.stat()
    path.write_text(path.read_text().replace('"test"', '"other"'))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    with pytest.raises(FileChangedError, match="changed on disk"):
        save(document)
    assert '"other"' in path.read_text()
    save(document, force=True)
    assert '"other"' not in path.read_text()


def test_save_refuses_a_removed_file_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(BASE)
    document = load(path)
    path.unlink()
    with pytest.raises(FileChangedError, match="was removed"):
        save(document)
    save(document, force=True)
    assert path.read_text() == dumps(document.layout)


def test_save_follows_a_symlink_instead_of_replacing_it(tmp_path: Path) -> None:
    real = tmp_path / "real.toml"
    real.write_text(BASE)
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    document = load(link)
    document.layout.name = "renamed"
    save(document)
    assert link.is_symlink()
    assert 'name = "renamed"' in real.read_text()
    assert document.path == str(link)


def test_save_refuses_to_drop_comments_in_place_but_not_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(BASE.replace('media = "dac"', 'media = "dac"  # keep me'))
    document = load(path)
    with pytest.raises(CommentsLostError, match=r"1 comment line of .* cannot be kept") as caught:
        save(document)
    assert caught.value.lines == (BASE.split("\n").index('media = "dac"') + 1,)
    assert "# keep me" in path.read_text()
    other = tmp_path / "copy.toml"
    save(document, other)  # the original keeps its comment: nothing is lost
    assert "# keep me" in path.read_text()
    assert document.dropped_comments == ()  # the document now is the canonical copy


def test_save_refreshes_the_source_map_from_the_text_written(tmp_path: Path) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(BASE)
    document = load(path)
    rack = document.layout.racks[0]
    rack.devices.insert(0, Device("a01-n00", "dgx-h100", 10))
    assert document.line(Ref("device", "a01-n00")) is None  # not in the text read
    assert document.line(Ref("device", "a01-n01")) == 13
    save(document)
    lines = path.read_text().split("\n")
    new = document.line(Ref("device", "a01-n00"))
    assert new is not None and lines[new] == 'id = "a01-n00"'
    moved = document.line(Ref("device", "a01-n01"))
    assert moved is not None and moved > new and lines[moved] == 'id = "a01-n01"'


def test_a_document_not_from_a_file_needs_a_path(tmp_path: Path) -> None:
    document = loads(BASE)
    with pytest.raises(ValueError, match="give a path"):
        save(document)
    save(document, tmp_path / "new.toml")
    assert load(tmp_path / "new.toml").layout == document.layout
    assert isinstance(document.layout, Layout)
