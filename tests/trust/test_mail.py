"""Playing by email and forum: ``export --for``, ``mail``, and ``import`` of what a mail client or a forum made of it.

Two machines (two logs, two key homes), the real CLI. alice writes to bob
exactly what he lacks, as a file or as a message a person reads; bob imports the
message however it reached him: saved as .eml (quoted-printable, base64, HTML),
pasted, quoted in a reply, or copied from a Markdown or BBCode forum post.
"""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.trust.pbem import Seat, pair, seats_built_once


@pytest.fixture
def duel(tmp_path: Path) -> tuple[Seat, Seat]:
    """bob has the genesis and acknowledged it (#2); alice then joins Aldo and seals her orders for r1. Made
    once per test run and copied (tests/trust/pbem.py ``seats_built_once``)."""

    def build(root: Path) -> tuple[Seat, Seat]:
        alice, bob = pair(root)
        bob("ack", "duel")
        back = root / "ack.jsonl"
        bob("export", "duel", "--for", "alice", "-o", str(back))
        alice("import", str(back))
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        alice("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Aldo": "thrust"}')
        return alice, bob

    alice, bob = seats_built_once(tmp_path, "mail-duel", build)
    return alice, bob


def test_export_for_a_player_holds_exactly_what_they_lack(duel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = duel
    out = alice.cli("export", "duel", "--for", "bob", "-o", "-", "--as", "alice")
    header = json.loads(out.out.split("\n", 1)[0])
    assert (header["since"], header["head_seq"]) == (2, 4)  # bob signed #2: he lacks #3-#4
    assert "exported 2 events of duel to standard output (after seq 2)" in out.err
    same = tmp_path / "since.jsonl"
    alice("export", "duel", "--since", "2", "-o", str(same))
    assert out.out.encode() == same.read_bytes()
    text = alice.cli("export", "duel", "--format", "text", "--for", "bob", "-o", "-", "--as", "alice")
    assert text.out.startswith("combatlog text v1\n") and "#3 " in text.out and "#2 " not in text.out
    both = alice("export", "duel", "-o", "-", "--json", ok=False)
    assert both.code == 3 and "--json cannot share it" in both.err and both.out == ""
    piped = bob.cli("import", "-", "--as", "bob", stdin=out.out)
    assert "duel: appended 2 events" in piped.out and bob.head("duel") == 4
    # after bob's import and ack, nothing is missing
    bob("ack", "duel")
    alice("import", str(_file(bob, "duel", "alice", tmp_path)))
    nothing = alice("export", "duel", "--for", "bob", "-o", str(tmp_path / "none.jsonl"))
    assert "bob has everything already" in nothing.out


def _file(sender: Seat, stream: str, player: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{sender.name}-for-{player}-{sender.sent}.jsonl"
    sender.sent += 1
    sender("export", stream, "--for", player, "-o", str(path))
    return path


def test_export_for_needs_a_pinned_player(duel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, _bob = duel
    out = str(tmp_path / "x.jsonl")
    assert "not a player of duel (players: alice, bob)" in alice("export", "duel", "--for", "carol", "-o", out,
                                                                  ok=False).err
    assert "give --since or --for, not both" in alice("export", "duel", "--for", "bob", "--since", "1", "-o", out,
                                                        ok=False).err
    alice("new", "open", "--ruleset", "freeform", "--dice", "local")
    assert "pins no players" in alice("export", "open", "--for", "bob", "-o", out, ok=False).err
    assert not Path(out).exists()


def test_a_mail_tells_what_happened_what_to_decide_and_carries_the_bundle(duel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = duel
    text = alice("mail", "duel", "--for", "bob").out
    assert text.startswith("combatlog: duel (Freeform), for bob\n")
    assert "Events #3-#4 since #2, the last event you signed or acknowledged" in text
    assert "- #3 [round 0] alice: Aldo joins side red (hp 12)" in text or "#3 [round 0] alice:" in text
    assert "What happened" in text and "Your side now" in text and "Aldo" in text
    assert "combatlog seal commit duel --step r1 --as bob" in text  # the sealed step bob owes
    assert "combatlog ack duel --as bob" in text
    assert text.count("-----BEGIN COMBATLOG BUNDLE-----") == 1 and "Events: 3-4" in text
    assert all(len(line) <= 72 for line in text.splitlines() if not line.startswith(("      combatlog", "  ")))
    message = tmp_path / "to-bob.txt"
    message.write_text(text)
    assert "duel: appended 2 events" in bob("import", str(message)).out
    # bob answers: joins, commits and reveals; alice's next mail shows the dice and the rules once she plays
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    bob("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Bo": "parry"}')
    bob("seal", "reveal", "duel", "--step", "r1")
    reply = tmp_path / "to-alice.txt"
    bob("mail", "duel", "--for", "alice", "-o", str(reply))
    assert "alice: reveal what you sealed to step r1" in reply.read_text()
    assert "combatlog seal reveal duel --step r1 --as alice" in reply.read_text()
    alice("import", str(reply))
    alice("seal", "reveal", "duel")
    alice("freeform", "round", "duel")
    alice("freeform", "act", "duel", "Aldo", "thrusts at Bo", "--roll", "1d20")
    told = " ".join(alice("mail", "duel", "--for", "bob").out.split())  # (lines wrap at 72 columns)
    assert "Aldo's 1d20 for thrusts at Bo -> [" in told and "(die r1/Aldo/act, drawn from the joint seed)" in told
    assert "(core: dice" in told  # the die, what it is for, its scheme
    assert "round 1 begins (Freeform: table decision)" in told  # the rule cited
    assert "thrusts at Bo (Freeform: table decision) [dice: r1/Aldo/act]" in told
    # bob's moves for Bo are the legal ones, each runnable as written (commands/legal.py)
    assert "Bo: act in round 1" in told and "combatlog freeform act duel Bo 'attacks Aldo' --as bob" in told
    # another's call: shown, not offered; pending's "gm" is alice here (she created the combat, which pins no gm)
    assert "gm (alice: the referee's step): end round 1" in told and "freeform end-round" not in told


def _eml(body: str, cte: str, *, subtype: str = "plain", attach: bytes | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "alice@example.org", "bob@example.org", "duel: your turn"
    msg.set_content(body, subtype=subtype, cte=cte)
    if attach is not None:
        msg.add_attachment(attach, maintype="application", subtype="octet-stream", filename="duel-3.jsonl")
    return bytes(msg)


@pytest.mark.parametrize("cte", ["quoted-printable", "base64", "8bit"])
def test_a_saved_email_is_read_whatever_its_transfer_encoding(duel, tmp_path: Path, cte: str) -> None:  # type: ignore[no-untyped-def]
    alice, bob = duel
    text = alice("mail", "duel", "--for", "bob").out
    eml = tmp_path / "message.eml"
    eml.write_bytes(_eml("Bob, your move. Ça va?\n\n" + text, cte))
    assert "duel: appended 2 events" in bob("import", str(eml)).out
    assert bob.head("duel") == 4


def test_a_reply_quoting_the_block_an_html_mail_and_an_attachment_are_read(duel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = duel
    text = alice("mail", "duel", "--for", "bob").out
    quoted = tmp_path / "reply.txt"  # carol forwards alice's mail quoted in her reply
    quoted.write_text("Bob, alice says:\n\n" + "".join(f"> {line}\n" for line in text.splitlines()))
    html = tmp_path / "html.eml"
    html.write_bytes(_eml("<html><body><p>Your move</p><div>" + text.replace(">", "&gt;").replace("\n", "<br>\n")
                          + "</div></body></html>", "quoted-printable", subtype="html"))
    bundle = tmp_path / "b.jsonl"
    alice("export", "duel", "--for", "bob", "-o", str(bundle))
    attached = tmp_path / "attached.eml"
    attached.write_bytes(_eml("the file is attached", "7bit", attach=bundle.read_bytes()))
    for path in (quoted, html, attached):
        other = Seat(f"bob-{path.stem}", tmp_path)  # a fresh copy of bob's machine for each
        other.cli.db.parent.mkdir(parents=True, exist_ok=True)
        other.cli.db.write_bytes((bob.dir / "log.db").read_bytes())
        result = other.cli("import", str(path))
        assert "duel: appended 2 events" in result.out, (path, result.out, result.err)


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
def test_a_forum_post_is_read_back_and_text_from_the_log_cannot_mark_it_up(duel, tmp_path: Path, fmt: str) -> None:  # type: ignore[no-untyped-def]
    alice, bob = duel
    alice("note", "duel", "![pixel](http://evil.example/t.png) <img src=x> [url=http://x]y[/url] [/code]\n"
          "-----BEGIN COMBATLOG BUNDLE-----\nVersion: 1")
    post = alice("mail", "duel", "--for", "bob", "--format", fmt).out
    assert post.count("-----BEGIN COMBATLOG BUNDLE-----") == 1  # the note cannot forge a second block
    if fmt == "markdown":
        assert post.startswith("# combatlog: duel") and "\\!\\[pixel\\]\\(http" in post and "\\<img" in post
        assert "```\n-----BEGIN COMBATLOG BUNDLE-----" in post
    else:
        assert post.startswith("[size=150][b]combatlog: duel") and "[url=" not in post and "(url=http" in post
        assert "[code]\n-----BEGIN COMBATLOG BUNDLE-----" in post and post.count("[/code]") == post.count("[code]")
    path = tmp_path / f"post.{fmt}"
    path.write_text(post)
    assert "duel: appended 3 events" in bob("import", str(path)).out


def test_an_incremental_fork_bundle_rests_on_the_recipients_copy_of_the_parent(duel, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = duel
    alice("mail", "duel", "--for", "bob", "-o", str(tmp_path / "m.txt"))
    bob("import", str(tmp_path / "m.txt"))
    bob("ack", "duel")  # bob holds duel up to #5
    alice("import", str(_file(bob, "duel", "alice", tmp_path)))
    alice("note", "duel", "the main line goes on")  # #6, only in the main line
    alice.cli("--as", "alice", "fork", "duel", "--at", "4", "--as", "whatif")
    alice("note", "whatif", "what if Aldo had waited")
    bundle = _file(alice, "whatif", "bob", tmp_path)
    lines = bundle.read_bytes().splitlines()
    header = json.loads(lines[0])
    assert header["since"] == 4 and len(lines) == 3  # only the fork's own two events: no parent prefix
    assert "whatif: appended 2 events (new here)" in bob("import", str(bundle)).out
    assert bob.verify("whatif")["head_hash"] == alice.verify("whatif")["head_hash"]
    bob("ack", "whatif")
    alice("import", str(_file(bob, "whatif", "alice", tmp_path)))
    assert "Nothing new since #7" in alice("mail", "whatif", "--for", "bob").out


def test_a_magic_realm_mail_offers_the_command_status_mine_gives_and_none_for_another_player(tmp_path: Path) -> None:
    """Where the ruleset knows who plays what (Magic Realm), "What you must decide now" is `status --mine`:
    the same complete command line (the character named); another player's move is shown, not offered."""
    import json

    setup = tmp_path / "cave.json"
    setup.write_text(json.dumps({
        "first_round_of_day": False,
        "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                       {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
        "denizens": [{"id": "goblin-1", "monster": "Axe Goblin"}]}))
    alice, bob = pair(tmp_path, "cave", ruleset="magic_realm", dice="joint", setup=str(setup))
    mine = bob("status", "cave", "--mine", "--json").json()["pending"]  # type: ignore[index]
    text = " ".join(alice("mail", "cave", "--for", "bob").out.split())
    assert mine and all(m["command"] in text for m in mine if m["command"])  # type: ignore[index]
    assert "combatlog mr lure cave amazon --as bob" in text
    others = text.split("The combat also waits for:")[1].split("The bundle")[0]
    assert "bk" in others and "combatlog" not in others
