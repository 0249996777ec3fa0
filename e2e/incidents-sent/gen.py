#!/usr/bin/env python3
"""Writes e2e/incidents-sent: one rollback and two traps for the sizes a
release asks of a slowed dependency (gate.change_slow_answered's lift,
facts.SentChanges), each derived from an incident the project already
holds, byte for byte from the same inputs.

    python3 gen.py CORNER_DIR

CORNER_DIR is the corner world s1818-c00-prompt-regression-summarizer as
e2e's TestCornerWorlds drew it in session 22 (worldgen.DrawCorner(1818, 0,
corners[0]) written by worldgen.Write, before worldgen drew what a prompt
release sends: since session 23 its v18 sends 578 tokens more, and this
script's output was written from the earlier draw); the OpenSearch twin is read from
../incidents-heldout13-twins.
"""
import gzip
import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TWIN = os.path.join(HERE, "..", "incidents-heldout13-twins", "pr13tw-trap-opensearch-yellow-ratio-catalog")


def unit(*parts):
    """A number in [0, 1) fixed by parts (no RNG state, no hash seed)."""
    h = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def read_spans(d):
    p = os.path.join(d, "spans.jsonl")
    if os.path.exists(p):
        with open(p) as f:
            return [json.loads(l) for l in f if l.strip()]
    with gzip.open(p + ".gz", "rt") as f:
        return [json.loads(l) for l in f if l.strip()]


def write_incident(src, name, spans, incident_yaml, expect):
    out = os.path.join(HERE, name)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for f in ("alert.json", "logs.jsonl", "releases.yaml", "rule.json"):
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(out, f))
    with gzip.GzipFile(os.path.join(out, "spans.jsonl.gz"), "wb", mtime=0) as f:
        for s in spans:
            f.write((json.dumps(s, separators=(",", ":")) + "\n").encode())
    with open(os.path.join(out, "incident.yaml"), "w") as f:
        f.write(incident_yaml)
    with open(os.path.join(out, "expect.json"), "w") as f:
        json.dump(expect, f, indent=2)
        f.write("\n")


def prompt_longer(corner):
    """The corner's prompt regression, its v18 prompts 1,500 tokens longer
    from the first call (a system prompt that grew): the model answered
    them at its baseline for 3.5 minutes, then slowed."""
    spans = read_spans(corner)
    for s in spans:
        a = s["attributes"]
        if s["resource"].get("service.name") == "summarizer" and s["kind"] == 3 and s["resource"].get("service.version") == "v18" and "gen_ai.usage.input_tokens" in a:
            a["gen_ai.usage.input_tokens"] += 1500
    name = "sent-prompt-longer-slowed-later-summarizer"
    write_incident(corner, name, spans, f"""# Written by gen.py from the corner world s1818-c00 (README.md); do not edit.
id: {name}
title: "summarizer v18's prompts 1,500 tokens longer from the first call; the model slows 3.5 min after the release"
service: summarizer
now: 2026-09-01T14:48:02Z
expect:
  root_cause: prompt_regression
  verdict: allow
tags: [sent, prompt_regression]
""", {"root_cause": "prompt_regression", "verdict": "allow",
      "story": "s1818-c00's prompt regression with v18's input tokens 1,500 larger on every call to api.openai.com from v18's first: the model answered 8 of them at its baseline, then slowed. The release changed what it sends to the slowed peer from its first request: a rollback is right."})


def search_body(s):
    """An OpenSearch query body of 600-1,000 bytes, the same for every version."""
    return 600 + int(400 * unit("body", s["span_id"]))


def ranker_trap():
    """The OpenSearch twin, catalog 3.8.0-1 sending a ranking service
    bodies 4x larger (the product page's new recommendations); the
    searches carry their body size, the same before and after."""
    spans, extra = read_spans(TWIN), []
    for s in spans:
        a, r = s["attributes"], s["resource"]
        if r.get("service.name") != "catalog":
            continue
        if s["kind"] == 3 and a.get("db.system") == "opensearch":
            a["http.request.body.size"] = search_body(s)
        if s["kind"] == 2 and s["name"] == "GET /v1/products/{id}":
            big = r.get("service.version") == "3.8.0-1"
            size = (1600 if big else 400) + int(400 * unit("rank", s["span_id"]))
            sid = hashlib.sha256(("rank" + s["span_id"]).encode()).hexdigest()[:16]
            extra.append({"timestamp": s["timestamp"], "trace_id": s["trace_id"], "span_id": sid, "parent_span_id": s["span_id"], "name": "POST",
                          "kind": 3, "duration_nano": 2000000 + int(3000000 * unit("rankd", s["span_id"])), "has_error": False, "status_code": 0, "status_message": "",
                          "resource": dict(r), "attributes": {"http.request.method": "POST", "server.address": "recs.gru.lumen.lan", "server.port": 8080,
                                                              "url.full": "http://recs.gru.lumen.lan:8080/v1/rank", "http.response.status_code": 200, "http.request.body.size": size}})
    name = "sent-trap-ranker-bodies-opensearch-yellow-catalog"
    write_incident(TWIN, name, spans + extra, f"""# Written by gen.py from heldout13-twins' OpenSearch trap (README.md); do not edit.
id: {name}
title: "OpenSearch YELLOW 3 min after catalog 3.8.0-1, which sends its ranking service 4x larger bodies; 1 in 4 by trace id"
service: catalog
now: 2026-12-07T11:14:00.000000-03:00
expect:
  root_cause: dependency_outage
  verdict: deny
tags: [sent, trap]
""", {"root_cause": "dependency_outage", "verdict": "deny",
      "story": "pr13tw-trap-opensearch-yellow-ratio-catalog, catalog 3.8.0-1 also sending recs.gru.lumen.lan request bodies four times larger from its first call. The searches' bodies are the same before and after: the slowed peer was asked nothing new and slowed by itself."})


def timeout_trap():
    """The OpenSearch twin, catalog 3.8.0-1 sending OpenSearch a longer
    search timeout and its own version in the user agent: attributes of
    the slowed peer's calls that changed with the release and are no
    size of what it asks."""
    spans = read_spans(TWIN)
    for s in spans:
        a, r = s["attributes"], s["resource"]
        if r.get("service.name") == "catalog" and s["kind"] == 3 and a.get("db.system") == "opensearch":
            v = r.get("service.version")
            a["http.request.body.size"] = search_body(s)
            a["opensearch.request.timeout_ms"] = 5000 if v == "3.8.0-1" else 2000
            a["user_agent.original"] = "lumen-catalog/" + v + " opensearch-go/4.1.0"
    name = "sent-trap-timeout-opensearch-yellow-catalog"
    write_incident(TWIN, name, spans, f"""# Written by gen.py from heldout13-twins' OpenSearch trap (README.md); do not edit.
id: {name}
title: "OpenSearch YELLOW 3 min after catalog 3.8.0-1, which sends its searches a 5 s timeout instead of 2 s; 1 in 4 by trace id"
service: catalog
now: 2026-12-07T11:14:00.000000-03:00
expect:
  root_cause: dependency_outage
  verdict: deny
tags: [sent, trap]
""", {"root_cause": "dependency_outage", "verdict": "deny",
      "story": "pr13tw-trap-opensearch-yellow-ratio-catalog, catalog 3.8.0-1 sending every search opensearch.request.timeout_ms 5000 instead of 2000 and its version in user_agent.original. The bodies are the same size: the release changed how it asks, not how much, and the peer slowed by itself."})


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    prompt_longer(sys.argv[1])
    ranker_trap()
    timeout_trap()
