"""Model-based test of the access rules through HTTP: a random world of trees, members, nested groups,
grants, moves, cutoffs and deletes, where after every step each answer the API gives is compared with
the oracle in `tests/property/oracle.py` (pure Python, sharing nothing with `provider.access`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.api.tree_support import Reply, validate
from tests.conftest import Admin, Member
from tests.property.oracle import PRIVILEGES, Forest, GrantRec, View

# The walk's size: ACCESS_MODEL_EXAMPLES worlds of up to ACCESS_MODEL_STEPS steps each, every step
# followed by a full check (~14 requests). 35 x 50 runs ~1,000 steps (~100-120 s on 2 cores, every
# action and outcome reached); raise them for a longer hunt (50 x 50: ~2,100 steps, ~220 s).
EXAMPLES = int(os.environ.get("ACCESS_MODEL_EXAMPLES", "35"))
STEPS_PER_EXAMPLE = int(os.environ.get("ACCESS_MODEL_STEPS", "50"))
MIN_STEPS = EXAMPLES * STEPS_PER_EXAMPLE // 2  # fewer ran: hypothesis cut the walk short
MAX_MEMORIES = 9
STEPS = {"rules": 0, "checks": 0, "requests": 0}
OUTCOMES: dict[str, int] = {}  # "<action> <status>" -> how often, to show the walk reaches every branch

picks = st.integers(min_value=0, max_value=255)
# how to aim at a memory: 0-1 one the actor holds the privilege on, 2 one it sees, 3 anything (ghosts
# too); hypothesis favours small values, so the productive aim is the small one
aims = st.tuples(st.integers(min_value=0, max_value=3), picks)
privilege_sets = st.frozensets(st.sampled_from(PRIVILEGES), min_size=1, max_size=4)
Outcome = tuple[int, str | None]
OK: Outcome = (200, None)
NOT_FOUND: Outcome = (404, "memory_not_found")
FORBIDDEN: Outcome = (403, "memory_forbidden")
INVALID: Outcome = (422, "memory_invalid")


def outcome(response: Reply) -> Outcome:
    code = None if response.status_code == 200 else response.json()["error"]["code"]
    return response.status_code, code


def view_of(item: dict[str, Any]) -> View:
    """The access-dependent fields of a memory object."""
    return View(
        id=item["id"],
        privileges=item["privileges"],
        ancestors=item["ancestors"],
        parent_id=item["parent_id"],
        children=item["children"]["count"],
        restricted=item["restricted"],
    )


class AccessWorld(RuleBasedStateMachine):
    """Three members (the first, the busiest, is an agent with a harness), up to four groups, small trees."""

    def __init__(self, client: TestClient, admin: Admin):
        super().__init__()
        self.client = client
        self.admin = admin
        self.members: list[Member] = [admin.member("agent"), admin.member(), admin.member()]
        self.harness = self._harness(self.members[0])
        self.forest = Forest()
        self.order: list[str] = []  # memory ids in creation order, so picks are stable
        self.creator: dict[str, Member] = {}
        self.gone: list[str] = ["hmem_" + uuid.uuid4().hex]  # ids that exist for nobody
        self.group_ids: list[str] = []
        self.touched: tuple[Member, str] | None = None  # who acted on which memory in the last step

    # --- plumbing --------------------------------------------------------------------------------

    def call(self, method: str, path: str, who: Member, **kwargs: Any) -> Reply:
        STEPS["requests"] += 1
        return self.client.request(method, path, headers=who.headers, **kwargs)

    def _harness(self, member: Member) -> str:
        made = self.admin.client.post(
            "/v1/admin/harnesses", json={"name": "h", "member_id": member.id}, headers=self.admin.headers
        )
        assert made.status_code == 200, made.text
        return str(made.json()["id"])

    def aim(self, actor: Member, aim: tuple[int, int], *needed: str) -> str:
        """A memory to act on: any (live or gone), one the actor sees, or one it holds `needed` on.

        Aiming mostly where the action can succeed keeps the world growing; the rest walks the
        404 and 403 branches.
        """
        how, pick = aim
        pool = self.order + self.gone[-2:]
        if how <= 2:
            pool = [m for m in self.order if self.forest.sees(actor.id, m)] or pool
        if how <= 1:
            mine = self.forest.privileges
            held = [m for m in pool if m in self.forest.parent and set(needed) <= mine(actor.id, m)]
            pool = held or pool
        return pool[pick % len(pool)]

    def choose(
        self, who: int, aim: tuple[int, int], *needed: str, where: Callable[[str], bool] = lambda _: True
    ) -> tuple[Member, str]:
        """An actor and a memory: with a small `how`, a pair where the actor holds `needed`."""
        how, pick = aim
        if how <= 1:
            able = [
                (m, x)
                for x in self.order
                for m in self.members
                if where(x) and set(needed) <= self.forest.privileges(m.id, x)
            ]
            if able:
                return able[(who * 31 + pick) % len(able)]
        actor = self.members[who % 3]
        return actor, self.aim(actor, aim, *needed)

    def principal(self, who: int, pick: int) -> str:
        """Someone other than the actor first: granting oneself is rarely worth a step."""
        pool = [m.principal for m in self.members] + [f"group:{g}" for g in self.group_ids] + ["x.team:one"]
        return pool[(who + 1 + pick) % len(pool)]

    def expect(self, response: Reply, expected: Outcome, what: str) -> None:
        assert outcome(response) == expected, f"{what}: expected {expected}, got {response.text}"
        key = f"{what.split()[0]} {expected[0]}"
        OUTCOMES[key] = OUTCOMES.get(key, 0) + 1

    def gate(self, who: Member, memory_id: str, *needed: str) -> Outcome | None:
        """404 when unseen, 403 when a privilege is missing (in the order given), else None."""
        if not self.forest.sees(who.id, memory_id):
            return NOT_FOUND
        held = self.forest.privileges(who.id, memory_id)
        return FORBIDDEN if any(p not in held for p in needed) else None

    def step(self, who: Member | None = None, memory_id: str | None = None) -> None:
        STEPS["rules"] += 1
        if who is not None and memory_id is not None:
            self.touched = (who, memory_id)

    # --- the tree --------------------------------------------------------------------------------

    @initialize(restricted=st.booleans())
    def first_root(self, restricted: bool) -> None:
        self._create(self.members[0], None, restricted)

    @precondition(lambda self: len(self.order) < MAX_MEMORIES)
    @rule(who=picks, restricted=st.booleans())
    def create_root(self, who: int, restricted: bool) -> None:
        self.step()
        self._create(self.members[who % 3], None, restricted)

    @precondition(lambda self: 0 < len(self.order) < MAX_MEMORIES)
    @rule(who=picks, parent=aims, restricted=st.booleans())
    def create_child(self, who: int, parent: tuple[int, int], restricted: bool) -> None:
        actor, parent_id = self.choose(who, parent, "create")
        self.step(actor, parent_id)
        self._create(actor, parent_id, restricted)

    def _create(self, who: Member, parent: str | None, restricted: bool) -> None:
        expected = (self.gate(who, parent, "create") if parent else None) or OK
        body: dict[str, Any] = {"name": f"n{len(self.order)}", "parent_id": parent, "restricted": restricted}
        response = self.call("POST", "/v1/memories", who, json=body)
        self.expect(response, expected, f"create under {parent}")
        if expected != OK:
            return
        made = response.json()
        validate("Memory", made)
        self.forest.add(made["id"], parent, restricted=restricted)
        grant_id = f"implicit:{made['id']}"
        self.forest.grants[made["id"]].append(GrantRec(grant_id, who.principal, frozenset(PRIVILEGES), True))
        self.order.append(made["id"])
        self.creator[made["id"]] = who
        assert view_of(made) == self.forest.view(who.id, made["id"])

    @precondition(lambda self: bool(self.order))
    @rule(who=picks, memory=aims, principal=picks, privileges=privilege_sets)
    def grant(self, who: int, memory: tuple[int, int], principal: int, privileges: frozenset[str]) -> None:
        actor, memory_id = self.choose(who, memory, "delete")
        named = self.principal(self.members.index(actor), principal)
        grantee = next((m for m in self.members if m.principal == named), self.members[(who + 1) % 3])
        self.step(grantee, memory_id)
        expected = self.gate(actor, memory_id, "delete") or OK
        response = self.call(
            "POST",
            f"/v1/memories/{memory_id}/grants",
            actor,
            json={"principal": named, "privileges": sorted(privileges)},
        )
        self.expect(response, expected, f"grant on {memory_id}")
        if expected != OK:
            return
        body = response.json()
        validate("MemoryGrant", body)
        assert body["privileges"] == [p for p in PRIVILEGES if p in privileges]
        kept = [g for g in self.forest.grants[memory_id] if g.implicit or g.principal != named]
        self.forest.grants[memory_id] = [*kept, GrantRec(body["id"], named, privileges)]

    @precondition(lambda self: bool(self.order))
    @rule(who=picks, memory=aims, which=picks, elsewhere=st.integers(min_value=0, max_value=3))
    def revoke(self, who: int, memory: tuple[int, int], which: int, elsewhere: int) -> None:
        actor, memory_id = self.choose(who, memory, "delete", where=self._has_explicit_grants)
        self.step(self.members[(who + 1) % 3], memory_id)
        every = [(m, g) for m in self.order for g in self.forest.grants[m]]
        here = [(m, g) for m, g in every if m == memory_id and not g.implicit]
        every = every if elsewhere == 3 or not here else here
        sits_on, chosen = every[which % len(every)]
        grant_id = chosen.id if not chosen.implicit else self._implicit_id(sits_on)
        expected = self.gate(actor, memory_id, "delete") or (
            (404, "memory_grant_not_found") if sits_on != memory_id else INVALID if chosen.implicit else OK
        )
        response = self.call("DELETE", f"/v1/memories/{memory_id}/grants/{grant_id}", actor)
        self.expect(response, expected, f"revoke {grant_id} through {memory_id}")
        if expected == OK:
            self.forest.grants[memory_id].remove(chosen)

    def _has_explicit_grants(self, memory_id: str) -> bool:
        return any(not g.implicit for g in self.forest.grants[memory_id])

    def _implicit_id(self, memory_id: str) -> str:
        who = self.creator[memory_id]
        listed = self.call("GET", f"/v1/memories/{memory_id}/grants", who).json()["data"]
        return str(next(g["id"] for g in listed if g.get("implicit") and g["memory_id"] == memory_id))

    @precondition(lambda self: bool(self.order))
    @rule(who=picks, memory=aims, value=st.booleans())
    def restrict(self, who: int, memory: tuple[int, int], value: bool) -> None:
        actor, memory_id = self.choose(who, memory, "write", "delete")
        self.step(actor, memory_id)
        changing = memory_id in self.forest.parent and self.forest.restricted[memory_id] != value
        expected = self.gate(actor, memory_id, "write", *(["delete"] if changing else [])) or OK
        response = self.call("PUT", f"/v1/memories/{memory_id}", actor, json={"restricted": value})
        self.expect(response, expected, f"restrict {memory_id} to {value}")
        if expected == OK:
            self.forest.restricted[memory_id] = value
            assert view_of(response.json()) == self.forest.view(actor.id, memory_id)

    @precondition(lambda self: bool(self.order))
    @rule(who=picks, memory=aims)
    def rename(self, who: int, memory: tuple[int, int]) -> None:
        actor, memory_id = self.choose(who, memory, "write")
        self.step(actor, memory_id)
        expected = self.gate(actor, memory_id, "write") or OK
        response = self.call("PUT", f"/v1/memories/{memory_id}", actor, json={"name": "renamed"})
        self.expect(response, expected, f"rename {memory_id}")

    @precondition(lambda self: bool(self.order))
    @rule(who=picks, memory=aims, parent=st.one_of(st.none(), aims))
    def move(self, who: int, memory: tuple[int, int], parent: tuple[int, int] | None) -> None:
        actor, memory_id = self.choose(who, memory, "write", "delete")
        new_parent = None if parent is None else self.aim(actor, parent, "create")
        if new_parent == self.forest.parent.get(memory_id, "gone"):
            return  # giving the same parent again is covered by tests/api/test_tree.py
        self.step(actor, new_parent or memory_id)
        expected = self._move_outcome(actor, memory_id, new_parent)
        response = self.call("PUT", f"/v1/memories/{memory_id}", actor, json={"parent_id": new_parent})
        self.expect(response, expected, f"move {memory_id} under {new_parent}")
        if expected == OK:
            self.forest.parent[memory_id] = new_parent
            assert view_of(response.json()) == self.forest.view(actor.id, memory_id)

    def _move_outcome(self, actor: Member, memory_id: str, new_parent: str | None) -> Outcome:
        refused = self.gate(actor, memory_id, "write", "delete")
        if refused:
            return refused
        if new_parent is None:
            return OK
        refused = self.gate(actor, new_parent, "create")
        if refused:
            return refused
        return INVALID if new_parent in self.forest.subtree(memory_id) else OK

    @precondition(lambda self: len(self.order) >= 6)  # deleting less often lets the world grow
    @rule(who=picks, memory=aims)
    def delete(self, who: int, memory: tuple[int, int]) -> None:
        actor, memory_id = self.choose(who, memory, "delete")
        parent = self.forest.parent.get(memory_id)
        self.step(actor, parent or memory_id)
        expected = self.gate(actor, memory_id, "delete") or OK
        response = self.call("DELETE", f"/v1/memories/{memory_id}", actor)
        self.expect(response, expected, f"delete {memory_id}")
        if expected != OK:
            return
        doomed = self.forest.subtree(memory_id)
        body = response.json()
        assert body["deleted"] is True and body["id"] == memory_id
        assert sorted(body["memories"]) == sorted(doomed)
        self.forest.remove(memory_id)
        self.order = [m for m in self.order if m not in doomed]
        self.gone += doomed

    # --- groups ----------------------------------------------------------------------------------

    @precondition(lambda self: len(self.group_ids) < 4)
    @rule(members=st.lists(picks, max_size=3))
    def new_group(self, members: list[int]) -> None:
        self.step()
        pool = [m.id for m in self.members] + self.group_ids
        joining = sorted({pool[p % len(pool)] for p in members})
        group = self.admin.group(*joining)
        STEPS["requests"] += 1 + len(joining)
        self.forest.groups[group] = set(joining)
        self.group_ids.append(group)

    @precondition(lambda self: bool(self.group_ids))
    @rule(group=picks, member=picks, join=st.booleans())
    def membership(self, group: int, member: int, join: bool) -> None:
        self.step()
        group_id = self.group_ids[group % len(self.group_ids)]
        pool = [m.id for m in self.members] + [g for g in self.group_ids if g != group_id]
        member_id = pool[member % len(pool)]
        method = "PUT" if join else "DELETE"
        STEPS["requests"] += 1
        response = self.admin.client.request(
            method, f"/v1/admin/groups/{group_id}/members/{member_id}", headers=self.admin.headers
        )
        assert response.status_code == 200, response.text
        (self.forest.groups[group_id].add if join else self.forest.groups[group_id].discard)(member_id)

    # --- after every step ------------------------------------------------------------------------

    @invariant()
    def answers_agree_with_the_oracle(self) -> None:
        """Every member's entry and granted listings and the harness, then one memory in depth.

        The memory looked at in depth (GET, ?parent, ?ancestor, grants) is the one the step acted on,
        as the member it matters to; steps that touch no memory take the next (member, memory) pair
        in rotation. A sweep of every pair after every step would cost ~30 s per hundred steps.
        """
        STEPS["checks"] += 1
        turn = STEPS["checks"]
        for i, member in enumerate(self.members):
            self.check_listings(member, limit="3" if i == turn % 6 else "100")  # pages now and then
        self.check_harness(self.members[0])
        if self.touched is None:
            pairs = [(m, x) for x in [*self.order, *self.gone[-1:]] for m in self.members]
            seen = [(m, x) for m, x in pairs if self.forest.sees(m.id, x)]
            pool = seen if turn % 2 and seen else pairs  # unseen memories are cheap to check: half the time
            self.touched = pool[(turn // 2) % len(pool)]
        self.check_memory(*self.touched)
        self.touched = None

    def listing(self, who: Member, limit: str, **params: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            query: dict[str, str] = {**params, "limit": limit, **({"cursor": cursor} if cursor else {})}
            response = self.call("GET", "/v1/memories", who, params=query)
            assert response.status_code == 200, response.text
            page = response.json()
            items += page["data"]
            cursor = page["next"]
            if cursor is None:
                assert len({i["id"] for i in items}) == len(items), f"duplicates in {params}"
                return items

    def agree(self, who: Member, items: list[dict[str, Any]], expected: set[str], what: str) -> None:
        got = {i["id"] for i in items}
        assert got == expected, f"{what} for {who.id}: extra {got - expected}, missing {expected - got}"
        for item in items:
            assert view_of(item) == self.forest.view(who.id, item["id"]), f"{what}: view of {item['id']}"

    def check_listings(self, who: Member, limit: str) -> None:
        self.agree(who, self.listing(who, limit), self.forest.entries(who.id), "entries")
        granted = self.listing(who, limit, granted="true")
        self.agree(who, granted, self.forest.granted(who.id), "granted")
        depths = [self.forest.depth(i["id"]) for i in granted]
        assert depths == sorted(depths), "granted: highest first"

    def check_harness(self, agent: Member) -> None:
        response = self.call("GET", f"/v1/harnesses/{self.harness}/memories", agent)
        expected = self.forest.harness(agent.id)
        if not expected:
            self.expect(response, (404, "memories_not_attached"), "harness memories")
            return
        data = response.json()["data"]
        assert {m["id"]: m["privileges"] for m in data} == expected
        depths = [self.forest.depth(m["id"]) for m in data]
        assert depths == sorted(depths), "harness memories: highest first"

    def check_memory(self, who: Member, memory_id: str) -> None:
        checks: list[tuple[str, Callable[[], Reply]]] = [
            ("get", lambda: self.call("GET", f"/v1/memories/{memory_id}", who)),
            (
                "parent",
                lambda: self.call("GET", "/v1/memories", who, params={"parent": memory_id, "limit": 100}),
            ),
            (
                "ancestor",
                lambda: self.call("GET", "/v1/memories", who, params={"ancestor": memory_id, "limit": 100}),
            ),
            ("grants", lambda: self.call("GET", f"/v1/memories/{memory_id}/grants", who)),
        ]
        if not self.forest.sees(who.id, memory_id):
            for what, ask in checks:
                self.expect(ask(), NOT_FOUND, f"{what} of unseen {memory_id}")
            return
        get, parent, ancestor, grants = (ask() for _, ask in checks)
        assert view_of(get.json()) == self.forest.view(who.id, memory_id)
        self.agree(who, parent.json()["data"], self.forest.children_seen(who.id, memory_id), "parent")
        self.agree(who, ancestor.json()["data"], self.forest.readable_below(who.id, memory_id), "ancestor")
        self.check_grants(who, memory_id, grants)

    def check_grants(self, who: Member, memory_id: str, response: Reply) -> None:
        if "read" not in self.forest.privileges(who.id, memory_id):
            assert response.status_code in (200, 403), response.text  # the chapter leaves this open
            if response.status_code == 403:
                return
        listed = [(g["id"], g["memory_id"], g["inherited"]) for g in response.json()["data"]]
        expected = self.forest.grant_listing(who.id, memory_id)
        assert sorted((m, i) for _, m, i in listed) == sorted((m, i) for _, m, i in expected)
        explicit = {g for g, _, _ in expected if not g.startswith("implicit:")}
        assert explicit <= {g for g, _, _ in listed}

    def teardown(self) -> None:
        for memory_id in list(self.order):
            if memory_id in self.forest.parent and self.forest.parent[memory_id] is None:
                response = self.call("DELETE", f"/v1/memories/{memory_id}", self.creator[memory_id])
                assert response.status_code == 200, response.text


def test_the_api_agrees_with_the_oracle(client: TestClient, admin: Admin) -> None:
    before = STEPS["rules"]

    class World(AccessWorld):
        def __init__(self) -> None:
            super().__init__(client, admin)

    run_state_machine_as_test(
        World,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS_PER_EXAMPLE,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    executed = STEPS["rules"] - before
    print(f"\naccess model: {executed} steps, {STEPS['checks']} full checks, {STEPS['requests']} requests")
    assert executed >= MIN_STEPS, f"only {executed} steps ran; raise ACCESS_MODEL_EXAMPLES or _STEPS"
