"""Event payload base class, the tag registry and upcasters.

Payloads are frozen msgspec Structs tagged with an explicit, namespaced, stable
tag (``core.dice_rolled``, ``mr.attack_played``). Tags are never derived from
class or module names, so renaming code never breaks an old log.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

import msgspec

from combatlog.errors import InvalidCommand

_TAG = re.compile(r"^[a-z][a-z0-9]*\.[a-z][a-z0-9_]*$")


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event payload. Subclasses must pass ``tag="ns.name"``.

    ``schema_version`` is the payload's current shape; bump it (with an
    upcaster from the previous one) only for a breaking change. Adding a field
    with a default is not breaking.
    """

    schema_version: ClassVar[int] = 1


EventType = type[Event]


class TypeSwitch:
    """The first of ``classes`` a value is an instance of (None if none), found once per exact type.

    For a fold's dispatch on event and command classes: ``isinstance`` (and a ``case Cls():`` pattern) against
    a msgspec Struct class that does not match goes through the metaclass's ``__instancecheck__``, about
    0.4 us each, and a Magic Realm event met a dozen such tests before its case. ``issubclass`` on the type
    is what ``isinstance`` answers for these classes (they define no instance or subclass hooks)."""

    __slots__ = ("classes", "_known")

    def __init__(self, *classes: type) -> None:
        self.classes = classes
        self._known: dict[type, type | None] = {}

    def __call__(self, value: object) -> type | None:
        kind = type(value)
        try:
            return self._known[kind]
        except KeyError:
            found = next((cls for cls in self.classes if issubclass(kind, cls)), None)
            self._known[kind] = found
            return found
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_REGISTRY: dict[str, EventType] = {}
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}
_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {}


def tag_of(cls: EventType) -> str:
    tag = cls.__struct_config__.tag
    if not isinstance(tag, str):
        raise TypeError(f"{cls.__name__} needs an explicit string tag")
    return tag


def register(*classes: EventType) -> None:
    """Register payload classes; a tag may only ever name one class."""
    for cls in classes:
        tag = tag_of(cls)
        if not _TAG.match(tag):
            raise TypeError(f"tag {tag!r} of {cls.__name__} is not 'namespace.name'")
        known = _REGISTRY.get(tag)
        if known is not None and known is not cls:
            raise TypeError(f"tag {tag!r} already names {known.__qualname__}")
        _REGISTRY[tag] = cls


def registered() -> dict[str, EventType]:
    return dict(_REGISTRY)


def event_class(tag: str) -> EventType:
    try:
        return _REGISTRY[tag]
    except KeyError:
        raise InvalidCommand(f"unknown event type {tag!r}") from None


def register_upcaster(tag: str, from_version: int, fn: Upcaster) -> None:
    """``fn`` turns a payload dict of ``from_version`` into ``from_version + 1``."""
    _UPCASTERS[(tag, from_version)] = fn


def decode_payload(tag: str, schema: int, raw: bytes | msgspec.Raw) -> Event:
    """The single read path for payloads: upcast old shapes, then decode."""
    cls = event_class(tag)
    if schema == cls.schema_version:
        dec = _DECODERS.get(tag)
        if dec is None:
            dec = _DECODERS[tag] = msgspec.json.Decoder(cls)
        return dec.decode(raw)  # type: ignore[no-any-return]
    if schema > cls.schema_version:
        raise InvalidCommand(
            f"{tag} schema {schema} is newer than this engine knows ({cls.schema_version}); upgrade combatlog"
        )
    data: dict[str, Any] = msgspec.json.decode(raw)
    for version in range(schema, cls.schema_version):
        step = _UPCASTERS.get((tag, version))
        if step is None:
            raise InvalidCommand(f"no upcaster for {tag} from schema {version}")
        try:
            data = step(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidCommand(f"cannot read {tag} schema {version}: {type(exc).__name__} {exc}") from None
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as exc:
        raise InvalidCommand(f"cannot read {tag} schema {schema} as schema {cls.schema_version}: {exc}") from None
