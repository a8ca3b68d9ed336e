"""Benchmark scripts that print figures (not tests): see bench/RESULTS.md."""
