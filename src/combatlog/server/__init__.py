"""``combatlog serve``: a combat log server that cannot cheat (docs/server.md).

The server is a sequencer and a mailbox: it orders appends first come first
served and hands out what it holds, but every bundle it accepts is verified in
full exactly as ``combatlog import`` verifies it (signatures by each event's
actor, the chain, the dice, the rules), and every client verifies in full what
it serves. It holds no secret of any player: referee seeds and sealed-order
nonces never leave the players' machines.

Modules: ``app`` (building the Starlette app, running uvicorn), ``routes`` (the
JSON API), ``auth`` (signed requests, invite tokens), ``limits`` (body size,
rate limits), ``feed`` (what the event stream waits on), ``worker`` (the one
thread that owns the store). Who may read and write each hosted combat, and the
nonces seen, are kept by ``combatlog.store.server_registry``.
"""
