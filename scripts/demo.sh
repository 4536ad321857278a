#!/usr/bin/env bash
# The main job, end to end on the embedded SQLite default. It opens with a round of Magic Realm
# (luring, random assignment, deployment, the Melee Step), prints its Melee Sections and draws them
# (an SVG sheet and an HTML report), plays the other example games and draws them too, then runs a
# freeform duel: create a log, append decisions and dice, show state and pending decisions, replay a
# round, fork, export, verify, and continue the combat on a second machine (a second log).
set -euo pipefail
cd "$(dirname "$0")/.."
combatlog() { .venv/bin/combatlog "$@"; }
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
pictures=()
draw() {  # draw DB NAME STEM [sheet options...]: an SVG sheet and an HTML report of a combat
  local db=$1 name=$2 stem=$3
  shift 3
  combatlog --db "$db" sheet "$name" "$@" -o "demo/$stem.svg" > /dev/null
  combatlog --db "$db" report "$name" -o "demo/$stem.html" > /dev/null
  pictures+=("demo/$stem.svg" "demo/$stem.html")
}

rm -rf demo && mkdir -p demo
export COMBATLOG_DB=demo/combat.db
# a key home of its own: with exactly one key in yours, every command would act as that player
export COMBATLOG_HOME=demo/keys

step "Magic Realm, round 1: the Black Knight and the Amazon (with two Lancers) meet a Giant and three Goblins"
mr=demo/giant-and-goblins.db
# the copy lives in demo/ beside its set-up (paths in a command file are its own folder's), with the very
# lines of the example; below, the whole example is copied over it and played: the same file, grown, so its
# first round is recognised as done (a run's ids are the file's: another file would be a new run)
cp docs/examples/magic_realm/giant-and-goblins.json demo/
sed -e '/^# ---- Round 2/,$d' docs/examples/magic_realm/giant-and-goblins.cmds > demo/giant-and-goblins.cmds
combatlog --db "$mr" run demo/giant-and-goblins.cmds

step "The Melee Sections of round 1 (MR 8.4): red boxes, attack circles, maneuver squares"
combatlog --db "$mr" mr sheets giant-goblins --round 1
combatlog --db "$mr" sheet giant-goblins --round 1 -o demo/giant-goblins-round1.svg
pictures+=(demo/giant-goblins-round1.svg)

for f in docs/examples/*/*.cmds; do
  case "$f" in */freeform/*) continue ;; esac
  stem=$(basename "$f" .cmds)
  step "Example: $f"
  if [ "$stem" = giant-and-goblins ]; then  # the round played above, grown to the whole example
    cp "$f" demo/giant-and-goblins.cmds
    f=demo/giant-and-goblins.cmds
  fi
  combatlog --db "demo/$stem.db" run --quiet "$f" > /dev/null 2>&1  # the Magic Realm round above is not played twice
  name=$(.venv/bin/combatlog --db "demo/$stem.db" list --json | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)[0]["name"])')
  combatlog --db "demo/$stem.db" status "$name"
  draw "demo/$stem.db" "$name" "$stem"
done

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
combatlog fork duel --round 1 --name duel-whatif
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
draw demo/combat.db duel freeform-duel

step "A whole example combat from a command file"
combatlog run --quiet docs/examples/freeform/tavern-brawl.cmds
combatlog explain tavern --round 2
draw demo/combat.db tavern tavern-brawl --round 2

step "Pictures: open them in a browser (the reports need no network and run no script)"
printf '  %s\n' "${pictures[@]}"
printf '\nDone: the logs are in demo/.\n'
