"""The target under test: how it is resolved (a base URL or the embedded reference server), its
pre-flight, and a draft of its profile (the profile itself is ``conformance.profile``).
"""
