"""Hand-written scenarios, each tied to requirement ids with the ``requirement`` marker."""
