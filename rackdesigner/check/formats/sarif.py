"""SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import PurePath
from urllib.parse import quote

from rackdesigner import __version__
from rackdesigner.check.engine import FileResult
from rackdesigner.check.formats.options import Options
from rackdesigner.check.suppressions import BY_IGNORE
from rackdesigner.model.diagnostics import LOAD_CODES
from rackdesigner.rules.registry import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
# What each load error means and how to fix it: code scanning needs a fullDescription for
# every rule (GitHub's ingestion; SARIF Multitool GH2012), load errors included.
_LOAD_DESCRIPTIONS = {
    "E000": (
        "The file could not be read as TOML: a syntax error, text that is not UTF-8, or a "
        "file that cannot be opened. Nothing else is checked until it loads.",
        "Fix the line and column the message names (an unclosed string or table header, a "
        "repeated key, a stray character), save the file as UTF-8, or check the path.",
    ),
    "E001": (
        "The TOML loads but is not a layout: an unknown key, a value of the wrong type, a "
        "required key missing, a value out of range, or a format version this rackdesigner "
        "does not read. The rules run only on a layout that loads.",
        "Correct the key or value the message names; `rackdesigner schema` prints the "
        "layout format as a JSON Schema for editors, and docs/layout-format.md lists every "
        "key.",
    ),
    "E002": (
        "A quantity is not one: a unit of the wrong dimension (a bandwidth where a length "
        "is wanted), a number without its unit, or text that does not parse as a number "
        "and a unit.",
        'Write a number and a unit of the dimension the message names, such as "3 m", '
        '"10.2 kW" or "63 A".',
    ),
}


def _uri(file: str) -> str:
    return quote(PurePath(file).as_posix())


def _rules() -> list[dict[str, object]]:
    described: list[dict[str, object]] = []
    for code, title in LOAD_CODES.items():
        what, fix = _LOAD_DESCRIPTIONS[code]
        described.append(
            {
                "id": code,
                "name": f"load-{code.lower()}",
                "shortDescription": {"text": title},
                "fullDescription": {"text": what},
                "help": {
                    "text": f"{title}\n\n{what}\n\n{fix}",
                    "markdown": f"**{code}: {title}**\n\n{what}\n\n{fix}",
                },
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": ["load"]},
            }
        )
    for rule in all_rules().values():
        why = rule.section("Why it matters")
        described.append(
            {
                "id": rule.code,
                "name": rule.check.__name__.replace("_", "-"),
                "shortDescription": {"text": rule.title},
                "fullDescription": {"text": why or rule.title},
                "help": {
                    "text": f"{rule.title}\n\n{rule.doc}",
                    "markdown": f"**{rule.code}: {rule.title}**\n\n{why}\n\n"
                    f"```toml\n{rule.section('Example')}\n```\n\n"
                    f"{rule.section('Fix')}",
                },
                "defaultConfiguration": {"level": _LEVEL[rule.severity]},
                "properties": {"tags": [rule.family], "thresholds": list(rule.thresholds)},
            }
        )
    return described


def render(results: Sequence[FileResult], options: Options) -> str:
    rules = _rules()
    index = {rule["id"]: number for number, rule in enumerate(rules)}
    sarif_results = []
    for result in results:
        for d in result.diagnostics:
            level = _LEVEL[d.severity]
            if options.strict and level == "warning":
                level = "error"
            location: dict[str, object] = {"artifactLocation": {"uri": _uri(d.file)}}
            if d.line > 0:
                region: dict[str, int] = {"startLine": d.line}
                if d.column > 0:
                    region["startColumn"] = d.column
                location["region"] = region
            text = d.text() + (f"; {d.hint}" if d.hint else "")
            entry: dict[str, object] = {
                "ruleId": d.code,
                "level": level,
                "message": {"text": text},
                "locations": [{"physicalLocation": location}],
                "partialFingerprints": {"entity": f"{d.code}:{d.entity}"},
            }
            if d.code in index:
                entry["ruleIndex"] = index[d.code]
            if d.suppressed:
                # SARIF's own form: an ignore key sits in the layout ("inSource"); a baseline
                # is kept beside it ("external"). Code scanning shows these as dismissed.
                entry["suppressions"] = [
                    {
                        "kind": "inSource" if d.suppressed == BY_IGNORE else "external",
                        "status": "accepted",
                        "justification": "the entity's ignore key names the rule"
                        if d.suppressed == BY_IGNORE
                        else "recorded in the baseline",
                    }
                ]
            if d.values:
                entry["properties"] = {
                    "values": {k: (v if math.isfinite(v) else None) for k, v in d.values.items()}
                }
            sarif_results.append(entry)
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "rackdesigner",
                        "version": __version__,
                        "informationUri": "https://github.com/rackdesigner/rackdesigner",
                        "rules": rules,
                    }
                },
                "artifacts": [{"location": {"uri": _uri(r.file)}} for r in results],
                "results": sarif_results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
