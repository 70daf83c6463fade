"""Placement rules (PLC): where devices sit in racks and racks on the floor.

One module per rule, named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules PLC001``), and :mod:`._common` holds what they share.

    PLC001  unit_overlap       two devices in one rack unit
    PLC002  out_of_rack        a device outside the rack's units
    PLC003  switch_mid_rack    an InfiniBand switch outside the middle third
    PLC004  rack_weight        a rack's weight against its max_weight
    PLC005  identity           duplicate ids and places, unknown models and GPUs
    PLC006  blanking_panels    open units of an air-cooled rack
    PLC007  airflow_direction  a device's airflow against its rack's
    PLC008  floor_load         a rack's floor load against the rating
    PLC009  chassis_depth      a chassis deeper than its rack
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.placement import (  # noqa: F401
    airflow_direction,
    blanking_panels,
    chassis_depth,
    floor_load,
    identity,
    out_of_rack,
    rack_weight,
    switch_mid_rack,
    unit_overlap,
)
