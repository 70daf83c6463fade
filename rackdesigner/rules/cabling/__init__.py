"""Cabling rules (CAB): whether every cable reaches, runs at one rate and plugs into a free port.

One module per rule, named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules CAB001``), and :mod:`._common` holds what they share.

A cable's length is the link's declared ``length`` where given, else the route
computed from the layout's geometry (layout-format.md, "Geometry") plus the
site's slack; :class:`~rackdesigner.analysis.LinkFacts` holds both.

    CAB001  cable_length_limit  a compute cable against the longest run allowed
    CAB002  declared_length     a declared length shorter than the route
    CAB003  media_reach         the media's reach at the link's speed and grade
    CAB004  mismatched_ends     two ends of other technologies or speeds
    CAB005  unresolved_ends     unknown devices or ports, ports used twice
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.cabling import (  # noqa: F401
    cable_length_limit,
    declared_length,
    media_reach,
    mismatched_ends,
    unresolved_ends,
)
