"""Layer 6, pipeline: translate(), the ordered rules and post-passes over one file. Imports rules and
below (docs/architecture.md)."""
