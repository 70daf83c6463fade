"""The footer, rebuilt only when the keys it shows change.

Textual's footer recomposes on every change of the screen's bindings (each focus change,
a dialog closing), and recomposing mounts a widget per key: tens of milliseconds, more
while a check holds the GIL, and a key pressed meanwhile waits. Most such changes leave
the shown keys as they were (the loading screen closing, focus coming back to the racks).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class DesignerFooter(Footer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[object, ...] | None = None

    def shown_keys(self) -> tuple[object, ...]:
        """What the footer would show now: every shown binding with its key, label and
        state (and the palette's), in order."""
        app = self.app
        active = self.screen.active_bindings
        keys: list[object] = [
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                getattr(binding.group, "description", None),
            )
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        ]
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        if palette is not None:
            keys.append(("palette", palette[1].key, palette[2]))
        return (*keys, self.compact, self.show_command_palette)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen and self._bindings_ready:
            shown = self.shown_keys()
            if shown == self._shown:
                return
            self._shown = shown
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        if self.is_attached:
            self._shown = self.shown_keys()
        await super().recompose()
