"""``rackdesigner verify LAYOUT --ibnetdiscover SCAN | --lldp PATH``: the as-built check.

Exit 0 when the fabric is as designed, 1 when it differs, 2 when the layout or the scan
cannot be read (one message naming the file and line).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from rackdesigner.asbuilt.report import render
from rackdesigner.cli.conventions import STDIN, STDIN_NAME, emit, format_option
from rackdesigner.cli.loading import open_or_exit

if TYPE_CHECKING:
    from rackdesigner.model.layout import Layout


def _load(path: str) -> Layout:
    """The layout, as every command loads it (cli/loading.py); push and pull use it too."""
    return open_or_exit(path).layout


@click.command("verify")
@click.argument("layout", type=click.Path(dir_okay=False))
@click.option(
    "--ibnetdiscover",
    "ibnetdiscover",
    type=click.Path(dir_okay=False, exists=True),
    help="ibnetdiscover output of the InfiniBand fabric (checked against the compute "
    "fabrics' InfiniBand cables).",
)
@click.option(
    "--lldp",
    type=click.Path(exists=True),
    help="lldpctl -f json output: a folder of <host>.json files, or one file with a "
    "'==> host <==' header before each host's output (checked against the Ethernet cables "
    "of those hosts).",
)
@click.option(
    "--node-name-map",
    type=click.Path(dir_okay=False, exists=True),
    help='GUID to name map (0x<guid> "name" per line), as ibnetdiscover --node-name-map '
    "reads it: names unmanaged switches.",
)
@format_option(
    "text",
    "json",
    "csv",
    help="text for the screen, json for tools, csv for the technician's sheet.",
)
@click.option(
    "--ignore-speed",
    is_flag=True,
    help="Compare link width only, not the rate (ibsim simulates SDR-QDR only).",
)
def verify(
    layout: str,
    ibnetdiscover: str | None,
    lldp: str | None,
    node_name_map: str | None,
    fmt_: str,
    ignore_speed: bool,
) -> None:
    """Compare LAYOUT's cabling with what the fabric reports: the work order.

    Reports, per designed cable and per seen link, what is missing, miswired (one end
    right, the other elsewhere), swapped (two cables crossed), extra, on an unknown
    device, or running at the wrong speed or width, each with rack, unit, face, port
    label and cable id. Exit 0: as designed; 1: it differs; 2: the layout or the scan
    cannot be read.

    \b
    Examples:
      ibnetdiscover > scan.txt
      rackdesigner verify hall.toml --ibnetdiscover scan.txt
      rackdesigner verify hall.toml --ibnetdiscover scan.txt --format csv > work.csv
      rackdesigner verify hall.toml --lldp lldp/           (lldpctl -f json per host)
    """
    from rackdesigner.asbuilt import ScanError, design_of, read_scan
    from rackdesigner.asbuilt.compare import compare
    from rackdesigner.asbuilt.routes import add_routes
    from rackdesigner.cli.conventions import fail

    if (ibnetdiscover is None) == (lldp is None):
        fail("verify needs one scan: --ibnetdiscover SCAN or --lldp PATH")
    if node_name_map is not None and lldp is not None:
        fail("--node-name-map is for --ibnetdiscover scans")
    names: dict[str, str] = {}
    try:
        if ibnetdiscover is not None:
            scan = read_scan(Path(ibnetdiscover), "ibnetdiscover")
        else:
            assert lldp is not None
            scan = read_scan(Path(lldp), "lldp")
        if node_name_map is not None:
            from rackdesigner.asbuilt.ibnetdiscover import parse_node_name_map

            path = Path(node_name_map)
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise ScanError(node_name_map, 0, f"cannot read it: {error}") from None
            names = parse_node_name_map(text, node_name_map)
    except ScanError as error:
        fail(f"cannot read the scan: {error}")
    from rackdesigner.analysis import Analysis

    analysis = Analysis(_load(layout), file=STDIN_NAME if layout == STDIN else layout)
    design = design_of(analysis, scan.tech)
    findings = compare(design, scan, names, speed=not ignore_speed)
    add_routes(analysis, design, findings)
    checked = len(design.cables)
    # The CSV and JSON keep the scan's names exact in a file or a pipe; on a terminal they
    # are escaped, as the text is.
    emit(render(findings, fmt_, checked), exact=fmt_ != "text")
    raise SystemExit(1 if findings else 0)
