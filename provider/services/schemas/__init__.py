"""JSON Schema checks shared by record attributes and named-query parameters.

A validator with a budget, run in worker processes so a hostile schema cannot hold the event loop.
"""
