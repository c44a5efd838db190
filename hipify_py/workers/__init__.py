"""How a run's files are worked on: in this process, in forked workers, in a pool shared with --verify's
compiles, or in the translator process the executable starts first; behind `execute()`."""
