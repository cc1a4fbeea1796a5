"""The target under test: its profile, how it is resolved (a base URL or the embedded reference
server) and its pre-flight.
"""
