"""Dice: notation, the port's schemes and labels, verifiable derivation."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest

from combatlog.dice.derive import derive_faces
from combatlog.dice.notation import Dice, parse_dice, parse_faces
from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand


@pytest.mark.parametrize("text,expected", [
    ("2d6", Dice(2, 6)), ("d100", Dice(1, 100)), ("1d10+3", Dice(1, 10, 3)), ("3d4", Dice(3, 4)),
    ("d6-1", Dice(1, 6, -1)), ("D%", Dice(1, 100)), (" 2 d 8 + 1 ", Dice(2, 8, 1)),
])
def test_notation(text: str, expected: Dice) -> None:
    assert parse_dice(text) == expected


@pytest.mark.parametrize("text", ["", "2x6", "0d6", "2d1", "d", "101d6", "2d6+", "1d6+1001", "2d6*2"])
def test_bad_notation_is_refused_with_an_example(text: str) -> None:
    with pytest.raises(InvalidCommand, match="d"):
        parse_dice(text)


def test_faces_parsing() -> None:
    assert parse_faces("3, 5") == (3, 5)
    with pytest.raises(InvalidCommand):
        parse_faces("3,x")


def test_derivation_matches_a_hand_computation() -> None:
    """First die of d6: HMAC-SHA256(key, JCS(["lbl",0])), first 32-bit word, accepted, w mod 6 + 1."""
    key = b"k" * 32
    block = hmac.new(key, b'["lbl",0]', hashlib.sha256).digest()
    word = int.from_bytes(block[:4], "big")
    assert word < (2**32 // 6) * 6  # true for this key: the word is accepted
    assert derive_faces(key, "lbl", 1, 6)[0] == word % 6 + 1
    assert derive_faces(key, "lbl", 3, 6) == derive_faces(key, "lbl", 3, 6)  # recomputable
    # another label or key gives another sequence (20 d20s colliding by chance: 20**-20)
    assert derive_faces(key, "lbl", 20, 20) != derive_faces(key, "lbl2", 20, 20)
    assert derive_faces(key, "lbl", 20, 20) != derive_faces(b"j" * 32, "lbl", 20, 20)


def test_derivation_is_uniform_enough() -> None:
    """6000 labels of one d6: each face within 5 sigma of 1000 (sigma ~ 28.9)."""
    counts = Counter(derive_faces(b"seed", f"l{i}", 1, 6)[0] for i in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(abs(c - 1000) < 145 for c in counts.values()), counts


def test_derivation_skips_words_at_the_top_of_the_range() -> None:
    """Rejection sampling: with sides = 2**31 + 1 the limit is 1 * (2**31 + 1), so about half the
    words are rejected (taking them mod sides would favour low faces). Find a label whose first
    word is rejected and check the face comes from the next accepted word."""
    sides = 2**31 + 1
    for i in range(100):
        label = f"top{i}"
        block = hmac.new(b"x", f'["{label}",0]'.encode(), hashlib.sha256).digest()
        words = [int.from_bytes(block[j:j + 4], "big") for j in range(0, 32, 4)]
        if words[0] >= sides and words[1] < sides:
            assert derive_faces(b"x", label, 1, sides) == (words[1] % sides + 1,)
            return
    pytest.fail("no rejected first word in 100 labels (chance 0.75**100)")


def test_a_label_is_drawn_once() -> None:
    port = DicePort(scheme="local", actor="a", labels_taken={"r1/old"})
    port.roll("r1/new", "1d6")
    with pytest.raises(IllegalCommand, match="already drawn"):
        port.roll("r1/new", "1d6")
    with pytest.raises(IllegalCommand):
        port.roll("r1/old", "1d6")
    assert port.next_label("r1/new") == "r1/new#2"
    assert port.next_label("r1/free") == "r1/free"


def test_manual_faces_are_checked_against_the_notation() -> None:
    port = DicePort(scheme="manual", actor="a", labels_taken=(), manual_faces={"a": (3, 5), "b": (7,), "c": (1,)})
    assert port.roll("a", "2d6").total == 8
    with pytest.raises(InvalidCommand, match="1 face"):
        port.roll("b", "1d6")
    with pytest.raises(InvalidCommand, match="no faces given for 'z'"):
        port.roll("z", "1d6")
    with pytest.raises(InvalidCommand, match="2d6 needs 2 face"):
        port.roll("c", "2d6")


@pytest.mark.parametrize("label", ["", "has space", "x" * 201, "/leading"])
def test_bad_labels(label: str) -> None:
    with pytest.raises(InvalidCommand):
        DicePort(scheme="local", actor="a", labels_taken=()).roll(label, "1d6")
