"""The three checkers (graph search, Hypothesis, Z3) and their common verdicts."""
