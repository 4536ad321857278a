"""Dice: notation, the dice port, verifiable derivation."""
