"""docs/pictures holds one SVG per ruleset, exactly as `combatlog sheet` draws it now, and the docs show them."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.pictures import sheet_svg
from combatlog.pictures.gallery import GALLERY
from combatlog.projections.fold import round_end, state_at
from combatlog.rulesets import available
from tests.conftest import REPO
from tests.pictures.svgcheck import parse_svg

DOCS = REPO / "docs"


def test_one_picture_per_ruleset() -> None:
    assert sorted(GALLERY) == sorted(available())
    assert sorted(p.stem for p in (DOCS / "pictures").glob("*.svg")) == sorted(GALLERY)


@pytest.mark.parametrize("ruleset", sorted(GALLERY))
def test_the_committed_picture_is_what_the_command_draws(ruleset: str, open_example) -> None:  # type: ignore[no-untyped-def]
    example, name, options = GALLERY[ruleset]
    store, meta = open_example(Path(example).stem)
    assert meta.name == name
    head = state_at(store, meta)
    folded = state_at(store, meta, round_end(head, int(options[1]))) if options else head
    committed = (DOCS / "pictures" / f"{ruleset}.svg").read_text()
    parse_svg(committed)
    assert committed == sheet_svg(store, meta, folded, None), "run: python -m combatlog.pictures.gallery"


def test_the_docs_show_the_pictures() -> None:
    readme = (REPO / "README.md").read_text()
    for ruleset in GALLERY:
        assert f"docs/pictures/{ruleset}.svg" in readme
    pages = {"magic_realm": "magic_realm.md", "classic_fantasy": "classic_fantasy.md", "osric": "osric.md",
             "argad": "argad.md", "freeform": "guide.md"}
    for ruleset, page in pages.items():
        assert f"pictures/{ruleset}.svg" in (DOCS / page).read_text(), page
