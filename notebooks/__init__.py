"""The report notebooks of memlib (mapped into the package as memlib.notebooks)."""
