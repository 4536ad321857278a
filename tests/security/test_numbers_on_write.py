"""A command whose rules compute a number no log may hold is refused before it is appended.

The attack (found by an exploratory test of a fresh install): ``freeform damage duel Bo 99999999999999999999``
(and OSRIC's ``damage``) were accepted and appended an event holding -99999999999999999999 hit points. Every
later ``verify``, ``export`` and ``import`` refused that line (a log holds whole numbers within +-2**53), so
one command left a combat that no machine verifies again. The write path now refuses what verify would, for
every ruleset (``commands/handler.py``, ``_check_sizes``), and freeform refuses such an amount with its own
message.
"""

from __future__ import annotations

import msgspec
import pytest

from combatlog.commands.handler import _check_sizes
from combatlog.errors import InvalidCommand
from combatlog.events.canonical import is_canonical
from combatlog.events.envelope import encode_envelope, seal
from combatlog.rulesets.freeform.events import HpChanged
from tests.security.forge import log_fingerprint


def _sealed(delta: object) -> object:
    event = HpChanged(who="Bo", delta=delta, reason="", dice=())  # type: ignore[arg-type]
    return seal(stream="s", seq=2, prev="0" * 64, event=event, actor="gm", command_id="c" * 24)


@pytest.mark.parametrize("delta", [-(10**20), 2**53, 1.5])
def test_an_event_verify_would_refuse_for_its_numbers_is_refused_before_append(delta: object) -> None:
    env = _sealed(delta)
    assert not is_canonical(encode_envelope(env))  # what verify would say of the stored line
    with pytest.raises(InvalidCommand, match=r"ff\.hp_changed event would hold what a log cannot: its hp_changed\.delta"):
        _check_sizes([env])


def test_the_largest_number_a_log_holds_is_still_appended() -> None:
    env = _sealed(-(2**53 - 1))
    assert is_canonical(encode_envelope(env))
    assert len(_check_sizes([env])) == 1


def test_freeform_damage_beyond_any_log_is_refused_and_the_log_still_verifies(cli) -> None:  # type: ignore[no-untyped-def]
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    cli("freeform", "round", "duel")
    before = log_fingerprint(cli.db)
    for amount, says in (("99999999999999999999", "an amount of 99999999999999999999 hp is too large"),
                         ("²", "dice '²': '²' (U+00B2 SUPERSCRIPT TWO) is not ASCII")):  # a digit to isdigit
        result = cli("freeform", "damage", "duel", "Bo", amount, ok=False)
        assert result.code == 3 and says in result.err, result.err
        assert "error[internal]" not in result.err
    assert log_fingerprint(cli.db) == before
    cli("verify", "duel")
    result = cli("freeform", "damage", "duel", "Bo", " 4 ")  # a plain number still works, spaces and all
    assert "10 -> 6" in result.out
    assert msgspec.json.decode(cli("log", "duel", "--json").out)[-1]["data"]["delta"] == -4
