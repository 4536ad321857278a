"""ASCII armour: a bundle survives email bodies and forum posts, and damage or a zip bomb is named."""

from __future__ import annotations

import base64
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.exchange import armour as arm
from combatlog.exchange.armour import BEGIN, END, armour, find_blocks

BUNDLE = b'{"format":"combatlog-export"}\n' + b'{"seq":1,"data":"x"}\n' * 300


def one(text: str) -> arm.Block:
    blocks = find_blocks(text, "msg")
    assert len(blocks) == 1, blocks
    return blocks[0]


def error_of(text: str) -> str:
    block = one(text)
    assert block.bundle is None and block.error is not None, "the damaged block was accepted"
    return block.error.message


def test_the_block_is_ascii_wrapped_at_64_columns_with_headers_and_a_checksum() -> None:
    text = armour(BUNDLE, combat="duel", first=3, last=9)
    lines = text.splitlines()
    assert lines[0] == BEGIN and lines[-1] == END
    assert lines[1:5] == ["Version: 1", "Combat: duel", "Events: 3-9", f"Size: {len(BUNDLE)}"]
    assert lines[5] == "" and lines[-2].startswith("=")
    assert all(len(line) <= 64 for line in lines[6:-2]) and len(lines[6]) == 64
    assert text.isascii()
    assert one(text).bundle == BUNDLE


@pytest.mark.parametrize("wrap", [
    lambda t: "Hi bob,\n\nyour turn.\n\n" + t + "\n-- \nalice\n",  # an email body
    lambda t: "".join(f"> {line}\n" for line in t.splitlines()),  # quoted in a reply
    lambda t: "".join(f">> {line}\n" for line in t.splitlines()),  # quoted twice
    lambda t: "".join(f"> > {line}\n" for line in t.splitlines()),
    lambda t: "".join(f"    {line}\n" for line in t.splitlines()),  # indented (Markdown code)
    lambda t: "Round 3:\n\n```\n" + t + "```\n",  # a Markdown fence
    lambda t: "[quote=alice][code]" + t.rstrip("\n") + "[/code][/quote]",  # BBCode on the tags' lines
    lambda t: "[code]\n" + t + "[/code]\n",
    lambda t: t.replace("\n", "\r\n"),  # CRLF
    lambda t: t.replace("\n", "  \n"),  # trailing blanks a forum added
    lambda t: t.replace("\nVersion", "\n\nVersion", 0).replace("\n=", "\n\n="),  # a blank line inserted
])
def test_a_block_is_found_however_the_message_carries_it(wrap) -> None:  # type: ignore[no-untyped-def]
    assert one(wrap(armour(BUNDLE, combat="duel", first=1, last=9))).bundle == BUNDLE


def test_several_blocks_in_one_message_are_found_in_order() -> None:
    a, b = b"first\n" * 50, b"second\n" * 70
    text = "one:\n" + armour(a, combat="duel", first=1, last=2) + "two:\n> " + "> ".join(
        armour(b, combat="duel", first=3, last=4).splitlines(keepends=True))
    blocks = find_blocks(text, "mail.eml")
    assert [blk.bundle for blk in blocks] == [a, b]
    assert blocks[1].where.startswith("mail.eml, block 2 (line ")


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_a_truncated_block_is_named() -> None:
    lines = _lines(armour(BUNDLE, combat="duel", first=1, last=9))
    assert "no END line" in error_of("\n".join(lines[:-1]))  # the END line lost
    assert "no END line" in error_of("\n".join(lines[:8]))  # cut in the data
    assert "no checksum line" in error_of("\n".join(lines[:-2] + lines[-1:]))  # the checksum line lost
    assert "checksum does not match" in error_of("\n".join(lines[:7] + lines[8:]))  # a data line lost
    assert "no END line" in error_of("\n".join(lines[:3]))  # cut in the headers


def test_an_altered_block_is_refused_before_decompressing() -> None:
    text = armour(BUNDLE, combat="duel", first=1, last=9)
    lines = _lines(text)
    data = lines[6]
    flipped = data[:10] + ("A" if data[10] != "A" else "B") + data[11:]
    assert "checksum does not match" in error_of(text.replace(data, flipped))
    assert "checksum does not match" in error_of(text.replace("Events: 1-9", "Events: 1-8"))  # headers count
    assert "not base64" in error_of(text.replace(data, data[:20] + "*" + data[21:]))
    assert "not a header line" in error_of(text.replace("Combat: duel", "Combat duel"))
    assert "armour version" in error_of(text.replace("Version: 1", "Version: 2"))
    assert "text after the checksum" in error_of(text.replace(END, "AAAA\n" + END))


def _forged(payload: bytes, size: int, *, packed: bytes | None = None) -> str:
    """A block as a cheat would write it: any payload, any declared size, a correct checksum."""
    packed = zlib.compress(payload) if packed is None else packed
    headers = ["Version: 1", "Combat: duel", "Events: 1-1", f"Size: {size}"]
    body = base64.b64encode(packed).decode()
    check = base64.b64encode(arm._checksum(headers, packed)).decode()
    return "\n".join([BEGIN, *headers, "", *(body[i:i + 64] for i in range(0, len(body), 64)), "=" + check, END])


def test_a_zip_bomb_is_refused_without_inflating_it() -> None:
    bomb = zlib.compress(b"\0" * (64 << 20), 9)  # 64 MiB of zeros in ~64 KiB
    message = error_of(_forged(b"", 1000, packed=bomb))
    assert "more than the 1000 bytes its Size header declares" in message
    # a declared size beyond the limit is refused before anything is decoded
    assert "at most" in error_of(_forged(b"x", arm.MAX_BUNDLE_BYTES + 1))
    assert "not a byte count" in error_of(_forged(b"x", 1).replace("Size: 1", "Size: 99999999999999999999"))


def test_a_size_that_lies_either_way_is_refused() -> None:
    assert "decompresses to 3 bytes" in error_of(_forged(b"abc", 4))
    assert "more than the 2 bytes" in error_of(_forged(b"abc", 2))
    assert "cut short" in error_of(_forged(b"", 6, packed=zlib.compress(b"abcdef")[:-6]))
    assert "after the end" in error_of(_forged(b"", 3, packed=zlib.compress(b"abc") + b"junk"))
    assert "damaged" in error_of(_forged(b"", 3, packed=b"not zlib at all"))


def test_a_damaged_block_does_not_hide_the_next_one() -> None:
    good = armour(BUNDLE, combat="duel", first=1, last=9)
    bad = "\n".join(_lines(good)[:8])  # cut short, no END
    blocks = find_blocks(bad + "\n" + good, "msg")
    assert blocks[0].error is not None and blocks[1].bundle == BUNDLE


def test_blocks_in_one_message_are_bounded() -> None:
    tiny = armour(b"x\n", combat="duel", first=1, last=1)
    with pytest.raises(arm.VerificationFailed, match="more than 64 armoured blocks"):
        find_blocks(tiny * (arm.MAX_BLOCKS + 1), "msg")


def test_a_combat_name_cannot_break_the_headers() -> None:
    text = armour(BUNDLE, combat="duel`[/code]\u202e", first=1, last=2)
    assert "Combat: duel???code??" in text and text.isascii()
    assert one("[code]" + text + "[/code]").bundle == BUNDLE


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=1, max_size=3000), st.integers(0, 2**40))
def test_any_bundle_round_trips(data: bytes, first: int) -> None:
    assert one(armour(data, combat="c", first=first, last=first + 1)).bundle == data
