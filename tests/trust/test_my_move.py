"""Whose move (docs/trust.md, "Whose move"): ``status --mine`` lists only what the player must decide,
each with a command line to paste; ``seal show`` shows a player his own sealed orders and nobody
else's; ``--as`` defaults to the only secret key of the key home.

Two players, each with a log and a key home, run the real CLI in this process
(``tests.security.dice_forgery.cli``) and exchange bundle files only. Every move they make in the
Magic Realm round below is the command ``status --mine --json`` gave them, pasted with the
placeholders (words in capitals) filled in: so each command line is complete.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from combatlog.rulesets import available
from tests.conftest import REPO, CliResult
from tests.security.dice_forgery import cli

needs_mr = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

# alice's Black Knight (bk) and bob's Amazon with a Lancer she hired, against the Giant and two Axe
# Goblins. bob lures goblin-1 himself and goblin-2 with his Lancer, so the Lancer is attacked on its
# own sheet: its target (mr target --hireling) and its red box (mr play --hireling-box) are his to give.
MR_SETUP = {
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4,
                    "hirelings": [{"id": "lancer-hq", "native": "Lancer HQ"}]}],
    "denizens": [{"id": "giant", "monster": "Giant"}, {"id": "goblin-1", "monster": "Axe Goblin"},
                 {"id": "goblin-2", "monster": "Axe Goblin"}],
}


class Seat:
    """One player's machine: a log and a key home (``--as`` is left to its default: the only key)."""

    def __init__(self, root: Path, name: str) -> None:
        self.name, self.dir = name, root / name
        self.dir.mkdir(parents=True)
        self.db, self.home = self.dir / "log.db", self.dir / "keys"
        self.sent = 0

    def __call__(self, *args: str, ok: bool = True) -> CliResult:
        result = cli(self.db, *args, home=self.home)
        if ok:
            assert result.code == 0, f"{self.name}: combatlog {' '.join(args)} -> {result.code}\n{result.err}{result.out}"
        return result

    def mine(self, stream: str) -> dict[str, Any]:
        return json.loads(self("status", stream, "--mine", "--json").out)  # type: ignore[no-any-return]

    def paste(self, stream: str, fill: dict[str, list[str]] | None = None, *, contains: str = "") -> str:
        """Run the first command ``status --mine`` gives (whose line contains ``contains``), its
        placeholders filled in order from ``fill``; returns the command line as given."""
        line = next(m["command"] for m in self.mine(stream)["pending"] if contains in m["command"])
        fill = {k: list(v) for k, v in (fill or {}).items()}
        words = []
        for word in shlex.split(line)[1:]:
            key, sep, value = word.rpartition("=")
            if word in fill:
                word = fill[word].pop(0)
            elif sep and value in fill:
                word = f"{key}={fill[value].pop(0)}"
            assert not (word.isupper() and len(word) > 2), f"placeholder {word} left in {line}"
            words.append(word)
        self(*words)
        return line


def _pair(root: Path, stream: str, ruleset: str, setup: dict[str, Any], dice: str,
          *options: str) -> tuple[Seat, Seat]:
    """alice creates ``stream`` pinning both (with ``options`` for ``new``, such as ``--referee bob``) and mails
    it to bob. Made by the real CLI once per test run for the same arguments and copied into ``root``
    (tests/played.py ``built_once``)."""
    import hashlib
    import shutil

    from tests.played import built_once, shared_factory

    def build(folder: Path) -> None:
        alice, bob = Seat(folder, "alice"), Seat(folder, "bob")
        alice("keys", "new", "alice")
        bob("keys", "new", "bob")
        bob("keys", "export", "bob", "-o", str(folder / "bob.pub"))
        alice("keys", "import", str(folder / "bob.pub"))
        (folder / "setup.json").write_text(json.dumps(setup))
        alice("new", stream, "--ruleset", ruleset, "--setup", str(folder / "setup.json"), "--dice", dice,
              "--player", "alice", "--player", "bob", *options)  # signed by alice: her only key is the default --as
        mail(alice, bob, stream, folder)

    key = hashlib.sha256(json.dumps([stream, ruleset, setup, dice, *options], sort_keys=True).encode()).hexdigest()[:16]
    made = built_once(shared_factory(), f"my-move-pair-{key}", build)
    alice, bob = Seat(root, "alice"), Seat(root, "bob")
    shutil.copytree(made, root, dirs_exist_ok=True)
    alice.sent = 1  # the genesis's mail, alice-1.jsonl, is in root
    return alice, bob


def mail(sender: Seat, receiver: Seat, stream: str, root: Path) -> None:
    rows = json.loads(receiver("list", "--json").out)
    since = next((r["head_seq"] for r in rows if r["name"] == stream), 0)
    sender.sent += 1
    path = root / f"{sender.name}-{sender.sent}.jsonl"
    sender("export", stream, "--since", str(since), "-o", str(path))
    receiver("import", str(path))


def _whats(seat: Seat, stream: str) -> list[str]:
    return [m["what"] for m in seat.mine(stream)["pending"]]


def _commands(seat: Seat, stream: str) -> list[str]:
    """The command lines ``status --mine`` gives (what it says is owed with none, such as a step waiting for a
    seed, is left out)."""
    return [m["command"] for m in seat.mine(stream)["pending"] if m["command"]]


def _offered(seat: Seat, stream: str) -> list[str]:
    """Every legal move of the seat's player (``combatlog moves --as``), as command lines."""
    listed = json.loads(seat("moves", stream, "--json", "--limit", "100000", "--as", seat.name).out)["moves"]
    return [shlex.join(("combatlog", *m["argv"])) for m in listed]


def _play(seat: Seat, stream: str, line: str) -> None:
    """Run ``line`` after checking that the player's legal moves offer it verbatim."""
    assert line in _offered(seat, stream), f"{line} is not offered: {_offered(seat, stream)}"
    seat(*shlex.split(line)[1:])


@needs_mr
def test_a_magic_realm_round_played_by_pasting_the_commands_status_mine_gives(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The classic flow (a commit and a reveal per seed step): neither machine commits a nonce chain.
    # tests/trust/test_message_economy.py plays the chained flow by pasting what status --mine gives.
    # status --mine stands on the legal moves (combatlog moves): the choices are made among them.
    monkeypatch.setenv("COMBATLOG_NONCE_CHAINS", "off")
    G = "cave"
    alice, bob = _pair(tmp_path, G, "magic_realm", MR_SETUP, "joint")
    sync = lambda a, b: mail(a, b, G, tmp_path)  # noqa: E731
    # Each player's list holds his own character's lures only, with the combat, the character and his name.
    a, b = alice.mine(G), bob.mine(G)
    assert (a["player"], a["referee"], b["player"], b["referee"]) == ("alice", True, "bob", False)
    assert all(c.split()[4] == "bk" for c in _offered(alice, G)), _offered(alice, G)
    assert all(c.split()[4] == "amazon" for c in _offered(bob, G)), _offered(bob, G)
    # bob lures goblin-1 himself; alice lures the giant; goblin-2 is left to the random assignment
    _play(bob, G, "combatlog mr lure cave amazon goblin-1 --as bob")
    assert _commands(bob, G) == [] and bob.mine(G)["waiting_for"] == ["alice (bk)"]
    sync(bob, alice)
    _play(alice, G, "combatlog mr lure cave bk giant --as alice")
    # The random assignment needs a joint seed: each player commits and reveals, as his list says.
    assert _commands(alice, G) == ["combatlog mr seed cave --as alice"]
    assert _whats(alice, G)[0] == ("joint dice of the random assignment: commit a nonce: mr seed (then mr reveal once "
                                "every player has committed) [step r1/assign]")
    alice.paste(G)
    sync(alice, bob)
    assert _commands(bob, G) == ["combatlog mr seed cave --as bob"]
    bob.paste(G)
    assert _commands(bob, G) == ["combatlog mr reveal cave --as bob"]
    bob.paste(G)
    sync(bob, alice)
    alice.paste(G)  # her reveal completes the seed
    # The random assignment is the referee's step (alice created the combat and pins no gm): never "anyone".
    assert _commands(alice, G) == ["combatlog mr assign cave --as alice"] and _commands(bob, G) == []
    plain = alice("status", G).out
    assert "anyone" not in plain and "gm (alice: the referee's step): random assignment" in plain
    alice.paste(G)
    # Deployment and actions: passing is among the legal moves.
    _play(alice, G, "combatlog mr deploy cave bk --as alice")
    sync(alice, bob)
    _play(bob, G, "combatlog mr deploy cave amazon --as bob")
    _play(bob, G, "combatlog mr action cave amazon none --as bob")
    sync(bob, alice)
    _play(alice, G, "combatlog mr action cave bk none --as alice")
    # The Attention chits draw from r1/assign's seed (nobody ran away while it was known): the referee's step.
    assert _commands(alice, G) == ["combatlog mr melee cave --as alice"] and _commands(bob, G) == []
    alice.paste(G)
    sync(alice, bob)
    # Target selection, in Attention order.
    order = json.loads(alice("show", G, "--json").out)["state"]["attention"]
    seats = {"bk": alice, "amazon": bob}
    holder = bob
    for cid in order:
        seat = seats[cid]
        if seat is not holder:
            sync(holder, seat)
            holder = seat
        victim = {"bk": "giant", "amazon": "goblin-1"}[cid]
        line = next(c for c in _offered(seat, G) if c.startswith(f"combatlog mr target cave {cid} {victim}"))
        _play(seat, G, line)
    other = alice if holder is bob else bob
    sync(holder, other)
    # The sealed plays: a legal move seals them (--seal); its player only may seal them.
    sealed = [c for c in _offered(alice, G) if c.startswith("combatlog mr play cave bk ")]
    assert sealed and all(c.endswith(" --seal --as alice") for c in sealed)
    alice("mr", "play", G, "bk", "--attack", "smash", "--fight", "F3", "--maneuver", "charge", "--move", "M3",
          "--shield", "thrust", "--seal")
    # alice sees her own sealed plays; before bob's commit arrives she has nothing to do
    shown = json.loads(alice("seal", "show", G, "--step", "r1/plays", "--json").out)["sealed"]
    assert [(r["step"], r["orders"]["plays"]["bk"]["fight"], r["revealed_at"]) for r in shown] == \
        [("r1/plays", "F3", None)]
    assert _commands(alice, G) == [] and alice.mine(G)["waiting_for"] == ["bob"]
    sync(alice, bob)
    assert json.loads(bob("seal", "show", G, "--step", "r1/plays", "--json").out)["sealed"] == []  # not alice's
    bob("mr", "play", G, "amazon", "--attack", "thrust", "--fight", "F6", "--maneuver", "dodge", "--move", "M1",
        "--shield", "smash", "--seal")
    assert _commands(bob, G) == ["combatlog mr reveal cave --as bob"]
    bob.paste(G)
    sync(bob, alice)
    assert _commands(alice, G) == ["combatlog mr reveal cave --as alice"]
    alice.paste(G)
    assert _commands(alice, G) == ["combatlog mr resolve cave --as alice"]
    alice.paste(G)
    sync(alice, bob)
    assert json.loads(alice("show", G, "--json").out) == json.loads(bob("show", G, "--json").out)


def test_seal_show_shows_the_players_own_orders_and_never_anyone_elses(tmp_path: Path) -> None:
    # Hot seat: one log holding both players' sealed orders (both keys in one home).
    table = Seat(tmp_path, "table")
    table("keys", "new", "alice")
    table("keys", "new", "bob")
    table("new", "duel", "--ruleset", "freeform", "--player", "alice", "--player", "bob", "--as", "alice")
    table("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Aldo": "thrust at Bo"}', "--as", "alice")
    table("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Bo": "swing at Aldo"}', "--as", "bob")
    mine = table("seal", "show", "duel", "--as", "alice")
    assert "thrust at Bo" in mine.out and "swing" not in mine.out and "not revealed yet" in mine.out
    rows = json.loads(table("seal", "show", "duel", "--json", "--as", "alice").out)["sealed"]
    assert [(r["player"], r["step"], r["orders"]) for r in rows] == [("alice", "r1", {"Aldo": "thrust at Bo"})]
    # alice's own machine, with a copy of that log but only her key: bob's orders are in its secrets, yet
    # showing them as bob is refused (she cannot act as bob), and nothing of them is printed.
    import shutil

    mine_only = Seat(tmp_path, "alice")
    shutil.copytree(table.home, mine_only.home)
    (mine_only.home / "keys" / "bob.key").unlink()
    mine_only.db.write_bytes(table.db.read_bytes())
    peek = mine_only("seal", "show", "duel", "--as", "bob", ok=False)
    assert peek.code == 4 and "secret key of 'bob' is not on this machine" in peek.err
    assert "swing" not in peek.out + peek.err
    assert "thrust at Bo" in mine_only("seal", "show", "duel").out  # --as: her only key
    # after the reveal it says so
    table("seal", "reveal", "duel", "--step", "r1", "--as", "bob")
    table("seal", "reveal", "duel", "--step", "r1", "--as", "alice")
    assert "revealed at #" in table("seal", "show", "duel", "--step", "r1", "--as", "alice").out


def test_as_defaults_to_the_only_secret_key_of_the_key_home(tmp_path: Path) -> None:
    seat = Seat(tmp_path, "m")
    seat("new", "duel", "--ruleset", "freeform")

    def actor_of_a_note() -> str:
        seat("note", "duel", "hello")
        return json.loads(seat("log", "duel", "--json").out)[-1]["actor"]  # type: ignore[no-any-return]

    assert actor_of_a_note() == "gm"  # no key here
    seat("keys", "new", "alice")
    assert actor_of_a_note() == "alice"  # exactly one secret key: this machine is alice's
    assert seat("status", "duel", "--mine", "--json").out.count('"player":"alice"') == 1
    seat("keys", "export", "alice", "-o", str(tmp_path / "a.pub"))
    other = Seat(tmp_path, "n")
    other("keys", "import", str(tmp_path / "a.pub"))  # a public key only: no secret, no default
    other("new", "duel", "--ruleset", "freeform")
    other("note", "duel", "x")
    assert json.loads(other("log", "duel", "--json").out)[-1]["actor"] == "gm"
    (tmp_path / "notes.txt").write_text("note duel from-a-file\n")
    seat("run", str(tmp_path / "notes.txt"), "--as", "gm")  # an explicit gm holds for every line of a run
    assert json.loads(seat("log", "duel", "--json").out)[-1]["actor"] == "gm"
    seat("keys", "new", "bob")
    assert actor_of_a_note() == "gm"  # two secret keys: nobody is guessed
    seat("note", "duel", "explicit", "--as", "bob")
    assert json.loads(seat("log", "duel", "--json").out)[-1]["actor"] == "bob"


def test_status_mine_for_a_ruleset_without_its_own_moves_and_a_sealed_step(tmp_path: Path) -> None:
    # freeform lists its legal moves: with nobody in the combat, the only one is ending it (a ruling, any pinned
    # player's without a referee); the step the creator owes, adding participants, has free words: said without a
    # command line rather than invented. Everyone gets the sealed steps awaiting him.
    alice, bob = _pair(tmp_path, "duel", "freeform", {}, "joint")
    a = alice.mine("duel")
    assert a["referee"] and [m["what"] for m in a["pending"]] == [
        "a ruling you may make: end the combat: the fight is broken off", "add participants, then start round 1"]
    assert a["pending"][1]["command"] == ""
    assert "(this ruleset gives no command line for it)" in alice("status", "duel", "--mine").out
    assert [m["command"] for m in bob.mine("duel")["pending"]] == [
        "combatlog freeform end duel --outcome 'the fight is broken off' --as bob"]
    assert bob.mine("duel")["waiting_for"] == ["alice"]
    alice("seal", "commit", "duel", "--step", "r1")
    mail(alice, bob, "duel", tmp_path)
    assert "combatlog seal commit duel --step r1 --as bob" in _commands(bob, "duel")
    bob.paste("duel", contains="seal")
    assert "combatlog seal reveal duel --step r1 --as bob" in _commands(bob, "duel")
    assert "combatlog seal reveal duel --step r1 --as alice" not in _commands(alice, "duel")  # not yet hers to see
    bob.paste("duel", contains="seal")
    mail(bob, alice, "duel", tmp_path)
    assert "combatlog seal reveal duel --step r1 --as alice" in _commands(alice, "duel")


OSRIC_SETUP = {
    "title": "Sealed skirmish",
    "players": {"party": ["alice"], "orcs": ["bob"]},
    "engaged": [["Brom", "orc1"], ["Halvaine", "orc2"]],
    "combatants": [
        {"name": "Brom", "side": "party", "class": "fighter", "level": 1, "hp": 10, "armour": "mail",
         "shield": "medium", "weapons": ["long sword"]},
        {"name": "Halvaine", "side": "party", "class": "magic-user", "level": 1, "hp": 4, "weapons": ["dagger"]},
        {"name": "orc1", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]},
        {"name": "orc2", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]},
    ],
}


def _legal(seat: Seat, stream: str, verb: str) -> list[str]:
    """The command lines of ``seat``'s legal moves (combatlog moves --as) whose command is ``osric VERB``."""
    listed = json.loads(seat("moves", stream, "--json", "--as", seat.name).out)["moves"]
    return [shlex.join(["combatlog", *m["argv"]]) for m in listed if m["argv"][:2] == ["osric", verb]]


def test_status_mine_in_an_osric_round_with_sealed_declarations(tmp_path: Path) -> None:
    S = "skirmish"
    alice, bob = _pair(tmp_path, S, "osric", OSRIC_SETUP, "joint")
    # the referee's (the creator's): round 1, or first a surprise check, whose joint dice need a seed step first
    offered = _commands(alice, S)
    assert "combatlog osric round skirmish --as alice" in offered
    assert "combatlog seal commit skirmish --step surprise --as alice" in offered
    assert "combatlog osric surprise skirmish --as alice" not in offered
    assert _commands(bob, S) == []
    alice("osric", "round", S)
    mail(alice, bob, S, tmp_path)
    # each side's caller seals its own side's declarations (many ways: counted, listed by combatlog moves)
    assert "combatlog moves skirmish --as alice" in _commands(alice, S)
    assert all(" party " in c and c.endswith("--seal --as alice") for c in _legal(alice, S, "declare"))
    assert all(" orcs " in c and c.endswith("--seal --as bob") for c in _legal(bob, S, "declare"))
    sealed = "combatlog osric declare skirmish party Brom=melee --rest melee --seal --as alice"
    assert sealed in _legal(alice, S, "declare")
    alice(*shlex.split(sealed)[1:])
    assert not _legal(alice, S, "declare")  # bound, waiting for bob's commit
    mail(alice, bob, S, tmp_path)
    bob(*shlex.split(next(c for c in _legal(bob, S, "declare") if "--rest melee" in c))[1:])
    assert "combatlog osric reveal skirmish --as bob" in _commands(bob, S)
    bob.paste(S, contains="reveal")
    mail(bob, alice, S, tmp_path)
    assert "combatlog osric reveal skirmish --as alice" in _commands(alice, S)
    alice.paste(S, contains="reveal")
    assert "combatlog osric initiative skirmish --as alice" in _commands(alice, S)
    alice.paste(S, contains="initiative")
    mail(alice, bob, S, tmp_path)
    # The joint initiative dice come from the seed: either side may act first. Each roll is the segment the
    # other side acts in, and a side's actions are offered once no earlier segment's are due (OSRIC Combat:
    # First Party Acts, then Second Party Acts); on a tie both sides' are.
    rolls = json.loads(alice("show", S, "--json").out)["state"]["initiative"]
    party_segment, orcs_segment = rolls["orcs"], rolls["party"]
    party = {"combatlog osric attack skirmish Brom --as alice", "combatlog osric attack skirmish Halvaine --as alice"}
    orcs = {"combatlog osric attack skirmish orc1 --as bob", "combatlog osric attack skirmish orc2 --as bob"}

    def acts(seat: Seat) -> set[str]:  # the attacks and spells among the seat's legal moves
        return set(_legal(seat, S, "attack") + _legal(seat, S, "cast"))

    assert all("orc" not in m.split(" --as ")[0].split()[3] for m in acts(alice))  # none of the orcs' for her
    assert (party <= acts(alice)) == (party_segment <= orcs_segment)
    assert (orcs <= acts(bob)) == (orcs_segment <= party_segment)
    if party_segment != orcs_segment:  # the first side takes no action: the second side's actions are offered
        first, later = (alice, bob) if party_segment < orcs_segment else (bob, alice)
        first("osric", "segment", S, str(min(party_segment, orcs_segment)), "--end")
        mail(first, later, S, tmp_path)
        assert (party <= acts(alice)) if later is alice else (orcs <= acts(bob))


def test_a_character_no_player_plays_is_offered_to_whoever_may_move_it(tmp_path: Path) -> None:
    """trust.md ("Pieces no player plays"): such a piece is the referee's where the combat has one, any player's
    where it has none. Found by an exploratory test: ``status --mine`` offered carl's deployment to nobody,
    told bob he was "waiting for ... carl (carl)" (a player who does not exist), and called alice, who only
    created the combat, "the referee" in a combat whose roles say "no referee"; yet ``mr deploy e carl`` was
    accepted from either of them."""
    setup = {"characters": [{"id": "bk", "character": "Black Knight", "player": "alice"},
                            {"id": "carl", "character": "Amazon"}],
             "denizens": [{"id": "gob", "monster": "Axe Goblin"}], "assigned": {"gob": "bk"}}
    alice, bob = _pair(tmp_path, "e", "magic_realm", setup, "local")
    status = alice("status", "e").out
    assert "carl (no player): deploy" in status and "carl (carl)" not in status
    for seat in (alice, bob):  # no referee: anyone's
        mine = seat.mine("e")
        assert f"combatlog mr deploy e carl --as {seat.name}" in [m["command"] for m in mine["pending"]]
        assert not any("carl" in w for w in mine["waiting_for"]), mine["waiting_for"]
    words = alice("status", "e", "--mine").out.splitlines()[0]
    assert "(the referee)" not in words and "alice (runs the procedure's steps) must decide" in words
    bob.paste("e", contains="carl")  # and the command given is accepted
    assert "carl" in json.loads(bob("log", "e", "--json").out)[-1]["data"]["character"]


def test_with_a_referee_a_character_no_player_plays_is_his_alone(tmp_path: Path) -> None:
    setup = {"characters": [{"id": "bk", "character": "Black Knight", "player": "alice"},
                            {"id": "carl", "character": "Amazon"}],
             "denizens": [{"id": "gob", "monster": "Axe Goblin"}], "assigned": {"gob": "bk"}}
    alice, bob = _pair(tmp_path, "e", "magic_realm", setup, "local", "--referee", "bob")
    assert "combatlog mr deploy e carl --as bob" in [m["command"] for m in bob.mine("e")["pending"]]
    assert "bob (the referee) must decide" in bob("status", "e", "--mine").out
    theirs = alice.mine("e")
    assert not any("carl" in m["command"] for m in theirs["pending"]) and "carl (no player)" in theirs["waiting_for"]
    refused = alice("mr", "deploy", "e", "carl", ok=False)  # and the write path agrees
    assert refused.code == 4 and "referee" in refused.err


def test_a_classic_fantasy_combatants_turn_is_offered_to_its_sides_player(tmp_path: Path) -> None:
    """Found by an exploratory test by mail: in Classic Fantasy (and Argad) ``pending`` names the combatant
    whose turn it is, and ``status --mine`` matched it against player names: bob, who plays Grak, was told
    "nothing now (waiting for Grak)", and the mail listed Grak's turn for every player alike. The ruleset now
    says who plays each piece (``Ruleset.players_of``)."""
    from tests.trust import pbem

    duel = json.loads((REPO / "docs" / "examples" / "classic_fantasy" / "duel.json").read_text())
    duel["players"] = {"party": ["alice"], "orcs": ["bob"]}
    (tmp_path / "duel.json").write_text(json.dumps(duel))
    alice, bob = pbem.pair(tmp_path, "c", ruleset="classic_fantasy", dice="manual", setup=str(tmp_path / "duel.json"))
    # Initiative (CFI Ch.8): Brom 6 +12 -3 = 15, Grak 8 +10 -2 = 16: Grak takes the first Turn
    alice("cfi", "round", "c", "--face", "r1/init/Brom=6", "--face", "r1/init/Grak=8")
    pbem.mail(alice, bob, "c", tmp_path)

    def mine(seat: Any) -> dict[str, Any]:
        return json.loads(seat("status", "c", "--mine", "--json").out)  # type: ignore[no-any-return]

    assert [m["what"] for m in mine(bob)["pending"]][0] == "Grak: take a Turn (2 AP left) (32 legal moves)"
    assert "Grak" not in " ".join(mine(bob)["waiting_for"])
    assert mine(alice)["waiting_for"] == ["bob (Grak)"]
    for_bob = alice("mail", "c", "--for", "bob").out
    yours, _, others = for_bob.partition("The combat also waits for")
    assert "Grak: take a Turn" in yours and "Grak" not in others.split("The bundle")[0]
    assert "- bob (Grak): take a Turn" in alice("mail", "c", "--for", "alice").out
