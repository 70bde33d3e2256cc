"""Routers, one per part of the surface."""
