"""The sync and async clients are generated from one route table, and are up to date with it."""

from __future__ import annotations

from provider.client import AsyncMemoryClient, MemoryClient, generate


def test_the_generated_clients_match_the_route_table() -> None:
    assert generate.main(["--check"]) == 0, "run python -m provider.client.generate"


def test_both_clients_offer_every_route() -> None:
    routes = {name for name, _, _ in generate.surface()}
    assert len(routes) >= 45
    assert routes <= set(dir(MemoryClient)) and routes <= set(dir(AsyncMemoryClient))
