"""The SQL views of memlib, one per file (mapped into the package as memlib.sql)."""
