#!/usr/bin/env python3
"""Generates e2e/incidents-heldout15: a multiplayer game backend ("Rampart") on bare-metal Kubernetes.

Run from this folder: `python3 gen.py` (writes every incident here). Seeded (SEED below): byte for
byte the same on every run, whatever PYTHONHASHSEED (every draw comes from a random.Random seeded
with a string; no set or dict order of unhashed keys decides anything). Files over 3 MB are written
gzip'd with no name and mtime 0.

Style (README.md): two bare-metal Kubernetes clusters (bm-fra1, bm-ams2), Argo Rollouts BLUE-GREEN
(a preview ReplicaSet behind a preview Service, analysis, then promotion switches the active
Service); versions are git short SHAs (service.version) and images `sha-<short>`; the Argo
notification on promotion writes the deployment.marker. Elixir/Phoenix services with the
OpenTelemetry Erlang/Elixir conventions (route-named server spans, opentelemetry_ecto query spans
`<repo>.query:<table>`, Redix command spans, gRPC via elixir-grpc), Rust services with
tracing-opentelemetry (span names are function paths such as `matchmaker::grpc::enqueue`, fields
`otel.kind`, `otel.status_code`, `code.*`, `busy_ns`/`idle_ns`), a Node WebSocket matchmaking gateway
(one server span per WebSocket message, grpc-js client spans), gRPC between services, Redis Streams
and NATS. HTTP semconv 1.26+. Exceptions only as span events (no status message). The collector's
probabilistic_sampler (proportional mode, W3C randomness: the trace id's low 56 bits) keeps 10% in
bm-fra1, logs with a trace id sampled by the same rule; bm-ams2 keeps everything. UTC timestamps
with microseconds.
"""
import gzip
import hashlib
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timezone

SEED = 150733
HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000
MS = 1000 * US
S = 1000 * MS
MIN = 60 * S
DAY = "2026-12-07T"
PROJECT = "rampart"


def ts(ns):
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % (frac // US)


def at(s):
    if "T" not in s:
        s = DAY + s
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(d.timestamp()) * S + int((frac + "000000")[:6]) * US


def hexid(rng, n):
    return "%0*x" % (n, rng.getrandbits(4 * n))


def lognormal(rng, median, sigma=0.3):
    return median * math.exp(rng.gauss(0, sigma))


def ramp(t, a, b):
    if t <= a:
        return 0.0
    if t >= b:
        return 1.0
    return (t - a) / (b - a)


def poisson(rng, lam):
    if lam > 40:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    L, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= L:
            return k
        k += 1


# ---------------------------------------------------------------- services and resources

RUNTIME = {
    "elixir": {"telemetry.sdk.language": "erlang", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.5.0",
               "process.runtime.name": "BEAM", "process.runtime.version": "15.1.2",
               "process.runtime.description": "Erlang/OTP 27 erts-15.1.2", "process.executable.name": "beam.smp"},
    "rust": {"telemetry.sdk.language": "rust", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "0.27.1"},
    "node": {"telemetry.sdk.language": "nodejs", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.29.0",
             "process.runtime.name": "nodejs", "process.runtime.version": "22.11.0"},
}
SERVICES = {  # service -> (runtime, pods)
    "lobby": ("elixir", 4),
    "inventory": ("elixir", 3),
    "matchmaker": ("rust", 6),
    "gateway": ("node", 5),
    "rewards": ("rust", 3),
    "leaderboard": ("rust", 4),
    "chat-mod": ("rust", 3),
}
NODES = {"bm-fra1": ["fra1-r%02d-s%02d" % (r, s) for r in (3, 7, 12) for s in (2, 5, 9)],
         "bm-ams2": ["ams2-r%02d-s%02d" % (r, s) for r in (1, 4, 8) for s in (3, 6, 11)]}
# the proportional sampler's ratio per cluster (1.0: no sampler in that cluster's pipeline)
CLUSTER_RATIO = {"bm-fra1": 0.10, "bm-ams2": 1.0}


def pod_hash(svc, ver):
    return hashlib.sha1(("pth/%s/%s" % (svc, ver)).encode()).hexdigest()[:9].translate(str.maketrans("0123456789", "bcdfghjklm"))


def resource(w, svc, ver, pod):
    rt = SERVICES[svc][0]
    rs = "%s-%s" % (svc, pod_hash(svc, ver))
    r = {"service.name": svc, "service.version": ver, "service.namespace": "game",
         "service.instance.id": hashlib.md5(("%s/%s" % (rs, pod)).encode()).hexdigest(),
         "deployment.environment.name": "live", "k8s.cluster.name": w.cluster, "k8s.namespace.name": "game",
         "k8s.replicaset.name": rs, "k8s.pod.name": "%s-%s" % (rs, pod),
         "k8s.node.name": NODES[w.cluster][int(hashlib.md5(pod.encode()).hexdigest(), 16) % 9],
         "container.image.name": "harbor.rampart.gg/game/%s" % svc, "container.image.tag": "sha-%s" % ver}
    r.update(RUNTIME[rt])
    return r


def other(name, extra=None):
    r = {"service.name": name}
    r.update(extra or {})
    return r


class World:
    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, self.id))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.cluster = spec["cluster"]
        self.ratio = CLUSTER_RATIO[self.cluster]
        self.spans, self.logs = [], []
        self.fx = spec.get("fx", lambda w, t, svc, ver, op, ctx: None)
        self.rel = {}  # svc -> [(version, promoted at or None)]
        self.pods = {}
        for svc, rows in spec["releases"].items():
            out = []
            for row in rows:
                ver, when = row[0], row[1]
                out.append((ver, at(when) if when else None))
                r = random.Random("pods/%s/%s" % (self.id, ver))
                self.pods[(svc, ver)] = [hexid(r, 5).translate(str.maketrans("0123456789", "vwxzqrstnp")) for _ in range(SERVICES[svc][1])]
            self.rel[svc] = out

    def version(self, svc, t):
        cur = self.rel[svc][0][0]
        for ver, b in self.rel[svc][1:]:
            if b is not None and t >= b:
                cur = ver
        return cur

    def kept(self, trace_id):
        # proportional mode with W3C randomness: the low 56 bits of the trace id are the randomness R;
        # a 10% sampler keeps R >= (1 - 0.1) * 2^56
        if self.ratio >= 1.0:
            return True
        return int(trace_id[-14:], 16) >= int((1.0 - self.ratio) * (1 << 56))

    def log(self, t, res, sev, body, trace="", span="", attrs=None):
        if trace and not self.kept(trace):
            return
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17, "FATAL": 21}[sev]
        self.logs.append({"timestamp": ts(t), "observed_timestamp": ts(t + 3 * MS), "severity_text": sev,
                          "severity_number": num, "body": body, "trace_id": trace, "span_id": span,
                          "resource": res, "attributes": attrs or {}})

    def run(self):
        rng = self.rng
        for m0 in range(self.start, self.now, MIN):
            for svc, op, rate in self.spec["traffic"]:
                lam = (rate(self, m0) if callable(rate) else rate) * self.spec.get("scale", 1.0)
                for _ in range(poisson(rng, lam)):
                    t = m0 + rng.randrange(MIN)
                    if t < self.now:
                        tr = Trace(self, svc)
                        request(self, tr, t, svc, op, "")
                        tr.flush()
        for t, res, sev, body in self.spec.get("extra_logs", lambda w: [])(self):
            if t < self.now:
                self.log(t, res, sev, body)
        for svc, rows in self.rel.items():
            prev = rows[0][0]
            for ver, b in rows[1:]:
                if b is not None and b < self.now:
                    self.spans.append(marker_span(self, svc, ver, prev, b))
                prev = ver
        for extra in self.spec.get("extra_spans", lambda w: [])(self):
            self.spans.append(extra)
        self.spans.sort(key=lambda r: (r["timestamp"], r["trace_id"], r["span_id"]))
        self.logs.sort(key=lambda r: (r["timestamp"], r["body"]))


def marker_span(w, svc, ver, prev, b, phase="Healthy", extra=None):
    """The Argo Rollouts notification (trigger on-rollout-completed) posted to the deploy-notifier,
    which writes the marker: the moment the active Service switched to the new ReplicaSet."""
    rng = w.rng
    attrs = {"deployment.version": ver, "deployment.previous_version": prev,
             "deployment.id": "%s/%s/rollout-%s" % (w.cluster, svc, hexid(random.Random("rid/%s/%s" % (svc, ver)), 6)),
             "deployment.environment.name": "live", "deployment.strategy": "blueGreen",
             "argo_rollouts.phase": phase, "argo_rollouts.active_service": "%s-active" % svc,
             "argo_rollouts.preview_service": "%s-preview" % svc,
             "vcs.ref.head.revision": ver,
             "container.image.tag": "sha-%s" % ver}
    attrs.update(extra or {})
    res = {"service.name": svc, "service.version": ver, "service.namespace": "game",
           "deployment.environment.name": "live", "k8s.cluster.name": w.cluster, "k8s.namespace.name": "game",
           "telemetry.sdk.name": "deploy-notifier", "telemetry.sdk.language": "go"}
    return {"timestamp": ts(b), "trace_id": hexid(rng, 32), "span_id": hexid(rng, 16), "parent_span_id": "",
            "name": "deployment.marker", "kind": 1, "duration_nano": 4 * MS, "has_error": False,
            "status_code": 0, "status_message": "", "resource": res, "attributes": attrs}


# ---------------------------------------------------------------- one request: a tree of spans

class Trace:
    def __init__(self, w, svc):
        self.w = w
        self.id = hexid(w.rng, 32)
        self.rows, self.logs = [], []

    def flush(self):
        if self.w.kept(self.id):
            self.w.spans.extend(self.rows)
        for lt, res, sev, body, sid in self.logs:
            self.w.log(lt, res, sev, body, self.id, sid)

    def span(self, res, parent, name, kind, start, dur, attrs, err=False, sid=None, events=None, msg=""):
        sid = sid or hexid(self.w.rng, 16)
        row = {"timestamp": ts(start), "trace_id": self.id, "span_id": sid, "parent_span_id": parent,
               "name": name, "kind": kind, "duration_nano": int(dur), "has_error": bool(err),
               "status_code": 2 if err else 0, "status_message": msg if err else "", "resource": res,
               "attributes": attrs}
        if events:
            row["events"] = events
        self.rows.append(row)
        return sid


def exc_event(t, typ, msg):
    return [{"name": "exception", "timestamp": ts(t), "attributes": {"exception.type": typ, "exception.message": msg}}]


PG = {"lobby": "pg-lobby-rw.data.svc.cluster.local", "inventory": "pg-inventory-rw.data.svc.cluster.local",
      "rewards": "pg-rewards-rw.data.svc.cluster.local"}
REDIS = {"lobby": "redis-presence.data.svc.cluster.local", "matchmaker": "redis-mm-streams.data.svc.cluster.local",
         "gateway": "redis-sessions.data.svc.cluster.local", "leaderboard": "redis-ranks.data.svc.cluster.local",
         "chat-mod": "redis-cache.data.svc.cluster.local"}
GRPC_HOST = {"matchmaker": "matchmaker-active.game.svc.cluster.local", "inventory": "inventory-active.game.svc.cluster.local"}
NATS = "nats.messaging.svc.cluster.local"
STEAM = "partner.steam-api.com"
MISTRAL = "api.mistral.ai"

# (svc, op) -> (protocol, method or rpc, route, path, children). Children: (kind, args...)
OPS = {
    ("lobby", "party_get"): ("http", "GET", "/api/parties/:id", "/api/parties/%d", [("pg", "SELECT", "parties"), ("redis", "HGET", "presence:%d")]),
    ("lobby", "party_create"): ("http", "POST", "/api/parties", "/api/parties", [("pg", "INSERT", "parties"), ("call", "inventory", "loadout")]),
    ("lobby", "friends"): ("http", "GET", "/api/friends", "/api/friends", [("pg", "SELECT", "friendships"), ("redis", "HMGET", "presence:%d")]),
    ("inventory", "loadout"): ("grpc", "inventory.v1.Inventory", "GetLoadout", "", [("pg", "SELECT", "loadouts")]),
    ("matchmaker", "enqueue"): ("grpc", "matchmaker.v1.Matchmaker", "Enqueue", "queue::enqueue", [("redis", "XADD", "mm:tickets:%s"), ("nats", "mm.ticket.created")]),
    ("matchmaker", "status"): ("grpc", "matchmaker.v1.Matchmaker", "TicketStatus", "queue::status", [("redis", "HGETALL", "mm:ticket:%d")]),
    ("matchmaker", "cancel"): ("grpc", "matchmaker.v1.Matchmaker", "CancelTicket", "queue::cancel", [("redis", "HGETALL", "mm:ticket:%d"), ("redis", "XDEL", "mm:tickets:%s")]),
    ("gateway", "join"): ("ws", "match.join", "/ws/v2", "/ws/v2", [("redis", "GET", "session:%d"), ("call", "matchmaker", "enqueue")]),
    ("gateway", "poll"): ("ws", "match.status", "/ws/v2", "/ws/v2", [("call", "matchmaker", "status")]),
    ("gateway", "leave"): ("ws", "match.leave", "/ws/v2", "/ws/v2", [("call", "matchmaker", "cancel")]),
    ("gateway", "connect"): ("http", "GET", "/ws/v2", "/ws/v2", [("redis", "GET", "session:%d")]),
    ("rewards", "claim"): ("http", "POST", "/v1/rewards/claim", "/v1/rewards/claim", [("pg", "SELECT", "reward_grants"), ("steam",), ("pg", "UPDATE", "reward_grants")]),
    ("rewards", "pending"): ("http", "GET", "/v1/rewards/pending", "/v1/rewards/pending", [("pg", "SELECT", "reward_grants")]),
    ("leaderboard", "top"): ("http", "GET", "/v1/leaderboards/:season/top", "/v1/leaderboards/%s/top", [("redis", "ZREVRANGE", "lb:%s")]),
    ("leaderboard", "around"): ("http", "GET", "/v1/leaderboards/:season/around/:player", "/v1/leaderboards/%s/around/%d", [("redis", "ZREVRANK", "lb:%s"), ("redis", "ZRANGE", "lb:%s")]),
    ("leaderboard", "score"): ("http", "POST", "/v1/scores", "/v1/scores", [("redis", "ZADD", "lb:%s"), ("nats", "scores.updated")]),
    ("chat-mod", "moderate"): ("http", "POST", "/v1/moderate", "/v1/moderate", [("redis", "GET", "modcache:%s"), ("llm",)]),
}
RUST_FN = {("rewards", "claim"): "rewards::http::claim", ("rewards", "pending"): "rewards::http::pending",
           ("leaderboard", "top"): "leaderboard::http::top", ("leaderboard", "around"): "leaderboard::http::around_me",
           ("leaderboard", "score"): "leaderboard::http::submit_score", ("chat-mod", "moderate"): "chat_mod::api::moderate"}
BASE_MS = {"pg": 1.8, "redis": 0.45, "nats": 0.6, "steam": 180.0, "llm": 820.0}
SEASON = "s6"


def child_span(tr, res, svc, kind, args, rng, ctx):
    """Name, kind and attributes of one client span in the service's runtime's conventions."""
    rt = SERVICES[svc][0]
    n = rng.randrange(1, 900000)
    if kind == "pg":
        op, table = args
        stmt = {"SELECT": "SELECT p0.\"id\", p0.\"data\" FROM \"%s\" AS p0 WHERE (p0.\"id\" = $1)" % table,
                "INSERT": "INSERT INTO \"%s\" (\"leader_id\",\"inserted_at\") VALUES ($1,$2) RETURNING \"id\"" % table,
                "UPDATE": "UPDATE %s SET claimed_at = now() WHERE id = $1" % table}[op]
        if rt == "elixir":
            qt = int(lognormal(rng, 900, 0.4))
            return "%s.repo.query:%s" % (svc, table), 3, {
                "db.system": "postgresql", "db.name": svc, "db.statement": stmt, "db.instance": svc, "db.type": "sql",
                "db.url": "ecto://%s" % PG[svc], "server.address": PG[svc], "source": table,
                "total_time_microseconds": qt + 60, "query_time_microseconds": qt, "queue_time_microseconds": 40,
                "decode_time_microseconds": 20}
        return "sqlx::query", 3, {"db.system": "postgresql", "db.namespace": svc, "db.operation.name": op,
                                  "db.collection.name": table, "db.query.text": stmt, "server.address": PG[svc],
                                  "server.port": 5432, "otel.kind": "client", "code.namespace": "sqlx::query"}
    if kind == "redis":
        op, key = args
        k = key % (SEASON if "%s" in key else n) if "%" in key else key
        if rt == "elixir":
            return op, 3, {"db.system": "redis", "db.statement": "%s %s" % (op, k), "net.peer.name": REDIS[svc], "net.peer.port": 6379}
        if rt == "node":
            return "redis-%s" % op, 3, {"db.system": "redis", "db.statement": "%s %s" % (op, k), "db.operation.name": op,
                                        "server.address": REDIS[svc], "server.port": 6379}
        return "redis::cmd::%s" % op.lower(), 3, {"db.system": "redis", "db.operation.name": op, "db.query.text": "%s %s" % (op, k),
                                                  "server.address": REDIS[svc], "server.port": 6379, "otel.kind": "client"}
    if kind == "nats":
        subj = args[0]
        return "%s publish" % subj, 4, {"messaging.system": "nats", "messaging.destination.name": subj,
                                        "messaging.operation.type": "publish", "messaging.operation.name": "publish",
                                        "server.address": NATS, "server.port": 4222, "otel.kind": "producer"}
    if kind == "steam":
        return "POST", 3, {"http.request.method": "POST", "url.full": "https://%s/IInventoryService/AddItem/v1/" % STEAM,
                           "server.address": STEAM, "server.port": 443, "otel.kind": "client",
                           "code.namespace": "reqwest_tracing::reqwest_otel_span_builder"}
    if kind == "llm":
        model = ctx.get("model", "mistral-small-2409")
        return "chat %s" % model, 3, {"gen_ai.system": "mistral_ai", "gen_ai.operation.name": "chat",
                                      "gen_ai.request.model": model, "gen_ai.request.temperature": 0.0,
                                      "gen_ai.request.max_tokens": 256, "server.address": MISTRAL, "server.port": 443,
                                      "http.request.method": "POST", "url.full": "https://%s/v1/chat/completions" % MISTRAL,
                                      "otel.kind": "client"}
    raise ValueError(kind)


def request(w, tr, t, svc, op, parent, depth=0):
    """Writes one request of svc's op into tr starting at t under parent; returns (end, failed, grpc code, message)."""
    rng = w.rng
    ver = w.version(svc, t)
    pods = w.pods[(svc, ver)]
    res = resource(w, svc, ver, pods[rng.randrange(len(pods))])
    ctx = {"region": rng.choice(["eu-west", "eu-central", "eu-north"]), "party": rng.random() < 0.38,
           "platform": rng.choice(["pc", "pc", "ps5", "xsx", "switch"])}
    f = w.fx(w, t, svc, ver, op, ctx) or {}
    ctx.update(f.get("ctx", {}))
    proto, method, route, path, children = OPS[(svc, op)]
    rt = SERVICES[svc][0]
    root = hexid(rng, 16)
    cur = t + int(lognormal(rng, 0.15) * MS) + int(f.get("queue_ms", 0) * MS * rng.uniform(0.5, 1.5))
    fail, code, msg, exc = False, 0, "", None
    for ci, (kind, *args) in enumerate(children):
        cf = f.get("child", {}).get(ci) or f.get("child", {}).get(kind) or {}
        if cf.get("skip"):
            continue
        if kind == "call":
            csvc, cop = args
            cid = hexid(rng, 16)
            cstart = cur + int(0.2 * MS)
            cend, cfail, ccode, cmsg = request(w, tr, cstart + int(0.3 * MS), csvc, cop, cid, depth + 1)
            crpc = OPS[(csvc, cop)]
            a = {"rpc.system": "grpc", "rpc.service": crpc[1], "rpc.method": crpc[2], "rpc.grpc.status_code": ccode,
                 "server.address": GRPC_HOST[csvc], "server.port": 50051, "network.peer.address": "10.96.%d.%d" % (len(csvc), len(cop) * 7)}
            cname = "grpc.%s/%s" % (crpc[1], crpc[2]) if rt == "node" else "%s/%s" % (crpc[1], crpc[2])
            emsg = "%d %s: %s" % (ccode, GRPC_NAMES.get(ccode, "UNKNOWN"), cmsg) if cfail else ""
            tr.span(res, root, cname, 3, cstart, cend + int(0.3 * MS) - cstart, a, err=cfail, sid=cid,
                    msg=emsg if rt == "node" else "",
                    events=exc_event(cend, "Error" if rt == "node" else "GRPC.RPCError", emsg) if cfail else None)
            cur = cend + int(0.5 * MS)
            if cfail:
                fail, code, msg, exc = True, cf.get("root_code", 13 if ccode in (2, 13) else 14 if ccode == 14 else ccode), emsg, cf.get("root_exc", "Error")
                break
            continue
        attempts = 1 + cf.get("retries", 0)
        span_attempts = cf.get("attempts_in_span")  # SDK retries inside one span
        failed = False
        for a in range(attempts if not span_attempts else 1):
            base = BASE_MS[kind] * cf.get("slow", 1.0)
            name, k, attrs = child_span(tr, res, svc, kind, args, rng, ctx)
            attrs = dict(attrs)
            if span_attempts:
                dur, resent, failed, cmsg = span_attempts(rng, ctx, base)
                if resent:
                    attrs["http.request.resend_count"] = resent
                    for i in range(resent):
                        tr.logs.append((cur + int(dur * (i + 1) / (resent + 1)), res, "WARN",
                                        json.dumps({"level": "WARN", "target": "reqwest_retry::middleware",
                                                    "fields": {"message": "Retry attempt #%d. Sleeping 0ns before the next attempt" % (i + 1)}},
                                                   separators=(",", ":")), ""))
            else:
                dur = lognormal(rng, base) * MS
                failed = rng.random() < cf.get("err", 0.0)
                cmsg = cf.get("msg", "") if failed else ""
                if failed and cf.get("timeout_ms"):
                    dur = cf["timeout_ms"] * MS * rng.uniform(1.0, 1.02)
            if kind in ("steam", "llm"):
                if not failed or cf.get("status"):
                    attrs["http.response.status_code"] = cf.get("status", 503) if failed else 200
                if kind == "llm" and not failed:
                    attrs.update((f.get("llm") or llm_ok)(rng, ctx))
            if failed:
                attrs.update(cf.get("err_attrs", {}))
                if rt == "rust":
                    attrs["otel.status_code"] = "ERROR"
            tr.span(res, root, name, k, cur, dur, attrs, err=failed,
                    events=exc_event(cur + int(dur), cf.get("exc", "Error"), cmsg) if failed else None)
            cur += int(dur) + int(0.1 * MS)
            if not failed:
                break
            if cf.get("backoff_ms"):
                cur += int(cf["backoff_ms"] * MS)
        if failed and cf.get("fatal", True):
            fail, code, msg, exc = True, cf.get("root_code", 13), cf.get("root_msg", cmsg), cf.get("root_exc", cf.get("exc", "Error"))
            break
    if not fail and rng.random() < f.get("err", 0.0):
        fail, code, msg, exc = True, f.get("code", 13), f.get("msg", ""), f.get("exc", "Error")
    cur += int(lognormal(rng, f.get("self_ms", 0.8)) * MS)
    dur = cur - t
    status = f.get("http_status", 500) if fail else (201 if method == "POST" and svc == "lobby" else 101 if svc == "gateway" else 200)
    if proto == "grpc":
        attrs = {"rpc.system": "grpc", "rpc.service": method, "rpc.method": route, "rpc.grpc.status_code": code if fail else 0,
                 "server.address": GRPC_HOST[svc], "server.port": 50051}
        if rt == "rust":
            name = "%s::grpc::%s" % (svc, path.split("::")[-1])
            attrs.update({"otel.kind": "server", "otel.name": "%s/%s" % (method, route), "code.namespace": "%s::%s" % (svc, path),
                          "code.filepath": "src/%s.rs" % path.replace("::", "/"), "code.lineno": 40 + len(route),
                          "thread.name": "tokio-runtime-worker", "busy_ns": int(dur * 0.08), "idle_ns": int(dur * 0.92)})
        else:
            name = "%s/%s" % (method, route)
    elif proto == "ws":
        name = "WS %s" % method
        attrs = {"network.protocol.name": "websocket", "url.path": path, "url.scheme": "wss", "server.address": "play.rampart.gg",
                 "ws.message.type": method, "ws.message.bytes": int(lognormal(rng, 240, 0.4)),
                 "game.client.platform": ctx["platform"], "game.client.build": ctx.get("build", "7.4.2")}
        if fail:
            attrs["ws.reply.error.code"] = f.get("ws_code", "internal")
    else:
        p = path
        if "%s" in p and "%d" in p:
            p = p % (SEASON, rng.randrange(1, 9000000))
        elif "%s" in p:
            p = p % SEASON
        elif "%d" in p:
            p = p % rng.randrange(1, 900000)
        attrs = {"http.request.method": method, "http.route": route, "url.path": p, "url.scheme": "http",
                 "http.response.status_code": status, "server.address": "%s.game.svc.cluster.local" % svc,
                 "server.port": 4000 if rt == "elixir" else 8080, "network.protocol.version": "1.1",
                 "user_agent.original": "RampartClient/7.4.2 (%s)" % ctx["platform"]}
        if rt == "rust":
            name = RUST_FN[(svc, op)]
            attrs.update({"otel.kind": "server", "otel.name": "%s %s" % (method, route), "code.namespace": name,
                          "code.filepath": "src/%s.rs" % "/".join(name.split("::")[1:]), "code.lineno": 30 + len(route),
                          "thread.name": "tokio-runtime-worker", "busy_ns": int(dur * 0.1), "idle_ns": int(dur * 0.9)})
        elif rt == "node":
            name = method  # the http instrumentation knows no route for the upgrade handler
            attrs.update({"url.scheme": "https", "server.address": "play.rampart.gg", "server.port": 443,
                          "network.protocol.version": "1.1", "http.request.header.upgrade": ["websocket"]})
        else:
            name = "%s %s" % (method, route)
            attrs["client.address"] = "10.244.%d.%d" % (rng.randrange(1, 40), rng.randrange(2, 250))
            attrs["phoenix.plug"] = "Elixir.%sWeb.%sController" % (svc.capitalize(), route.split("/")[2].capitalize())
    if rt == "rust":
        attrs["otel.status_code"] = "ERROR" if fail else "OK"
    attrs.update(f.get("root_attrs", {}))
    if "root_attr_fn" in f:
        attrs.update(f["root_attr_fn"](rng, ctx))
    events = exc_event(t + dur, exc, msg) if fail and exc else None
    if "events_fn" in f:
        events = (events or []) + f["events_fn"](rng, ctx, t)
    tr.span(res, parent, name, 2, t, dur, attrs, err=fail, sid=root, events=events,
            msg=msg if fail and rt == "node" else "")
    if f.get("warn"):
        tr.logs.append((t + dur, res, "WARN", rust_log("chat_mod::api::moderate", "moderation failed open", error=f["warn"]).replace('"ERROR"', '"WARN"'), root))
    if fail and f.get("log"):
        body = f["log"](rng, ctx) if callable(f["log"]) else f["log"]
        tr.logs.append((t + dur, res, "ERROR", body, root))
    return cur, fail, code, msg


GRPC_NAMES = {0: "OK", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED", 8: "RESOURCE_EXHAUSTED", 13: "INTERNAL", 14: "UNAVAILABLE"}


def llm_ok(rng, ctx):
    return {"gen_ai.response.model": "mistral-small-2409", "gen_ai.response.id": hexid(rng, 32),
            "gen_ai.usage.input_tokens": int(lognormal(rng, ctx.get("in_tokens", 910), 0.15)),
            "gen_ai.usage.output_tokens": int(lognormal(rng, 38, 0.3)), "gen_ai.response.finish_reasons": ["stop"]}


def mod_quality(rng, ctx):
    """chat-mod's own attributes on its server span: the policy prompt, what it decided, whether the
    model's answer parsed as the JSON the policy asks for."""
    r = rng.random()
    if r < ctx.get("p_unreviewed", 0.0):
        d = "allow_unreviewed"
    elif r < ctx.get("p_unreviewed", 0.0) + ctx.get("p_block", 0.031):
        d = "block"
    else:
        d = "allow"
    return {"chat_mod.policy.prompt_id": ctx.get("prompt", "mod-policy-v14"), "chat_mod.decision": d,
            "chat_mod.output.valid_json": d == "allow_unreviewed" or rng.random() < ctx.get("p_json", 0.992),
            "chat_mod.channel": rng.choice(["match", "party", "global"])}


# ---------------------------------------------------------------- the incidents' effects

def rust_log(target, msg, **fields):
    d = {"level": "ERROR", "target": target, "fields": dict(message=msg, **fields)}
    return json.dumps(d, separators=(",", ":"))


def A_cancel_panic(w, t, svc, ver, op, ctx):
    if svc == "matchmaker" and ver == "a41c9e2" and op == "cancel" and w.rng.random() < 0.62:
        m = "panicked at src/queue/cancel.rs:88:41:\ncalled `Option::unwrap()` on a `None` value"
        return {"child": {1: {"skip": True}}, "err": 1.0, "code": 13, "msg": m, "exc": "core::panic",
                "log": lambda rng, c: rust_log("matchmaker::queue::cancel", "handler panicked; ticket already matched", ticket=hexid(rng, 12))}


def A_chatmod_prompt(w, t, svc, ver, op, ctx):
    if svc != "chat-mod":
        return None
    if ver == "b7e1f04":
        c = {"prompt": "mod-policy-v15", "p_block": 0.27, "p_json": 0.84, "in_tokens": 1460}
    else:
        c = {"prompt": "mod-policy-v14"}
    return {"ctx": c, "root_attr_fn": mod_quality}


def steam_attempts(timeout_ms, max_resend, slow):
    def fn(rng, ctx, base):
        total, resent = 0.0, 0
        for a in range(max_resend + 1):
            d = lognormal(rng, 180.0 * slow, 0.45)
            blip = rng.random() < 0.004
            if d <= timeout_ms and not blip:
                total += d
                return total * MS, resent, False, ""
            total += min(d, timeout_ms)
            if a == max_resend:
                break
            resent += 1
            total += 0 if timeout_ms < 1000 else 100 * (2 ** a)
        return total * MS, resent, True, "error sending request for url (https://partner.steam-api.com/IInventoryService/AddItem/v1/): operation timed out"
    return fn


def A_rewards_retry(w, t, svc, ver, op, ctx):
    if svc != "rewards" or op != "claim":
        return None
    if ver == "5d2e8a1":
        fn = steam_attempts(250, 6, 1.0 + 0.3 * ramp(t, at("17:44:05"), at("17:46:00")))
    else:
        fn = steam_attempts(2000, 2, 1.0)
    return {"child": {1: {"attempts_in_span": fn, "exc": "reqwest_middleware::Error", "root_code": 13}},
            "http_status": 504, "log": lambda rng, c: rust_log("rewards::http::claim", "steam AddItem failed after retries")}


def A_lobby_slow_then_release(w, t, svc, ver, op, ctx):
    if svc == "lobby" and at("15:14:10") <= t < at("15:21:30"):
        return {"child": {"pg": {"slow": 80.0}}}
    if svc == "lobby" and ver == "c3f08d7" and op == "party_create" and w.rng.random() < 0.46:
        m = "no function clause matching in Lobby.Parties.Party.changeset/2"
        return {"child": {0: {"skip": True}, 1: {"skip": True}}, "err": 1.0, "msg": m, "exc": "FunctionClauseError",
                "log": lambda rng, c: "[error] ** (FunctionClauseError) no function clause matching in Lobby.Parties.Party.changeset/2 (crossplay: nil)"}


def A_lobby_logs(w):
    c = other("cnpg-instance", {"k8s.cluster.name": "bm-ams2", "k8s.namespace.name": "data", "k8s.pod.name": "pg-lobby-1"})
    return [(at("15:14:02.331"), c, "INFO", "automatic vacuum of table \"lobby.public.parties\": index scans: 1, pages: 0 removed, 182344 remain; tuples: 2100331 removed"),
            (at("15:21:26.004"), c, "INFO", "automatic vacuum of table \"lobby.public.parties\" finished: elapsed 444.61 s")]


def A_gateway_typeerror(w, t, svc, ver, op, ctx):
    if svc == "gateway" and op == "join":
        old = w.rng.random() < 0.31
        c = {"build": "7.3.%d" % w.rng.randrange(0, 6) if old else "7.4.2"}
        if ver == "9e4b2c0" and old:
            m = "Cannot read properties of undefined (reading 'region')"
            return {"ctx": c, "child": {0: {"skip": True}, 1: {"skip": True}}, "err": 1.0, "msg": m, "exc": "TypeError",
                    "log": lambda rng, cc: json.dumps({"level": 50, "msg": "match.join handler failed", "err": {"type": "TypeError", "message": m}}, separators=(",", ":"))}
        return {"ctx": c}


def T_preview_pg(w, t, svc, ver, op, ctx):
    if svc != "lobby":
        return None
    if at("11:44:28") <= t < at("11:44:56"):
        m = "FATAL 57P01 (admin_shutdown) terminating connection due to administrator command"
        return {"child": {0: {"err": 0.85, "msg": m, "exc": "Postgrex.Error"}}, "log": lambda rng, c: "[error] ** (Postgrex.Error) " + m}
    if at("11:44:56") <= t < at("11:46:12"):
        if op == "party_create":
            m = "ERROR 25006 (read_only_sql_transaction) cannot execute INSERT in a read-only transaction"
            return {"child": {0: {"err": 0.9, "msg": m, "exc": "Postgrex.Error"}}, "log": lambda rng, c: "[error] ** (Postgrex.Error) " + m}
        m = "tcp connect (pg-lobby-rw.data.svc.cluster.local:5432): connection refused - :econnrefused"
        return {"child": {0: {"err": 0.35, "msg": m, "exc": "DBConnection.ConnectionError"}}, "log": lambda rng, c: "[error] ** (DBConnection.ConnectionError) " + m}
    if at("11:46:12") <= t < at("11:49:00"):
        m = "tcp recv (idle): closed"
        return {"child": {0: {"err": 0.07, "msg": m, "exc": "DBConnection.ConnectionError", "slow": 3.0}}}


def T_preview_logs(w):
    c = other("cnpg-controller", {"k8s.cluster.name": "bm-ams2", "k8s.namespace.name": "cnpg-system"})
    return [(at("11:44:27.118"), c, "INFO", "Cluster data/pg-lobby: switchover to pg-lobby-2 requested (reason: node ams2-r04-s06 scheduled for kernel update)"),
            (at("11:44:28.402"), c, "INFO", "Cluster data/pg-lobby: shutting down primary pg-lobby-1 (fast)"),
            (at("11:44:55.880"), c, "INFO", "Cluster data/pg-lobby: pg-lobby-2 promoted; waiting for the -rw service endpoints"),
            (at("11:46:11.205"), c, "INFO", "Cluster data/pg-lobby: switchover completed; current primary pg-lobby-2")]


def T_preview_spans(w):
    """The preview ReplicaSet of d81a5f3: its marker (the notifier subscribed to on-rollout-paused too)
    and the analysis run's k6 smoke requests through the preview Service."""
    out = [marker_span(w, "lobby", "d81a5f3", "f4c19d7", at("11:40:12.507"), phase="Paused",
                       extra={"argo_rollouts.message": "BlueGreenPause: waiting for manual promotion"})]
    rng = random.Random("smoke/" + w.id)
    pods = ["xqvtn", "wrzps"]
    for i in range(14):
        t = at("11:40:41") + i * 9 * S + rng.randrange(S)
        tr_id, sid = hexid(rng, 32), hexid(rng, 16)
        res = resource(w, "lobby", "d81a5f3", pods[i % 2])
        d = int(lognormal(rng, 6.0) * MS)
        out.append({"timestamp": ts(t), "trace_id": tr_id, "span_id": sid, "parent_span_id": "", "name": "GET /api/parties/:id",
                    "kind": 2, "duration_nano": d, "has_error": False, "status_code": 0, "status_message": "", "resource": res,
                    "attributes": {"http.request.method": "GET", "http.route": "/api/parties/:id", "url.path": "/api/parties/1",
                                   "url.scheme": "http", "http.response.status_code": 200, "server.address": "lobby-preview.game.svc.cluster.local",
                                   "server.port": 4000, "user_agent.original": "k6/0.55.0 (https://k6.io/)"}})
    return out


def T_redis_failover(w, t, svc, ver, op, ctx):
    if svc != "matchmaker":
        return None
    writes = {"enqueue": 0, "cancel": 1}
    if at("09:30:31.4") <= t < at("09:30:56") and op in writes:
        m = "READONLY: You can't write against a read only replica."
        return {"child": {writes[op]: {"err": 0.95, "msg": m, "exc": "redis::types::RedisError", "root_code": 14}},
                "log": lambda rng, c: rust_log("matchmaker::queue", "redis write failed", error=m)}
    if at("09:30:56") <= t < at("09:32:12"):
        m = "Connection refused (os error 111)"
        return {"child": {"redis": {"err": 0.45, "msg": m, "exc": "redis::types::RedisError", "root_code": 14}},
                "log": lambda rng, c: rust_log("matchmaker::queue", "redis command failed", error=m)}
    if at("09:32:12") <= t < at("09:34:30"):
        m = "broken pipe"
        return {"child": {"redis": {"err": 0.06, "msg": m, "exc": "redis::types::RedisError", "root_code": 14}}}


def T_redis_logs(w):
    s = other("redis-sentinel", {"k8s.cluster.name": "bm-fra1", "k8s.namespace.name": "data", "k8s.pod.name": "mm-streams-sentinel-1"})
    npd = other("node-problem-detector", {"k8s.cluster.name": "bm-fra1", "k8s.node.name": "fra1-r07-s02"})
    return [(at("09:30:29.870"), npd, "ERROR", "kernel: nvme nvme0: I/O 412 QID 3 timeout, aborting; blk_update_request: I/O error, dev nvme0n1"),
            (at("09:30:36.002"), s, "WARN", "+sdown master mm-streams 10.40.7.13 6379"),
            (at("09:30:41.117"), s, "WARN", "+odown master mm-streams 10.40.7.13 6379 #quorum 2/2"),
            (at("09:30:55.904"), s, "WARN", "+switch-master mm-streams 10.40.7.13 6379 10.40.9.21 6379")]


def surge(base, mult):
    def fn(w, m0):
        return base * (1 + (mult - 1) * ramp(m0, at("17:59:00"), at("18:02:00")))
    return fn


def T_season(w, t, svc, ver, op, ctx):
    if svc == "leaderboard" and t >= at("18:00:00"):
        load = ramp(t, at("18:00:00"), at("18:02:00"))
        f = {"queue_ms": 35 * load, "child": {"redis": {"slow": 1 + 5 * load}}, "self_ms": 0.8 + 3 * load}
        if w.rng.random() < 0.04 * load:
            f.update({"child": {0: {"skip": True}, 1: {"skip": True}}, "err": 1.0, "http_status": 503,
                      "msg": "service overloaded", "exc": "tower::load_shed::error::Overloaded"})
        return f


def T_season_logs(w):
    s = other("season-scheduler", {"k8s.cluster.name": "bm-ams2", "k8s.namespace.name": "live-ops"})
    return [(at("17:59:30.000"), s, "INFO", "season s7 'Iron Tide' goes live at 18:00:00Z: ranked queues reset, leaderboards reset, battle pass unlocked"),
            (at("18:00:00.004"), s, "INFO", "season s7 live; push notification sent to 4.1M devices")]


def T_flag(w, t, svc, ver, op, ctx):
    if svc == "gateway" and op == "join":
        share = ramp(t, at("13:17:45"), at("13:18:05"))
        on = w.rng.random() < share
        xplay = on and ctx["platform"] != "switch"
        w.cur = {"xplay": xplay}
        variant = "on" if on else "off"

        def ev(rng, c, t0):
            return [{"name": "feature_flag.evaluation", "timestamp": ts(t0 + 200 * US),
                     "attributes": {"feature_flag.key": "mm.crossplay-pools", "feature_flag.provider.name": "Unleash",
                                    "feature_flag.result.variant": variant, "feature_flag.result.reason": "targeting_match"}}]
        f = {"events_fn": ev}
        if xplay:
            f["ws_code"] = "bad_pool"
            f["log"] = lambda rng, c: json.dumps({"level": 50, "msg": "match.join failed", "grpcCode": 3, "details": "unknown pool 'xplay-eu-ranked'"}, separators=(",", ":"))
        return f
    if svc == "matchmaker" and op == "enqueue" and getattr(w, "cur", {}).get("xplay"):
        return {"child": {0: {"skip": True}, 1: {"skip": True}}, "err": 1.0, "code": 3, "msg": "unknown pool 'xplay-eu-ranked'",
                "exc": "tonic::Status"}
    if svc == "gateway":
        w.cur = {}


def T_flag_logs(w):
    out = []
    for i, pod in enumerate(w.pods[("gateway", "71d3a0e")]):
        res = resource(w, "gateway", "71d3a0e", pod)
        out.append((at("13:17:46") + i * 3100 * MS, res, "INFO",
                    json.dumps({"level": 30, "msg": "unleash: feature toggles updated", "changed": ["mm.crossplay-pools"], "etag": "W/\"1883\""}, separators=(",", ":"))))
    u = other("unleash", {"k8s.cluster.name": "bm-ams2", "k8s.namespace.name": "platform"})
    out.append((at("13:17:44.610"), u, "INFO", "feature mm.crossplay-pools: strategy flexibleRollout 100% enabled in environment live by lea.moreau@rampart.gg"))
    return out


def T_provider(w, t, svc, ver, op, ctx):
    if svc != "chat-mod":
        return None
    c = {"prompt": "mod-policy-v16" if ver == "64c8b1d" else "mod-policy-v15"}
    f = {"ctx": c, "root_attr_fn": mod_quality}
    if t >= at("10:18:40"):
        d = ramp(t, at("10:18:40"), at("10:19:40"))
        if w.rng.random() < 0.31 * d:
            c["p_unreviewed"] = 1.0
            m = "Service tier capacity exceeded for this model."
            f["child"] = {1: {"err": 1.0, "status": 503, "msg": m, "exc": "chat_mod::provider::Error", "fatal": False, "slow": 1 + 6 * d}}
            f["log"] = None
            f["warn"] = m
        else:
            f["child"] = {1: {"slow": 1 + 6 * d}}
    return f


def T_provider_logs(w):
    s = other("statuspage-poller", {"k8s.cluster.name": "bm-ams2", "k8s.namespace.name": "platform"})
    return [(at("10:21:12.000"), s, "WARN", "status.mistral.ai: Degraded Performance - La Plateforme API: elevated latency and 503 errors on mistral-small-latest and mistral-small-2409 (Investigating, since 10:18 UTC)")]


def T_callee(w, t, svc, ver, op, ctx):
    if svc == "matchmaker" and ver == "8d0a4c7" and op == "enqueue" and getattr(w, "party", False) and w.rng.random() < 0.9:
        m = "failed to encode ticket: party attributes exceed 255 bytes after msgpack v2 migration"
        return {"child": {0: {"skip": True}, 1: {"skip": True}}, "err": 1.0, "code": 13, "msg": m, "exc": "matchmaker::ticket::EncodeError",
                "log": lambda rng, c: rust_log("matchmaker::queue::enqueue", "ticket encode failed", error=m)}
    if svc == "gateway" and op == "join":
        w.party = ctx["party"]
        return {"ws_code": "internal"}


def T_stale(w, t, svc, ver, op, ctx):
    if svc == "leaderboard" and op == "score" and t >= at("08:39:10"):
        p = 0.6 if t < at("08:41:00") else 0.15 if t < at("08:43:00") else 0.0
        m = "timed out: didn't receive ack in time" if t < at("08:40:05") else "no responders available for request"
        return {"child": {1: {"err": p, "msg": m, "exc": "async_nats::jetstream::context::PublishError", "timeout_ms": 2000 if "timed" in m else None}},
                "http_status": 503, "log": lambda rng, c: rust_log("leaderboard::scores", "jetstream publish failed", error=m, subject="scores.updated")}


def T_stale_spans(w):
    res = {"service.name": "leaderboard", "service.version": "2a9c6e1", "service.namespace": "game", "deployment.environment.name": "live",
           "k8s.cluster.name": "bm-ams2", "k8s.namespace.name": "game", "k8s.pod.name": "leaderboard-%s-tqnzw" % pod_hash("leaderboard", "2a9c6e1"),
           "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.language": "rust"}
    rng = random.Random("stale/" + w.id)
    return [{"timestamp": ts(at("08:36:20.904")), "trace_id": hexid(rng, 32), "span_id": hexid(rng, 16), "parent_span_id": "",
             "name": "deployment.marker", "kind": 1, "duration_nano": 1 * MS, "has_error": False, "status_code": 0, "status_message": "",
             "resource": res, "attributes": {"deployment.version": "2a9c6e1", "deployment.id": "boot-leaderboard-tqnzw",
                                              "deployment.environment.name": "live", "otel.kind": "internal",
                                              "code.namespace": "leaderboard::startup"}}]


def T_stale_logs(w):
    d = other("node-drainer", {"k8s.cluster.name": "bm-ams2"})
    n = other("nats", {"k8s.cluster.name": "bm-ams2", "k8s.namespace.name": "messaging", "k8s.pod.name": "nats-2"})
    return [(at("08:35:58.000"), d, "INFO", "node ams2-r08-s03 cordoned and draining for BMC firmware update (ticket OPS-7712)"),
            (at("08:39:09.511"), n, "WARN", "[WRN] JetStream cluster stream 'game > SCORES' has NO quorum, stalled"),
            (at("08:40:04.882"), n, "INFO", "[INF] JetStream cluster new stream leader for 'game > SCORES'"),
            (at("08:41:02.140"), n, "INFO", "[INF] JetStream cluster stream 'game > SCORES' catching up peer nats-0")]


def T_reconnect(w, t, svc, ver, op, ctx):
    if svc == "gateway" and t >= at("21:45:50"):
        load = ramp(t, at("21:45:50"), at("21:46:20")) * (1.0 if t < at("21:49:00") else 0.5)
        f = {"child": {"redis": {"slow": 1 + 5 * load}}, "queue_ms": 60 * load}
        if op == "connect" and w.rng.random() < 0.09 * load:
            f.update({"child": {0: {"skip": True}}, "err": 1.0, "http_status": 503, "msg": "too many pending upgrades", "exc": "Error"})
        return f


def reconnect_rate(base, mult):
    def fn(w, m0):
        if at("21:45:00") <= m0 < at("21:46:00"):
            return base * 0.35
        if m0 >= at("21:46:00"):
            return base * (1 + (mult - 1) * (1.0 if m0 < at("21:49:00") else 0.4))
        return base
    return fn


def T_reconnect_logs(w):
    m = other("metallb-speaker", {"k8s.cluster.name": "bm-fra1", "k8s.namespace.name": "metallb-system"})
    return [(at("21:45:09.330"), m, "WARN", "BGP session with peer 10.40.0.1 (tor-fra1-r07) down: hold timer expired; withdrawing 203.0.113.40/32"),
            (at("21:45:49.812"), m, "INFO", "BGP session with peer 10.40.0.1 (tor-fra1-r07) established; advertising 203.0.113.40/32")]


GW = lambda j, p, l: [("gateway", "join", j), ("gateway", "poll", p), ("gateway", "leave", l)]
MM0 = ("e5b21f0", "2026-12-03T13:40:02.551")
GW0 = ("2f6a1c8", "2026-12-04T10:00:03.870")

SPECS = [
    # ---- right rollbacks
    dict(id="gs-matchmaker-cancel-panic", service="matchmaker", cluster="bm-fra1", start="13:00:00", now="14:11:00",
         title="matchmaker a41c9e2 unwraps a ticket that is already matched: CancelTicket panics (INTERNAL) on 62% of calls; Enqueue and TicketStatus are fine",
         releases={"matchmaker": [MM0, ("a41c9e2", "14:02:13.402")], "gateway": [GW0]},
         traffic=GW(200, 240, 90), fx=A_cancel_panic, alert_at="14:07:00", burn=8.8, alert_name="MatchmakerGrpcErrors",
         expect=("bad_release", "allow"), onset="14:02",
         story="Argo Rollouts promotes matchmaker a41c9e2 (blue-green: preview at 13:58, analysis passed, active Service switched at 14:02:13). Its new cancel path unwraps the ticket's pool entry, which is gone once the ticket matched: tonic catches the panic and answers INTERNAL to 62% of matchmaker.v1.Matchmaker/CancelTicket calls (17% of the calls; the gateway's match.leave messages fail with it). Enqueue and TicketStatus serve as before. bm-fra1: the collector keeps 10% of traces (proportional, W3C randomness), so about 5 failing cancels a minute are kept."),
    dict(id="gs-chatmod-prompt-overblock", scale=0.6, service="chat-mod", cluster="bm-ams2", start="19:25:00", now="20:39:00",
         title="chat-mod b7e1f04 ships moderation prompt mod-policy-v15: 27% of chat lines blocked (3% before), 16% of answers not the JSON asked, still HTTP 200",
         releases={"chat-mod": [("0c7d4e9", "2026-12-02T16:20:31.004"), ("b7e1f04", "20:31:40.218")]},
         traffic=[("chat-mod", "moderate", 120)], fx=A_chatmod_prompt, alert_at="20:36:00", burn=5.4, alert_name="ChatModBlockRate",
         expect=("prompt_regression", "allow"), onset="20:31",
         story="chat-mod b7e1f04 moves the moderation system prompt from mod-policy-v14 to mod-policy-v15 (a rewrite that lists 'mentions of cheating tools, boosting or account sharing' as harassment and adds few-shot examples in markdown fences). Promoted at 20:31:40. chat_mod.decision 'block' goes 3% -> 27% of lines, chat_mod.output.valid_json 99% -> 84%, input tokens 910 -> 1460. Mistral answers every call 200; chat-mod answers every request 200. The alert is the team's block-rate SLO."),
    dict(id="gs-rewards-steam-retry-in-span", scale=0.5, service="rewards", cluster="bm-ams2", start="16:40:00", now="17:52:00",
         title="rewards 5d2e8a1 sets reqwest-retry to 6 retries with no backoff and a 250 ms attempt timeout: claims resend to Steam inside one span, p95 0.4 s -> 1.0 s",
         releases={"rewards": [("91f3b6a", "2026-12-01T09:12:40.019"), ("5d2e8a1", "17:44:05.660")]},
         traffic=[("rewards", "claim", 70), ("rewards", "pending", 110)], fx=A_rewards_retry, alert_at="17:48:00", burn=6.1,
         alert_name="RewardsClaimLatency", expect=("retry_storm", "allow"), onset="17:44",
         story="rewards 5d2e8a1 replaces the Steam Inventory client's policy (2 s per attempt, 2 retries on 5xx with exponential backoff) with RetryTransientMiddleware(max_retries=6, no backoff) over a 250 ms per-attempt timeout. Steam's AddItem answers in ~180 ms at the median with a long tail, and ~1.3x slower once called this hard: the retries happen inside the one reqwest-tracing span (http.request.resend_count, 0 -> 0.8 a claim on average) and the middleware logs 'Retry attempt #n' for each; POST /v1/rewards/claim's p95 goes 0.4 s -> 1.0 s. Steam never answers an error."),
    dict(id="gs-lobby-party-create-after-vacuum", scale=0.35, service="lobby", cluster="bm-ams2", start="15:00:00", now="15:59:30",
         title="lobby c3f08d7 fails 46% of POST /api/parties (FunctionClauseError on crossplay: nil) half an hour after an autovacuum slowed every query for seven minutes",
         releases={"lobby": [("4a8e0d2", "2026-12-02T10:04:51.330"), ("c3f08d7", "15:51:22.904")], "inventory": [("1e7b3c0", "2026-11-28T12:00:41.200")]},
         traffic=[("lobby", "party_get", 160), ("lobby", "party_create", 60), ("lobby", "friends", 90)],
         fx=A_lobby_slow_then_release, extra_logs=A_lobby_logs, alert_at="15:56:00", burn=9.7, alert_name="LobbyAvailability",
         expect=("bad_release", "allow"), onset="15:51",
         story="From 15:14 to 15:21 an autovacuum of lobby.public.parties slows every Ecto query ~80x (p95 ~8 ms -> ~300 ms) (the baseline holds a slow block, no errors). At 15:51:22 Argo promotes lobby c3f08d7, whose Party.changeset/2 has no clause for crossplay: nil (clients older than 7.4 send none): 46% of POST /api/parties raise FunctionClauseError and 500; GET /api/parties/:id and /api/friends serve as before. Phoenix spans named by route, opentelemetry_ecto query spans, exceptions as span events only."),
    dict(id="gs-gateway-join-typeerror", service="gateway", cluster="bm-fra1", start="10:15:00", now="11:28:00",
         title="gateway 9e4b2c0 reads join.region on match.join messages from clients older than 7.4: TypeError on 31% of joins",
         releases={"gateway": [GW0, ("9e4b2c0", "11:20:47.115")], "matchmaker": [MM0]},
         traffic=GW(200, 240, 90), fx=A_gateway_typeerror, alert_at="11:25:00", burn=12.3, alert_name="GatewayWsErrors",
         expect=("bad_release", "allow"), onset="11:20",
         story="gateway 9e4b2c0 (Node 22, a refactor of the WebSocket message router) is promoted at 11:20:47. Its match.join handler reads msg.join.region, which clients before 7.4 (31% of joins, game.client.build 7.3.x) do not send: TypeError, the message is answered with an internal error and the span fails before any call to the matchmaker. match.status and match.leave are fine. bm-fra1: 10% of traces kept."),
    # ---- traps
    dict(id="gs-trap-preview-marker-pg-switchover-lobby", scale=0.35, service="lobby", cluster="bm-ams2", start="10:40:00", now="11:52:00",
         title="lobby d81a5f3 waits in blue-green preview (its marker written on pause) four minutes before CloudNativePG switches pg-lobby over; the active version is still f4c19d7",
         releases={"lobby": [("6b0e3a5", "2026-12-04T09:30:11.402"), ("f4c19d7", "2026-12-06T16:05:40.911")], "inventory": [("1e7b3c0", "2026-11-28T12:00:41.200")]},
         traffic=[("lobby", "party_get", 160), ("lobby", "party_create", 60), ("lobby", "friends", 90)],
         fx=T_preview_pg, extra_logs=T_preview_logs, extra_spans=T_preview_spans, alert_at="11:48:00", burn=14.2, alert_name="LobbyAvailability",
         expect=("dependency_outage", "deny"), onset="11:44",
         story="At 11:40:12 Argo Rollouts brings lobby d81a5f3 up as the preview ReplicaSet and pauses for manual promotion (autoPromotionEnabled: false). The deploy-notifier is subscribed to on-rollout-paused as well as on-rollout-completed, so it writes a deployment.marker for d81a5f3 (previous f4c19d7, argo_rollouts.phase Paused); the analysis run's k6 smoke test sends 14 requests through lobby-preview (spans with service.version d81a5f3). Nobody promotes it: the release ledger's lobby is f4c19d7, active since Dec 6. At 11:44:27 CloudNativePG switches pg-lobby over to pg-lobby-2 for a node's kernel update: connections terminated (57P01), then INSERTs into a read-only transaction (25006) and refused connects until the -rw Service points at the new primary at 11:46:11, then a tail of closed idle connections."),
    dict(id="gs-trap-redis-failover-after-promotion-matchmaker", service="matchmaker", cluster="bm-fra1", start="08:25:00", now="09:37:00",
         title="the mm-streams Redis master's NVMe fails 26 s after matchmaker f02b7d9 is promoted: Sentinel fails over, XADD answers READONLY then connection refused",
         releases={"matchmaker": [MM0, ("f02b7d9", "09:30:05.712")], "gateway": [GW0]},
         traffic=GW(200, 240, 90), fx=T_redis_failover, extra_logs=T_redis_logs, alert_at="09:34:00", burn=10.9, alert_name="MatchmakerGrpcErrors",
         expect=("dependency_outage", "deny"), onset="09:30",
         story="matchmaker f02b7d9 (a metrics change) becomes active at 09:30:05. At 09:30:29 the NVMe of bare-metal node fra1-r07-s02, which holds the mm-streams Redis master, times out; Sentinel marks it down and promotes the replica at 09:30:55. Until then XADD (Enqueue) and XDEL (CancelTicket) answer READONLY; until 09:32:12 45% of Redis commands are refused while clients reconnect, then a tail of broken pipes. Matchmaker answers UNAVAILABLE. The release served 26 s cleanly, inside the same minute."),
    dict(id="gs-trap-season-start-surge-leaderboard", scale=0.25, service="leaderboard", cluster="bm-ams2", start="16:55:00", now="18:08:00",
         title="season s7 goes live at 18:00: leaderboard traffic x4, Redis slower, 4% shed as overloaded; leaderboard 2a9c6e1 was promoted ten minutes before",
         releases={"leaderboard": [("7c2d9f1", "2026-12-01T11:00:12.700"), ("2a9c6e1", "17:49:40.337")]},
         traffic=[("leaderboard", "top", surge(60, 4.5)), ("leaderboard", "around", surge(150, 4.0)), ("leaderboard", "score", surge(200, 3.5))],
         fx=T_season, extra_logs=T_season_logs, alert_at="18:05:00", burn=7.7, alert_name="LeaderboardLatency",
         expect=("traffic_surge", "deny"), onset="18:00",
         story="leaderboard 2a9c6e1 (a serde upgrade) is active from 17:49:40 and serves cleanly. Season s7 starts at 18:00:00 (the season scheduler's log; a push to 4.1M devices): requests on every endpoint rise 3.5-4.5x within two minutes, redis-ranks answers ~6x slower, requests queue, and tower's load shedder answers 503 'service overloaded' to up to 4%."),
    dict(id="gs-trap-unleash-flag-gateway", scale=0.3, service="gateway", cluster="bm-ams2", start="12:15:00", now="13:25:00",
         title="ops enables Unleash flag mm.crossplay-pools at 13:17:44: joins ask a matchmaking pool that does not exist (INVALID_ARGUMENT); gateway 71d3a0e was promoted seven minutes before",
         releases={"gateway": [GW0, ("71d3a0e", "13:10:20.480")], "matchmaker": [MM0]},
         traffic=GW(150, 180, 60), fx=T_flag, extra_logs=T_flag_logs, alert_at="13:22:00", burn=9.2, alert_name="GatewayWsErrors",
         expect=("config_regression", "deny"), onset="13:17",
         story="gateway 71d3a0e (logging changes; the crossplay path has been dark behind mm.crossplay-pools for three weeks) is promoted at 13:10:20 and serves cleanly. At 13:17:44 an operator enables the Unleash flag for 100% of live (Unleash's log); each gateway pod's SDK fetches it within 20 s and logs 'unleash: feature toggles updated'. The flag's evaluation is recorded the newest way, as a feature_flag.evaluation span event (feature_flag.key, feature_flag.result.variant off -> on), not as span attributes. Joins from PC and console clients now ask the pool xplay-eu-ranked, which the matchmaker's pool config does not have: INVALID_ARGUMENT, the join fails. A rollback brings back 2f6a1c8 with the same flag and the same dark path."),
    dict(id="gs-trap-provider-overload-under-prompt-chatmod", scale=0.6, service="chat-mod", cluster="bm-ams2", start="09:15:00", now="10:26:00",
         title="Mistral's API degrades six minutes after chat-mod 64c8b1d (prompt mod-policy-v16): calls 7x slower, 31% answered 503, chat-mod fails open (allow_unreviewed)",
         releases={"chat-mod": [("0c7d4e9", "2026-12-05T12:00:09.900"), ("64c8b1d", "10:12:30.804")]},
         traffic=[("chat-mod", "moderate", 120)], fx=T_provider, extra_logs=T_provider_logs, alert_at="10:23:00", burn=6.6, alert_name="ChatModUnreviewedRate",
         expect=("dependency_outage", "deny"), onset="10:18",
         story="chat-mod 64c8b1d ships moderation prompt mod-policy-v16 (a wording fix; chat_mod.policy.prompt_id shifts from mod-policy-v15) and serves six minutes at the usual quality: block rate 3%, valid JSON 99%. From 10:18:40 Mistral's La Plateforme degrades (its status page, polled at 10:21): chat calls ~7x slower and 31% answered 503 'Service tier capacity exceeded for this model.'. chat-mod fails open: those lines are published unreviewed (chat_mod.decision allow_unreviewed, 0 -> 31%), every answer still HTTP 200."),
    dict(id="gs-trap-matchmaker-release-breaks-gateway", scale=0.25, service="gateway", cluster="bm-ams2", start="18:05:00", now="19:18:00",
         title="matchmaker 8d0a4c7 (19:10:48) cannot encode party tickets: Enqueue INTERNAL for 34% of joins; gateway, itself promoted at 19:02:10, answers the joins with errors",
         releases={"gateway": [GW0, ("3b5f9e2", "19:02:10.550")], "matchmaker": [MM0, ("8d0a4c7", "19:10:48.309")]},
         traffic=GW(200, 240, 90), fx=T_callee, alert_at="19:15:00", burn=11.4, alert_name="GatewayWsErrors",
         expect=("bad_release", "deny"), culprit=("matchmaker", "allow"), onset="19:10",
         story="gateway 3b5f9e2 (copy and localisation changes) is promoted at 19:02:10 and serves eight minutes cleanly. matchmaker 8d0a4c7 (tickets encoded as msgpack v2) is promoted at 19:10:48: party tickets' attributes exceed 255 bytes and fail to encode, so Enqueue answers INTERNAL to 90% of party joins (34% of joins). Every failing gateway match.join trace holds the failing matchmaker::grpc::enqueue span. Rolling gateway back changes nothing; matchmaker is what must go back."),
    dict(id="gs-trap-stale-boot-marker-nats-leaderboard", scale=0.3, service="leaderboard", cluster="bm-ams2", start="07:40:00", now="08:46:00",
         title="a node drain restarts leaderboard pods, whose boot hook re-announces 2a9c6e1 (live since 07:58) at 08:36; NATS JetStream's SCORES stream loses quorum at 08:39",
         releases={"leaderboard": [("7c2d9f1", "2026-12-01T11:00:12.700"), ("2a9c6e1", "07:58:02.118")]},
         traffic=[("leaderboard", "top", 60), ("leaderboard", "around", 150), ("leaderboard", "score", 200)],
         fx=T_stale, extra_logs=T_stale_logs, extra_spans=T_stale_spans, alert_at="08:43:00", burn=8.1, alert_name="LeaderboardAvailability",
         expect=("dependency_outage", "deny"), onset="08:39",
         story="leaderboard 2a9c6e1 is promoted at 07:58:02 (its marker then; the ledger agrees) and serves cleanly for 41 minutes. At 08:35:58 node ams2-r08-s03 is drained for a BMC firmware update; a rescheduled leaderboard pod's startup hook writes its own deployment.marker for 2a9c6e1 at 08:36:20 (deployment.id boot-…, no previous version). At 08:39:09 the JetStream stream SCORES, one of whose three replicas was on the drained node, loses quorum: POST /v1/scores publishes time out then find no responders (60% of score submissions 503 until 08:41, 15% until 08:43). The real marker is 41 minutes before the onset; the boot marker is 38 minutes from the ledger's start of its version."),
    dict(id="gs-trap-bgp-reconnect-storm-gateway", service="gateway", cluster="bm-fra1", start="20:40:00", now="21:53:00",
         title="a MetalLB BGP session drops the gateway's VIP for 40 s: every WebSocket reconnects at once (x6 upgrades), sessions Redis slows, 9% of upgrades 503; gateway c81e4d6 promoted 12 minutes before",
         releases={"gateway": [GW0, ("c81e4d6", "21:33:05.027")], "matchmaker": [MM0]},
         traffic=[("gateway", "connect", reconnect_rate(60, 6.0)), ("gateway", "join", reconnect_rate(200, 2.2)),
                  ("gateway", "poll", reconnect_rate(240, 2.0)), ("gateway", "leave", reconnect_rate(90, 1.0))],
         fx=T_reconnect, extra_logs=T_reconnect_logs, alert_at="21:50:00", burn=7.3, alert_name="GatewayWsErrors",
         expect=("traffic_surge", "deny"), onset="21:45",
         story="gateway c81e4d6 (a dependency bump) is promoted at 21:33:05 and serves cleanly. At 21:45:09 the BGP session between MetalLB's speaker and rack r07's top-of-rack switch hits its hold timer and the gateway's VIP 203.0.113.40 is withdrawn for 40 s: WebSockets drop, nothing reaches the gateway, and when the route returns every client reconnects and requeues at once: upgrades x6, joins x2.2, polls x2 for three minutes, redis-sessions ~6x slower, and 9% of upgrades answered 503 'too many pending upgrades'. bm-fra1: 10% of traces kept."),
]


# ---------------------------------------------------------------- files

def write_jsonl(folder, name, rows):
    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)
    data = text.encode()
    if len(data) > 3 * 1024 * 1024:
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as g:
            g.write(data)
        name, data = name + ".gz", buf.getvalue()
    for stale in (name, name + ".gz", name[:-3] if name.endswith(".gz") else None):
        if stale and os.path.exists(os.path.join(folder, stale)):
            os.remove(os.path.join(folder, stale))
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def write_text(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def alert(spec):
    name = spec["alert_name"]
    rule = "0193%s" % hashlib.sha1(spec["id"].encode()).hexdigest()[:8]
    labels = {"alertname": name, "service.name": spec["service"], "severity": "page", "ruleId": rule,
              "k8s.cluster.name": spec["cluster"], "deployment.environment.name": "live", "team": "game-backend",
              "burn_rate": "%.1f" % spec["burn"]}
    ann = {"summary": "%s burning its 30-day error budget at %.1fx (1h window)" % (spec["service"], spec["burn"]),
           "runbook": "https://runbooks.rampart.gg/%s" % spec["service"]}
    fp = hexid(random.Random("fp/" + spec["id"]), 16)
    return {"receiver": "game-backend-pagerduty", "status": "firing",
            "alerts": [{"status": "firing", "labels": labels, "annotations": ann, "startsAt": ts(at(spec["alert_at"])),
                        "endsAt": "0001-01-01T00:00:00Z",
                        "generatorURL": "https://signoz.ops.rampart.gg/alerts/edit?ruleId=%s" % rule, "fingerprint": fp}],
            "groupLabels": {"alertname": name}, "commonLabels": labels, "commonAnnotations": ann,
            "externalURL": "https://signoz.ops.rampart.gg", "version": "4",
            "groupKey": '{}:{alertname="%s"}' % name, "truncatedAlerts": 0}


def write_incident(root, spec, tag):
    w = World(spec)
    w.run()
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    cls, verdict = spec["expect"]
    trap = verdict == "deny"
    tags = [tag, "rampart", "bare-metal", "argo-blue-green", spec["cluster"],
            "sampled-10pct" if w.ratio < 1 else "unsampled"] + (["trap"] if trap else ["deployment"])
    y = ["id: %s" % spec["id"], "title: %s" % json.dumps(spec["title"], ensure_ascii=False),
         "service: %s" % spec["service"], "now: %s" % ts(w.now), "expect:", "  root_cause: %s" % cls,
         "  verdict: %s" % verdict]
    if spec.get("culprit"):
        y += ["  culprit:", "    service: %s" % spec["culprit"][0], "    verdict: %s" % spec["culprit"][1]]
    y.append("tags: [%s]" % ", ".join(tags))
    write_text(folder, "incident.yaml", "\n".join(y) + "\n")
    write_text(folder, "alert.json", json.dumps(alert(spec), indent=2, ensure_ascii=False) + "\n")
    rel = ["project: rampart-game", "services:"]
    for svc, rows in spec["releases"].items():
        rel.append("  %s:" % svc)
        for row in rows:
            ver, b = row[0], row[1]
            when_ = at(b) if b else w.start - 6 * 86400 * S
            rel += ["    - version: \"%s\"" % ver,
                    "      image: harbor.rampart.gg/game/%s:sha-%s" % (svc, ver),
                    "      deployed_at: %s" % ts(when_)]
    write_text(folder, "releases.yaml", "\n".join(rel) + "\n")
    write_jsonl(folder, "spans.jsonl", w.spans)
    write_jsonl(folder, "logs.jsonl", w.logs)
    ex = {"root_cause": cls, "verdict": verdict,
          "sampling": ("the collector's probabilistic_sampler, proportional mode, 10%% on W3C randomness (the trace id's low 56 bits) in %s; logs with a trace id sampled by the same rule" % w.cluster)
          if w.ratio < 1 else "no sampling in %s: every trace and log kept" % w.cluster,
          "history_minutes": (w.now - w.start) // MIN, "onset": spec["onset"], "story": spec["story"]}
    if spec.get("culprit"):
        ex["culprit"] = {"service": spec["culprit"][0], "verdict": spec["culprit"][1]}
    write_text(folder, "expect.json", json.dumps(ex, indent=2, ensure_ascii=False) + "\n")
    return len(w.spans), len(w.logs)


def main():
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for spec in SPECS:
        if only and spec["id"] not in only:
            continue
        n, m = write_incident(HERE, spec, "heldout15")
        print("%s: %d spans, %d logs" % (spec["id"], n, m))


if __name__ == "__main__":
    main()
