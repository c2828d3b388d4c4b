"""Benchmark scripts (run as files: ``python bench/NAME.py``); ``common`` is shared."""
