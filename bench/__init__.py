"""Benchmarks: one command each, printing a table and writing JSON under bench/results/."""
