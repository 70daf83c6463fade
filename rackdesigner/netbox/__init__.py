"""NetBox interop: the devicetype-library's YAML into catalog entries, a design out as
NetBox's bulk-import rows (docs/netbox.md).

Layer: between ``design`` and ``export``; it reads the model, the catalog and the
analysis, never the export, report, CLI or TUI layers.
"""
