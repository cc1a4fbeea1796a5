"""A correct server that fills every gap of the spec differently from the reference server.

``dialect.server.Dialect`` translates, both ways, between the reference server's choices and the
dialect's own (``dialect.choices``); ``dialect.profile`` declares them; ``dialect.variants`` breaks
one declared choice at a time.
"""
