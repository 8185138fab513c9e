"""Benchmarks: each module runs with one command and prints one JSON line of figures."""
