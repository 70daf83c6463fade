"""Whether a widget's drawing styles changed, for views that cache their lines.

Textual tells a widget its styles may have changed (``notify_style_update``) on every
focus change, a tab switch, a theme switch. The views cache their drawn lines and used to
drop them all on each such call, so switching views redrew every visible line of each
view shown (a few milliseconds a line in the racks view). The lines depend only on the
widget's own style and its component classes' styles: the cache goes only when those
changed (a theme switch), not when only a border did (focus).
"""

from __future__ import annotations

from textual.widget import Widget


def styles_changed(widget: Widget) -> bool:
    """True when ``widget``'s text style or a component class's style differs from the
    last time this was asked (the first time: True)."""
    try:
        signature = (
            widget.rich_style,
            *(widget.get_component_rich_style(name) for name in sorted(widget.COMPONENT_CLASSES)),
        )
    except KeyError:  # before its component styles are first resolved
        widget.__dict__.pop("_drawing_styles", None)
        return True
    before = widget.__dict__.get("_drawing_styles")
    widget.__dict__["_drawing_styles"] = signature
    return before != signature
