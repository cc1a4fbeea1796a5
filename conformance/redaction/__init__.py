"""No secret in any output: placeholders at the source, every pytest output of a run, and a last
pass over each report file.
"""
