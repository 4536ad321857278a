"""``python -m combatlog``: the same as the ``combatlog`` command."""

from combatlog.cli.app import main

main()
