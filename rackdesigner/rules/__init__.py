"""The rule catalogue, one module per family; see :mod:`rackdesigner.rules.registry`."""
