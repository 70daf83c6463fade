"""NVLink domain rules (NVL): rack-scale systems (v1.2), GB200 and GB300 NVL72 racks whose
compute trays and NVLink switch trays form one NVLink domain over a copper backplane.

The facts are :mod:`rackdesigner.analysis.rack_scale`: tray types carry ``nvl_domain``
(the shape), racks name the domain their trays form with ``nvlink_domain``.

    NVL001  domain_shape         a domain without its shape's compute and switch trays
    NVL002  tray_outside_domain  rack-scale trays in a rack that names no domain
    NVL003  domain_spans_racks   a domain named by more racks than its backplane spans
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.nvlink import (  # noqa: F401
    domain_shape,
    domain_spans_racks,
    tray_outside_domain,
)
