"""The OpenAPI contract: the packaged document, its specialisation into a target's declared terms,
and ``conformance contract``.
"""
