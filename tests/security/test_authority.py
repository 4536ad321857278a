"""Who may act, re-checked by every machine (issue: a log that proves every step was allowed).

Each attack is made as a hostile player would: first through the normal CLI (refused at once, with
the rule cited), then with a modified client that skips the checks of the write path, signs the
batch with the attacker's own key and mails it: ``import`` and ``verify`` on the victim's machine
must refuse it, and the victim's log must be byte for byte as it was (docs/trust.md, threat table).
The set-ups are the shipped ones: Magic Realm's giant-and-goblins (bk is alice's, amazon bob's) and
the OSRIC skirmish of tests/trust/test_osric_sealed.py (alice, who created it, referees).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from combatlog.commands.handler import _rows, _seal_all
from combatlog.events.envelope import encode_envelope
from combatlog.wiring import dice_port
from combatlog.commands.record import encode_record
from combatlog.dice.port import with_drawn
from combatlog.projections.fold import state_at
from combatlog.projections.streams import resolve_stream
from combatlog.rulesets.argad import commands as argad
from combatlog.rulesets.argad.state import Effect
from combatlog.rulesets.argad.tables import TIER_INDEX
from combatlog.rulesets.magic_realm import commands as mr
from combatlog.rulesets.osric import commands as osric
from combatlog.store import open_store
from tests.conftest import example_lines
from tests.trust.pbem import Seat, appended, export, key_home, mail, pair, rechain, seats_built_once, write_lines
from tests.trust.test_osric_sealed import _pair as osric_pair

G = "giant-goblins"
MR_SETUP = "docs/examples/magic_realm/giant-and-goblins.json"


def rows(seat: Seat) -> list[tuple[Any, ...]]:
    """Every event row of ``seat``'s log (none where it has no log yet)."""
    if not Path(seat.cli.db).exists():
        return []
    with sqlite3.connect(seat.cli.db) as db:
        return db.execute("SELECT stream, seq, hash, body FROM events ORDER BY stream, seq").fetchall()


def modified_client(seat: Seat, stream: str, command: Any, *, faces: dict[str, tuple[int, ...]] | None = None) -> None:
    """Append what the rules decide for ``command``, sealed with its record and signed by ``seat``'s key,
    skipping the authority check (a client changed to cheat)."""
    store = open_store(str(seat.cli.db))
    meta = resolve_stream(store, stream)
    folded = state_at(store, meta)
    port = dice_port(store, folded, actor=seat.name, manual_faces=faces)
    events = with_drawn(port.drawn, folded.ruleset.decide(folded.state, command, port))
    from combatlog.trust.players import make_signer

    with key_home(seat.home):
        signer = make_signer(seat.name)
        envelopes = _seal_all(meta.id, events, start_seq=folded.core.head_seq + 1, prev=folded.core.head_hash,
                              actor=seat.name, command_id="modified-client", signer=signer,
                              head_time=folded.core.head_time, command=encode_record(folded.ruleset.info.name, command))
    store.append(meta.id, _rows(envelopes, [encode_envelope(e) for e in envelopes]), expected_version=folded.core.head_seq, command_id="modified-client")


def refused_by(victim: Seat, path: Path, *expected: str) -> None:
    before = rows(victim)
    for verb in ("verify", "import"):
        out = victim(verb, str(path), ok=False)
        assert out.code != 0, f"{verb} accepted the forged bundle"
        for text in expected:
            assert text in out.err, out.err
    assert rows(victim) == before


def mr_pair(tmp_path: Path) -> tuple[Seat, Seat]:
    """alice and bob at the giant and goblins, bob's acknowledgement mailed: made once per test run by the real
    CLI and copied into ``tmp_path`` (tests/trust/pbem.py ``seats_built_once``), for the tests that start there."""

    def build(folder: Path) -> tuple[Seat, Seat]:
        alice, bob = pair(folder, G, ruleset="magic_realm", dice="manual", setup=MR_SETUP)
        bob("ack", G)
        mail(bob, alice, G, folder)
        return alice, bob

    alice, bob = seats_built_once(tmp_path, "authority-mr-pair", build)
    return alice, bob


def test_a_player_cannot_lure_with_another_players_character(tmp_path: Path) -> None:
    alice, bob = mr_pair(tmp_path)
    # through the CLI: refused at once, the owner named and the rule cited
    out = bob("mr", "lure", G, "bk", "goblin-1", "goblin-2", ok=False)
    assert out.code == 4 and "bk belongs to alice; bob may not lure with it" in out.err and "each character's moves are its player's" in out.err
    assert alice("show", G, "--json").json()["roles"] == {  # type: ignore[index]
        "enforced": True, "referee": None, "referee_named": False, "players": ["alice", "bob"]}
    # a modified client signs it anyway and mails it: alice's machine refuses it, her log unchanged
    modified_client(bob, G, mr.Lure(character="bk", denizens=("goblin-1", "goblin-2")))
    path = write_lines(tmp_path / "lure.jsonl", export(open_store(str(bob.cli.db)), tmp_path / "x.jsonl", G,
                                                       since=alice.head(G)))
    refused_by(alice, path, "bob's magic_realm Lure is refused by the rules on re-deciding",
               "bk belongs to alice")
    # her own lure is still hers to make
    alice("mr", "lure", G, "bk", "giant")


def test_a_forged_chit_fails_re_deciding(tmp_path: Path) -> None:
    # alice declares bk's alert with F2 (giant-and-goblins.cmds); a forger re-writes it as F9, a chit the
    # Black Knight does not have (MR 8.4.1 / the character's chits), re-chains and re-signs with her own key.
    alice, bob = mr_pair(tmp_path)
    bob("mr", "lure", G, "amazon", "goblin-1")
    mail(bob, alice, G, tmp_path)
    alice("mr", "lure", G, "bk", "giant")
    alice("mr", "assign", G, "--face", "r1/assign/goblin-2=1", "--face", "r1/assign/goblin-3=2")
    mail(alice, bob, G, tmp_path)
    bob("mr", "deploy", G, "amazon", "--hireling", "lancer-hq=giant", "--hireling", "lancer-1=giant")
    mail(bob, alice, G, tmp_path)
    since = bob.head(G)
    alice("mr", "deploy", G, "bk")
    alice("mr", "action", G, "bk", "alert", "--chit", "F2")
    lines = export(open_store(str(alice.cli.db)), tmp_path / "honest.jsonl", G, since=since)
    seq = next(json.loads(line)["seq"] for line in lines[1:] if b"action_declared" in line)
    forged = rechain(lines, seq, lambda data: data.update(chit="F9"))
    from combatlog.events.envelope import decode_envelope, encode_envelope
    from combatlog.trust.players import make_signer

    with key_home(alice.home):
        sign = make_signer("alice")
        forged = [forged[0]] + [encode_envelope(sign(decode_envelope(line))) for line in forged[1:]]
    path = write_lines(tmp_path / "f9.jsonl", forged)
    refused_by(bob, path, f"seq {seq}", "does not re-decide to the recorded events", "F9")


def test_an_event_of_the_rules_that_no_command_produced_is_refused(tmp_path: Path) -> None:
    # a forger appends a bare Magic Realm event (no recorded command) and signs it with his own key
    alice, bob = mr_pair(tmp_path)
    from combatlog.rulesets.magic_realm.events import Lured
    from combatlog.trust.players import make_signer

    lines = export(open_store(str(bob.cli.db)), tmp_path / "all.jsonl", G)
    with key_home(bob.home):
        forged = appended(lines, Lured(character="amazon", lures={"giant": "amazon"}), actor="bob",
                          signer=make_signer("bob"))
    path = write_lines(tmp_path / "bare.jsonl", forged)
    victim = Seat("carol", tmp_path)
    victim("keys", "new", "carol")
    out = victim("verify", str(path), ok=False)
    assert out.code != 0 and "was produced by no recorded command" in out.err


def test_osric_rulings_are_the_referees(tmp_path: Path) -> None:
    # alice created the skirmish and plays the party; OSRIC is refereed, so she referees (no --referee).
    alice, bob = osric_pair(tmp_path)
    assert "roles: referee alice (the creator, by default)" in bob("status", "skirmish").out
    for args in (("damage", "skirmish", "Brom", "40", "--source", "x"), ("end", "skirmish")):
        out = bob("osric", *args, ok=False)
        assert out.code == 4 and "is a ruling: only the referee, alice, may make it (not bob)" in out.err
    modified_client(bob, "skirmish", osric.Damage(who="Brom", amount="40", source="x"))
    path = write_lines(tmp_path / "ruling.jsonl", export(open_store(str(bob.cli.db)), tmp_path / "y.jsonl",
                                                         "skirmish", since=alice.head("skirmish")))
    refused_by(alice, path, "bob's osric Damage is refused by the rules on re-deciding", "only the referee, alice")


def test_a_player_cannot_move_the_osric_timeline_past_the_other_sides_open_actions(tmp_path: Path) -> None:
    """The attack (an exploratory test by mail): the timeline's steps are anyone's, so bob, who plays the orcs,
    ended the round (or moved past a segment) while the party's declared actions were still due: they were
    lost, and every machine's import and verify accepted it. Passing a combatant's open action forgoes it:
    its side's players', or the referee's (OSRIC Combat: First Party Acts / Second Party Acts)."""
    alice, bob = osric_pair(tmp_path)  # alice created the skirmish: she plays the party and referees
    alice("osric", "declare", "skirmish", "party", "Brom=melee", "Halvaine=spell:sleep:1", "--seal")
    mail(alice, bob, "skirmish", tmp_path)
    bob("osric", "declare", "skirmish", "orcs", "--rest", "melee", "--seal")
    bob("osric", "reveal", "skirmish")
    mail(bob, alice, "skirmish", tmp_path)
    alice("osric", "reveal", "skirmish")
    alice("osric", "initiative", "skirmish")  # joint dice: either side may act first
    mail(alice, bob, "skirmish", tmp_path)
    for args in (("end-round", "skirmish"), ("round", "skirmish"), ("segment", "skirmish", "10", "--end")):
        out = bob("osric", *args, ok=False)
        assert out.code == 4 and "belongs to alice; bob may not move the timeline past the open action of it" \
            in out.err, out.err
    # a modified client does it anyway: alice's machine refuses it on re-deciding, her log unchanged
    modified_client(bob, "skirmish", osric.EndRound())
    path = write_lines(tmp_path / "skip.jsonl", export(open_store(str(bob.cli.db)), tmp_path / "z.jsonl",
                                                       "skirmish", since=alice.head("skirmish")))
    refused_by(alice, path, "bob's osric EndRound is refused by the rules on re-deciding",
               "belongs to alice; bob may not move the timeline past the open action of it")
    # the party's player (here also the referee) may forgo them
    alice("osric", "end-round", "skirmish")


def argad_pair(tmp_path: Path) -> tuple[Seat, Seat]:
    """The seed's warrior and six Goblins (docs/examples/argad/warrior-vs-goblins.json), alice playing the
    humans and bob the goblins (the set-up's ``players``); alice created it (no referee)."""
    setup = json.loads((Path(__file__).parents[2] / "docs/examples/argad/warrior-vs-goblins.json").read_text())
    setup["players"] = {"humans": ["alice"], "goblins": ["bob"]}
    (tmp_path / "goblins.json").write_text(json.dumps(setup))
    return pair(tmp_path, "goblins", ruleset="argad", dice="manual", setup=str(tmp_path / "goblins.json"))


def test_a_player_cannot_end_the_argad_turn_before_the_other_sides_blows(tmp_path: Path) -> None:
    """The attack: ``end-turn`` was anyone's, so alice, who plays the warrior, ended game turn 1 right after her
    axe struck, before the Goblins' spears (the same step: "the Goblins spears and the human two-handed axe
    strike at the same time") and swords ("Then the three Gobs with short weapons ... strike") struck back:
    their blows were lost, and every machine accepted it. Ending the turn gives up the blows still open:
    their side's players', or the referee's, to do (seed 004, Wounds; Natural dice maximum rule)."""
    alice, bob = argad_pair(tmp_path)
    alice("argad", "turn", "goblins")
    alice("argad", "strike", "goblins", "warrior", "--at", "gob-d", "--face", "t1/melee/gob-d/warrior=4")  # 5 > 3
    mail(alice, bob, "goblins", tmp_path)
    out = alice("argad", "end-turn", "goblins", ok=False)
    assert out.code == 4 and "gob-a belongs to bob; alice may not end game turn 1 over the blow still open to it" \
        in out.err, out.err
    assert "gob-a, gob-b, gob-c, gob-d, gob-e, gob-f (side goblins: bob)" in out.err
    assert "combatlog argad hold goblins --side goblins --as bob" in out.err  # the exact command, this combat's
    # a modified client (on a copy of her machine) does it anyway: bob's machine refuses it on re-deciding, his
    # log unchanged
    import shutil

    forger = Seat("alice", tmp_path / "forger")
    shutil.copytree(alice.dir, forger.dir, dirs_exist_ok=True)
    modified_client(forger, "goblins", argad.EndTurn())
    path = write_lines(tmp_path / "skip.jsonl", export(open_store(str(forger.cli.db)), tmp_path / "w.jsonl",
                                                       "goblins", since=bob.head("goblins")))
    refused_by(bob, path, "alice's argad EndTurn is refused by the rules on re-deciding",
               "belongs to bob; alice may not end game turn 1 over the blow still open to it")
    # the legal way: bob strikes with his Goblins (the seed's faces: spears 2, 3, 1 and swords 3, 2, 1, no 4:
    # nothing against class 4 / armour 4), then the turn is anyone's to end
    bob("argad", "strike", "goblins", "gob-d@2", "gob-e@2", "gob-f", "--at", "warrior", "--over", "gob-a",
        "--face", "t1/melee/warrior/gob-d=2", "--face", "t1/melee/warrior/gob-e=3", "--face", "t1/melee/warrior/gob-f=1")
    bob("argad", "strike", "goblins", "gob-a", "gob-b", "gob-c", "--at", "warrior", "--face", "t1/melee/warrior/gob-a=3",
        "--face", "t1/melee/warrior/gob-b=2", "--face", "t1/melee/warrior/gob-c=1")
    mail(bob, alice, "goblins", tmp_path)
    alice("argad", "end-turn", "goblins")
    mail(alice, bob, "goblins", tmp_path)
    assert bob.verify("goblins")["ok"]


def test_a_named_referee_must_be_pinned_and_rules_freeform(tmp_path: Path) -> None:
    alice, bob = pair(tmp_path, "duel", dice="local")
    bad = alice("new", "other", "--ruleset", "freeform", "--player", "alice", "--player", "bob",
                "--referee", "mallory", ok=False)
    assert bad.code != 0 and "the referee must be one of the pinned players" in bad.err
    # a hot-seat combat naming a referee: rulings are hers, a participant's acts its player's
    hot = Seat("gm", tmp_path)
    hot("new", "hot", "--ruleset", "freeform", "--referee", "gm")
    hot("freeform", "join", "hot", "Aldo", "--side", "red", "--hp", "12", "--player", "alice")
    hot("freeform", "join", "hot", "Bo", "--side", "blue", "--hp", "10", "--player", "bob")
    hot("freeform", "round", "hot", "--as", "bob")
    assert hot("freeform", "act", "hot", "Aldo", "lunges", "--as", "bob", ok=False).err.count("Aldo belongs to alice")
    hot("freeform", "act", "hot", "Aldo", "lunges", "--as", "alice")
    out = hot("freeform", "damage", "hot", "Bo", "3", "--as", "alice", ok=False)
    assert "damage is a ruling: only the referee, gm, may make it (not alice)" in out.err
    hot("freeform", "damage", "hot", "Bo", "3")
    assert hot("verify", "hot", "--json").json()["ok"]  # type: ignore[index]


@pytest.mark.parametrize("ruleset", ["freeform"])
def test_unpinned_combats_work_as_before(tmp_path: Path, ruleset: str) -> None:
    seat = Seat("anyone", tmp_path)
    seat("new", "duel", "--ruleset", ruleset)
    seat("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12", "--player", "alice")
    seat("freeform", "round", "duel")
    seat("freeform", "act", "duel", "Aldo", "lunges", "--as", "bob")  # --as is a label here, not an identity
    seat("freeform", "damage", "duel", "Aldo", "2", "--as", "bob")
    assert "roles" not in seat("status", "duel").out


def test_a_strike_by_a_goblin_already_dead_fails_re_deciding(tmp_path: Path) -> None:
    # docs/examples/argad/warrior-vs-goblins.cmds, turn 2: the axe kills Gob A, then the spears strike.
    # Gob A may not strike with the swords (Argad, Melee peculiarities: a figure killed at an earlier step
    # does not strike). A modified client decides the swords' strike on the state from before the kill,
    # doctored so that the warrior's axe (half-long, struck before the swords) counts as struck without
    # its kill, and appends it now; every machine re-decides it on the real state.
    lines = example_lines("argad/warrior-vs-goblins.cmds")
    upto = next(i for i, line in enumerate(lines) if line.startswith("argad strike goblins gob-b gob-c"))
    played = write_text(tmp_path / "played.cmds", "\n".join(lines[:upto]) + "\n")
    seat = Seat("gm", tmp_path)
    seat.cli("run", str(played), "--quiet")
    store = open_store(str(seat.cli.db))
    meta = resolve_stream(store, "goblins")
    head = state_at(store, meta)
    before_kill = next(r.seq for r in reversed(list(_records(store, meta))) if r.env.type == "argad.turn_started")
    old = state_at(store, meta, before_kill)
    turn = old.state.turn
    axe_struck = Effect(struck_at=TIER_INDEX["half_long"])
    doctored = replace(old.state, turn=replace(turn, effects={**turn.effects, "warrior": axe_struck}))
    strike = argad.Strike(attackers=("gob-a", "gob-b", "gob-c"), targets=("warrior",))
    faces = {"t2/melee/warrior/gob-a": (4,), "t2/melee/warrior/gob-b": (4,), "t2/melee/warrior/gob-c": (2,)}
    port = dice_port(store, old, actor="gm", manual_faces=faces)
    events = with_drawn(port.drawn, old.ruleset.decide(doctored, strike, port))
    envelopes = _seal_all(meta.id, events, start_seq=head.core.head_seq + 1, prev=head.core.head_hash, actor="gm",
                          command_id="modified-client", signer=None, head_time=head.core.head_time,
                          command=encode_record("argad", strike))
    store.append(meta.id, _rows(envelopes, [encode_envelope(e) for e in envelopes]), expected_version=head.core.head_seq, command_id="modified-client")
    out = seat("verify", "goblins", ok=False)
    assert out.code != 0 and "gm's argad Strike is refused by the rules on re-deciding" in out.err
    assert "gob-a was killed before it could strike" in out.err
    other = Seat("other", tmp_path)
    path = tmp_path / "forged.jsonl"
    seat("export", "goblins", "-o", str(path))
    refused_by(other, path, "gob-a was killed before it could strike")


def write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _records(store: Any, meta: Any) -> Any:
    from combatlog.events.envelope import decode_recorded

    return (decode_recorded(row.body) for row in store.read_stream(meta.id, 1, store.head(meta.id).seq))


def test_a_player_cannot_act_for_his_sides_other_players_character(tmp_path: Path) -> None:
    """Classic Fantasy with two players on one side (docs/classic_fantasy.md, a combatant's ``player``): alice
    plays Brom and bob plays Mira, both of the party. It used to seat players per side, so each could act for
    both characters. bob, at his own machine with his own key, acts for Brom on Brom's Turn: the CLI refuses,
    and a modified client's signed act is refused by alice's import and verify, her log unchanged."""
    setup = json.loads(Path("docs/examples/classic_fantasy/skirmish.json").read_text())
    setup["players"] = {"party": ["alice", "bob"], "goblins": []}
    setup["combatants"][0]["player"] = "alice"  # Brom
    setup["combatants"][1]["player"] = "bob"  # Mira
    (tmp_path / "two-players.json").write_text(json.dumps(setup))
    alice, bob = pair(tmp_path, "sk", ruleset="classic_fantasy", dice="manual",
                      setup=str(tmp_path / "two-players.json"))
    # Initiative (CFI Ch.8): Mira 10+14 = 24 first, then Brom 10+11 = 21 (tests/rulesets/classic_fantasy/
    # test_cfi_new_player.py, the same faces)
    faces = {"Brom": 10, "Mira": 10, "Aldo": 1, "Gob1": 1, "Gob2": 2, "Gob3": 3}
    alice("cfi", "round", "sk", *(x for n, f in faces.items() for x in ("--face", f"r1/init/{n}={f}")))
    mail(alice, bob, "sk", tmp_path)
    bob("cfi", "act", "sk", "Mira", "dither")
    mail(bob, alice, "sk", tmp_path)
    assert alice("cfi", "initiative", "sk", "--json").json()["turn"] == "Brom"  # type: ignore[index]
    out = bob("cfi", "act", "sk", "Brom", "dither", ok=False)
    assert out.code != 0 and "Brom belongs to alice; bob may not act for it" in out.err, out.err
    since = alice.head("sk")
    from combatlog.rulesets.classic_fantasy import commands as cfi

    modified_client(bob, "sk", cfi.Act(who="Brom", action="dither"))
    path = write_lines(tmp_path / "act.jsonl", export(open_store(str(bob.cli.db)), tmp_path / "x.jsonl", "sk",
                                                      since=since))
    refused_by(alice, path, "Brom belongs to alice")
    alice("cfi", "act", "sk", "Brom", "dither")  # his Turn is still alice's to take


def test_a_player_cannot_pass_a_quiet_round_for_anothers_character(tmp_path: Path) -> None:
    """Magic Realm version 3: where players are pinned, each votes to pass the round for his own characters
    (docs/magic_realm.md, "A round with nothing to decide"). bob's modified client votes for alice's Black Knight
    too, so that his own vote completes the round's pass and her knight stands idle: her machine refuses it."""
    setup = tmp_path / "quiet.json"
    setup.write_text(json.dumps({"characters": [{"id": "bk", "character": "Black Knight", "player": "alice"},
                                                {"id": "amazon", "character": "Amazon", "player": "bob"}],
                                 "denizens": []}))
    alice, bob = pair(tmp_path, "quiet", ruleset="magic_realm", dice="manual", setup=str(setup))
    out = bob("mr", "pass", "quiet", "amazon", "bk", ok=False)
    assert out.code == 4 and "bk belongs to alice; bob may not pass for it" in out.err
    modified_client(bob, "quiet", mr.Pass(characters=("amazon", "bk")), faces={"r1/attention/1": (1,)})
    path = write_lines(tmp_path / "pass.jsonl", export(open_store(str(bob.cli.db)), tmp_path / "x.jsonl", "quiet",
                                                       since=alice.head("quiet")))
    refused_by(alice, path, "bob's magic_realm Pass is refused by the rules on re-deciding", "bk belongs to alice")
    alice("mr", "pass", "quiet", "bk")  # her own vote is still hers to make
