"""Drawings of a layout: rack elevations, floor plan, topology, print pack and raster.

Every module here takes a layout's analysis (and its findings) and returns SVG text or
bytes; none reads TOML or writes files (``exporters.py`` does that). :mod:`.svg` holds what
all drawings share: escaping, the embedded style sheet per theme and the document frame.
"""
