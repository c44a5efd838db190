"""Top layer, the command line: click commands, thin (docs/architecture.md)."""
