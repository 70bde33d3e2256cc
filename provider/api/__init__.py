"""The only package that knows FastAPI: app factory, dependencies, error table and routes."""
