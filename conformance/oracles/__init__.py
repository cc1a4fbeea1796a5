"""The suite's own oracles: what a correct answer is (shapes, grammars, bucketing, changesets,
token-bucket bounds), independent of any implementation.
"""
