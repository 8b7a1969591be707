"""Benchmarks: `make bench` runs bench/run.py, which writes docs/performance.md."""
