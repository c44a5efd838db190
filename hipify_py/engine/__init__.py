"""Layer 3, engine: source and line index, lexer, parser, edits, diagnostics, options. Imports only
util and data (docs/architecture.md)."""
