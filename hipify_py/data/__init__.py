"""Layer 2, data: table schema, versions and ranges, YAML -> tables, the built-table store, probe
tables, renames/shims/adaptations. Imports only util (docs/architecture.md)."""
