"""Reports built from the per-file outcomes of a run (terminal, JSON, Markdown, SARIF)."""
