"""The table of the ``combatlog`` commands: where each lives and the start of its help (read by the typer app,
cli/root.py, to load a command when invoked and to list them all in --help without importing any)."""

# Every command and group, in the order --help lists them: name -> where it lives (``module`` exposing ``app``, a
# group, or ``command``; ``module:name`` for one of several in a module). Only the command invoked is imported and
# built (building them all cost more than the rest of start-up); --help lists the first paragraph of each help
# below without importing any (tests/cli/test_startup.py checks them against the commands' own).
CORE_COMMANDS = [
    ('new', 'combatlog.cli.streams:new'),
    ('list', 'combatlog.cli.streams:list_streams'),
    ('log', 'combatlog.cli.views:log'),
    ('show', 'combatlog.cli.views:show'),
    ('status', 'combatlog.cli.views:status'),
    ('moves', 'combatlog.cli.moves:moves'),
    ('explain', 'combatlog.cli.views:explain'),
    ('replay', 'combatlog.cli.views:replay'),
    ('dice', 'combatlog.cli.views:dice'),
    ('roll', 'combatlog.cli.rolls:roll'),
    ('note', 'combatlog.cli.streams:note'),
    ('fork', 'combatlog.cli.streams:fork'),
    ('export', 'combatlog.cli.exchange:export'),
    ('import', 'combatlog.cli.exchange:import_'),
    ('verify', 'combatlog.cli.exchange:verify'),
    ('superseded', 'combatlog.cli.exchange:superseded'),
    ('run', 'combatlog.cli.runner:run'),
    ('seed', 'combatlog.cli.rolls:seed_app'),
]
# Ruleset groups: (module under combatlog.cli.rulesets, group name).
RULESET_GROUPS = [
    ("freeform", "freeform"),
    ("magic_realm", "mr"),
    ("classic_fantasy", "cfi"),
    ("osric", "osric"),
    ("argad", "argad"),
]
# Optional core groups/commands added by other parts: (module, name); a module
# exposes ``app`` (a group) or ``command`` (a single command); ``module:function`` names
# one of several single commands of a module.
EXTRA_MODULES = [
    ("combatlog.cli.keys", "keys"),
    ("combatlog.cli.seal", "seal"),
    ("combatlog.cli.ack", "ack"),
    ("combatlog.cli.copy", "copy"),
    ("combatlog.cli.sheet", "sheet"),
    ("combatlog.cli.report", "report"),
    ("combatlog.cli.mail", "mail"),
    ("combatlog.cli.serve", "serve"),
    ("combatlog.cli.remote", "remote"),
    ("combatlog.cli.replica:push", "push"),
    ("combatlog.cli.replica:pull", "pull"),
    ("combatlog.cli.replica:sync", "sync"),
    ("combatlog.cli.follow", "follow"),
]

# The start of each command's help (its first paragraph, cut after 150 characters: --help never shows more), for
# the root's --help without importing the commands (tests/cli/test_startup.py keeps it true).
SHORT_HELP = {
    'new': 'Start a new combat log.',
    'list': 'List the combats in this log, with their ids, forks and heads.',
    'log': 'The timeline: every event with its seq, actor and a summary (--json: the same events, as data).',
    'show': 'The state of the combat (now, after a seq, or at the end of a round).',
    'status': 'Who must decide what next.',
    'moves': 'Every legal move now: the command that makes it and what it means (with --as, that player\'s).',
    'explain': 'Every derived step with the rule that produced it and the dice behind it.',
    'replay': 'Re-run the log event by event, showing what each one derived, then the state reached.',
    'dice': 'The dice ledger: every roll with label, scheme and roller, and per-roller statistics.',
    'roll': 'Roll dice under a semantic label; a label can be drawn only once per combat.',
    'note': 'Add a note to any combat (a ruling, a dispute, a table agreement).',
    'fork': 'Fork a combat at a point into a "what if" that chains to the parent\'s hash there.',
    'export': 'Write a combat to a file that other players verify and import.',
    'import': 'Verify bundles, then append each whole or not at all (only what is new here); hold early ones.',
    'verify': 'Check a file or a stored combat: every hash, the chain, the dice; exit non-zero on the first problem.',
    'superseded': ('Events that lost a merge (two players answered the same email): kept here as evidence, never '
        'replayed.'),
    'run': 'Apply a file of commands, stopping at the first error with its line number.',
    'seed': 'Referee seeds: commit one before play, reveal it at the end.',
    'freeform': 'Freeform combat for any game: participants, rounds, actions, hp, conditions.',
    'mr': 'Magic Realm combat: lure, assign, deploy, act, target, play, resolve, fatigue.',
    'cfi': 'Classic Fantasy Imperative (Mythras) combat: rounds, attacks, parries, Special Effects.',
    'osric': 'OSRIC combat: surprise, declarations, side initiative in segments, attacks, spells, morale.',
    'argad': '« Argad ! » skirmish: figures, game turns, shooting, melee, wounds and survival.',
    'keys': 'Player keys (Ed25519) for signed play by email: new, list, export, import.',
    'seal': ('Sealed orders: commit (only a hash enters the log), then reveal once everyone has committed. Their '
        'nonces seed the joint dice.'),
    'ack': "Acknowledge (countersign) the log up to a seq: a signed event naming that event's hash.",
    'copy': ('Copy combats between logs (SQLite to PostgreSQL and back) with their ids and bytes, then verify the '
        'copy.'),
    'sheet': ('Draw the state (now, after a seq, or at the end of a round) as an SVG picture: for Magic Realm each '
        'Melee Section with its boxes, circles, squares,'),
    'report': ('Write one self-contained HTML file (no network, no script, inline CSS and SVG): ruleset, players and '
        'key fingerprints, dice scheme, head hash and the'),
    'mail': ('Write an email or forum message for a player: what happened since they last acknowledged (rules '
        'cited, dice shown), their side now, what they must'),
    'serve': 'Serve combats over HTTP: players push and pull signed bundles; the server verifies every one.',
    'remote': 'Combat servers (combatlog serve): add, list, show an invite, remove, create a combat there.',
    'push': 'Send the server what it lacks of a combat (creating it there if it has none of it).',
    'pull': "Fetch a combat's new events from the server, verify every one as import does, append them.",
    'sync': 'Pull, then push, each combat: afterwards this log and the server hold the same events.',
    'follow': ('Follow a combat on a server: on each event the server streams, pull (verify everything, import into '
        'this log) and print the new events as `log`'),
}
