"""(v1.4) The power chain's shape, checked when a layout is loaded (docs/power-chain.md).

A chain is a directed graph from the sources (utility services, generators) down to the
racks' feeds. What cannot be a chain at all is a load error (E001), reported with the
element's line: an id twice, a ``fed_by`` or a feed's ``source`` naming no element, a
cycle, an element fed by nothing that is not a source, an element that feeds nothing, a
key its kind does not take, a ``model`` the power catalog does not have. Whether the chain
carries its load is the rules' business (PWR021-PWR029); this module only reads the model,
so the loader stays free of rules and analysis.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rackdesigner.layout_io.schema import ELEMENT_KEYS_BY_KIND
from rackdesigner.model.layout import POWER_SOURCES, Layout, PowerElement


@dataclass(frozen=True, slots=True)
class Problem:
    entity: str
    message: str
    element: int = 0  # index of the element the problem is about
    key: str | None = None
    hint: str | None = None
    feed: tuple[int, int] | None = None  # (rack index, feed index) for a feed's source


def _near(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _entity(element: PowerElement) -> str:
    return f"power element {element.id}"


def chain_problems(layout: Layout, models: dict[str, str]) -> list[Problem]:
    """Every problem of ``layout``'s chain, elements first (file order), then feeds."""
    elements = layout.power_elements
    problems: list[Problem] = []
    by_id: dict[str, int] = {}
    for index, element in enumerate(elements):
        if element.id in by_id:
            problems.append(
                Problem(
                    _entity(element),
                    f"id {element.id} is used by another power element too (each id once)",
                    index,
                    "id",
                )
            )
            continue
        by_id[element.id] = index
    problems += _element_problems(elements, by_id, models)
    fed: set[str] = set()
    for element in elements:
        fed.update(element.fed_by or ())
    problems += _feed_problems(layout, by_id, fed)
    problems += _cycles(elements, by_id)
    for index, element in enumerate(elements):
        if element.id not in fed and by_id.get(element.id) == index:
            problems.append(
                Problem(
                    _entity(element),
                    f"{element.kind or 'element'} {element.id} feeds nothing: no element "
                    "names it in fed_by and no rack feed has it as source",
                    index,
                    hint="name it in another element's fed_by or a feed's source, or remove it",
                )
            )
    return problems


def _element_problems(
    elements: list[PowerElement], by_id: dict[str, int], models: dict[str, str]
) -> Iterator[Problem]:
    for index, element in enumerate(elements):
        entity = _entity(element)
        kind = element.kind
        parents = element.fed_by or []
        if kind in POWER_SOURCES and parents:
            yield Problem(
                entity,
                f"a {kind} is a source: it is fed by nothing (remove fed_by)",
                index,
                "fed_by",
            )
        elif kind is not None and kind not in POWER_SOURCES and not parents:
            yield Problem(
                entity,
                f"{kind} {element.id} is fed by nothing: give it fed_by (only a utility or a "
                "generator is a source)",
                index,
            )
        seen: set[str] = set()
        for parent in parents:
            if parent in seen:
                yield Problem(entity, f"fed_by names {parent} twice", index, "fed_by")
            seen.add(parent)
            if parent not in by_id:
                yield Problem(
                    entity,
                    f'fed_by names "{parent}", which is no power element{_near(parent, by_id)}',
                    index,
                    "fed_by",
                )
        for key, kinds in ELEMENT_KEYS_BY_KIND.items():
            if getattr(element, key) is not None and kind is not None and kind not in kinds:
                yield Problem(
                    entity,
                    f"{key} is a key of {' and '.join(kinds)} elements; {element.id} is a {kind}",
                    index,
                    key,
                )
        if element.model is not None:
            model_kind = models.get(element.model)
            if model_kind is None:
                yield Problem(
                    entity,
                    f'model "{element.model}" is not in the power catalog'
                    f"{_near(element.model, models)}",
                    index,
                    "model",
                    "rackdesigner catalog --power lists the models",
                )
            elif kind is not None and model_kind != kind:
                yield Problem(
                    entity,
                    f"model {element.model} is a {model_kind}; {element.id} is a {kind}",
                    index,
                    "model",
                )


def _feed_problems(layout: Layout, by_id: dict[str, int], fed: set[str]) -> Iterator[Problem]:
    for rack_index, rack in enumerate(layout.racks):
        for feed_index, feed in enumerate(rack.feeds):
            if feed.source is None:
                if feed.position is not None:
                    yield Problem(
                        f"rack {rack.id} feed {feed.id}",
                        "position needs a source (the element the position is on)",
                        key="position",
                        feed=(rack_index, feed_index),
                    )
                continue
            fed.add(feed.source)
            if feed.source not in by_id:
                known = ", ".join(sorted(by_id)[:6]) or "none"
                yield Problem(
                    f"rack {rack.id} feed {feed.id}",
                    f'source "{feed.source}" names no power element{_near(feed.source, by_id)}'
                    f" (elements: {known}{', ...' if len(by_id) > 6 else ''})",
                    key="source",
                    feed=(rack_index, feed_index),
                )


def _cycles(elements: list[PowerElement], by_id: dict[str, int]) -> Iterator[Problem]:
    """One problem per cycle of ``fed_by`` (depth-first, iteratively: a chain can be long)."""
    state = [0] * len(elements)  # 0 new, 1 on the path, 2 done
    for start in range(len(elements)):
        if state[start]:
            continue
        path: list[int] = []
        stack: list[tuple[int, Iterator[str]]] = [(start, iter(elements[start].fed_by or ()))]
        state[start] = 1
        path.append(start)
        while stack:
            node, parents = stack[-1]
            parent_id = next(parents, None)
            if parent_id is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            parent = by_id.get(parent_id)
            if parent is None:
                continue
            if state[parent] == 1:
                loop = path[path.index(parent) :]
                names = " <- ".join(elements[i].id for i in [*loop, parent])
                yield Problem(
                    _entity(elements[node]),
                    f"the chain has a cycle: {names} (power flows one way, from the sources)",
                    node,
                    "fed_by",
                )
                continue
            if state[parent] == 0:
                state[parent] = 1
                path.append(parent)
                stack.append((parent, iter(elements[parent].fed_by or ())))
