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
    CAB006  pathway_fill        (v1.4) a pathway's fill at its busiest point
    CAB007  unrouted_links      (v1.4) cables between racks no pathway joins (once)
    CAB008  channel_loss        (v1.4) a fibre channel's loss against its optics' budget
    CAB009  bend_radius         (v1.4) a pathway bending tighter than its cables may
    CAB010  trunk_capacity      (v1.4) more channels than a trunk has fibres for
    CAB011  panel_ports         (v1.4) a channel's panel port unknown or used twice
    CAB012  transceiver_fit     (v1.4) a transceiver part that does not fit its port
    CAB013  trunk_media         (v1.4) a channel through a trunk of another fibre
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.cabling import (  # noqa: F401
    bend_radius,
    cable_length_limit,
    channel_loss,
    declared_length,
    media_reach,
    mismatched_ends,
    panel_ports,
    pathway_fill,
    transceiver_fit,
    trunk_capacity,
    trunk_media,
    unresolved_ends,
    unrouted_links,
)
