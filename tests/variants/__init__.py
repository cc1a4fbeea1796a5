"""Correct-but-different servers: the mirror of the faulty catalogue. Each variant is the
reference server behind one rewrite that fills a gap of the specification another way (or a
few that combine many); the kit must find it interface-conformant, its drop-in differences
exactly its change (``variants.catalogue.VARIANTS``, judged by ``test_variants.py``)."""
