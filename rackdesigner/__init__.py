"""rackdesigner: lay out GPU-cluster racks, check them against hard-won rules, export diagrams."""

__version__ = "0.1.0"
