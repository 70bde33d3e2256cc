"""Routers, one per part of the surface, in the order the app mounts them."""

from provider.api.routes import (
    admin,
    archive,
    consolidations,
    files,
    grants,
    graph,
    harnesses,
    lifecycle,
    memories,
    meta,
    providers,
    queries,
    recall,
    records,
)

# The chapter's routes and the admin surface: each JSON answer among them is a declared model.
ANSWERING = (
    admin,
    providers,
    memories,
    grants,
    harnesses,
    records,
    recall,
    graph,
    lifecycle,
    consolidations,
    files,
    queries,
    archive,
)
MOUNTED = (meta, *ANSWERING)
