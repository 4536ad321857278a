#!/usr/bin/env bash
# The main job, end to end on the embedded SQLite default: create a log, append
# decisions and dice, show state and pending decisions, replay a round, fork,
# export, verify, and continue the combat on a second machine (a second log).
set -euo pipefail
cd "$(dirname "$0")/.."
combatlog() { .venv/bin/combatlog "$@"; }
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

rm -rf demo && mkdir -p demo
export COMBATLOG_DB=demo/combat.db

step "A duel with referee dice: the seed's hash is committed before any roll"
combatlog new duel --ruleset freeform --dice referee
combatlog freeform join duel Aldo --side red --hp 12
combatlog freeform join duel Bo --side blue --hp 10
combatlog freeform round duel
combatlog freeform act duel Aldo "lunges at Bo" --roll 1d20+3
combatlog freeform damage duel Bo 1d8 --reason "Aldo's sword"
step "Who must decide what next"
combatlog status duel
combatlog freeform act duel Bo "parries and ripostes" --roll 1d20+1
combatlog freeform damage duel Aldo 1d6 --reason riposte
combatlog freeform round duel
combatlog freeform act duel Aldo "presses the attack" --roll 1d20+3
combatlog freeform damage duel Bo 2d6 --reason "a heavy blow"
combatlog seed reveal duel

step "The state now, and the dice ledger"
combatlog show duel
combatlog dice duel

step "Replay round 1 event by event, with the rule behind each step"
combatlog replay duel --round 1

step "What if round 2 had gone otherwise? Fork after round 1"
combatlog fork duel --round 1 --as duel-whatif
combatlog freeform round duel-whatif
combatlog freeform act duel-whatif Bo "flees" --roll 1d20 --dice local
combatlog freeform leave duel-whatif Bo --reason fled
combatlog list

step "Export, verify (every hash, the chain, every referee die against the revealed seed)"
combatlog export duel -o demo/duel.jsonl
combatlog verify demo/duel.jsonl

step "Another player's machine: import, verify, continue"
combatlog --db demo/friend.db import demo/duel.jsonl
combatlog --db demo/friend.db freeform end duel --outcome "Bo yields"
combatlog --db demo/friend.db export duel -o demo/duel-friend.jsonl
combatlog import demo/duel-friend.jsonl
combatlog verify duel

step "A whole example combat from a command file"
combatlog run --quiet docs/examples/freeform/tavern-brawl.cmds
combatlog explain tavern --round 2
for f in docs/examples/*/*.cmds; do
  case "$f" in */freeform/*) continue ;; esac
  step "Example: $f"
  combatlog --db "demo/$(basename "$f" .cmds).db" run --quiet "$f" > /dev/null
  name=$(.venv/bin/combatlog --db "demo/$(basename "$f" .cmds).db" list --json | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)[0]["name"])')
  combatlog --db "demo/$(basename "$f" .cmds).db" status "$name"
done
printf '\nDone: the logs are in demo/.\n'
