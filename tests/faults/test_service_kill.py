"""The service SIGKILLed under eight keyed writers and started again: nothing acknowledged lost, or twice.

The writers' retries reach the new process on the same port and Neo4j. A write the dead process
committed but never answered is found by its retry (its ids derive from the key); a key the dead
process held is taken over once its lease (UHP_LEASE_MS, 2 s here) runs out.
"""

from __future__ import annotations

import time

import pytest

from tests.faults.conftest import ServiceFactory
from tests.faults.service import Api
from tests.faults.writers import (
    Intended,
    Writers,
    assert_nothing_lost_or_doubled,
    cut_off_then_acknowledged,
    verify,
    written_at,
)

pytestmark = pytest.mark.faults(timeout=150)

# While no process listens the connection is refused; one cut off mid-request has no answer. A
# retry may wait on the dead owner's lease (at most 30 s, then 409: retried too).
ALLOWED = {"200", "409", "ConnectError", "RemoteProtocolError", "ReadError"}
KILLS = 2
# Acknowledged writes before each kill and after the last: the service is writing steadily (eight
# writers, so eight writes in flight when the kill lands); more only lengthens the run (~4 writes/s).
ACKS_BETWEEN = 24


def test_acknowledged_writes_survive_a_sigkill_of_the_service(service: ServiceFactory) -> None:
    served = service()
    served.start()
    with Api(served.url, served.admin_key) as api:
        writers = Writers.on_a_new_memory(api, served.url, threads=8, deadline_s=90).start()
        restarts, kills = [], []
        try:
            for _ in range(KILLS):
                writers.wait_for(writers.acknowledged() + ACKS_BETWEEN, within=60)
                kills.append(time.time())
                served.kill()
                began = time.monotonic()
                served.start()
                restarts.append(time.monotonic() - began)
            writers.wait_for(writers.acknowledged() + ACKS_BETWEEN, within=60)
        finally:
            writers.stop()
        print(f"faults: service SIGKILLed {KILLS} times, answering again after {restarts} s")
        verdict = verify(api, writers)
    assert_nothing_lost_or_doubled(verdict, ALLOWED, served.unhandled())
    # A cut-off write whose record is older than the kill was written by the dead process: its retry,
    # answered by the next one, found that record rather than writing another.
    retried = cut_off_then_acknowledged(writers.intended)
    by_dead = [w for w in retried if written_at(verdict.listed[str(w.record_id)]) < cut_by(w, kills)]
    print(f"faults: {len(retried)} writes cut off by a kill and retried; the dead process had written")
    print(f"faults: {len(by_dead)} of them, and their retries found those records (no second write)")


def cut_by(write: Intended, kills: list[float]) -> float:
    """The kill that cut a write off: the first after it began."""
    return min((k for k in kills if k > write.began_at), default=float("inf"))
