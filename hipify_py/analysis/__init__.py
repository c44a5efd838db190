"""Layer 4, analysis: per-file facts the rules share (Context, #if branches as hipcc sees them,
declarations, call arguments, include placement). Imports only the layers below (docs/architecture.md)."""
