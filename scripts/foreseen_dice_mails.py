"""Mails per round of a two-player combat by email with joint dice and nonce chains (docs/trust.md, "No
foreseeable dice"): two seats, each its own log and key home, the real CLI of the build under SRC; whoever holds
the log runs what ``status --mine`` offers him, one command at a time by a fixed preference (strike and attack
first, the end of a turn or round last, never the end of the combat), until nothing is left for him, then mails
the log to the other (``export --for``, ``import``). Prints the bundles each player sent per round, and whether
the log verifies.

usage: python scripts/foreseen_dice_mails.py SRC OUTDIR [classic_fantasy|osric|argad] [strict|friendly]
  SRC: the src folder of the build to measure (this repository's, or an older build's: git archive REV src)
  ROUNDS=N (default 2), VERBOSE=1 to see each command

Set-ups: Classic Fantasy docs/examples/classic_fantasy/duel.json (alice: Brom, bob: Grak); OSRIC the skirmish of
tests/trust/test_osric_sealed.py (alice: the party, bob: the orcs; every declaration melee); Argad
docs/examples/argad/band-vs-ogre-and-troll.json (alice: the band, bob: the monsters)."""
import json
import os
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

SRC, OUT = Path(sys.argv[1]), Path(sys.argv[2])
RULESET = sys.argv[3] if len(sys.argv) > 3 else "classic_fantasy"
MODE = sys.argv[4] if len(sys.argv) > 4 else "strict"
ROUNDS = int(os.environ.get("ROUNDS", "2"))
VERBOSE = os.environ.get("VERBOSE")
OUT.mkdir(parents=True, exist_ok=True)
PY = sys.executable
REPO = Path(__file__).resolve().parents[1]
# subcommands by preference (lower first); those not named come before the end of a turn or round
PREFER = ["link", "commit", "reveal", "resolve", "round", "turn", "initiative", "declare", "seed", "strike", "attack",
          "parry", "shoot", "move", "effects", "segment"]
LAST = ["hold", "end-round", "end-turn"]


def run(seat, *args, ok=True):
    env = {**os.environ, "PYTHONPATH": str(SRC), "COMBATLOG_DB": str(OUT / seat / "log.db"),
           "COMBATLOG_HOME": str(OUT / seat / "keys")}
    env.pop("COMBATLOG_ACTOR", None)
    args = [*args, "--as", seat] if "--as" not in args and args[0] not in ("keys", "import", "export") else list(args)
    p = subprocess.run([PY, "-m", "combatlog.cli.app", *args], env=env, capture_output=True, text=True, cwd=OUT)
    if VERBOSE:
        print(f"  [{seat}] {' '.join(args)} -> {p.returncode}", file=sys.stderr)
    if ok and p.returncode:
        raise SystemExit(f"{seat}: {' '.join(args)}\n{p.stderr}\n{p.stdout}")
    return p


def setup() -> dict:
    if RULESET == "classic_fantasy":
        s = json.loads((REPO / "docs/examples/classic_fantasy/duel.json").read_text())
        s["players"] = {"party": ["alice"], "orcs": ["bob"]}
    elif RULESET == "argad":
        s = json.loads((REPO / "docs/examples/argad/band-vs-ogre-and-troll.json").read_text())
        s["players"] = {"band": ["alice"], "monsters": ["bob"]}
    else:
        sys.path.insert(0, str(REPO))
        from tests.trust.test_osric_sealed import SETUP
        s = dict(SETUP)
    return s


for s in ("alice", "bob"):
    (OUT / s).mkdir(exist_ok=True)
    run(s, "keys", "new", s)
    run(s, "keys", "export", s, "-o", str(OUT / f"{s}.pub"))
run("alice", "keys", "import", str(OUT / "bob.pub"))
run("bob", "keys", "import", str(OUT / "alice.pub"))
(OUT / "setup.json").write_text(json.dumps(setup()))
run("alice", "new", "g", "--ruleset", RULESET, "--setup", str(OUT / "setup.json"), "--dice", "joint",
    "--player", "alice", "--player", "bob", "--option", f"joint_dice={MODE}")
run("alice", "seal", "chain", "g")
n = 0


def mail(frm, to):
    global n
    n += 1
    path = OUT / f"b{n}.jsonl"
    run(frm, "export", "g", "--for", to, "-o", str(path), "--as", frm)
    run(to, "import", str(path), "--as", to)


mail("alice", "bob")
run("bob", "seal", "chain", "g")
sent = Counter()
done: dict[int, set] = {}  # the command lines run in each round: none twice (a move per figure, a hold...)


def where(seat):
    st = json.loads(run(seat, "status", "g", "--json").stdout)
    done.setdefault(st["round"], set())
    return st["round"], st["finished"]


def mine(seat):
    return json.loads(run(seat, "status", "g", "--mine", "--json").stdout)["pending"]


def rank(words):
    word = words[1] if words[0] == "seal" else (words[1] if len(words) > 1 else "")
    if word in LAST:
        return 100 + LAST.index(word)
    return PREFER.index(word) if word in PREFER else 50


def choices(seat):
    """Every command line offered to ``seat`` now (a long listing through ``combatlog moves``)."""
    out = []
    for p in mine(seat):
        for line in [p.get("command") or "", *p.get("options", [])]:
            words = shlex.split(line)[1:] if line.startswith("combatlog ") else []
            if not words:
                continue
            if words[0] == "moves":
                listed = json.loads(run(seat, "moves", "g", "--json").stdout)
                out += [m["argv"] if isinstance(m.get("argv"), list) else shlex.split(m["command"])[1:]
                        for m in (listed["moves"] if isinstance(listed, dict) else listed)]
            else:
                out.append(words)
    allowed = set(PREFER) | set(LAST)
    return [w for w in out if (w[1] if w[0] == "seal" else (w[1] if len(w) > 1 else "")) in allowed
            and tuple(w) not in done[where(seat)[0]]]


def fill(words):
    """Placeholders (Classic Fantasy, which lists no moves): the one opponent, no Special Effect, melee."""
    if words[:2] == ["cfi", "attack"]:
        words = [w if w != "TARGET" else ("Grak" if words[3] == "Brom" else "Brom") for w in words]
    words = [w for w in words if not (w.isupper() and len(w) > 2 and w not in ("TARGET",))]
    if words[:2] == ["osric", "declare"]:
        words = [*words[:4], "--rest", "melee", "--seal"]
    return words


holder, other = "bob", "alice"
for _turn in range(400):
    did = False
    for _ in range(40):
        offered = sorted(choices(holder), key=rank)
        if VERBOSE:
            print(f"{holder}: {[' '.join(o) for o in offered][:6]}", file=sys.stderr)
        if not offered:
            break
        words = fill(offered[0])
        if offered[0][0] != "seal" and offered[0][1] != "resolve":
            done[where(holder)[0]].add(tuple(offered[0]))
        r = run(holder, *[w for w in words if w not in ("--as", holder)], ok=False)
        if r.returncode and words[:2] == ["cfi", "attack"] and "Engaged" in r.stderr:
            r = run(holder, *[w for w in words if w not in ("--as", holder)], "--moving", ok=False)
        if r.returncode:
            raise SystemExit(f"{holder}: {' '.join(words)}\n{r.stderr}")
        did = True
    rnd, finished = where(holder)
    if rnd > ROUNDS or finished:
        break
    if did:
        sent[(holder, rnd)] += 1
        mail(holder, other)
    elif not choices(other):
        break
    holder, other = other, holder
print(json.dumps({f"{p} r{r}": c for (p, r), c in sorted(sent.items())}))
print("verify:", json.loads(run("alice", "verify", "g", "--json").stdout)["ok"])
