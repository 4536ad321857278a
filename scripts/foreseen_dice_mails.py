"""Mails per round of a Classic Fantasy duel by email with joint dice and nonce chains (docs/trust.md, "No
foreseeable dice"): two seats, each its own log and key home, the real CLI of the build under SRC; whoever holds
the log runs every command ``status --mine`` lists for him (an attack at the one opponent, no Special Effects),
then mails the log to the other (``export --for``, ``import``). Prints the bundles each player sent per round.

usage: python scripts/foreseen_dice_mails.py SRC OUTDIR [strict|friendly]
  SRC: the src folder of the build to measure (this repository's, or an older build's: git archive REV src)
  ROUNDS=N (default 2), VERBOSE=1 to see each command"""
import json, os, shlex, subprocess, sys
from collections import Counter
from pathlib import Path

SRC, OUT = Path(sys.argv[1]), Path(sys.argv[2])
MODE = sys.argv[3] if len(sys.argv) > 3 else "strict"
ROUNDS = int(os.environ.get("ROUNDS", "2"))
VERBOSE = os.environ.get("VERBOSE")
OUT.mkdir(parents=True, exist_ok=True)
PY = sys.executable
REPO = Path(__file__).resolve().parents[1]


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


for s in ("alice", "bob"):
    (OUT / s).mkdir(exist_ok=True)
    run(s, "keys", "new", s)
    run(s, "keys", "export", s, "-o", str(OUT / f"{s}.pub"))
run("alice", "keys", "import", str(OUT / "bob.pub"))
run("bob", "keys", "import", str(OUT / "alice.pub"))
setup = json.loads((REPO / "docs/examples/classic_fantasy/duel.json").read_text())
setup["players"] = {"party": ["alice"], "orcs": ["bob"]}
(OUT / "duel.json").write_text(json.dumps(setup))
run("alice", "new", "g", "--ruleset", "classic_fantasy", "--setup", str(OUT / "duel.json"), "--dice", "joint",
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
state = lambda seat: json.loads(run(seat, "show", "g", "--json").stdout)


def rnd(seat):
    st = state(seat)["state"] if "state" in state(seat) else state(seat)
    return st.get("round", 0)


def mine(seat):
    return json.loads(run(seat, "status", "g", "--mine", "--json").stdout)


holder, other = "bob", "alice"
turns = 0
while turns < 200:
    turns += 1
    did = False
    for _ in range(30):
        m = mine(holder)
        cmds = [p for p in m["pending"] if p.get("command")]
        if VERBOSE:
            print(f"{holder}: {[p['command'] for p in cmds]} / {[p['what'][:60] for p in m['pending'] if not p.get('command')]}", file=sys.stderr)
        if not cmds:
            break
        p = cmds[0]
        words = shlex.split(p["command"])[1:]
        if words[:2] == ["cfi", "effects"] or "EFFECT" in p["command"]:  # no Special Effect
            words = [w for w in words if not (w.isupper() and len(w) > 2)]
        if words[:2] == ["cfi", "attack"] and "TARGET" in words:
            words = [w if w != "TARGET" else ("Grak" if words[3] == "Brom" else "Brom") for w in words]
        if any(w.isupper() and len(w) > 2 for w in words):
            raise SystemExit(f"no policy for {p}")
        r = run(holder, *words, ok=False)
        if r.returncode and "Engaged" in r.stderr and words[:2] == ["cfi", "attack"]:
            r = run(holder, *words[:-2], "--moving", *words[-2:], ok=False)
        if r.returncode:
            raise SystemExit(f"{holder}: {' '.join(words)}\n{r.stderr}")
        did = True
    shown = state(holder)
    st = shown.get("state", shown)
    if st.get("round", 0) > ROUNDS or st.get("ended"):
        break
    if did:
        sent[(holder, st.get("round", 0))] += 1
        mail(holder, other)
    elif turns > 1 and not mine(other)["pending"]:
        break
    holder, other = other, holder
print(json.dumps({f"{p} r{r}": c for (p, r), c in sorted(sent.items())}))
print("verify:", json.loads(run("alice", "verify", "g", "--json").stdout)["ok"])
