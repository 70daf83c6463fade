"""The designer's light and dark themes, from the SVG drawings' surfaces (palette.SURFACES),
so the screen and an exported drawing of the same theme read alike. Registered with
Textual's theme system: the palette's "Theme" command switches between them (and Textual's
own themes); the racks, floor and summary views pick the light or dark device and density
colours from the theme's ``dark`` flag."""

from __future__ import annotations

from textual.theme import Theme

from rackdesigner.export.render import palette

LIGHT, DARK = "rackdesigner-light", "rackdesigner-dark"


def themes() -> list[Theme]:
    light, dark = palette.SURFACES["light"], palette.SURFACES["dark"]
    return [
        Theme(
            DARK,
            primary="#4d8fd6",
            secondary=dark["door"],
            accent="#e0a030",
            foreground=dark["fg"],
            background=dark["bg"],
            surface=dark["frame_fill"],
            panel=dark["rail"],
            error=palette.SEVERITY_COLOURS["dark"]["error"],
            warning=palette.SEVERITY_COLOURS["dark"]["warning"],
            dark=True,
        ),
        Theme(
            LIGHT,
            primary="#1f5fa8",
            secondary=light["door"],
            accent="#b36b00",
            foreground=light["fg"],
            background=light["bg"],
            surface=light["frame_fill"],
            panel=light["rail"],
            error=palette.SEVERITY_COLOURS["light"]["error"],
            warning=palette.SEVERITY_COLOURS["light"]["warning"],
            dark=False,
        ),
    ]
