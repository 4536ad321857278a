"""Generate docs/cli.md (from --help) and docs/events.md (from the event registry).

Run ``make docs`` after changing a command or an event; tests/cli/test_docs.py
fails when either file is out of date.
"""

from __future__ import annotations

import os
import typing
from pathlib import Path
from typing import Any

import msgspec

DOCS = Path(__file__).resolve().parents[3] / "docs"


def _help_text(command: Any, path: list[str]) -> str:
    import click

    os.environ["COLUMNS"] = "100"
    os.environ["NO_COLOR"] = "1"
    os.environ["TERM"] = "dumb"
    # as the CLI builds them: every context inherits the root's settings (-h beside --help)
    ctx = click.Context(command, info_name=" ".join(path), terminal_width=100, max_content_width=100,
                        help_option_names=["-h", "--help"])
    return command.get_help(ctx)


def _walk(command: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    import click

    out = [(path, command)]
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path[-1])
        for name in command.list_commands(ctx):
            out += _walk(command.get_command(ctx, name), [*path, name])
    return out


def cli_reference() -> str:
    from combatlog.cli.app import root_command

    lines = [
        "# CLI reference",
        "",
        "Generated from `--help` by `make docs`; a test fails when it is out of date.",
        "`--json` output is the stable contract (what it holds: [guide.md, JSON output](guide.md#json-output));",
        "text output is for people and may change. `-h` is `--help` everywhere.",
        "Errors go to stderr as `error[<code>]: <message>` (with `--json`: one line of JSON,",
        '`{"error": {"code": <code>, "message": <message>}}`); exit statuses: '
        + ", ".join(f"{s.value} {s.name.lower()}" for s in _statuses()) + ".",
        "",
    ]
    for path, command in _walk(root_command(), ["combatlog"]):
        lines += [f"## `{' '.join(path)}`", "", "```text", _help_text(command, path).rstrip(), "```", ""]
    return "\n".join(lines)


def _statuses() -> list[Any]:
    from combatlog.errors import ExitStatus

    return list(ExitStatus)


def _type_name(tp: Any) -> str:
    text = str(tp) if not isinstance(tp, type) else tp.__name__
    return text.replace("typing.", "").replace("combatlog.", "").replace("NoneType", "None")


def event_catalogue() -> str:
    from combatlog.events.base import registered
    from combatlog.rulesets import available, load_ruleset

    for name in available():
        load_ruleset(name)
    lines = [
        "# Event catalogue",
        "",
        "Every event tag with its fields, generated from the registry by `make docs`.",
        "Tags are stable (tests/golden_tags); a breaking change gets a new schema version and an upcaster.",
        "Every event travels in an envelope: `v, stream, seq, type, schema, actor, recorded_at, command_id,",
        "prev, data, hash, sigs`, and on the first event of a ruleset command's batch `command`:",
        "`{\"name\": \"<ruleset>.<Command>\", \"args\": {...}}`, hashed and signed with it, which `verify`",
        "re-decides (see docs/design.md). A decision a merge placed after the branch it kept carries",
        "`placed: {\"seq\", \"prev\", \"sigs\"}` (hashed): where its author made it and his signature there, and",
        "no `sigs` of its own (docs/trust.md, \"Crossings\"). From engine 0.3 the last event of each batch carries",
        "`state`: the SHA-256 of the rules' state the batch leaves (hashed and signed with it), which `verify`",
        "compares with its own fold (docs/rules.md, \"The state digest\").",
        "",
    ]
    by_ns: dict[str, list[tuple[str, type]]] = {}
    for tag, cls in sorted(registered().items()):
        by_ns.setdefault(tag.split(".")[0], []).append((tag, cls))
    for ns, items in by_ns.items():
        lines += [f"## `{ns}.*`", ""]
        for tag, cls in items:
            doc = (cls.__doc__ or "").strip().split("\n\n")[0]
            doc = " ".join(doc.split())
            lines += [f"### `{tag}` (schema {cls.schema_version})", ""]  # type: ignore[attr-defined]
            if doc:
                lines += [doc, ""]
            hints = typing.get_type_hints(cls)
            lines += ["| field | type | default |", "|---|---|---|"]
            for f in msgspec.structs.fields(cls):
                default = "required" if f.required else repr(f.default if f.default is not msgspec.NODEFAULT else f.default_factory())
                lines.append(f"| `{f.name}` | `{_type_name(hints[f.name])}` | {default} |")
            lines.append("")
    return "\n".join(lines)


def main() -> None:
    (DOCS / "cli.md").write_text(cli_reference() + "\n")
    (DOCS / "events.md").write_text(event_catalogue() + "\n")
    print("wrote docs/cli.md and docs/events.md")


if __name__ == "__main__":
    main()
