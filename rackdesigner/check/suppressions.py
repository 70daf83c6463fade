"""Suppressions: the per-entity ``ignore`` key, and baselines of known findings.

A team adopting the linter on an existing layout needs two things: to say "this
device may warn PWR008, we know" next to the device (``ignore = ["PWR008"]`` on a rack,
device or link), and to fail CI only on problems that are new since a recorded
baseline. A suppressed finding is kept (JSON marks it ``"suppressed": true``, SARIF
lists it with a ``suppressions`` entry, as code scanning expects) but it is not
counted, not printed for people and does not fail the run.

Both match a finding by its **subject**, the entity it is about, as ``(kind, id)``:
``("device", "a01-n01")``, ``("link", "a01-n01:ib1")`` (a link's id is its ``a`` end).
Every caller derives it through :func:`subject_of`, the one place that knows how.
"""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.refs import KindId

if TYPE_CHECKING:
    from rackdesigner.model.layout import Layout

Subject = KindId  # what a finding is about, by kind and id (the subject's nth aside)

# How a suppressed diagnostic was suppressed (Diagnostic.suppressed).
BY_IGNORE = "ignore"
BY_BASELINE = "baseline"

BASELINE_VERSION = 1

# Entity texts of the whole-file tables, as rules name them.
_SECTIONS = {
    "[site]": ("site", ""),
    "[workload]": ("workload", ""),
    "[rules]": ("rules", ""),
    "[rules.thresholds]": ("rules", ""),
}
# Leading words of an entity text and the kind they name.
_KINDS = {
    "rack": "rack",
    "device": "device",
    "link": "link",
    "fabric": "fabric",
    "feed": "feed",
    "GPU": "gpu",
    "gpu": "gpu",
}


def subject_of(diagnostic: Diagnostic) -> Subject:
    """The entity a finding is about, as ``(kind, id)``: its ``subject`` (refs.py), the
    reference every rule sets, so a baseline and an ignore key name an entity exactly as
    ``--format json`` and the editor do.

    Only a finding without one (a load error, or a diagnostic made by hand) falls back to
    its entity text: ``device a01-n01`` → ``("device", "a01-n01")``, ``rack a01 feed
    a01-A`` → ``("feed", "a01-A")``, ``[site]`` → ``("site", "")``.
    """
    subject = diagnostic.subject
    if subject is not None:
        return subject.kind_id
    return parse_entity(diagnostic.entity)


def parse_entity(entity: str) -> Subject:
    """``(kind, id)`` from an entity text (see :func:`subject_of`)."""
    if entity in _SECTIONS:
        return _SECTIONS[entity]
    words = entity.split()
    if not words:
        return ("layout", "")
    if len(words) >= 4 and words[0] == "rack" and words[2] == "feed":
        return ("feed", words[3])
    if words[0] == "catalog" and len(words) >= 3 and words[1] == "entry":
        return ("catalog", words[2])
    kind = _KINDS.get(words[0])
    if kind is not None and len(words) >= 2:
        # "link a -> b": a link is known by its a end.
        return (kind, words[1])
    return (words[0], " ".join(words[1:]))


def matches(code: str, patterns: Iterable[str]) -> bool:
    """A pattern is a code or a prefix of codes (``PWR``, ``PWR008``), any case."""
    return any(code.startswith(p.strip().upper()) for p in patterns if p.strip())


# -- ignore keys ------------------------------------------------------------------------------


def ignore_index(layout: Layout) -> dict[Subject, list[str]]:
    """Every entity that carries an ``ignore`` key, by subject.

    A rack's key also covers its feeds: a feed is written inside its rack and has no table
    of its own to carry one. A link is indexed by its ``a`` end and by ``a -> b`` (the id
    a finding about two links that share an ``a`` end uses).
    """
    index: dict[Subject, list[str]] = {}
    for rack in layout.racks:
        if rack.ignore:
            index[("rack", rack.id)] = rack.ignore
            for feed in rack.feeds:
                index[("feed", feed.id)] = rack.ignore
        for device in rack.devices:
            if device.ignore:
                index[("device", device.id)] = device.ignore
    for loop in layout.cooling_loops:  # (v1.4)
        if loop.ignore:
            index[("loop", loop.id)] = loop.ignore
    for link in layout.links:
        if link.ignore:
            index[("link", f"{link.a} -> {link.b}")] = link.ignore
            index.setdefault(("link", link.a), link.ignore)
    for element in layout.power_elements:  # (v1.4)
        if element.ignore:
            index[("power", element.id)] = element.ignore
    # (v1.4) the cable plant's own tables
    for pathway in layout.pathways:
        if pathway.ignore:
            index[("pathway", pathway.id)] = pathway.ignore
    for trunk in layout.trunks:
        if trunk.ignore:
            index[("trunk", trunk.id)] = trunk.ignore
    return index


def apply_ignores(
    layout: Layout,
    diagnostics: Iterable[Diagnostic],
    index: dict[Subject, list[str]] | None = None,
) -> int:
    """Mark the findings an entity's ``ignore`` key covers; return how many (``index``:
    the layout's :func:`ignore_index`, where the caller has it)."""
    if index is None:
        index = ignore_index(layout)
    if not index:
        return 0
    count = 0
    for diagnostic in diagnostics:
        if diagnostic.is_load_error:
            continue
        # A link's subject id is its a end, or "a -> b" where links share it: both are
        # in the index.
        patterns = index.get(subject_of(diagnostic))
        if patterns and matches(diagnostic.code, patterns):
            diagnostic.suppressed = BY_IGNORE
            count += 1
    return count


# -- baselines --------------------------------------------------------------------------------

BaselineKey = tuple[str, str, str, str]  # file, code, subject kind, subject id


class BaselineError(Exception):
    """A baseline file that cannot be read; the message names the file and why."""


@functools.lru_cache(maxsize=1024)
def _file_key(file: str) -> str:
    # The same file named ./a.toml or a.toml, on any platform, is one key. Cached: every
    # finding of a file asks for it.
    return file if file.startswith("<") else PurePath(os.path.normpath(file)).as_posix()


def baseline_key(diagnostic: Diagnostic) -> BaselineKey:
    kind, ident = subject_of(diagnostic)
    return (_file_key(diagnostic.file), diagnostic.code, kind, ident)


def baselinable(diagnostic: Diagnostic) -> bool:
    """Rule findings not suppressed by an ignore key; a load error is never baselined."""
    return not diagnostic.is_load_error and diagnostic.suppressed != BY_IGNORE


def baseline_json(diagnostics: Iterable[Diagnostic]) -> str:
    """The baseline of ``diagnostics``: code + subject (and file) per finding, sorted, one
    finding a line so that a baseline diffs well in review."""
    keys = sorted(baseline_key(d) for d in diagnostics if baselinable(d))
    dump = json.JSONEncoder(ensure_ascii=False).encode
    rows = [
        dump({"file": file, "code": code, "subject": [kind, ident]})
        for file, code, kind, ident in keys
    ]
    body = "[\n    " + ",\n    ".join(rows) + "\n  ]" if rows else "[]"
    return (
        "{\n"
        f'  "version": {BASELINE_VERSION},\n'
        '  "tool": "rackdesigner",\n'
        f'  "findings": {body}\n'
        "}\n"
    )


def parse_baseline(text: str, name: str) -> Counter[BaselineKey]:
    """The findings a baseline file records, counted (a finding may occur twice)."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise BaselineError(f"{name} is not a baseline: not JSON ({error})") from None
    findings = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(findings, list):
        raise BaselineError(
            f'{name} is not a baseline: expected {{"version": 1, "findings": [...]}} '
            "as --write-baseline writes it"
        )
    version = data.get("version")
    if version != BASELINE_VERSION:
        raise BaselineError(
            f"{name} is a baseline of version {version!r}; this rackdesigner reads "
            f"version {BASELINE_VERSION}"
        )
    keys: list[BaselineKey] = []
    append = keys.append
    for number, entry in enumerate(findings, start=1):
        try:
            code, (kind, ident), file = entry["code"], entry["subject"], entry.get("file", "")
        except (TypeError, KeyError, ValueError, AttributeError):
            code = None
        if not (type(code) is str and type(kind) is str and type(ident) is str) or (
            type(file) is not str
        ):
            raise BaselineError(
                f"{name}: finding {number} is not "
                '{"file": "...", "code": "...", "subject": ["kind", "id"]}'
            )
        append((_file_key(file), code, kind, ident))
    return Counter(keys)


def read_baseline(path: str) -> Counter[BaselineKey]:
    """The findings the baseline file at ``path`` records; a BaselineError naming the file
    when it cannot be read or is not a baseline."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise BaselineError(f"cannot read baseline {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise BaselineError(str(error)) from None
    return parse_baseline(text, path)


def record_baseline(diagnostics: Iterable[Diagnostic]) -> tuple[str, int]:
    """Today's findings adopted as known: the baseline recording them (the text of the
    file to write) and how many it records. They are marked known for this run too."""
    recorded = [d for d in diagnostics if baselinable(d)]
    text = baseline_json(recorded)
    for diagnostic in recorded:
        diagnostic.suppressed = BY_BASELINE
    return text, len(recorded)


def apply_baseline(
    baseline: Counter[BaselineKey], diagnostics: Sequence[Diagnostic], files: Iterable[str]
) -> tuple[int, int]:
    """Mark the findings the baseline records; return how many, and how many entries for
    ``files`` (the files checked) no longer match a finding (fixed since).

    Each entry covers one finding: a layout that now has two findings where the baseline
    recorded one reports the second as new.
    """
    left = Counter(baseline)
    marked = 0
    for diagnostic in diagnostics:
        if not baselinable(diagnostic) or diagnostic.suppressed:
            continue
        key = baseline_key(diagnostic)
        if left[key] > 0:
            left[key] -= 1
            diagnostic.suppressed = BY_BASELINE
            marked += 1
    checked = {_file_key(file) for file in files}
    return marked, sum(count for key, count in left.items() if key[0] in checked)
