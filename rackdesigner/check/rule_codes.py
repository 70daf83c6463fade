"""E001 for rule codes in a layout that name no rule: in ``[rules] select`` or ``ignore``,
or in a rack's, device's or link's ``ignore`` key.

A load error like the loader's own (the file is refused, exit 2), found here because the
loader imports no rule. Every code the layout names is gathered first and the registry
asked once about all of them; the document is asked for lines only where a code is
unknown.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rackdesigner.layout_io.document import Document
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout, Link
from rackdesigner.model.refs import RULES, Ref, link_ids
from rackdesigner.rules.registry import unknown_patterns

# Where a list of codes stands: ("rules", key) for [rules] select and ignore; ("rack",
# id), ("device", id) or ("link", the link object) for an entity's ignore key.
_Owner = tuple[str, object]


def rule_code_errors(document: Document, file: str | None = None) -> list[Diagnostic]:
    """The E001 errors of ``document`` (named ``file`` where it has no path)."""
    keys = list(_code_lists(document.layout))
    if not keys:
        return []
    unknown = set(unknown_patterns({code for _, codes in keys for code in codes}))
    if not unknown:
        return []
    name = document.path or file or ""
    errors: list[Diagnostic] = []
    ids: dict[int, tuple[str, int]] | None = None
    for (kind, what), codes in keys:
        bad = [code for code in codes if code in unknown]
        if not bad:
            continue
        listed = ", ".join(repr(code) for code in bad)
        if kind == "rules":
            key = str(what)
            entity, line = "[rules]", document.key_line(RULES, key)
            message = f"{key}: no rule matches {listed} (`rackdesigner rules` lists them)"
        else:
            if isinstance(what, Link):
                if ids is None:  # only where a link names an unknown code
                    links = document.layout.links
                    ids = dict(zip(map(id, links), link_ids(links), strict=True))
                ident, nth = ids[id(what)]
                ref, entity = Ref("link", ident, nth), f"link {what.name}"
            else:
                ref, entity = Ref(kind, str(what)), f"{_NOUNS.get(kind, kind)} {what}"
            line = document.key_line(ref, "ignore")
            message = (
                f"ignore must name rules: no rule matches {listed} "
                "(codes or prefixes; `rackdesigner rules` lists them)"
            )
        errors.append(Diagnostic("E001", "error", message, entity=entity, line=line, file=name))
    return errors


def _code_lists(layout: Layout) -> Iterator[tuple[_Owner, list[str]]]:
    """Every list of rule codes in the layout, in the order of the file's sections, with
    its codes as the registry reads them (stripped, upper case)."""
    config = layout.rules
    if config is not None:
        for key in ("select", "ignore"):
            codes = getattr(config, key)
            if codes:
                yield ("rules", key), _normal(codes)
    for rack in layout.racks:
        if rack.ignore:
            yield ("rack", rack.id), _normal(rack.ignore)
        for device in rack.devices:
            if device.ignore:
                yield ("device", device.id), _normal(device.ignore)
    for element in layout.power_elements:  # (v1.4)
        if element.ignore:
            yield ("power", element.id), _normal(element.ignore)
    for loop in layout.cooling_loops:  # (v1.4)
        if loop.ignore:
            yield ("loop", loop.id), _normal(loop.ignore)
    for kind, entities in (("pathway", layout.pathways), ("trunk", layout.trunks)):  # (v1.4)
        for entity in entities:
            if entity.ignore:
                yield (kind, entity.id), _normal(entity.ignore)
    for link in layout.links:
        if link.ignore:
            yield ("link", link), _normal(link.ignore)


# What a finding calls the owner of an ``ignore`` key, where it is not its Ref kind.
_NOUNS = {"power": "power element"}


def _normal(codes: Sequence[str]) -> list[str]:
    return [code.strip().upper() for code in codes]
