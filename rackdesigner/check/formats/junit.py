"""JUnit XML: one test case per rule per file, failing where the rule found errors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from xml.etree import ElementTree as ET

from rackdesigner.check.engine import FileResult, rules_for
from rackdesigner.check.formats.options import Options
from rackdesigner.check.formats.text import plain_line
from rackdesigner.model.diagnostics import LOAD_CODES
from rackdesigner.model.wording import plural

# XML 1.0 cannot hold these characters at all, not even as character references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """The exact text, except what XML cannot carry, shown escaped (``\\x1b``)."""
    return _NOT_XML.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def render(results: Sequence[FileResult], options: Options) -> str:
    suites = ET.Element("testsuites", name="rackdesigner")
    total = failures_total = 0
    for result in results:
        suite = ET.SubElement(suites, "testsuite", name=_xml_text(result.file))
        cases = 0
        failures = 0
        by_code: dict[str, list] = {}
        for d in result.reported:
            by_code.setdefault(d.code, []).append(d)
        if result.layout is None:
            codes = sorted(by_code)
        else:
            codes = [r.code for r in rules_for(result.layout, options.select, options.ignore)]
            codes += sorted(c for c in by_code if c not in codes)
        for code in codes:
            found = by_code.get(code, [])
            case = ET.SubElement(suite, "testcase", classname=_xml_text(result.file), name=code)
            cases += 1
            failing = [
                d
                for d in found
                if d.severity == "error" or (options.strict and d.severity == "warning")
            ]
            if failing:
                failures += 1
                title = LOAD_CODES.get(code, plural(len(failing), "finding"))
                failure = ET.SubElement(
                    case,
                    "failure",
                    type=code,
                    message=_xml_text(
                        f"{code}: {failing[0].text()}" if len(failing) == 1 else f"{code}: {title}"
                    ),
                )
                failure.text = _xml_text("\n".join(plain_line(d) for d in failing))
            rest = [d for d in found if d not in failing]
            if rest:
                ET.SubElement(case, "system-out").text = _xml_text(
                    "\n".join(plain_line(d) for d in rest)
                )
        suite.set("tests", str(cases))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        total += cases
        failures_total += failures
    suites.set("tests", str(total))
    suites.set("failures", str(failures_total))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )
