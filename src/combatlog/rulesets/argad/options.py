"""Argad options: every ambiguity of the seed, with its default (see docs/argad.md).

Options come from the genesis: ``setup["options"]`` (JSON values) over the
genesis ``options`` (strings), so a replay always uses what the combat was
created with.
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.errors import InvalidCommand

# name -> (allowed values, default, one line for the docs)
CHOICES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "two_maxima": (("plus_one", "half"), "plus_one",
                   "each further natural maximum adds +1 (seed: 'two 4s equals 4 and 5', 'another natural 4 "
                   "equals 5'), or +1/2 ('4 and a half' reading of the reference notes)"),
    "chained_maxima": (("single", "once", "any"), "single",
                       "single: a lone natural maximum is re-rolled while it shows the maximum again; once: "
                       "re-rolled once only; any: also re-roll the best die after two or more maxima"),
    "recoil_band": (("at_defence", "between"), "at_defence",
                    "recoil only when the total equals max(class, armour), or for any total from "
                    "min(class, armour) to max(class, armour)"),
    "strength": (("die", "modifier"), "die",
                 "strength as a bigger die (seed table), or the older fanzine rule: 1D6 +1 per step above =H "
                 "(-1 for -H) and struck at -1 per step above =H, without the hide armour bonus"),
    "h2_single_die": (("d12", "2d6"), "d12",
                      "an H2 creature striking one enemy rolls 1D12, or 2D6 added (its natural maximum is a "
                      "double 6 and a re-roll rolls both dice again)"),
    "priority_1v1": (("on", "off"), "on",
                     "when two opponents fighting one vs one both roll a kill (or recoil) at the same time, "
                     "priority by class, armour, metal, natural die, tactical modifiers decides"),
    "refused_recoil_blocks_strike": (("on", "off"), "on",
                                     "a recoil that is refused (large creature) or ignored (Dwarf on mineral "
                                     "ground) still forbids the figure to strike if the enemy struck first"),
    "shooting_wound_stops_strike": (("off", "on"), "off",
                                    "a wound from shooting in the same game turn also stops the creature "
                                    "striking in melee (the seed says 'wounded in melee')"),
    "wound_location": (("off", "on"), "off", "optional wound localisation on a D12 with cumulative effects"),
    "command_radius": (("off", "on"), "off",
                       "optional rule: figures marked out of command (move --out-of-command) get no positive "
                       "modifier and no natural-maximum rule"),
    "base_contact_limit": (("on", "off"), "on",
                           "cap the first-rank attackers of one figure per game turn by base sizes "
                           "(Bases of different sizes in melee)"),
}


class Options(msgspec.Struct, frozen=True, kw_only=True):
    two_maxima: str = "plus_one"
    chained_maxima: str = "single"
    recoil_band: str = "at_defence"
    strength: str = "die"
    h2_single_die: str = "d12"
    priority_1v1: str = "on"
    refused_recoil_blocks_strike: str = "on"
    shooting_wound_stops_strike: str = "off"
    wound_location: str = "off"
    command_radius: str = "off"
    base_contact_limit: str = "on"

    def on(self, name: str) -> bool:
        return getattr(self, name) == "on"


def parse_options(*sources: dict[str, Any]) -> Options:
    """Merge option dicts (later ones win) and check every name and value."""
    merged: dict[str, str] = {}
    for source in sources:
        for key, value in (source or {}).items():
            name = key.replace("-", "_")
            if name not in CHOICES:
                raise InvalidCommand(f"unknown Argad option {key!r}; known: {', '.join(CHOICES)}")
            text = ("on" if value else "off") if isinstance(value, bool) else str(value)
            allowed = CHOICES[name][0]
            if text not in allowed:
                raise InvalidCommand(f"Argad option {key}={text!r}: choose one of {', '.join(allowed)}")
            merged[name] = text
    return Options(**merged)


def defaults() -> dict[str, str]:
    return {name: spec[1] for name, spec in CHOICES.items()}
