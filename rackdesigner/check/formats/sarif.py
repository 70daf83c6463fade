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


def _uri(file: str) -> str:
    return quote(PurePath(file).as_posix())


def _rules() -> list[dict[str, object]]:
    described: list[dict[str, object]] = []
    for code, title in LOAD_CODES.items():
        described.append(
            {
                "id": code,
                "name": f"load-{code.lower()}",
                "shortDescription": {"text": title},
                "defaultConfiguration": {"level": "error"},
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
