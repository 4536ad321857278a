"""Reading a set-up file at the edge (``combatlog new --setup FILE``), with pydantic.

A set-up becomes part of the genesis, which is hashed as canonical JSON: it may
hold objects, arrays, strings, booleans, null and whole numbers within +-2**53,
never floats. pydantic checks that strictly and names the place of each problem
(``characters.0.level``), which is what a person editing the file needs.
pydantic is imported only here, so commands other than ``new`` never pay for it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from combatlog.errors import InvalidCommand
from combatlog.events.canonical import MAX_SAFE_INT


@lru_cache(maxsize=1)
def _adapter() -> Any:
    from typing import Annotated, Union

    from pydantic import Field, StrictBool, StrictInt, StrictStr, TypeAdapter
    from typing_extensions import TypeAliasType

    safe_int = Annotated[StrictInt, Field(ge=-MAX_SAFE_INT, le=MAX_SAFE_INT)]
    json_value = TypeAliasType(  # type: ignore[misc]
        "JsonValue",
        # "JsonValue" names this alias itself: the recursion TypeAliasType resolves
        Union[safe_int, StrictStr, StrictBool, None, list["JsonValue"], dict[str, "JsonValue"]],  # noqa: F821
    )
    return TypeAdapter(dict[str, json_value])  # type: ignore[valid-type]


def parse_setup(text: str | bytes, source: str = "setup") -> dict[str, Any]:
    from pydantic import ValidationError

    from combatlog.events.canonical import MAX_DEPTH, depth_problem

    deep = depth_problem(text, MAX_DEPTH)
    if deep:  # checked before the parser sees it (docs/trust.md, "Bounds")
        raise InvalidCommand(f"{source}: {deep}")
    try:
        return _adapter().validate_json(text)  # type: ignore[no-any-return]
    except ValidationError as exc:
        # pydantic reports every union member it tried, its location interleaving the
        # member's name ("int", "list[...]"); the deepest path is where the problem is.
        def path(error: Any) -> list[str]:
            return [str(p) for p in error["loc"] if isinstance(p, int) or not _is_member(str(p))]

        deepest = max(exc.errors(), key=lambda e: len(path(e)))
        raise InvalidCommand(
            f"{source}: {'.'.join(path(deepest)) or 'top level'}: {deepest['msg']}; a set-up holds objects, "
            "lists, strings, booleans, null and whole numbers (no fractions)"
        ) from None


def _is_member(part: str) -> bool:
    return part in ("int", "str", "bool", "none") or part.startswith(("list[", "dict[", "constrained-", "function-"))


def read_setup(path: Path) -> dict[str, Any]:
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise InvalidCommand(f"cannot read {path}: {exc.strerror}") from None
    return parse_setup(text, str(path))
