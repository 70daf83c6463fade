"""Storage rules (STO): the local hot tier of training nodes.

One module per rule (one so far), named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules STO001``).

    STO001  nvme_hot_tier  local NVMe against the hot-tier floor
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.storage import (  # noqa: F401
    nvme_hot_tier,
)
