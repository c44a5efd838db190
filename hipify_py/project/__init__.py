"""Layer 7, project: findings decided once the whole run is seen (option macros, build defines,
operator uses). Imports the pipeline and below (docs/architecture.md)."""
