"""The as-built check: the designed cabling against what the fabric reports.

Read a scan (:func:`read_scan`: ``ibnetdiscover`` output, or ``lldpctl -f json`` tables),
then :func:`verify` gives the work order, a list of
:class:`~rackdesigner.asbuilt.compare.Finding`. Both are pure over their inputs (no
terminal, no files written), for the command line (``rackdesigner verify``) and the
designer alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rackdesigner.asbuilt.compare import KINDS, Finding, compare
from rackdesigner.asbuilt.design import Design, design_of
from rackdesigner.asbuilt.scan import Scan, ScanError

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

__all__ = ["KINDS", "Design", "Finding", "Scan", "ScanError", "design_of", "read_scan", "verify"]


def read_scan(path: Path, form: str) -> Scan:
    """A scan file (or, for ``lldp``, a folder): ``form`` is ``ibnetdiscover`` or ``lldp``.
    Raises :class:`ScanError` naming the file and line."""
    if form == "lldp":
        from rackdesigner.asbuilt.lldp import parse_lldp_path

        return parse_lldp_path(path)
    from rackdesigner.asbuilt.ibnetdiscover import parse_ibnetdiscover

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ScanError(str(path), 0, f"not text: {error.reason}") from None
    except OSError as error:
        raise ScanError(str(path), 0, f"cannot read it: {error.strerror or error}") from None
    return parse_ibnetdiscover(text, str(path))


def verify(
    analysis: Analysis,
    scan: Scan,
    names: dict[str, str] | None = None,
    *,
    speed: bool = True,
) -> list[Finding]:
    """The work order: every difference between the layout's cabling and ``scan``
    (InfiniBand compute fabrics for an ibnetdiscover scan, Ethernet for LLDP). Empty when
    the fabric is as designed. ``names``: a node-name map (GUID -> name)."""
    from rackdesigner.asbuilt.routes import add_routes

    design = design_of(analysis, scan.tech)
    findings = compare(design, scan, names, speed=speed)
    add_routes(analysis, design, findings)
    return findings
