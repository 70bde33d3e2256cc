"""Fair share of what every principal shares: a gate served round-robin by principal, and its labels.

A first-come, first-served queue gives the machine to whoever sends most. `FairGate` holds a fixed
number of slots; while they are taken, each principal waits in a queue of its own, and a freed slot
goes to the next principal in turn, not to the oldest request. So a principal with one request waiting
is served after at most one request of each other principal, however many those others keep waiting.
When too many wait, the principal with most waiting loses its newest request first; a quieter one
is never refused to make room.

`current_principal` names who the running work is for. The admission middleware sets it per request;
the model's batcher (embedding_batches.py) reads it to fill each batch fairly. Work a request starts
in the background inherits it, as context variables are copied into tasks.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from contextvars import ContextVar

from provider import metrics
from provider.config import Settings
from provider.errors import BusyError, RateLimitedError

current_principal: ContextVar[str] = ContextVar("uhp_current_principal", default="")


class PrincipalLabels:
    """A bounded label for a principal: the first `named` principals seen keep their name, then `other`."""

    def __init__(self, named: int):
        self.named = named
        self._known: set[str] = set()

    def __call__(self, principal: str) -> str:
        if principal in self._known:
            return principal
        if len(self._known) < self.named:
            self._known.add(principal)
            return principal
        return "other"


_LABELS: dict[int, PrincipalLabels] = {}


def principal_labels(named: int) -> PrincipalLabels:
    """The process's labels for `named` principals, one set for every app in the process.

    The apps of a process share the metrics registry, so they share the names too, and the series
    stay bounded however many apps there are.
    """
    return _LABELS.setdefault(named, PrincipalLabels(named))


class FairGate:
    """`slots` holders at once, `share` at most of them one principal's; round-robin turns.

    Waiters are served round-robin by principal, and the heaviest is shed first. With `share` below
    `slots`, a slot is always left for another principal: whoever comes while one principal keeps
    the gate busy starts at once instead of waiting for a turn. And while several principals are at
    work, each may hold only an equal part of the slots: a busy principal's next request waits until
    its running ones are down to its part, so whoever came meanwhile shares the machine with fewer.
    One event loop only (the service's): state is changed by plain code between awaits, so it needs
    no lock.
    """

    def __init__(
        self,
        name: str,
        *,
        slots: int,
        max_waiting: int,
        max_wait_seconds: float,
        share: int | None = None,
        labels: PrincipalLabels | None = None,
    ):
        self.name = name
        self.slots = slots
        self.share = max(1, min(share or slots, slots))
        self.max_waiting = max_waiting
        self.max_wait_seconds = max_wait_seconds
        self.labels = labels or PrincipalLabels(0)
        self._free = slots
        self._held: dict[str, int] = {}
        # In the order principals take turns: the one served last goes to the end.
        self._queues: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._waiting = 0

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot now."""
        return self._waiting

    def waiting_for(self, principal: str) -> int:
        """Requests of one principal waiting now."""
        queue = self._queues.get(principal)
        return len(queue) if queue else 0

    def held_by(self, principal: str) -> int:
        """Slots one principal holds now."""
        return self._held.get(principal, 0)

    async def acquire(self, principal: str, *, patient: bool = False) -> None:
        """Takes a slot: at once when one is free to this principal and nobody is before it.

        Else it waits for the principal's turn. `patient` work (an accepted job, which nobody is
        waiting on to retry) is never shed and waits as long as it takes.
        """
        label = self.labels(principal)
        if self._free > 0 and self.held_by(principal) < self._share(principal) and self._next() is None:
            self._take(principal)
            metrics.FAIR_ADMITTED.labels(self.name, label).inc()
            return
        if not patient:
            self._make_room(principal)
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(principal, deque()).append(turn)
        self._waiting += 1
        metrics.FAIR_QUEUED.labels(self.name, label).inc()
        metrics.FAIR_DEPTH.labels(self.name).set(self._waiting)
        started = time.monotonic()
        try:
            await asyncio.wait_for(asyncio.shield(turn), timeout=None if patient else self.max_wait_seconds)
        except TimeoutError:
            if self._withdraw(principal, turn):
                metrics.FAIR_REFUSED.labels(self.name, label).inc()
                raise BusyError(
                    f"The service is busy: no {self.name} slot came free within "
                    f"{self.max_wait_seconds:g} s (UHP_QUEUE_MAX_WAIT_SECONDS); try again after "
                    "Retry-After seconds.",
                    retry_after=self._retry_after(),
                    detail={"queue": self.name},
                ) from None
            # The slot was handed over as the wait ran out: keep it.
        except asyncio.CancelledError:
            if not self._withdraw(principal, turn) and turn.done() and turn.exception() is None:
                self.release(principal)  # handed a slot while cancelled: pass it on
            raise
        finally:
            metrics.FAIR_WAIT_SECONDS.labels(self.name).observe(time.monotonic() - started)
            metrics.FAIR_DEPTH.labels(self.name).set(self._waiting)
        turn.result()  # a shed waiter's refusal is raised here
        metrics.FAIR_ADMITTED.labels(self.name, label).inc()

    def release(self, principal: str) -> None:
        """Gives back one of the principal's slots and hands free slots on, in turn."""
        held = self._held.get(principal, 0) - 1
        if held > 0:
            self._held[principal] = held
        else:
            self._held.pop(principal, None)
        self._free += 1
        while self._free > 0:
            following = self._next()
            if following is None:
                return
            queue = self._queues[following]
            turn = queue.popleft()
            self._waiting -= 1
            if queue:
                self._queues.move_to_end(following)
            else:
                del self._queues[following]
            self._take(following)
            turn.set_result(None)

    def _take(self, principal: str) -> None:
        self._free -= 1
        self._held[principal] = self._held.get(principal, 0) + 1

    def _share(self, principal: str) -> int:
        """The slots one principal may hold now, never less than one nor more than `share`.

        An equal part of them among the principals at work or waiting.
        """
        active = len(self._held.keys() | self._queues.keys() | {principal})
        return max(1, min(self.share, self.slots // active))

    def _next(self) -> str | None:
        """The first principal in turn with a request waiting and a slot left in its share."""
        return next((p for p in self._queues if self.held_by(p) < self._share(p)), None)

    def _withdraw(self, principal: str, turn: asyncio.Future[None]) -> bool:
        """Takes a waiter out of its queue; False when it had already been served or shed."""
        queue = self._queues.get(principal)
        if queue is None or turn not in queue:
            return False
        queue.remove(turn)
        self._waiting -= 1
        if not queue:
            del self._queues[principal]
        return True

    def _make_room(self, principal: str) -> None:
        """At full depth, refuses the newest request of the principal with most waiting.

        The arriving request counts for its principal: if that makes it the heaviest (ties included),
        the arrival itself is refused, so a quiet principal never pays for a busy one.
        """
        if self._waiting < self.max_waiting:
            return
        heaviest, queue = max(self._queues.items(), key=lambda item: len(item[1]))
        if self.waiting_for(principal) + 1 >= len(queue):
            metrics.FAIR_REFUSED.labels(self.name, self.labels(principal)).inc()
            raise self._refusal("has the most requests waiting in a full queue")
        shed = queue.pop()
        self._waiting -= 1
        if not queue:
            del self._queues[heaviest]
        metrics.FAIR_REFUSED.labels(self.name, self.labels(heaviest)).inc()
        shed.set_exception(self._refusal("has the most requests waiting in a full queue"))

    def _retry_after(self) -> int:
        return max(1, math.ceil(self.max_wait_seconds / 10))

    def _refusal(self, why: str) -> RateLimitedError:
        return RateLimitedError(
            f"The service is busy and this principal {why}; try again after Retry-After seconds.",
            retry_after=self._retry_after(),
            detail={"queue": self.name},
        )


def fair_gates(settings: Settings) -> dict[str, FairGate]:
    """One gate per request class, each with its slots.

    One set per process, shared by the API's admission and the work it starts in the background
    (observe jobs take a `writes` turn).
    """
    labels = principal_labels(settings.metrics_principals)
    return {
        name: FairGate(
            name,
            slots=slots,
            max_waiting=settings.queue_max_waiting,
            max_wait_seconds=settings.queue_max_wait_seconds,
            share=slots - settings.slots_kept_for_others if slots > settings.slots_kept_for_others else slots,
            labels=labels,
        )
        for name, slots in (
            ("reads", settings.read_slots),
            ("writes", settings.write_slots),
            ("queries", settings.query_slots),
        )
    }
