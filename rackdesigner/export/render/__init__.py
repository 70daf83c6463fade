"""Drawings of a layout: rack elevations, floor plan, topology, print pack and raster.

Every module here takes a layout's analysis (and its findings) and returns SVG text or
bytes; none reads TOML or writes files (the export kinds of ``export/drawings.py`` return
them as outputs, and the command line writes those). :mod:`.svg` holds what all drawings
share: escaping, the embedded style sheet per theme and the document frame.
"""
