"""Layer 8, run: discover, one file's work, the pool, the result cache, outcomes. Imports project and
below (docs/architecture.md)."""
