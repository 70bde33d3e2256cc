"""Which records an erase takes: the named, and what was derived only from them, to a fixed point.

A pure judgement over the derived_from graph the store walked, so the rule is tested without a
database and cannot be cut short by the depth of a walk.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Collection, Mapping


def doomed_records(named: Collection[str], sources: Mapping[str, Collection[str]]) -> set[str]:
    """The named records, then every record all of whose derived_from sources are doomed, until none is added.

    `sources` maps each derived record to the sources it names. A record with no sources is never
    taken unless named; one with a source that survives (not reached, in a memory the caller cannot
    read, or derived from something that survives) survives. Cycles are safe: a record is counted down
    once per distinct source and taken once.
    """
    doomed = set(named)
    waiting = {record: len(set(of)) for record, of in sources.items()}
    derived_from: dict[str, list[str]] = defaultdict(list)
    for record, of in sources.items():
        for source in set(of):
            derived_from[source].append(record)
    queue = deque(doomed)
    while queue:
        source = queue.popleft()
        for record in derived_from.get(source, ()):
            waiting[record] -= 1
            if waiting[record] == 0 and record not in doomed:
                doomed.add(record)
                queue.append(record)
    return doomed
