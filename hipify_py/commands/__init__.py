"""Sub-commands of `hipify-py` that live in their own modules (registered by hipify_py.cli)."""
