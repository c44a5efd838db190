"""Layer 1, utilities: compiled-pattern store, file I/O, paths, progress. Imports nothing else from
the package (docs/architecture.md; tests/test_layers.py holds the order)."""
