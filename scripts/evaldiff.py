#!/usr/bin/env python3
"""Compare two `agentk eval --json` outputs replay by replay, ignoring
durations and ids (duration_ms, median_ms, *_id). Exit 1 on any difference.
Usage: scripts/evaldiff.py before.jsonl after.jsonl (each from `agentk eval --json ...`)."""
import json, sys
IGN = {"duration_ms", "median_ms"}
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in IGN and not k.endswith("_id")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
def load(p):
    rows, summ = {}, None
    for line in open(p):
        o = json.loads(line)
        if o.get("summary"):
            summ = strip(o); continue
        rows[(o["investigator"], o["incident"])] = strip(o)
    return rows, summ
a, sa = load(sys.argv[1]); b, sb = load(sys.argv[2])
bad = 0
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        bad += 1
        ka, kb = a.get(k) or {}, b.get(k) or {}
        diff = {f: (ka.get(f), kb.get(f)) for f in set(ka) | set(kb) if ka.get(f) != kb.get(f)}
        print("DIFF", k, json.dumps(diff)[:400])
if sa != sb:
    bad += 1; print("DIFF summary")
print(f"{len(a)} vs {len(b)} replays, {bad} differing (ignoring duration_ms, median_ms, *_id)")
sys.exit(1 if bad else 0)
