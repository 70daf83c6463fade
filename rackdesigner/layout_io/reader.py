"""Load a layout from TOML text: parse, check every key against the schema, build the model.

Every problem is collected as a diagnostic naming the entity, the key and the
line (E000 syntax, E001 schema, E002 units) and raised together in a
:class:`LayoutError`, so a user fixes a file in one pass, not one error a run.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.assets import (
    builtin_device_keys,
    builtin_device_kinds,
    builtin_power_models,
)
from rackdesigner.layout_io.linemap import LineMap, key_line, scan
from rackdesigner.layout_io.sources import placed
from rackdesigner.layout_io.toml_parse import TomlSyntaxError, parse_toml
from rackdesigner.layout_io.workload_keys import workload_problems
from rackdesigner.model import layout as m
from rackdesigner.model.diagnostics import Diagnostic, LayoutError
from rackdesigner.model.thresholds import THRESHOLDS
from rackdesigner.model.units import (
    DURATION,
    POWER,
    RATIO,
    TEMPERATURE,
    TEMPERATURE_DIFFERENCE,
    UnitError,
    parse,
    sci_text,
)

# The 100,000-GPU benchmark layout is about 15 MB; refuse what cannot be a layout before
# spending seconds and memory on it.
MAX_FILE_BYTES = int(os.environ.get("RACKDESIGNER_MAX_FILE_BYTES", 64 * 1024 * 1024))
MAX_ERRORS = 50


def read_text(path: str | os.PathLike[str]) -> tuple[str, os.stat_result]:
    name = str(path)
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise LayoutError([_e000(name, "no such file")]) from None
    except OSError as error:
        raise LayoutError([_e000(name, f"cannot read: {error.strerror}")]) from None
    if not Path(name).is_file():
        raise LayoutError([_e000(name, "not a file")])
    if info.st_size > MAX_FILE_BYTES:
        raise LayoutError(
            [
                _e000(
                    name,
                    f"the file is {info.st_size / 2**20:.1f} MiB, more than the "
                    f"{MAX_FILE_BYTES / 2**20:.0f} MiB a layout may be "
                    "(a 100,000-GPU layout is about "
                    "13 MiB); set RACKDESIGNER_MAX_FILE_BYTES to raise the limit",
                )
            ]
        )
    try:
        data = Path(name).read_bytes()
    except OSError as error:
        raise LayoutError([_e000(name, f"cannot read: {error.strerror}")]) from None
    return decode_text(data, name), info


def decode_text(data: bytes, name: str) -> str:
    """The text of a layout's bytes (UTF-8, a byte-order mark allowed), or an E000."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        before = data[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        raise LayoutError(
            [
                _e000(
                    name,
                    f"not UTF-8 text: byte 0x{data[error.start]:02x} at line {line}, column "
                    f"{column} cannot be decoded (TOML files must be UTF-8)",
                    line,
                    column,
                )
            ]
        ) from None
    return text


def _e000(file: str, message: str, line: int = 1, column: int = 0) -> Diagnostic:
    # A problem with the file as a whole is reported on its first line, so that every
    # diagnostic has a place CI annotations can point at.
    return Diagnostic("E000", "error", message, entity="file", file=file, line=line, column=column)


def load_path(path: str | os.PathLike[str]) -> m.Layout:
    """The layout in the file at ``path`` (:func:`rackdesigner.layout_io.document.load`
    keeps its lines and origin too)."""
    text, _ = read_text(path)
    layout, _ = load_text_with_map(text, file=str(path))
    return layout


def load_text(text: str, *, file: str = "<text>") -> m.Layout:
    layout, _ = load_text_with_map(text, file=file)
    return layout


def load_text_with_map(
    text: str,
    *,
    file: str = "<text>",
    timings: dict[str, float] | None = None,
    lines_too: bool = True,
) -> tuple[m.Layout, LineMap]:
    """The layout in ``text`` and where its entities are (its comments attached, the
    lines of those a rewrite would drop in ``LineMap.dropped_comments``). Without
    ``lines_too`` the text is not scanned for lines and comments (a fifth of a load on a
    large file): no entity has a line or a comment, and errors name line 1."""
    began = time.perf_counter()
    try:
        data = parse_toml(text)
    except TomlSyntaxError as error:
        raise LayoutError(
            [
                Diagnostic(
                    "E000",
                    "error",
                    f"TOML syntax: {error.message} (line {error.line}, column {error.column})",
                    file=file,
                    line=error.line,
                    column=error.column,
                )
            ]
        ) from None
    parsed = time.perf_counter()
    lines = scan(text) if lines_too else LineMap()
    builder = _Builder(text, lines, file)
    layout = builder.layout(data)
    if timings is not None:
        timings["parse"] = timings.get("parse", 0.0) + parsed - began
        timings["model"] = timings.get("model", 0.0) + time.perf_counter() - parsed
    if builder.errors:
        raise LayoutError(builder.errors[:MAX_ERRORS])
    assert layout is not None
    if lines.comments or lines.trailing_comments:
        lines.dropped_comments = tuple(_attach_comments(layout, lines))
    return layout, lines


def _attach_comments(layout: m.Layout, lines: LineMap) -> list[int]:
    """Keep the header comment and comments directly above a table; return the rest's lines."""
    comments = lines.comments
    used: set[int] = set()
    number = 1
    header: list[str] = []
    while number in comments:
        header.append(comments[number])
        used.add(number)
        number += 1
    if header:
        layout.comment = "\n".join(header)
    for entity, line in placed(layout, lines):
        # An entity without a header line of its own (an inline device, a section written
        # as a dotted key) has no comment to keep: placed() gives it line 0 or its parent's.
        number = line - 1
        block: list[str] = []
        while number in comments and number not in used:
            block.append(comments[number])
            used.add(number)
            number -= 1
        if block:
            entity.comment = "\n".join(reversed(block))
    return sorted((set(comments) - used) | set(lines.trailing_comments))


class _Stop(Exception):
    """Too many errors to be worth reading on."""


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _shown(value: object) -> str:
    text = f'"{value}"' if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _suggest(key: str, allowed: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _Builder:
    def __init__(self, text: str, lines: LineMap, file: str):
        self.text = text
        self.map = lines
        self.file = file
        self.errors: list[Diagnostic] = []
        self._text_lines: list[str] | None = None
        self._converters: dict[int, dict[str, tuple[s.Field, Callable[[Any], Any]]]] = {}
        self._loop_keys: list[set[str]] = []  # (v1.4) each loop's keys as written
        self._channels = False  # a link names panels or transceivers (v1.4)

    # -- errors ------------------------------------------------------------------------------

    def error(
        self,
        code: str,
        entity: str,
        message: str,
        line: int,
        key: str | None = None,
        hint: str | None = None,
    ) -> None:
        if key and line:
            if self._text_lines is None:
                self._text_lines = self.text.split("\n")
            line = key_line(self._text_lines, line, key)
        self.errors.append(
            Diagnostic(code, "error", message, entity=entity, line=line, file=self.file, hint=hint)
        )
        if len(self.errors) >= MAX_ERRORS:
            raise _Stop

    # -- conversion --------------------------------------------------------------------------

    def table(self, value: object, entity: str, line: int, key: str) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.error("E001", entity, f"'{key}' must be a table, got {_type_name(value)}", line, key)
        return None

    def fields(
        self,
        spec: tuple[s.Field, ...],
        data: dict[str, Any],
        entity: str,
        line: int,
        skip: tuple[str, ...] = (),
        partial: bool = False,
    ) -> dict[str, Any]:
        """Convert ``data``'s keys by ``spec``; return attribute values (nested tables skipped)."""
        converters = self._converters.get(id(spec))
        if converters is None:
            converters = {f.key: (f, _converter(f)) for f in spec}
            self._converters[id(spec)] = converters
        out: dict[str, Any] = {}
        for key, value in data.items():
            entry = converters.get(key)
            if entry is None:
                if key not in skip:
                    where = self.map.tables.get(key, line) if isinstance(value, dict) else line
                    self.error(
                        "E001",
                        entity,
                        f"unknown key '{key}'{_suggest(key, [*converters, *skip])}",
                        where,
                        key,
                    )
                continue
            field, convert = entry
            if field.kind in ("table", "tables"):
                continue
            try:
                out[key] = convert(value)
            except UnitError as error:
                self.error("E002", entity, f"{key} {error}", line, key)
            except _Implausible as problem:
                self.error("E002", entity, f"{key} {problem}", line, key)
            except _ValueProblem as problem:
                self.error("E001", entity, f"{key} {problem}", line, key)
        if not partial:
            for field in spec:
                if field.required and field.key not in data:
                    self.error("E001", entity, f"missing key '{field.key}' ({field.doc})", line)
        return out

    def tables(self, value: object, entity: str, line: int, key: str) -> list[dict[str, Any]]:
        if isinstance(value, list) and all(isinstance(item, dict) for item in value):
            return value
        self.error(
            "E001",
            entity,
            f"'{key}' must be an array of tables, got {_type_name(value)}",
            line,
            key,
        )
        return []

    # -- entities ----------------------------------------------------------------------------

    def layout(self, data: dict[str, Any]) -> m.Layout | None:
        try:
            return self._layout(data)
        except _Stop:
            return None

    def _layout(self, data: dict[str, Any]) -> m.Layout | None:
        version = self.format_version(data.get("format"))
        if version is None:
            return None
        top = self.fields(s.TOP, data, "layout", 1, skip=s.TOP_TABLES)
        layout = m.Layout(
            name=top.get("name", ""),
            format=version,
            description=top.get("description"),
            revision=top.get("revision"),
            notes=top.get("notes"),
        )
        for key, read in _TABLE_READERS:
            if key in data:
                read(self, data[key], layout)
        self.plant(data, layout)
        self.check_pdu_feeds(layout)
        if layout.power_elements or any(f.source for r in layout.racks for f in r.feeds):
            self.check_power_chain(layout)
        self.check_cooling(layout)
        return layout

    def format_version(self, version: object) -> int | None:
        """The layout's ``format``, or None (and the error) where this reader cannot read
        the file: the key missing, not an integer, newer than this reader or below 1."""
        current = m.FORMAT_VERSION
        if version is None:
            self.error(
                "E001",
                "layout",
                f"missing key 'format' (this rackdesigner reads format "
                f"{current}: add `format = {current}` at the top)",
                1,
            )
            return None
        if not isinstance(version, int) or isinstance(version, bool):
            self.error(
                "E001", "layout", f"format must be an integer, got {_shown(version)}", 1, "format"
            )
            return None
        if version > current:
            message = (
                f"format {version} is newer than this rackdesigner "
                f"reads (format {current}); upgrade rackdesigner"
            )
        elif version < 1:
            message = f"format {version} does not exist; the current format is {current}"
        else:
            return version
        self.error("E001", "layout", message, 1, "format")
        return None

    # -- the top-level tables, each read by one method (_TABLE_READERS: in file-format order)

    def read_site(self, value: object, layout: m.Layout) -> None:
        if (site := self.table(value, "[site]", 1, "site")) is not None:
            line = self.map.tables.get("site", 1)
            layout.site = m.Site(**self.fields(s.SITE, site, "[site]", line))

    def read_workload(self, value: object, layout: m.Layout) -> None:
        if (work := self.table(value, "[workload]", 1, "workload")) is None:
            return
        line = self.map.tables.get("workload", 1)
        values = self.fields(s.WORKLOAD, work, "[workload]", line)
        for key, message, hint in workload_problems(values):
            self.error("E001", "[workload]", message, line, key, hint)
        layout.workload = m.Workload(**values)

    def read_rules(self, value: object, layout: m.Layout) -> None:
        if (rules := self.table(value, "[rules]", 1, "rules")) is not None:
            layout.rules = self.rules(rules)

    def read_meta(self, value: object, layout: m.Layout) -> None:
        layout.meta = self.table(value, "[meta]", 1, "meta")

    def read_gpus(self, value: object, layout: m.Layout) -> None:
        if not (gpus := self.table(value, "[gpus]", 1, "gpus")):
            return
        for key, entry in gpus.items():
            line = self.map.gpus.get(key, 1)
            entity = f"GPU {key}"
            if (table := self.table(entry, entity, line, key)) is not None:
                layout.gpus[key] = m.Gpu(key, **self.fields(s.GPU, table, entity, line))

    def read_catalog(self, value: object, layout: m.Layout) -> None:
        if not (catalog := self.table(value, "[catalog]", 1, "catalog")):
            return
        known = builtin_device_keys()
        for key, entry in catalog.items():
            line = self.map.catalog.get(key, 1)
            if (table := self.table(entry, f"catalog entry {key}", line, key)) is None:
                continue
            layout.catalog[key] = self.device_type(key, table, line)
            if "kind" not in table and key not in known:
                # Only an entry that overrides a built-in one may leave kind out.
                self.error(
                    "E001",
                    f"catalog entry {key}",
                    f"missing key 'kind' ({key} is not a built-in model, so it "
                    f"needs one of {' | '.join(m.DEVICE_KINDS)})",
                    line,
                )

    def read_power(self, value: object, layout: m.Layout) -> None:
        if power := self.table(value, "[power]", 1, "power"):
            self.power(power, layout)

    def read_cooling(self, value: object, layout: m.Layout) -> None:
        if cooling := self.table(value, "[cooling]", 1, "cooling"):
            self.cooling(cooling, layout)

    def read_racks(self, value: object, layout: m.Layout) -> None:
        for index, rack in enumerate(self.tables(value, "layout", 1, "racks")):
            layout.racks.append(self.rack(index, rack))

    def read_links(self, value: object, layout: m.Layout) -> None:
        link_lines = self.map.links
        known_lines = len(link_lines)
        append = layout.links.append
        Link = m.Link
        for index, table in enumerate(self.tables(value, "layout", 1, "links")):
            # Fast path for the common shape; anything unusual goes through the checks.
            if table.keys() <= _SIMPLE_LINK_KEYS:
                a, b, media = table.get("a"), table.get("b"), table.get("media")
                # A port reference "device:group7"; checked inline, once per cable.
                if (
                    type(a) is str
                    and type(b) is str
                    and ":" in a
                    and ":" in b
                    and a[-1:].isdigit()
                    and b[-1:].isdigit()
                    and a[0] != ":"
                    and b[0] != ":"
                    and (media is None or (type(media) is str and media in _MEDIA))
                ):
                    append(Link(a, b, media))
                    continue
            self.link(table, index, link_lines[index] if index < known_lines else 0, layout)

    def link(self, table: dict[str, Any], index: int, line: int, layout: m.Layout) -> None:
        """A link off the fast path: every key converted and checked."""
        entity = _link_entity(table, index)
        values = self.fields(s.LINK, table, entity, line)
        if "grade" in values:
            self.check_grade(values, entity, line)
        if "a" in values and "b" in values:
            layout.links.append(m.Link(**values))
            if _CHANNEL_KEYS & values.keys():
                self._channels = True

    def power(self, data: dict[str, Any], layout: m.Layout) -> None:
        """(v1.4) ``[[power.elements]]``: the power chain's elements, in file order."""
        line = self.map.tables.get("power", 1)
        self.fields(s.POWER_TABLE, data, "[power]", line)
        lines = self.map.power_elements
        for index, table in enumerate(
            self.tables(data.get("elements", []), "[power]", line, "elements")
        ):
            eline = LineMap.entity(lines, index) or line
            element_id = table.get("id")
            entity = f"power element {element_id if isinstance(element_id, str) else index + 1}"
            values = self.fields(s.ELEMENT, table, entity, eline)
            if "id" in values:
                layout.power_elements.append(m.PowerElement(**values))

    def check_power_chain(self, layout: m.Layout) -> None:
        """(v1.4) The chain's shape: known ids, no cycle, nothing left hanging, keys that fit
        each kind, models the power catalog has (docs/power-chain.md, Errors)."""
        from rackdesigner.layout_io.power_checks import chain_problems

        element_lines = self.map.power_elements
        feed_lines = self.map.feeds
        for problem in chain_problems(layout, builtin_power_models()):
            if problem.feed is not None:
                rack_index, feed_index = problem.feed
                rack_lines = feed_lines[rack_index] if rack_index < len(feed_lines) else []
                line = LineMap.entity(rack_lines, feed_index) or LineMap.entity(
                    self.map.racks, rack_index
                )
            else:
                line = LineMap.entity(element_lines, problem.element)
            self.error("E001", problem.entity, problem.message, line, problem.key, problem.hint)

    def cooling(self, data: dict[str, Any], layout: m.Layout) -> None:
        """(v1.4) ``[[cooling.loops]]``: the water loops, in file order."""
        line = self.map.tables.get("cooling", 1)
        self.fields(s.COOLING, data, "[cooling]", line)
        lines = self.map.cooling_loops
        for index, table in enumerate(
            self.tables(data.get("loops", []), "[cooling]", line, "loops")
        ):
            lline = LineMap.entity(lines, index) or line
            loop_id = table.get("id")
            entity = f"loop {loop_id if isinstance(loop_id, str) else index + 1}"
            values = self.fields(s.LOOP, table, entity, lline)
            if "id" in values:
                layout.cooling_loops.append(m.CoolingLoop(**values))
                self._loop_keys.append(set(table))

    def check_cooling(self, layout: m.Layout) -> None:
        """(v1.4) The loops' own keys, and the devices that name one: known ids, keys that
        fit the device's kind (docs/liquid-cooling.md, Errors)."""
        from rackdesigner.layout_io.cooling_checks import loop_problems

        for problem in loop_problems(layout, builtin_device_kinds, self._loop_keys):
            if problem.device is not None:
                rack_index, device_index = problem.device
                lines = self.map.devices[rack_index] if rack_index < len(self.map.devices) else []
                line = LineMap.entity(lines, device_index)
            else:
                line = LineMap.entity(self.map.cooling_loops, problem.loop)
            self.error("E001", problem.entity, problem.message, line, problem.key, problem.hint)

    def plant(self, data: dict[str, Any], layout: m.Layout) -> None:
        """(v1.4) The cable plant's tables, and whether they hold together (plant_checks)."""
        if "transceivers" in data and (
            parts := self.table(data["transceivers"], "[transceivers]", 1, "transceivers")
        ):
            for key, value in parts.items():
                line = self.map.transceivers.get(key, 1)
                entity = f"transceiver {key}"
                if (table := self.table(value, entity, line, key)) is not None:
                    values = self.fields(s.TRANSCEIVER, table, entity, line)
                    layout.transceivers[key] = m.Transceiver(key, **values)
        for name, spec, lines, make in (
            ("pathways", s.PATHWAY, self.map.pathways, m.Pathway),
            ("trunks", s.TRUNK, self.map.trunks, m.Trunk),
        ):
            if name not in data:
                continue
            target = getattr(layout, name)
            for index, table in enumerate(self.tables(data[name], "layout", 1, name)):
                line = LineMap.entity(lines, index)
                ident = table.get("id")
                what = name[:-1]
                entity = f"{what} {ident}" if isinstance(ident, str) else f"{what} #{index + 1}"
                values = self.fields(spec, table, entity, line)
                if "id" in values and (make is m.Pathway or ("a" in values and "b" in values)):
                    target.append(make(**values))
        if layout.pathways or layout.trunks or layout.transceivers or self._channels:
            from rackdesigner.layout_io.plant_checks import plant_problems

            for problem in plant_problems(layout, self.map):
                self.error(
                    "E001", problem.entity, problem.message, problem.line, problem.key, problem.hint
                )

    def check_grade(self, values: dict[str, Any], entity: str, line: int) -> None:
        """A fibre grade needs the fibre it grades: om3-om5 multimode, os2 single-mode."""
        grade, media = values["grade"], values.get("media")
        allowed = s.GRADES_BY_MEDIA.get(media or "")
        if allowed is not None and grade in allowed:
            return
        if allowed is None:
            what = f'media = "{media}"' if media else "no media"
            message = f"grade {grade} is a fibre grade, but the link has {what}"
            hint = 'use grade with media = "mmf" (om3 | om4 | om5) or "smf" (os2)'
        else:
            message = f"grade {grade} does not fit {media} (use {' | '.join(allowed)})"
            hint = None
        self.error("E001", entity, message, line, "grade", hint)

    def check_pdu_feeds(self, layout: m.Layout) -> None:
        """A device's ``feed`` is for PDUs, and names a feed of its own rack."""
        builtin_types = None
        for rack_index, rack in enumerate(layout.racks):
            feed_ids = None
            lines = self.map.devices[rack_index] if rack_index < len(self.map.devices) else []
            for device_index, device in enumerate(rack.devices):
                if device.feed is None:
                    continue
                line = LineMap.entity(lines, device_index)
                dtype = layout.catalog.get(device.model)
                kind = dtype.kind if dtype is not None else None
                if kind is None:
                    if builtin_types is None:
                        builtin_types = builtin_device_kinds()
                    kind = builtin_types.get(device.model)
                entity = f"device {device.id}"
                if kind is not None and kind != "pdu":
                    self.error(
                        "E001",
                        entity,
                        f"feed is a key of PDUs only; {device.model} is a {kind}",
                        line,
                        "feed",
                        "remove feed, or use a model of kind pdu",
                    )
                    continue
                if feed_ids is None:
                    feed_ids = [f.id for f in rack.feeds]
                if device.feed not in feed_ids:
                    known_ids = ", ".join(feed_ids) if feed_ids else "none"
                    self.error(
                        "E001",
                        entity,
                        f'feed = "{device.feed}" names no feed of rack {rack.id} '
                        f"(its feeds: {known_ids}){_suggest(device.feed, feed_ids)}",
                        line,
                        "feed",
                    )

    def rules(self, data: dict[str, Any]) -> m.RulesConfig:
        tables = self.map.tables
        line = tables.get("rules") or tables.get("rules.thresholds") or 1
        values = self.fields(s.RULES, data, "[rules]", line)
        config = m.RulesConfig(**values)
        # Whether a code names a rule is the rules' business (check/rule_codes.py);
        # the loader imports no rule.
        thresholds = data.get("thresholds")
        if thresholds is None:
            return config
        tline = self.map.tables.get("rules.thresholds", line)
        entity = "[rules.thresholds]"
        if (table := self.table(thresholds, entity, tline, "thresholds")) is None:
            return config
        for key, value in table.items():
            threshold = THRESHOLDS.get(key)
            if threshold is None:
                self.error(
                    "E001",
                    entity,
                    f"unknown threshold '{key}'{_suggest(key, THRESHOLDS)}",
                    tline,
                    key,
                )
                continue
            try:
                if threshold.dim is None:
                    if isinstance(value, bool) or not isinstance(value, int | float):
                        raise _ValueProblem(
                            f"must be a number like {threshold.default_text}, got {_shown(value)}"
                        )
                    if not math.isfinite(value) or value < 0:
                        raise _ValueProblem(f"must be a finite number ≥ 0, got {_shown(value)}")
                    config.thresholds[key] = value
                else:
                    number = parse(value, threshold.dim)
                    config.thresholds[key] = (
                        m.Q(number, value) if isinstance(value, str) else number
                    )
                number = float(config.thresholds[key])
                if threshold.positive and number <= 0:
                    del config.thresholds[key]
                    raise _ValueProblem(f"must be more than 0, got {_shown(value)}")
                if threshold.maximum is not None and number > threshold.maximum:
                    del config.thresholds[key]
                    raise _ValueProblem(
                        f"must be at most {threshold.maximum:g}, got {_shown(value)}"
                    )
            except UnitError as error:
                self.error("E002", entity, f"{key} {error}", tline, key)
            except _ValueProblem as problem:
                self.error("E001", entity, f"{key} {problem}", tline, key)
        return config

    def device_type(
        self, key: str, data: dict[str, Any], line: int, partial: bool = False
    ) -> m.DeviceType:
        entity = f"catalog entry {key}"
        values = self.fields(s.DEVICE_TYPE, data, entity, line, partial=partial)
        if "ports" in data:
            lines = self.map.ports.get(key, [])
            values["ports"] = [
                self.port_group(entity, table, lines[number] if number < len(lines) else line)
                for number, table in enumerate(self.tables(data["ports"], entity, line, "ports"))
            ]
        if "input_voltage" in values:
            low, high = values["input_voltage"]
            if low > high:
                self.error(
                    "E001", entity, "input_voltage must be [lowest, highest]", line, "input_voltage"
                )
        return m.DeviceType(key, **values)

    def port_group(self, entity: str, data: dict[str, Any], line: int) -> m.PortGroup:
        group = f"{entity} port group {data.get('name', '?')}"
        values = self.fields(s.PORT, data, group, line)
        name = values.get("name")
        if name is not None and (not name or name[-1].isdigit() or ":" in name):
            # Links name ports "<group><index>": a group "eth0" could never be told apart.
            self.error(
                "E001",
                group,
                f"port group name {name!r} must not be empty, end in a "
                "digit or contain ':' (ports are named NAME1..NAMEcount)",
                line,
                "name",
            )
        return m.PortGroup(**{"name": "?", "count": 0, **values})

    def rack(self, index: int, data: dict[str, Any]) -> m.Rack:
        line = LineMap.entity(self.map.racks, index)
        rack_id = data.get("id")
        entity = f"rack {rack_id}" if isinstance(rack_id, str) else f"rack #{index + 1}"
        values = self.fields(s.RACK, data, entity, line)
        rack = m.Rack(**{"id": "?", **values})
        feeds = self.tables(data.get("feeds", []), entity, line, "feeds")
        feed_lines = self.map.feeds[index] if index < len(self.map.feeds) else []
        self.rack_feeds(rack, feeds, entity, feed_lines, line)
        devices = self.tables(data.get("devices", []), entity, line, "devices")
        device_lines = self.map.devices[index] if index < len(self.map.devices) else []
        self.rack_devices(rack, devices, entity, device_lines, line)
        return rack

    def rack_feeds(
        self,
        rack: m.Rack,
        feeds: list[dict[str, Any]],
        entity: str,
        lines: list[int],
        line: int,
    ) -> None:
        """The rack's feeds; ``lines`` where each was read (``line``, the rack's, where the
        map has none)."""
        for number, table in enumerate(feeds):
            fline = LineMap.entity(lines, number) or line
            feed_id = table.get("id")
            fentity = f"{entity} feed {feed_id if isinstance(feed_id, str) else number + 1}"
            fvalues = self.fields(s.FEED, table, fentity, fline)
            if "phases" in fvalues and "voltage" in fvalues and "current" in fvalues:
                rack.feeds.append(m.Feed(**{"id": "?", **fvalues}))

    def rack_devices(
        self,
        rack: m.Rack,
        devices: list[dict[str, Any]],
        entity: str,
        lines: list[int],
        line: int,
    ) -> None:
        """The rack's devices, the common shape (id, model, position, ignore) checked
        inline: a 100,000-GPU layout has 12,500 of them."""
        known = len(lines)
        append = rack.devices.append
        for number, table in enumerate(devices):
            # Fast path for the common shape; anything unusual goes through the checks.
            if table.keys() <= _SIMPLE_DEVICE_KEYS:
                device_id, model, position, ignore = (
                    table.get("id"),
                    table.get("model"),
                    table.get("position"),
                    table.get("ignore"),
                )
                if (
                    type(device_id) is str
                    and type(model) is str
                    and _is_id(device_id)
                    and model.strip()
                    and (position is None or (type(position) is int and 1 <= position <= 100))
                    and (ignore is None or _known_codes(ignore))
                ):
                    append(m.Device(device_id, model, position, ignore=ignore))
                    continue
            device_id = table.get("id")
            dentity = (
                f"device {device_id}"
                if isinstance(device_id, str)
                else f"{entity} device #{number + 1}"
            )
            dline = lines[number] if number < known else line
            dvalues = self.fields(s.DEVICE, table, dentity, dline)
            if "id" in dvalues and "model" in dvalues:
                append(m.Device(**dvalues))


# The layout's top-level tables in the order they are read (and their errors reported);
# the cable plant's tables are read after these, with the checks that need every rack.
_TABLE_READERS: tuple[tuple[str, Callable[[_Builder, object, m.Layout], None]], ...] = (
    ("site", _Builder.read_site),
    ("workload", _Builder.read_workload),
    ("rules", _Builder.read_rules),
    ("meta", _Builder.read_meta),
    ("gpus", _Builder.read_gpus),
    ("catalog", _Builder.read_catalog),
    ("power", _Builder.read_power),
    ("cooling", _Builder.read_cooling),
    ("racks", _Builder.read_racks),
    ("links", _Builder.read_links),
)
_SIMPLE_LINK_KEYS = frozenset(("a", "b", "media"))
# (v1.4) A link's keys that tie it to the cable plant: checked with it (plant_checks).
_CHANNEL_KEYS = frozenset(("via", "trunk", "a_transceiver", "b_transceiver"))
_MEDIA = frozenset(m.MEDIA)
# 12,500 GPU nodes may each carry the same ignore key: it stays on the fast path.
_SIMPLE_DEVICE_KEYS = frozenset(("id", "model", "position", "ignore"))
_is_id = s.ID.match
_id_whole = s.ID.fullmatch


def _id_problem(value: str) -> str | None:
    """Why ``value`` cannot be an id (layout-format.md v1.1), or None."""
    if _id_whole(value):  # the common case at C speed: every device and feed has an id
        return None
    if not value:
        return "must not be empty"
    if any(ch.isspace() for ch in value):
        return f"must not contain whitespace, got {_shown(value)}"
    if ":" in value:
        return (
            f"must not contain ':', got {_shown(value)} (a link names a port as "
            '"<device id>:<port>", so such a device could never be cabled)'
        )
    if len(value) > 64:
        return f"must be at most 64 characters, got {len(value)} ({_shown(value)})"
    if not _is_id(value):
        return f"must not contain control characters, got {_shown(value)}"
    return None


def _link_entity(table: dict[str, Any], index: int) -> str:
    a, b = table.get("a"), table.get("b")
    if isinstance(a, str) and isinstance(b, str):
        return f"link {a} -> {b}"
    return f"link #{index + 1}"


class _ValueProblem(ValueError):
    pass


class _Implausible(_ValueProblem):
    """A value beyond a field's plausibility bound (``Field.implausible``): E002."""


def _check_plausible(field: s.Field, number: float, value: object, unit: str = "") -> None:
    if field.implausible is not None and number > field.implausible:
        raise _Implausible(
            f"{_shown(value)} is implausible: more than {field.implausible:,g}"
            f"{' ' + unit if unit else ''} (a typo? the schema bounds it)"
        )


def _known_codes(value: object) -> bool:
    """An ignore key the fast path may take as it is: an array of strings. Whether they
    name rules is checked after loading (check/rule_codes.py): the loader imports no
    rule."""
    return type(value) is list and all(type(v) is str for v in value)


_COUNT_WORD = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMbBtT])\s*$")
_COUNT_SCALE = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def _count_hint(value: object) -> str:
    """For a count written as people say it ("70B"): the number to write instead."""
    match = _COUNT_WORD.match(value) if isinstance(value, str) else None
    if match is None:
        return ": write the count as a number, e.g. 70e9"
    number = float(match[1]) * _COUNT_SCALE[match[2].lower()]
    return f": write {sci_text(number)} (a plain number, not a string)"


# Why a pattern-checked string is refused (feed sides are the only such strings so far).
_PATTERN_WHY = " (1-8 letters, digits, '-' or '_')"


def _converter(field: s.Field) -> Callable[[Any], Any]:
    """The function that converts a TOML value for ``field`` by its kind (_CONVERTERS), to
    the model's value; it raises UnitError or _ValueProblem with the loader's message."""
    return _CONVERTERS[field.kind](field)


def _unchanged(value: Any) -> Any:
    return value  # a nested table: read by its own method


def _str_converter(field: s.Field) -> Callable[[Any], Any]:
    """A string; a link end, an id, a model, a host name or a patterned key checked as such."""

    def convert_str(value: Any) -> str:
        if type(value) is not str:
            raise _ValueProblem(f"must be a string, got {_type_name(value)} ({_shown(value)})")
        if field.key in ("a", "b") and field.pattern is not None:  # a link's ends
            device, _, port = value.partition(":")
            if not device or not port or not port[-1].isdigit():
                raise _ValueProblem(
                    f'"{value}" is not a port reference '
                    '"<device id>:<port group><index>", e.g. "a01-n01:ib1"'
                )
        elif field.key == "id":
            problem = _id_problem(value)
            if problem:
                raise _ValueProblem(problem)
        elif field.key == "model" and not value.strip():
            raise _ValueProblem("must not be empty")
        elif field.key == "hostname" and not s.HOSTNAME.match(value):
            if len(value) > s.HOSTNAME_MAX:
                raise _ValueProblem(
                    f"{_shown(value)} has {len(value)} characters; a host name has at "
                    f"most {s.HOSTNAME_MAX} (Slurm's limit)"
                )
            raise _ValueProblem(
                f"{_shown(value)} is not a host name: labels of letters, digits, '-' "
                "and '_' separated by dots, each starting and ending with a letter or digit"
            )
        elif pattern is not None and not pattern.match(value):
            raise _ValueProblem(f"{_shown(value)} must match {field.pattern}{_PATTERN_WHY}")
        return value

    # Port names and link ends say what is wrong with them in their own words.
    pattern = (
        re.compile(field.pattern)
        if field.pattern is not None and field.key not in ("a", "b", "name")
        else None
    )
    return convert_str


def _int_converter(field: s.Field) -> Callable[[Any], Any]:
    """An integer within the field's bounds."""

    def convert_int(value: Any) -> int:
        if type(value) is not int:
            raise _ValueProblem(f"must be an integer, got {_type_name(value)} ({_shown(value)})")
        if field.minimum is not None and value < field.minimum:
            raise _ValueProblem(f"must be at least {field.minimum:g}, got {value}")
        if field.maximum is not None and value > field.maximum:
            raise _ValueProblem(f"must be at most {field.maximum:g}, got {value}")
        _check_plausible(field, value, value)
        return value

    return convert_int


def _number_converter(field: s.Field) -> Callable[[Any], Any]:
    """A finite number (int or float) within the field's bounds."""

    def convert_number(value: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _ValueProblem(
                f"must be a number, got {_type_name(value)} ({_shown(value)})"
                + (_count_hint(value) if field.sci else "")
            )
        if not math.isfinite(value):
            raise _ValueProblem(f"must be finite, got {value}")
        if field.minimum is not None and value < field.minimum:
            raise _ValueProblem(f"must be at least {field.minimum:g}, got {value}")
        if field.maximum is not None and value > field.maximum:
            raise _ValueProblem(f"must be at most {field.maximum:g}, got {value:g}")
        _check_plausible(field, value, value)
        return value

    return convert_number


def _bool_converter(field: s.Field) -> Callable[[Any], Any]:
    """true or false."""

    def convert_bool(value: Any) -> bool:
        if type(value) is not bool:
            raise _ValueProblem(f"must be true or false, got {_shown(value)}")
        return value

    return convert_bool


def _enum_converter(field: s.Field) -> Callable[[Any], Any]:
    """One of the field's choices."""
    choices = field.choices
    shown = " | ".join(str(c) for c in choices)

    def convert_enum(value: Any) -> Any:
        if value not in choices or type(value) is bool:
            near = _suggest(str(value), [str(c) for c in choices])
            raise _ValueProblem(f"must be one of {shown}, got {_shown(value)}{near}")
        return value

    return convert_enum


def _quantity_converter(field: s.Field) -> Callable[[Any], Any]:
    """A quantity of the field's dimension ("63 A", or a number in its SI unit), within its
    bounds."""
    dim = field.dim
    assert dim is not None

    def convert_quantity(value: Any) -> float:
        number = parse(value, dim)
        if field.minimum is not None and number < field.minimum:
            raise _ValueProblem(
                f"must be at least {field.minimum:g}"
                f"{' ' + dim.unit if dim.unit else ''}, got {_shown(value)}"
            )
        if field.maximum is not None and number > field.maximum:
            raise _ValueProblem(f"must be at most {field.maximum:g}, got {_shown(value)}")
        if field.positive and number <= 0:
            raise _ValueProblem(f"must be more than 0, got {_shown(value)}")
        _check_plausible(field, number, value, dim.unit)
        if dim is TEMPERATURE and not s.COOLANT_MIN_C <= number < s.COOLANT_MAX_C:
            raise _Implausible(
                f"{_shown(value)} is not a plausible coolant temperature: below "
                f"{s.COOLANT_MIN_C:g} °C even PG25 is ice, at {s.COOLANT_MAX_C:g} °C "
                "water boils (a unit or a typo?)"
            )
        if field.whole and number != int(number):
            raise _ValueProblem(
                f"must be a whole number of rack units, got {_shown(value)} ({number:g} U)"
            )
        return m.Q(number, value) if isinstance(value, str) else value

    return convert_quantity


def _str_or_list_converter(field: s.Field) -> Callable[[Any], Any]:
    """A device id or a non-empty array of them."""

    def convert_str_or_list(value: Any) -> str | list[str]:
        if type(value) is str:
            if not value.strip():
                raise _ValueProblem("must not be empty")
            return value
        if isinstance(value, list) and value and all(type(v) is str and v.strip() for v in value):
            return value
        raise _ValueProblem(
            f"must be a device id or a non-empty array of them, got {_shown(value)}"
        )

    return convert_str_or_list


def _int_map_converter(field: s.Field) -> Callable[[Any], Any]:
    """A table of counts by the field's keys ({ c13 = 24, c19 = 12 })."""
    keys = field.choices

    def convert_int_map(value: Any) -> dict[str, int]:
        if not isinstance(value, dict):
            raise _ValueProblem(
                f"must be a table like {{ c13 = 24, c19 = 12 }}, got {_shown(value)}"
            )
        for key, count in value.items():
            if key not in keys:
                known = " | ".join(str(k) for k in keys)
                raise _ValueProblem(
                    f"has an unknown key '{key}'{_suggest(key, [str(k) for k in keys])} "
                    f"(keys: {known})"
                )
            if type(count) is not int or count < 0:
                raise _ValueProblem(f"{key} must be a count ≥ 0, got {_shown(count)}")
        return dict(value)

    return convert_int_map


def _str_list_converter(field: s.Field) -> Callable[[Any], Any]:
    """An array of strings."""

    def convert_str_list(value: Any) -> list[str]:
        if not isinstance(value, list) or not all(type(v) is str for v in value):
            raise _ValueProblem(f"must be an array of strings, got {_shown(value)}")
        return value

    return convert_str_list


def _str_pair_converter(field: s.Field) -> Callable[[Any], Any]:
    """An array of two non-empty strings."""

    def convert_str_pair(value: Any) -> list[str]:
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(type(v) is str and v.strip() for v in value)
        ):
            raise _ValueProblem(f"must be an array of two strings, got {_shown(value)}")
        return value

    return convert_str_pair


def _num_pair_converter(field: s.Field) -> Callable[[Any], Any]:
    """[lowest, highest]: two finite numbers, the first at least the field's minimum."""

    def convert_num_pair(value: Any) -> list[float]:
        if (
            not isinstance(value, list)
            or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, int | float) for v in value)
            or not all(math.isfinite(v) for v in value)
        ):
            raise _ValueProblem(f"must be an array of two numbers, got {_shown(value)}")
        low, high = value
        if field.minimum is not None and low < field.minimum:
            raise _ValueProblem(f"must be at least {field.minimum:g}, got {_shown(value)}")
        if low > high:
            raise _ValueProblem(f"must be [lowest, highest], got {_shown(value)}")
        return value

    return convert_num_pair


def _quantity_pair_converter(field: s.Field) -> Callable[[Any], Any]:
    """Two quantities of the field's dimension (["200 V", "240 V"])."""
    # Its own name: a second `dim` would undo mypy's narrowing inside convert_quantity.
    pair_dim = field.dim
    assert pair_dim is not None

    def convert_pair(value: Any) -> tuple[float, float]:
        if not isinstance(value, list) or len(value) != 2:
            raise _ValueProblem(
                f'must be an array of two quantities like ["200 V", "240 V"], got {_shown(value)}'
            )
        low, high = (
            m.Q(parse(v, pair_dim), v) if isinstance(v, str) else parse(v, pair_dim) for v in value
        )
        return (low, high)

    return convert_pair


_OVERLOAD_EXAMPLE = '[["125 %", "10 min"], ["150 %", "60 s"]]'


def _convert_overload(value: Any) -> list[tuple[float, float]]:
    """(v1.4) A UPS's overload table: [load, time] pairs, each load above 100 % of rating."""
    if not isinstance(value, list) or not value:
        raise _ValueProblem(f"must be an array of [load, time] pairs like {_OVERLOAD_EXAMPLE}")
    out: list[tuple[float, float]] = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _ValueProblem(
                f"must be an array of [load, time] pairs like {_OVERLOAD_EXAMPLE}, "
                f"got {_shown(pair)}"
            )
        load_text, time_text = pair
        load = parse(load_text, RATIO)
        seconds = parse(time_text, DURATION)
        if not 1.0 < load <= 10.0:
            raise _ValueProblem(
                f"load {_shown(load_text)} must be above 100 % of the rating (and at most 1000 %)"
            )
        if seconds <= 0:
            raise _ValueProblem(f"time {_shown(time_text)} must be more than 0")
        out.append(
            (
                m.Q(load, load_text) if isinstance(load_text, str) else load,
                m.Q(seconds, time_text) if isinstance(time_text, str) else seconds,
            )
        )
    return out


_TABLE_EXAMPLE = '[["3 K", "500 kW"], ["5 K", "750 kW"]]'


def _convert_capacity_table(value: Any) -> list[tuple[float, float]]:
    """(v1.4) A CDU's capacity at each approach: [approach, capacity] pairs, approach
    rising and capacity not falling (more approach never cools less: a table that says so
    is a typo), at least one point."""
    if not isinstance(value, list) or not value:
        raise _ValueProblem(f"must be an array of [approach, capacity] pairs like {_TABLE_EXAMPLE}")
    out: list[tuple[float, float]] = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _ValueProblem(
                f"must be an array of [approach, capacity] pairs like {_TABLE_EXAMPLE}, "
                f"got {_shown(pair)}"
            )
        approach_text, capacity_text = pair
        approach = parse(approach_text, TEMPERATURE_DIFFERENCE)
        capacity = parse(capacity_text, POWER)
        if approach <= 0 or approach > s.APPROACH_MAX or capacity <= 0:
            raise _ValueProblem(
                f"point {_shown(pair)}: an approach above 0 K (at most {s.APPROACH_MAX:g} K) "
                "and a capacity above 0"
            )
        if out and approach <= out[-1][0]:
            raise _ValueProblem(
                f"is not in order: approach {_shown(approach_text)} after "
                f"{out[-1][0]:g} K (list the points by rising approach)"
            )
        if out and capacity < out[-1][1]:
            raise _ValueProblem(
                f"is not monotonic: {_shown(capacity_text)} at {_shown(approach_text)} is "
                f"less than {out[-1][1] / 1000:g} kW at {out[-1][0]:g} K (a larger approach "
                "never cools less; check the datasheet's table)"
            )
        out.append(
            (
                m.Q(approach, approach_text) if isinstance(approach_text, str) else approach,
                m.Q(capacity, capacity_text) if isinstance(capacity_text, str) else capacity,
            )
        )
    return out


# Each schema kind's converter factory: the field in, its value's converter out.
_CONVERTERS: dict[str, Callable[[s.Field], Callable[[Any], Any]]] = {
    "str": _str_converter,
    "int": _int_converter,
    "number": _number_converter,
    "bool": _bool_converter,
    "enum": _enum_converter,
    "qty": _quantity_converter,
    "ratio": _quantity_converter,
    "str_or_list": _str_or_list_converter,
    "int_map": _int_map_converter,
    "str_list": _str_list_converter,
    "str_pair": _str_pair_converter,
    "num_pair": _num_pair_converter,
    "qty_pair": _quantity_pair_converter,
    "overload": lambda field: _convert_overload,
    "qty_table": lambda field: _convert_capacity_table,
    "table": lambda field: _unchanged,
    "tables": lambda field: _unchanged,
}


def build_power_models(data: dict[str, Any], text: str, file: str) -> dict[str, dict[str, Any]]:
    """(v1.4) The built-in power models of ``power.toml`` (``[models.KEY]``): each key's
    values by the schema (``POWER_MODEL``), SI floats."""
    lines = scan(text)
    builder = _Builder(text, lines, file)
    out: dict[str, dict[str, Any]] = {}
    models = data.get("models")
    if not isinstance(models, dict):
        builder.error("E001", "power catalog", "no [models.KEY] tables", 1)
        raise LayoutError(builder.errors)
    for key, table in models.items():
        line = lines.tables.get(f"models.{key}", 1)
        if isinstance(table, dict):
            out[key] = builder.fields(s.POWER_MODEL, table, f"power model {key}", line)
    if builder.errors:
        raise LayoutError(builder.errors)
    return out


# Public for the catalog loader, which reads built-in entries with the same schema.
def build_catalog(
    data: dict[str, Any], text: str, file: str
) -> tuple[dict[str, m.DeviceType], dict[str, m.Gpu]]:
    lines = scan(text)
    builder = _Builder(text, lines, file)
    devices: dict[str, m.DeviceType] = {}
    gpus: dict[str, m.Gpu] = {}
    for key, value in (data.get("catalog") or {}).items():
        devices[key] = builder.device_type(key, value, lines.catalog.get(key, 1))
    for key, value in (data.get("gpus") or {}).items():
        line = lines.gpus.get(key, 1)
        gpus[key] = m.Gpu(key, **builder.fields(s.GPU, value, f"GPU {key}", line))
    unknown = set(data) - {"catalog", "gpus"}
    for key in sorted(unknown):
        builder.error("E001", "catalog file", f"unknown table '{key}'", 1)
    if builder.errors:
        raise LayoutError(builder.errors)
    return devices, gpus


def build_transceivers(data: dict[str, Any], text: str, file: str) -> dict[str, m.Transceiver]:
    """(v1.4) The built-in transceiver table's parts, read with the layout's schema."""
    lines = scan(text)
    builder = _Builder(text, lines, file)
    parts: dict[str, m.Transceiver] = {}
    for key, value in (data.get("transceivers") or {}).items():
        line = lines.transceivers.get(key, 1)
        parts[key] = m.Transceiver(
            key, **builder.fields(s.TRANSCEIVER, value, f"transceiver {key}", line)
        )
    if builder.errors:
        raise LayoutError(builder.errors)
    return parts
