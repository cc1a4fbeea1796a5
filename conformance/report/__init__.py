"""Reports: one model (``model.py``), and one pure renderer per output format."""
