"""Pitfall detectors: rules that only report (no edits), one module per theme.

Each detector finds candidates with one compiled pattern over the source (C speed) and consults the
tree only around the hits, so a file without CUDA pitfalls costs a few regex scans. All of them run
through one rule, `pitfall_detectors`, which shares one `common.Scan` per file; `registry.STEPS` lists
them (add a new detector there). Facts they consult live in `hipify_py/data/detector_data.py`.
"""

from hipify_py.rules.detectors.registry import DETECTORS, STEPS, pitfall_detectors

__all__ = ["DETECTORS", "STEPS", "pitfall_detectors"]
