"""A second correct server that keeps none of the reference server's unkeyed structure.

``dialect2.server.Dialect2`` wraps the first dialect (``tests/dialect``: every keyed choice its
own) and departs from the reference where no profile key reaches (``dialect2.choices``): its own
error codes, records without the reference's extra fields, its own active word, a decimal numeric
header, no members filter, page-number paging, a key-order sidecar in JSON Pointers that it reads
itself (``dialect2.sidecar``: the first dialect's dotted paths cannot spell every pointer).
``dialect2.profile`` declares every choice a key can express and leaves the production
conventions undeclared; ``dialect2.variants`` gives each convention a one-defect variant flagged
at the drop-in level only.
"""
