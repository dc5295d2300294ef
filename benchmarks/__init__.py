"""Benchmarks: the strategies side by side, and the speed of the harness (``make bench``)."""
