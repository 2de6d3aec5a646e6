"""Ids that carry their owner's tag: a listing reads only the folders named for its caller
and those made before ids carried a tag."""

from __future__ import annotations

import uuid

from shared.adapters.identity import system_principal
from shared.usecases.owned_ids import candidates, new_id

ALICE, BOB = system_principal("alice").owner, system_principal("bob").owner


def test_a_listing_keeps_the_callers_ids_and_untagged_ones_never_another_owners():
    alices, bobs, untagged = new_id(ALICE), new_id(BOB), uuid.uuid4().hex
    assert alices != new_id(ALICE) and alices.split("-")[0] != bobs.split("-")[0]
    assert candidates([alices, bobs, untagged, "notes", f"{alices}-r3"], ALICE) == [
        alices,
        untagged,
    ]


def test_a_prefix_is_kept_and_other_folders_under_it_are_not_candidates():
    watch = new_id(ALICE, "watch-")
    run_session = f"{watch}-r3"  # a watch's runs are sessions named after it
    old = f"watch-{uuid.uuid4().hex}"
    names = [watch, run_session, old, new_id(BOB, "watch-"), "watchful"]
    assert candidates(names, ALICE, "watch-") == [watch, old]
