"""Imported device types into a catalog file: the user catalog, or a layout's ``[catalog]``.

What ``rackdesigner catalog import`` promises (docs/netbox.md, docs/reliability.md):

- the file is edited, not rewritten: its comments and other entries stay as they are
  (:func:`~rackdesigner.layout_io.catalog_edit.set_entries`), and the result must load
  (a user catalog as a catalog, a layout as a layout) before it is written, atomically;
- one import at a time: an advisory lock (``flock``) is held from reading the file to
  renaming the new one over it, on a lock file beside the user catalog (which may not
  exist yet) or on the layout itself (as the designer's and ``export --toml``'s saves
  take it); a program that does not lock and changes the file meanwhile is caught by a
  second read just before the rename, and nothing is written;
- a key that exists already, in the file or in a catalog it overrides (the built-in
  entries; for a layout also the user catalog), is refused with the reason unless
  ``replace``; a replacement is reported;
- an entry that overrides one of a catalog below never changes its kind (importing a
  file whose slug is ``dgx-h100`` cannot turn the DGX H100 into a switch): the kind is
  left out of the override, and the report says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from rackdesigner.layout_io.catalog import (
    Catalog,
    builtin,
    catalog_toml,
    installed,
    user_catalog_path,
)
from rackdesigner.layout_io.catalog_edit import CatalogEditError, set_entries
from rackdesigner.layout_io.reader import build_catalog, decode_text
from rackdesigner.layout_io.saving import SaveError, save_lock, write_atomic
from rackdesigner.layout_io.toml_parse import parse_toml
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.layout import DeviceType

__all__ = ["USER_HEADER", "CatalogImportError", "Refused", "Written", "write_entries"]


USER_HEADER = (
    "# rackdesigner user catalog: merged after the built-in entries and before a\n"
    "# layout's own. `rackdesigner catalog import` adds entries and keeps what else is\n"
    "# here; `rackdesigner catalog` shows each entry's origin.\n"
)


class CatalogImportError(Exception):
    """The target cannot be read, edited or written: nothing was written (exit 2)."""


@dataclass(frozen=True, slots=True)
class Written:
    entry: DeviceType  # as written (an override has no kind)
    replaced: str | None = None  # "overrides a built-in entry (NVIDIA DGX H100)", ...
    kind_kept: str | None = None  # an override's kind, kept from what it overrides


@dataclass(frozen=True, slots=True)
class Refused:
    entry: DeviceType
    file: str  # the file it came from
    reason: str


@dataclass(slots=True)
class _Target:
    path: Path
    raw: bytes | None  # the file's bytes as read (None: no file yet)
    text: str
    own: set[str]  # the keys the file itself has
    own_name: str  # "the user catalog", "the layout's [catalog]"
    below: Catalog  # what its entries override


def write_entries(
    entries: Sequence[tuple[DeviceType, str]], into: Path | None, *, replace_existing: bool
) -> tuple[str, list[Written], list[Refused]]:
    """Write ``entries`` (each with the file it came from) into the layout ``into``, or the
    user catalog; the path written, what was written and what was refused.
    :class:`CatalogImportError` when nothing could be written."""
    path = into if into is not None else user_catalog_path()
    with _locked(path, beside=into is None):
        target = _read(path, layout=into is not None)
        written: list[Written] = []
        refused: list[Refused] = []
        for entry, file in entries:
            outcome = _decide(entry, file, target, replace_existing)
            if isinstance(outcome, Written):
                written.append(outcome)
            else:
                refused.append(outcome)
        if written:
            _write(target, _edited(target, written, layout=into is not None))
    return str(path), written, refused


def _decide(
    entry: DeviceType, file: str, target: _Target, replace_existing: bool
) -> Written | Refused:
    key = entry.key
    lower = target.below.devices.get(key)
    below = f"a {target.below.origin(key)} entry ({lower.name or key})" if lower else ""
    mine = key in target.own
    if (mine or lower) and not replace_existing:
        where = " and ".join(x for x in (f"in {target.own_name}" if mine else "", below) if x)
        never = ", never its kind" if lower else ""
        return Refused(entry, file, f"{key!r} is already {where}; --replace replaces it{never}")
    if lower is None:
        return Written(entry, replaced=f"replaces its entry in {target.own_name}" if mine else None)
    # An override: its fields over the entry below, which keeps its kind.
    what = (
        f"replaces its entry in {target.own_name}, over {below}" if mine else f"overrides {below}"
    )
    kept = lower.kind if entry.kind is not None and entry.kind != lower.kind else None
    return Written(replace(entry, kind=None), replaced=what, kind_kept=kept)


def _edited(target: _Target, written: list[Written], *, layout: bool) -> str:
    texts = {w.entry.key: catalog_toml({w.entry.key: w.entry}) for w in written}
    try:
        text = set_entries(target.text or ("" if layout else USER_HEADER), texts)
    except CatalogEditError as error:
        raise CatalogImportError(f"{target.path}: {error}; nothing was written") from None
    try:  # what is written must load as what it is
        _load(text, target.path, layout=layout)
    except LayoutError as error:
        raise CatalogImportError(
            f"{target.path}: the imported entries would not load ({_first(error)}); nothing "
            "was written"
        ) from None
    return text


def _load(text: str, path: Path, *, layout: bool) -> set[str]:
    """The catalog keys of ``text``, a layout or a catalog file; LayoutError or a TOML
    syntax error (ValueError) when it is not one."""
    if layout:
        from rackdesigner.layout_io.document import loads

        return set(loads(text, file=str(path), lines_too=False).layout.catalog)
    return set(build_catalog(parse_toml(text), text, str(path))[0])


def _first(error: LayoutError) -> str:
    found = error.diagnostics[0] if error.diagnostics else None
    if found is None:
        return str(error)
    return f"line {found.line}: {found.text()}" if found.line else found.text()


def _read(path: Path, *, layout: bool) -> _Target:
    try:
        raw: bytes | None = path.read_bytes()
    except FileNotFoundError:
        if layout:
            raise CatalogImportError(f"{path}: no such layout") from None
        raw = None
    except OSError as error:
        raise CatalogImportError(f"{path}: {error.strerror or error}") from None
    what = "not a layout" if layout else "the user catalog is not valid, not changing it"
    try:
        text = decode_text(raw, str(path)) if raw is not None else ""
        own = _load(text, path, layout=layout)
    except LayoutError as error:
        raise CatalogImportError(f"{path}: {what}: {_first(error)}") from None
    except ValueError as error:  # TOML syntax
        raise CatalogImportError(f"{path}: {what}: {error}") from None
    if layout:
        return _Target(path, raw, text, own, f"the [catalog] of {path}", installed())
    return _Target(path, raw, text, own, "the user catalog", builtin())


@contextmanager
def _locked(path: Path, *, beside: bool) -> Iterator[None]:
    """Hold the import lock of ``path``: a lock file beside it (``beside``: the user
    catalog, which may not exist yet), else the file itself (a layout)."""
    lock = path.with_name(path.name + ".lock") if beside else path
    try:
        if beside:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(lock, os.O_CREAT | os.O_WRONLY, 0o644))
        with save_lock(lock):
            yield
    except SaveError as error:
        raise CatalogImportError(f"{error}; nothing was written") from None
    except OSError as error:
        raise CatalogImportError(
            f"{error.filename or path}: {error.strerror or error}; nothing was written"
        ) from None


def _write(target: _Target, text: str) -> None:
    """Write ``text`` over the target atomically, unless the file changed since it was read
    (a program that does not take the lock)."""

    def unchanged() -> None:
        try:
            now: bytes | None = target.path.read_bytes()
        except FileNotFoundError:
            now = None
        if now != target.raw:
            raise CatalogImportError(
                f"{target.path} changed while the entries were being imported; nothing was "
                "written (run the import again)"
            )

    write_atomic(target.path, text.encode("utf-8"), before_replace=unchanged)
