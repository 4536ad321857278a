"""Every picture of every example combat, at every round and at its head, and every gallery picture:
no piece's name cut short, no internal id shown to a person, every code or colour chip explained
(issue #21: a test that only counted elements let each of these through)."""

from __future__ import annotations

import pytest

from combatlog.errors import NotFound
from combatlog.pictures import sheet_svg
from combatlog.projections.fold import round_end, state_at
from tests.conftest import REPO
from tests.pictures.conftest import EXAMPLES
from tests.pictures.legibility import problems


def every_picture(store, meta) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    head = state_at(store, meta)
    out = [("head", sheet_svg(store, meta, head, None))]
    last = head.ruleset.round_of(head.state)
    for rnd in range(0, last + 1):
        try:
            seq = round_end(head, rnd)
        except NotFound:  # a round the combat never had (round 0 in most games)
            continue
        out.append((f"round {rnd}", sheet_svg(store, meta, state_at(store, meta, seq), None)))
    players = [p.name for p in head.core.genesis.players] if head.core.genesis is not None else []
    for player in players[:2]:
        out.append((f"head as {player}", sheet_svg(store, meta, head, player)))
    return out


@pytest.mark.parametrize("stem", [p.stem for p in EXAMPLES])
def test_every_example_picture_is_legible(stem: str, open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example(stem)
    bad = {where: found for where, svg in every_picture(store, meta) if (found := problems(svg))}
    assert not bad, f"{stem}: {bad}"


@pytest.mark.parametrize("picture", sorted((REPO / "docs" / "pictures").glob("*.svg")), ids=lambda p: p.stem)
def test_every_gallery_picture_is_legible(picture) -> None:  # type: ignore[no-untyped-def]
    assert not problems(picture.read_text())
