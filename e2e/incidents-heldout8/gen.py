#!/usr/bin/env python3
"""Generates e2e/incidents-heldout8: a payments and food-ordering platform ("Quill") on GCP.

Run from this folder: `python3 gen.py`. Seeded (SEED below): every file comes out byte
for byte the same on every run, whatever PYTHONHASHSEED. Files over 3 MB are written
gzip'd with no name and mtime 0. `python3 gen.py --twin DIR NAME...` writes the
adversarial twins (README.md, "Twins") into DIR.

Style (README.md): Ruby on Rails 7 + Sidekiq through opentelemetry-ruby's
instrumentation-all (old HTTP semconv: http.method, http.target, http.route,
http.status_code; controller spans renamed `Controller#action` with code.namespace and
code.function; Faraday `HTTP POST` client spans, one per attempt under faraday-retry;
pg `SELECT quill_production`; redis-rb `GET`; Sidekiq `<queue> publish`/`<queue>
process`); Rust services through tracing-opentelemetry (axum server spans with the
current HTTP semconv and tracing's own fields: code.filepath, code.namespace,
code.lineno, thread.id, thread.name, busy_ns, idle_ns, target, level; tonic gRPC
client/server spans with rpc.grpc.status_code and server.address; sqlx queries; an
rdkafka consumer writing CONSUMER spans); Go services using Google Cloud's own client
libraries with their OpenTelemetry tracing (Cloud Spanner `cloud.google.com/go/spanner.*`
spans with gcp.client.* and no host; Pub/Sub `<topic> create`/`publish` spans,
messaging.system gcp_pubsub). GKE with Argo Rollouts: canaries that hold a weight
(two versions serve at once for minutes), blue-green; markers written by the rollout's
notification hook. Timestamps with nine fractional digits. Lograge key=value log
bodies for Rails, tracing's JSON-less message plus fields for Rust.
"""
import gzip
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timezone

SEED = 240681
HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1_000_000
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024
PROJECT = "quill-prod-eu"
REGION = "europe-west4"
REGISTRY = "europe-west4-docker.pkg.dev/quill-prod-eu/apps"


def ts(ns):
    """RFC 3339, UTC, nanoseconds, Z (tracing-opentelemetry / the collector's own)."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % frac


def at(s):
    """'2026-12-08T10:07:12.480' (UTC) to ns."""
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(d.timestamp()) * S + int((frac + "000000000")[:9])


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


# ---------------------------------------------------------------- services

RUBY_RT = {"telemetry.sdk.language": "ruby", "telemetry.sdk.name": "opentelemetry",
           "telemetry.sdk.version": "1.5.0", "process.runtime.name": "ruby", "process.runtime.version": "3.3.6",
           "process.runtime.description": "ruby 3.3.6 (2024-11-05 revision 75015d4c1f) +YJIT [x86_64-linux]"}
RUST_RT = {"telemetry.sdk.language": "rust", "telemetry.sdk.name": "opentelemetry",
           "telemetry.sdk.version": "0.27.1"}
GO_RT = {"telemetry.sdk.language": "go", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.32.0",
         "process.runtime.name": "go", "process.runtime.version": "go1.23.4",
         "process.runtime.description": "go version go1.23.4 linux/amd64"}

# service -> runtime
SERVICES = {
    "payouts-web": "ruby", "support-assist": "ruby", "session-web": "ruby", "offers-web": "ruby",
    "checkout-web": "ruby",
    "ledger-rs": "rust", "inventory-rs": "rust", "orders-rs": "rust", "wallet-rs": "rust",
    "ledger-projector": "rust", "bank-gw": "rust", "search-rs": "rust",
    "fulfil-svc": "go", "accounts-go": "go", "receipts-go": "go",
}


class World:
    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, spec["id"]))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.one_in = spec["one_in"]
        self.spans, self.logs = [], []
        # svc -> [(version, begin ns or None, rollout seconds, final weight)]
        self.serving = {svc: [(v, at(b) if b else None, secs, wt) for v, b, secs, wt in lst]
                        for svc, lst in spec["serving"].items()}
        self.pods = {}

    def version(self, svc, t, rng=None):
        rng = rng or self.rng
        cur = None
        for v, begin, secs, weight in self.serving.get(svc, []):
            if begin is None or cur is None:
                cur = v
                continue
            if t < begin:
                break
            share = weight * min(1.0, (t - begin) / (secs * S)) if secs else weight
            if rng.random() < share:
                cur = v
        return cur or "unknown"

    def pod(self, svc, ver, t):
        h = random.Random("%s/%s/%s" % (self.id, svc, ver))
        rs = "".join(h.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(9))
        n = 1 + (t // (7 * S)) % 3
        return "%s-%s-%s" % (svc, rs, "".join(h.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(4)) + str(n))

    def resource(self, svc, ver, t=0):
        rt = SERVICES[svc]
        r = {"service.name": svc, "service.version": ver, "service.namespace": "quill",
             "deployment.environment.name": "production"}
        r.update({"ruby": RUBY_RT, "rust": RUST_RT, "go": GO_RT}[rt])
        pod = self.pod(svc, ver, t)
        r.update({"cloud.provider": "gcp", "cloud.platform": "gcp_kubernetes_engine",
                  "cloud.region": REGION, "cloud.account.id": PROJECT,
                  "k8s.cluster.name": "quill-prod-ew4", "k8s.namespace.name": "payments" if rt != "ruby" else "web",
                  "k8s.pod.name": pod, "host.name": pod,
                  "k8s.replicaset.name": pod.rsplit("-", 1)[0]})
        return r


class Trace:
    def __init__(self, w, t):
        self.w = w
        self.id = hexid(w.rng, 32)
        self.kept = int(self.id[16:], 16) < (1 << 64) // w.one_in
        self.spans = []
        self.logs = []

    def sid(self):
        return hexid(self.w.rng, 16)

    def span(self, svc, ver, name, kind, start, dur, parent, attrs, err=None, events=None, sid=None):
        sid = sid or self.sid()
        s = {"timestamp": ts(start), "trace_id": self.id, "span_id": sid, "parent_span_id": parent or "",
             "name": name, "kind": kind, "duration_nano": int(dur), "has_error": err is not None,
             "status_code": 2 if err is not None else 0, "status_message": err or "",
             "resource": self.w.resource(svc, ver, start), "attributes": attrs}
        if events:
            s["events"] = events
        self.spans.append((start, s))
        return sid

    def log(self, svc, ver, t, sev, body, sid="", attrs=None, keep_always=False):
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17, "FATAL": 21}[sev]
        self.logs.append((t, keep_always, {"timestamp": ts(t), "observed_timestamp": ts(t + 2 * MS + (t % 997) * 1000),
                                           "severity_text": sev, "severity_number": num, "body": body,
                                           "trace_id": self.id, "span_id": sid,
                                           "resource": self.w.resource(svc, ver, t), "attributes": attrs or {}}))


def exc_event(t, typ, msg, frames, rt):
    if rt == "ruby":
        st = "".join("%s\n" % f for f in frames)
    elif rt == "rust":
        st = "".join("  %d: %s\n" % (i, f) for i, f in enumerate(frames))
    else:
        st = "goroutine 1 [running]:\n" + "".join("%s\n" % f for f in frames)
    return [{"name": "exception", "timestamp": ts(t),
             "attributes": {"exception.type": typ, "exception.message": msg, "exception.stacktrace": st}}]


def rust_fields(rng, path, ns, line, target, busy):
    return {"code.filepath": path, "code.namespace": ns, "code.lineno": line,
            "thread.id": rng.randint(2, 17), "thread.name": "tokio-runtime-worker",
            "busy_ns": int(busy), "idle_ns": int(busy * rng.uniform(0.05, 0.6)), "target": target,
            "level": "INFO"}


# ---------------------------------------------------------------- calls
# A call is a dict: kind (pg|redis|faraday|tonic|sqlx|spanner|pubsub|llm|gcs|sidekiq|internal), ms
# (median), plus kind-specific fields. The incident's fault hook may return for a call:
#   err (message), fatal (the request fails), status (HTTP/gRPC), attempts (Faraday retry
#   spans / in-span retries), mult (duration factor), attrs (merged), exc (type, msg).


def emit_call(tr, svc, ver, rt, call, t, parent, fault):
    w, rng = tr.w, tr.w.rng
    f = fault(w, t, svc, ver, call) or {}
    dur = lognormal(rng, call["ms"] * MS, call.get("sigma", 0.3)) * f.get("mult", 1.0) + f.get("add", 0)
    attempts = f.get("attempts", 1)
    kind = call["kind"]
    err = f.get("err")
    status = f.get("status")
    attrs = {}
    name = ""
    spank = 3
    if kind == "pg":
        name = "%s %s" % (call["op"], "quill_production")
        attrs = {"db.system": "postgresql", "db.name": "quill_production", "db.user": "quill_app",
                 "db.operation": call["op"], "db.statement": call["sql"],
                 "net.peer.name": call["host"], "net.peer.port": 5432, "net.transport": "ip_tcp"}
    elif kind == "redis":
        name = call["cmd"]
        attrs = {"db.system": "redis", "db.statement": call["cmd"] + " ?", "db.redis.database_index": 0,
                 "net.peer.name": call["host"], "net.peer.port": 6378, "net.transport": "ip_tcp"}
    elif kind == "sqlx":
        name = call["name"]
        attrs = {"db.system": "postgresql", "db.name": call.get("db", "quill"), "db.statement": call["sql"],
                 "db.operation": call["name"].split()[0], "server.address": call["host"], "server.port": 5432,
                 "otel.kind": "client", "rows_returned": rng.randint(0, 12)}
        attrs.update(rust_fields(rng, "src/repo.rs", svc.replace("-", "_") + "::repo", 88, "sqlx::query", dur * 0.2))
    elif kind == "tonic":
        name = "%s/%s" % (call["service"], call["method"])
        attrs = {"rpc.system": "grpc", "rpc.service": call["service"], "rpc.method": call["method"],
                 "server.address": call["host"], "server.port": 50051, "otel.kind": "client",
                 "rpc.grpc.status_code": status if status is not None else 0}
        if rt == "ruby":
            attrs = {"rpc.system": "grpc", "rpc.service": call["service"], "rpc.method": call["method"],
                     "net.peer.name": call["host"], "net.peer.port": 50051,
                     "rpc.grpc.status_code": status if status is not None else 0}
        if call.get("callee") and status is None:
            cv = tr.w.version(call["callee"], t)
            sid = tr.sid()
            d2, st2, err2 = emit_server(tr, call["callee"], cv, call["callee_op"], t + 1 * MS, sid, fault)
            dur = d2 + 2 * MS
            code = call["callee_op"].get("grpc_codes", {}).get(st2, 0)
            attrs["rpc.grpc.status_code"] = code
            if code:
                f = dict(f, err=err2 or "", fatal=True, http=call.get("fail_http", 502),
                         exc=("GRPC::Internal", "13:%s" % (err2 or "")) if rt == "ruby" else None)
                err = f["err"] if rt != "ruby" else "13:%s" % err2
            tr.span(svc, ver, name, 3, t, dur, parent, attrs, err=err, sid=sid)
            return int(dur), f
    elif kind == "spanner":
        name = "cloud.google.com/go/spanner.%s" % call["op"]
        attrs = {"gcp.client.service": "spanner", "gcp.client.version": "1.73.0",
                 "gcp.client.repo": "googleapis/google-cloud-go", "gcp.client.artifact": "cloud.google.com/go/spanner",
                 "db.statement": call.get("sql", "")}
        if not call.get("sql"):
            attrs.pop("db.statement")
        spank = 1
    elif kind == "pubsub":
        name = "%s publish" % call["topic"]
        attrs = {"messaging.system": "gcp_pubsub", "messaging.destination.name": call["topic"],
                 "messaging.operation": "publish", "messaging.batch.message_count": 1,
                 "gcp.project_id": PROJECT, "code.function": "publish"}
    elif kind == "gcs":
        name = "cloud.google.com/go/storage.Reader.NewRangeReader"
        attrs = {"gcp.client.service": "storage", "gcp.client.version": "1.48.0",
                 "gcp.client.repo": "googleapis/google-cloud-go", "gcp.client.artifact": "cloud.google.com/go/storage",
                 "gcs.bucket": call["bucket"]}
        spank = 1
    elif kind == "llm":
        name = "chat %s" % call["model"]
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": call["model"],
                 "gen_ai.response.model": call["model"] + "-2024-08-06",
                 "gen_ai.usage.input_tokens": int(lognormal(rng, 1400, 0.2)),
                 "gen_ai.usage.output_tokens": int(lognormal(rng, 260, 0.25)),
                 "gen_ai.response.finish_reasons": ["stop"], "server.address": "api.openai.com"}
    elif kind == "sidekiq":
        name = "%s publish" % call["queue"]
        attrs = {"messaging.system": "sidekiq", "messaging.destination": call["queue"],
                 "messaging.destination_kind": "queue", "messaging.sidekiq.job_class": call["job"],
                 "messaging.message_id": hexid(rng, 24), "messaging.operation": "publish"}
        spank = 4
    elif kind in ("faraday", "internal"):
        pass
    attrs.update(f.get("attrs", {}))
    if kind in ("faraday", "internal"):
        return emit_http(tr, svc, ver, rt, call, t, parent, f, dur, fault)
    if attempts > 1 and kind in ("spanner",):
        dur += sum(lognormal(rng, 40 * MS * 2 ** i) for i in range(attempts - 1))
    events = None
    if err is not None and f.get("exc"):
        events = exc_event(t + int(dur), f["exc"][0], f["exc"][1], f.get("frames", ["(unknown)"]), rt)
    if kind == "tonic" and err is not None and rt == "rust":
        attrs["otel.status_code"] = "ERROR"
    sid = tr.span(svc, ver, name, spank, t, dur, parent, attrs, err=err, events=events)
    if call.get("grpc_children"):
        grpc_children(tr, svc, ver, call, t, dur, sid, attempts, err)
    if kind == "pubsub":
        pass
    return int(dur), f


def grpc_children(tr, svc, ver, call, t, dur, parent, attempts, err):
    """otelgrpc's client spans under a Google Cloud client library's span, one per
    attempt (the library retries UNAVAILABLE inside its own span)."""
    rng = tr.w.rng
    cur, step = t + 200 * 1000, dur / max(attempts, 1)
    for i in range(attempts):
        failed = i < attempts - 1 or err is not None
        a = {"rpc.system": "grpc", "rpc.service": call["grpc_children"][0], "rpc.method": call["grpc_children"][1],
             "server.address": call["grpc_children"][2], "server.port": 443, "rpc.grpc.status_code": 14 if failed else 0}
        d = step * rng.uniform(0.5, 0.9)
        tr.span(svc, ver, "%s/%s" % call["grpc_children"][:2], 3, int(cur), d, parent, a,
                err=("upstream connect error or disconnect/reset before headers. reset reason: connection termination"
                     if failed else None))
        cur += step


def emit_http(tr, svc, ver, rt, call, t, parent, f, dur, fault):
    """Faraday (Ruby) or reqwest (Rust) client spans, one per attempt (faraday-retry,
    reqwest-retry); the callee's server span under each attempt when the callee is ours
    (call['callee']). f: attempts (most tries), timeout_ms (a try slower than it is cut),
    attempt_faults (the fault of every try but the last, for an outside peer)."""
    w, rng = tr.w, tr.w.rng
    attempts = f.get("attempts", 1)
    cur, total, i = t, 0, 0
    outcome = f
    while i < attempts:
        last = i == attempts - 1
        sid = tr.sid()
        af = f if (last or not f.get("attempt_faults")) else f["attempt_faults"]
        st = af.get("status", 200)
        d = dur if attempts == 1 else lognormal(rng, f.get("attempt_ms", call["ms"]) * MS)
        retry = af.get("err") is not None and not last
        if call.get("callee"):
            cv = w.version(call["callee"], cur)
            d2, st2, err2 = emit_server(tr, call["callee"], cv, call["callee_op"], cur + 2 * MS, sid, fault)
            d, st, af = d2 + 4 * MS, st2, {}
            if st >= 500:
                af = {"err": "", "fatal": True, "http": 502, "exc": f.get("exc5")}
            to = f.get("timeout_ms")
            if to and d > to * MS:
                d, st = to * MS, None
                af = {"err": f["timeout_err"], "fatal": True, "exc": f.get("exc"), "http": f.get("http", 504),
                      "frames": f.get("frames")}
            retry = af.get("err") is not None and not last
        if rt == "ruby":
            attrs = {"http.method": call["method"], "http.url": call["url"], "net.peer.name": call["host"],
                     "faraday.adapter.name": "Faraday::Adapter::NetHttp"}
            if st:
                attrs["http.status_code"] = st
            name = "HTTP %s" % call["method"]
        else:
            attrs = {"http.request.method": call["method"], "url.full": call["url"], "server.address": call["host"],
                     "server.port": 443 if call["url"].startswith("https") else 80, "otel.kind": "client"}
            if st:
                attrs["http.response.status_code"] = st
            if i:
                attrs["http.request.resend_count"] = i
            name = call["method"]
        err = af.get("err")
        serr = None
        if err is not None and (not st or st >= 500):
            serr = err if (rt != "ruby" or not st) else "Unsuccessful HTTP request"
        tr.span(svc, ver, name, 3, cur, d, parent, attrs, err=serr, sid=sid)
        total += d
        cur += int(d)
        outcome = af
        i += 1
        if not retry:
            break
        gap = f.get("backoff_ms", 0) * MS * rng.uniform(0.5, 1.5)
        cur += int(gap)
        total += gap
    return int(total), outcome


def emit_server(tr, svc, ver, op, t, parent, fault):
    """One request to svc's op (server span + its calls). Returns (duration ns, status, err)."""
    w, rng = tr.w, tr.w.rng
    rt = SERVICES[svc]
    sid = tr.sid()
    cur = t + int(lognormal(rng, 1.2 * MS))
    fatal = None
    for call in op["calls"]:
        p = call.get("p", 1.0)
        if callable(p):
            p = p(t)
        if p < 1.0 and rng.random() > p:
            continue
        d, f = emit_call(tr, svc, ver, rt, call, cur, sid, fault)
        cur += d + int(lognormal(rng, 0.4 * MS))
        if f.get("err") is not None and f.get("fatal") and fatal is None:
            fatal = f
            break
    selff = fault(w, t, svc, ver, {"kind": "self", "op": op["name"]}) or {}
    cur += int(lognormal(rng, op.get("self_ms", 3) * MS) * selff.get("mult", 1.0))
    if fatal is None and selff.get("err") is not None:
        fatal = selff
    status = 200
    err = None
    events = None
    if fatal is not None:
        status = fatal.get("http", op.get("err_status", 500))
        err = fatal.get("server_err", fatal["err"] if rt != "ruby" else "")
        if fatal.get("exc"):
            events = exc_event(cur, fatal["exc"][0], fatal["exc"][1], fatal.get("frames", ["(unknown)"]), rt)
    dur = cur - t
    attrs = server_attrs(w, rng, svc, rt, op, status, dur)
    attrs.update(selff.get("attrs", {}))
    name = op["name"] if rt != "ruby" else op["action"]
    kind = 5 if op.get("consumer") else 2
    if op.get("consumer"):
        attrs = dict(op["consumer_attrs"])
        attrs["messaging.kafka.message.offset"] = rng.randint(10 ** 8, 10 ** 9)
        attrs.update(rust_fields(rng, "src/consumer.rs", "ledger_projector::consumer", 131,
                                 "ledger_projector::consumer", dur * 0.7))
    tr.span(svc, ver, name, kind, t, dur, parent, attrs, err=err if status >= 500 else None, events=events, sid=sid)
    server_log(tr, svc, ver, rt, op, t + dur, status, dur, sid, fatal)
    return dur, status, err


def server_attrs(w, rng, svc, rt, op, status, dur):
    if rt == "ruby":
        ctrl, _, action = op["action"].partition("#")
        return {"http.method": op["method"], "http.scheme": "https", "http.target": op["target"],
                "http.host": "%s.quill.internal" % svc, "http.route": op["route"] + "(.:format)",
                "http.user_agent": op.get("ua", "quill-mobile/7.14.2 (iOS 18.1)"), "http.status_code": status,
                "code.namespace": ctrl, "code.function": action, "net.sock.peer.addr": "10.40.%d.%d" % (
                    rng.randint(0, 7), rng.randint(2, 250))}
    if rt == "rust":
        a = {"http.request.method": op["method"], "http.route": op["route"], "url.path": op["target"],
             "url.scheme": "http", "network.protocol.version": "1.1", "server.address": svc,
             "http.response.status_code": status, "otel.kind": "server", "otel.name": op["name"],
             "user_agent.original": op.get("ua", "quill-edge/2.3")}
        if status >= 500:
            a["otel.status_code"] = "ERROR"
        a.update(rust_fields(rng, "src/http/%s.rs" % op["route"].strip("/").split("/")[-1].strip("{}:"),
                             svc.replace("-", "_") + "::http", rng.choice((41, 57, 73)),
                             "tower_http::trace::on_response", dur * 0.3))
        return a
    return {"http.method": op["method"], "http.route": op["route"], "http.target": op["target"],
            "http.scheme": "http", "net.host.name": svc, "http.status_code": status,
            "http.user_agent": "Go-http-client/2.0", "net.sock.peer.addr": "10.44.%d.%d" % (
                rng.randint(0, 7), rng.randint(2, 250))}


def server_log(tr, svc, ver, rt, op, t, status, dur, sid, fatal):
    ms = dur / MS
    if rt == "ruby":
        body = "method=%s path=%s format=json controller=%s action=%s status=%d allocations=%d duration=%.2f view=%.2f db=%.2f" % (
            op["method"], op["target"], op["action"].split("#")[0], op["action"].split("#")[1], status,
            tr.w.rng.randint(900, 9000), ms, ms * 0.08, ms * 0.3)
        sev = "ERROR" if status >= 500 else "INFO"
        if fatal is not None and fatal.get("exc"):
            tr.log(svc, ver, t, "ERROR", "%s (%s)" % (fatal["exc"][0], fatal["exc"][1]), sid,
                   {"code.namespace": op["action"].split("#")[0], "log.logger": "rails"}, keep_always=True)
        tr.log(svc, ver, t, sev, body, sid, {"log.logger": "lograge"}, keep_always=status >= 500)
    elif rt == "rust":
        if status >= 500:
            msg = fatal.get("log", fatal.get("err") or "request failed") if fatal else "request failed"
            tr.log(svc, ver, t, "ERROR", msg, sid, {"target": "%s::http" % svc.replace("-", "_"),
                                                     "http.response.status_code": status,
                                                     "latency_ms": round(ms, 3)}, keep_always=True)
        tr.log(svc, ver, t, "INFO", "finished processing request", sid,
               {"target": "tower_http::trace::on_response", "latency": "%d ms" % int(ms), "status": status})
    else:
        tr.log(svc, ver, t, "ERROR" if status >= 500 else "INFO",
               json.dumps({"level": "ERROR" if status >= 500 else "INFO", "msg": "request",
                           "method": op["method"], "route": op["route"], "status": status,
                           "dur_ms": round(ms, 2)}, separators=(",", ":")), sid, {}, keep_always=status >= 500)


# ---------------------------------------------------------------- the engine

def run(w):
    spec = w.spec
    svc = spec["service"]
    ops = spec["ops"]
    fault = spec.get("fault") or (lambda *a: None)
    surge = spec.get("surge") or (lambda t: 1.0)
    extra = spec.get("extra_callers", [])
    m = w.start
    while m < w.now:
        for callers_svc, cops in [(svc, ops)] + extra:
            for op in cops:
                n = poisson(w.rng, op["rate"] * surge(m) if callers_svc == svc else op["rate"])
                for _ in range(n):
                    t = m + int(w.rng.random() * MIN)
                    if t >= w.now:
                        continue
                    tr = Trace(w, t)
                    ver = w.version(callers_svc, t)
                    emit_server(tr, callers_svc, ver, op, t, "", fault)
                    if tr.kept:
                        w.spans.extend(tr.spans)
                    for lt, always, rec in tr.logs:
                        if (always or tr.kept) and lt < w.now:
                            w.logs.append((lt, rec))
        for lsvc, lver, lt, sev, body, attrs in (spec.get("tick") or (lambda w, m: []))(w, m):
            if lt < w.now:
                w.logs.append((lt, {"timestamp": ts(lt), "observed_timestamp": ts(lt + 3 * MS),
                                    "severity_text": sev,
                                    "severity_number": {"INFO": 9, "WARN": 13, "ERROR": 17}[sev],
                                    "body": body, "trace_id": "", "span_id": "",
                                    "resource": w.resource(lsvc, lver, lt), "attributes": attrs}))
        m += MIN
    for mk in spec["markers"]:
        msvc, ver, prev, when, extra_attrs = mk
        tm = at(when)
        tr = Trace(w, tm)
        a = {"deployment.version": ver, "deployment.id": "%s-%s" % (msvc, hexid(w.rng, 10))}
        if prev:
            a["deployment.previous_version"] = prev
        a.update(extra_attrs)
        tr.span(msvc, ver, "deployment.marker", 1, tm, 1 * MS, "", a)
        w.spans.extend(tr.spans)


# ---------------------------------------------------------------- files

def alert_json(spec):
    a = spec["alert"]
    rid = hexid(random.Random(spec["id"] + "/rule"), 32)
    labels = {"alertname": a["name"], "service.name": spec["service"], "severity": a.get("severity", "critical"),
              "team": a["team"], "ruleId": rid, "deployment.environment.name": "production"}
    annotations = {"summary": "%s is burning its error budget" % spec["service"],
                   "description": a.get("desc", "SLO burn over 1h above 10x for %s" % spec["service"]),
                   "runbook_url": "https://runbooks.quill.example/%s" % spec["service"]}
    kind, key, val = a["burn"]
    (labels if kind == "label" else annotations)[key] = val
    fp = hexid(random.Random(spec["id"] + "/fp"), 16)
    body = {
        "receiver": "quill-%s-pagerduty" % a["team"], "status": "firing",
        "alerts": [{"status": "firing", "labels": labels, "annotations": annotations,
                    "startsAt": a["starts"] + "Z", "endsAt": "0001-01-01T00:00:00Z",
                    "generatorURL": "https://signoz.quill.example/alerts/edit?ruleId=%s" % rid,
                    "fingerprint": fp}],
        "groupLabels": {"alertname": a["name"], "service.name": spec["service"]},
        "commonLabels": labels, "commonAnnotations": annotations,
        "externalURL": "https://signoz.quill.example", "version": "4",
        "groupKey": '{}/{team="%s"}:{alertname="%s", service.name="%s"}' % (a["team"], a["name"], spec["service"]),
        "truncatedAlerts": 0,
    }
    return json.dumps(body, indent=2) + "\n"


def q(s):
    return json.dumps(s)


def incident_yaml(spec):
    e = spec["expect"]
    lines = ["id: %s" % spec["id"], "title: %s" % q(spec["title"]), "service: %s" % spec["service"],
             "now: %sZ" % spec["now"], "expect:",
             "  root_cause: %s" % e["root_cause"], "  verdict: %s" % e["verdict"]]
    if "culprit" in e:
        lines += ["  culprit:", "    service: %s" % e["culprit"]["service"],
                  "    verdict: %s" % e["culprit"]["verdict"]]
    lines.append("tags: [%s]" % ", ".join(["heldout8", "quill"] + spec["tags"]))
    if spec.get("prior_actions"):
        lines.append("prior_actions:")
        for s, when in spec["prior_actions"]:
            lines += ["  - service: %s" % s, "    at: %sZ" % when]
    return "\n".join(lines) + "\n"


def releases_yaml(spec):
    lines = ["project: quill", "services:"]
    for svc, rel in spec["ledger"].items():
        lines.append("  %s:" % svc)
        for v, d in rel:
            lines += ["    - version: %s" % q(v), "      image: %s/%s:%s" % (REGISTRY, svc, v.replace("+", "-")),
                      "      deployed_at: %s" % ts(at(d))]
    return "\n".join(lines) + "\n"


def write_jsonl(folder, name, rows):
    data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows).encode()
    for old in (name, name + ".gz"):
        if os.path.exists(os.path.join(folder, old)):
            os.remove(os.path.join(folder, old))
    if len(data) > GZIP_OVER:
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as g:
            g.write(data)
        with open(os.path.join(folder, name + ".gz"), "wb") as f:
            f.write(buf.getvalue())
    else:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return len(data)


def generate(make, root):
    spec = make()
    w = World(spec)
    run(w)
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    w.spans.sort(key=lambda x: (x[0], x[1]["span_id"]))
    w.logs.sort(key=lambda x: (x[0], x[1]["span_id"], x[1]["body"]))
    with open(os.path.join(folder, "incident.yaml"), "w") as f:
        f.write(incident_yaml(spec))
    with open(os.path.join(folder, "alert.json"), "w") as f:
        f.write(alert_json(spec))
    with open(os.path.join(folder, "releases.yaml"), "w") as f:
        f.write(releases_yaml(spec))
    e = dict(spec["expect"])
    e.update({"sampling": "head, parent-based trace-id ratio, 1 in %d" % spec["one_in"],
              "history_minutes": (w.now - w.start) // MIN, "onset": spec["onset"], "story": spec["story"]})
    with open(os.path.join(folder, "expect.json"), "w") as f:
        f.write(json.dumps(e, indent=2) + "\n")
    n = write_jsonl(folder, "spans.jsonl", [s for _, s in w.spans])
    write_jsonl(folder, "logs.jsonl", [r for _, r in w.logs])
    print("%-58s spans %6d (%5.1f MB) logs %6d" % (spec["id"], len(w.spans), n / 1e6, len(w.logs)))


# ---------------------------------------------------------------- the incidents

def rs_op(name, method, route, target, rate, calls, **kw):
    d = {"name": name, "method": method, "route": route, "target": target, "rate": rate, "calls": calls}
    d.update(kw)
    return d


def rb_op(action, method, route, target, rate, calls, **kw):
    d = {"name": action, "action": action, "method": method, "route": route, "target": target, "rate": rate,
         "calls": calls}
    d.update(kw)
    return d


def go_op(method, route, target, rate, calls, **kw):
    d = {"name": "%s %s" % (method, route), "method": method, "route": route, "target": target, "rate": rate,
         "calls": calls}
    d.update(kw)
    return d


PG_MAIN = "quill-main.c7x2.internal"
PG_PAY = "10.77.0.12"
REDIS_MAIN = "10.91.0.4"
PANIC = ["rust_begin_unwind", "core::panicking::panic_fmt", "core::panicking::panic",
         "core::option::unwrap_failed"]


def canary_panic():
    rel = at("2026-12-08T10:14:22.318")

    def fault(w, t, svc, ver, call):
        if call["kind"] == "self" and ver == "3.4.0" and call["op"] == "POST /v1/transfers" and w.rng.random() < 0.6:
            msg = "panicked at src/transfer/fx.rs:212:41: called `Option::unwrap()` on a `None` value"
            return {"err": msg, "exc": ("panic", msg), "frames": PANIC + ["ledger_rs::transfer::fx::convert"],
                    "log": "request handler panicked: " + msg}
        return None
    ops = [rs_op("POST /v1/transfers", "POST", "/v1/transfers", "/v1/transfers", 40, [
        {"kind": "sqlx", "name": "SELECT accounts", "sql": "SELECT id, currency, status FROM accounts WHERE id = ANY($1)",
         "host": PG_PAY, "ms": 2.1},
        {"kind": "sqlx", "name": "INSERT transfers", "sql": "INSERT INTO transfers (id, src, dst, amount_minor, currency, fx_rate) VALUES ($1, $2, $3, $4, $5, $6)",
         "host": PG_PAY, "ms": 3.4}], self_ms=4),
        rs_op("GET /v1/transfers/{id}", "GET", "/v1/transfers/{id}", "/v1/transfers/tr_8f2k1", 90, [
            {"kind": "sqlx", "name": "SELECT transfers", "sql": "SELECT * FROM transfers WHERE id = $1", "host": PG_PAY,
             "ms": 1.6}]),
        rs_op("GET /v1/balances/{account}", "GET", "/v1/balances/{account}", "/v1/balances/acc_51x", 60, [
            {"kind": "sqlx", "name": "SELECT balances", "sql": "SELECT currency, available_minor FROM balances WHERE account_id = $1",
             "host": PG_PAY, "ms": 1.9}])]
    return {
        "id": "qh8-canary-panic-transfers-ledger-rs", "service": "ledger-rs",
        "title": "ledger-rs 3.4.0 canary (Argo, weight 25) panics on 60% of its POST /v1/transfers; stable 3.3.2 clean",
        "start": "2026-12-08T09:04:00", "now": "2026-12-08T10:31:00", "one_in": 5,
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["rust", "axum", "tracing-opentelemetry", "sqlx", "argo-canary", "two-versions", "one-operation", "head-1-in-5"],
        "serving": {"ledger-rs": [("3.3.2", None, 0, 1), ("3.4.0", "2026-12-08T10:14:22.318", 20, 0.25)]},
        "ledger": {"ledger-rs": [("3.3.2", "2026-12-01T15:02:11.040"), ("3.4.0", "2026-12-08T10:14:22.318")]},
        "markers": [("ledger-rs", "3.4.0", "3.3.2", "2026-12-08T10:14:22.318",
                     {"deployment.strategy": "canary", "argo.rollout.name": "ledger-rs", "argo.rollout.step": 1,
                      "argo.rollout.canary.weight": 25})],
        "ops": ops, "fault": fault,
        "alert": {"name": "LedgerTransfersErrorBudget", "team": "ledger", "starts": "2026-12-08T10:24:00",
                  "burn": ("annotation", "slo_burn_rate", "7.4")},
        "onset": "10:14:4x, the first 3.4.0 canary pods taking transfers",
        "story": "ledger-rs 3.4.0 converts transfers through a new FX path that unwraps a missing rate for currency pairs without a direct quote: 60% of its transfers panic (500). Argo holds the canary at weight 25, so 3.3.2 serves three quarters of the traffic, clean. Rolling back (aborting the canary) is right.",
    }


def faraday_storm():
    rel = at("2026-12-08T14:02:41.077")

    def fault(w, t, svc, ver, call):
        if svc == "payouts-web" and call["kind"] == "faraday":
            if ver == "12.8.0":
                return {"attempts": 6, "timeout_ms": 800, "backoff_ms": 0,
                        "timeout_err": "Net::ReadTimeout with #<TCPSocket:(closed)>",
                        "exc": ("Faraday::TimeoutError", "Net::ReadTimeout with #<TCPSocket:(closed)>"),
                        "frames": ["/usr/local/bundle/gems/faraday-net_http-3.3.0/lib/faraday/adapter/net_http.rb:46:in `rescue in call'",
                                   "app/services/bank_transfer.rb:31:in `submit!'",
                                   "app/controllers/payouts_controller.rb:18:in `create'"], "http": 504}
            return {"attempts": 2, "timeout_ms": 5000, "backoff_ms": 500,
                    "timeout_err": "Net::ReadTimeout with #<TCPSocket:(closed)>",
                    "exc": ("Faraday::TimeoutError", "Net::ReadTimeout with #<TCPSocket:(closed)>"), "http": 504}
        if svc == "bank-gw" and call["kind"] in ("faraday", "self"):
            # bank-gw's upstream SEPA partner and its own worker pool take the tripled load
            return {"mult": 1 + 3.0 * ramp(t, rel + 50 * S, rel + 5 * MIN)}
        return None
    bank_op = rs_op("POST /v2/transfers", "POST", "/v2/transfers", "/v2/transfers", 0, [
        {"kind": "sqlx", "name": "SELECT mandates", "sql": "SELECT * FROM mandates WHERE iban_hash = $1", "host": PG_PAY, "ms": 2.0},
        {"kind": "faraday", "method": "POST", "url": "https://api.sepa-partner.example/v3/credit-transfers",
         "host": "api.sepa-partner.example", "ms": 320, "sigma": 0.45}], self_ms=6)
    ops = [rb_op("PayoutsController#create", "POST", "/payouts", "/payouts", 30, [
        {"kind": "pg", "op": "SELECT", "sql": "SELECT \"payouts\".* FROM \"payouts\" WHERE \"payouts\".\"id\" = $1 LIMIT $2", "host": PG_MAIN, "ms": 1.4},
        {"kind": "faraday", "method": "POST", "url": "http://bank-gw.payments.svc.cluster.local/v2/transfers",
         "host": "bank-gw.payments.svc.cluster.local", "ms": 350, "callee": "bank-gw", "callee_op": bank_op},
        {"kind": "sidekiq", "queue": "default", "job": "PayoutReceiptJob", "ms": 0.8}]),
        rb_op("PayoutsController#show", "GET", "/payouts/:id", "/payouts/8841203", 80, [
            {"kind": "pg", "op": "SELECT", "sql": "SELECT \"payouts\".* FROM \"payouts\" WHERE \"payouts\".\"id\" = $1 LIMIT $2", "host": PG_MAIN, "ms": 1.2},
            {"kind": "redis", "cmd": "GET", "host": REDIS_MAIN, "ms": 0.4}]),
        rb_op("PayoutsController#index", "GET", "/payouts", "/payouts?page=1", 25, [
            {"kind": "pg", "op": "SELECT", "sql": "SELECT \"payouts\".* FROM \"payouts\" WHERE \"payouts\".\"merchant_id\" = $1 ORDER BY created_at DESC LIMIT $2", "host": PG_MAIN, "ms": 4.2}])]
    return {
        "id": "qh8-faraday-retry-storm-payouts-web", "service": "payouts-web",
        "title": "payouts-web 12.8.0 sets bank-gw's Faraday timeout to 0.8 s with 5 retries and no interval: bank-gw's calls triple, a sixth of payouts 504",
        "start": "2026-12-08T12:40:00", "now": "2026-12-08T14:19:30", "one_in": 8,
        "expect": {"root_cause": "retry_storm", "verdict": "allow"},
        "tags": ["ruby", "rails", "faraday-retry", "attempt-spans", "sidekiq", "rust", "callee-load", "head-1-in-8"],
        "serving": {"payouts-web": [("12.7.3", None, 0, 1), ("12.8.0", "2026-12-08T14:02:41.077", 90, 1)],
                    "bank-gw": [("2.11.0", None, 0, 1)]},
        "ledger": {"payouts-web": [("12.7.3", "2026-12-02T09:12:44.500"), ("12.8.0", "2026-12-08T14:02:41.077")],
                   "bank-gw": [("2.11.0", "2026-11-27T16:40:02.913")]},
        "markers": [("payouts-web", "12.8.0", "12.7.3", "2026-12-08T14:02:41.077",
                     {"deployment.strategy": "rollingUpdate", "vcs.ref.head.revision": "4c1e9a7"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "PayoutsApdex", "team": "payouts", "starts": "2026-12-08T14:11:00",
                  "burn": ("label", "burnRate", "11.2")},
        "onset": "14:03:xx, the first 12.8.0 pods' retries",
        "story": "payouts-web 12.8.0 tightens the Faraday connection to bank-gw (timeout 0.8 s, faraday-retry max 5, interval 0; was 5 s and one retry after 0.5 s). bank-gw answers a transfer in ~0.35 s normally; every timed-out attempt keeps running in bank-gw while the next is sent, so bank-gw's load triples, it slows, and more attempts time out: six timed-out attempts (4.8 s) and a 504 for a sixth of payouts. Rolling payouts-web back ends the storm.",
    }


def prompt_assist():
    rel = at("2026-12-09T11:20:05.512")

    def fault(w, t, svc, ver, call):
        new = ver == "4.19.0"
        if call["kind"] == "llm":
            if new:
                return {"mult": 2.1, "attrs": {"gen_ai.usage.output_tokens": int(lognormal(w.rng, 640, 0.25))}}
            return None
        if call["kind"] == "self" and call["op"] == "AnswersController#create":
            bad = w.rng.random() < (0.48 if new else 0.04)
            return {"attrs": {"assist.answer.grounded": not bad, "assist.prompt.version": "v31" if new else "v30",
                              "assist.guardrail.triggered": bad and w.rng.random() < 0.5}}
        return None
    ops = [rb_op("AnswersController#create", "POST", "/api/answers", "/api/answers", 25, [
        {"kind": "pg", "op": "SELECT", "sql": "SELECT \"help_articles\".* FROM \"help_articles\" WHERE \"help_articles\".\"locale\" = $1 ORDER BY embedding <-> $2 LIMIT $3",
         "host": PG_MAIN, "ms": 18},
        {"kind": "llm", "model": "gpt-4o", "ms": 1700},
        {"kind": "pg", "op": "INSERT", "sql": "INSERT INTO \"assist_answers\" (\"conversation_id\", \"body\", \"created_at\") VALUES ($1, $2, $3) RETURNING \"id\"",
         "host": PG_MAIN, "ms": 2.2}], ua="quill-web/2026.12.1"),
        rb_op("ConversationsController#show", "GET", "/api/conversations/:id", "/api/conversations/55120", 40, [
            {"kind": "pg", "op": "SELECT", "sql": "SELECT \"assist_answers\".* FROM \"assist_answers\" WHERE \"assist_answers\".\"conversation_id\" = $1",
             "host": PG_MAIN, "ms": 2.5}])]
    return {
        "id": "qh8-prompt-v31-ungrounded-support-assist", "service": "support-assist",
        "title": "support-assist 4.19.0 ships prompt v31: 48% of answers ungrounded (4% before), twice the tokens, HTTP 200 throughout",
        "start": "2026-12-09T09:58:00", "now": "2026-12-09T11:41:00", "one_in": 3,
        "expect": {"root_cause": "prompt_regression", "verdict": "allow"},
        "tags": ["ruby", "rails", "gen_ai", "quality-only", "http-200", "head-1-in-3"],
        "serving": {"support-assist": [("4.18.2", None, 0, 1), ("4.19.0", "2026-12-09T11:20:05.512", 70, 1)]},
        "ledger": {"support-assist": [("4.18.2", "2026-12-03T13:30:00.120"), ("4.19.0", "2026-12-09T11:20:05.512")]},
        "markers": [("support-assist", "4.19.0", "4.18.2", "2026-12-09T11:20:05.512",
                     {"deployment.strategy": "rollingUpdate"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "AssistUngroundedAnswers", "team": "assist", "starts": "2026-12-09T11:33:00",
                  "burn": ("label", "burnRate", "9.6"),
                  "desc": "Share of answers with assist.answer.grounded=false over 30m above 15%"},
        "onset": "11:20:xx, the first 4.19.0 answers",
        "story": "support-assist 4.19.0 ships prompt template v31, which drops the instruction to answer only from the retrieved articles: 48% of answers are flagged ungrounded by the app's own grounding check (4% before), output tokens 260 -> 640, the chat call twice as long. Every response is HTTP 200. Rolling back restores v30.",
    }


def pubsub_config():
    rel = at("2026-12-09T15:40:19.884")

    def fault(w, t, svc, ver, call):
        if call["kind"] == "pubsub" and ver == "3.8.0+cfg.17" and w.rng.random() < 0.4:
            return {"err": "rpc error: code = NotFound desc = Resource not found (resource=fulfilment-events-express).",
                    "fatal": True, "attrs": {"messaging.destination.name": "fulfilment-events-express"},
                    "exc": ("*status.Error", "rpc error: code = NotFound desc = Resource not found (resource=fulfilment-events-express).")}
        return None
    ops = [go_op("POST", "/v1/fulfilments", "/v1/fulfilments", 35, [
        {"kind": "spanner", "op": "ReadWriteTransaction", "ms": 14},
        {"kind": "pubsub", "topic": "fulfilment-events", "ms": 9}]),
        go_op("GET", "/v1/fulfilments/{id}", "/v1/fulfilments/f_2290a", 70, [
            {"kind": "spanner", "op": "Query", "sql": "SELECT * FROM Fulfilments WHERE FulfilmentId = @id", "ms": 4.5}])]
    return {
        "id": "qh8-flag-config-express-topic-fulfil-svc", "service": "fulfil-svc",
        "title": "fulfil-svc config build 3.8.0+cfg.17 (blue-green switch) routes express fulfilments to a Pub/Sub topic that was never created: 40% of POST /v1/fulfilments 500",
        "start": "2026-12-09T14:12:00", "now": "2026-12-09T15:56:00", "one_in": 6,
        "expect": {"root_cause": "config_regression", "verdict": "allow"},
        "tags": ["go", "otelhttp", "pubsub", "spanner", "gcp-client-tracing", "config-build", "blue-green", "head-1-in-6"],
        "serving": {"fulfil-svc": [("3.8.0", None, 0, 1), ("3.8.0+cfg.17", "2026-12-09T15:40:19.884", 0, 1)]},
        "ledger": {"fulfil-svc": [("3.8.0", "2026-12-04T10:05:53.300"), ("3.8.0+cfg.17", "2026-12-09T15:40:19.884")]},
        "markers": [("fulfil-svc", "3.8.0+cfg.17", "3.8.0", "2026-12-09T15:40:19.884",
                     {"deployment.strategy": "blueGreen", "argo.rollout.name": "fulfil-svc",
                      "deployment.config.revision": "cfg.17"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "FulfilmentCreateErrors", "team": "fulfilment", "starts": "2026-12-09T15:47:00",
                  "burn": ("annotation", "slo_burn_rate", "14.0")},
        "onset": "15:40:2x, at the blue-green switch",
        "story": "A config build of fulfil-svc (same image code, flags file cfg.17) turns on the express lane, which publishes express fulfilments to fulfilment-events-express, a topic created in staging but never in production: Pub/Sub answers NotFound (the caller's mistake, not Pub/Sub's failure) and 40% of fulfilment creations fail. Rolling back to 3.8.0 (cfg.16) fixes it.",
    }


def back_to_back():
    def fault(w, t, svc, ver, call):
        if call["kind"] == "sqlx" and call["name"] == "INSERT reservations":
            if ver == "5.1.1" and w.rng.random() < 0.35:
                m = "error returned from database: column \"hold_expires_at\" of relation \"reservations\" does not exist"
                return {"err": m, "fatal": True, "exc": ("sqlx_core::error::Error", m),
                        "log": "reservation failed: " + m}
        if call["kind"] == "self" and ver == "5.1.0" and call["op"] == "POST /v1/reservations" and w.rng.random() < 0.3:
            m = "attempt to subtract with overflow"
            return {"err": "panicked at src/stock.rs:77:18: " + m, "exc": ("panic", m), "frames": PANIC}
        return None
    ops = [rs_op("POST /v1/reservations", "POST", "/v1/reservations", "/v1/reservations", 50, [
        {"kind": "sqlx", "name": "SELECT stock", "sql": "SELECT sku, on_hand, reserved FROM stock WHERE sku = ANY($1) FOR UPDATE",
         "host": PG_PAY, "ms": 2.8, "db": "inventory"},
        {"kind": "sqlx", "name": "UPDATE stock", "sql": "UPDATE stock SET reserved = reserved + $2 WHERE sku = $1", "host": PG_PAY,
         "ms": 1.9, "db": "inventory"},
        {"kind": "sqlx", "name": "INSERT reservations", "sql": "INSERT INTO reservations (id, order_id, sku, qty, hold_expires_at) VALUES ($1, $2, $3, $4, $5)",
         "host": PG_PAY, "ms": 2.2, "db": "inventory"}]),
        rs_op("GET /v1/stock/{sku}", "GET", "/v1/stock/{sku}", "/v1/stock/SKU-44120", 120, [
            {"kind": "sqlx", "name": "SELECT stock", "sql": "SELECT sku, on_hand, reserved FROM stock WHERE sku = $1", "host": PG_PAY,
             "ms": 1.3, "db": "inventory"}])]
    return {
        "id": "qh8-back-to-back-reservations-inventory-rs", "service": "inventory-rs",
        "title": "inventory-rs, back to back: 5.1.0 panicked on reservations and was rolled back at 08:31; 5.1.1 at 09:57 writes a column the migration has not added, 35% of reservations fail",
        "start": "2026-12-10T08:00:00", "now": "2026-12-10T10:14:00", "one_in": 7,
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "prior_actions": [("inventory-rs", "2026-12-10T08:31:05")],
        "tags": ["rust", "axum", "sqlx", "back-to-back", "prior-rollback", "one-operation", "head-1-in-7"],
        "serving": {"inventory-rs": [("5.0.4", None, 0, 1), ("5.1.0", "2026-12-10T08:12:40.211", 60, 1),
                                     ("5.0.4", "2026-12-10T08:31:05.870", 40, 1), ("5.1.1", "2026-12-10T09:57:13.402", 60, 1)]},
        "ledger": {"inventory-rs": [("5.0.4", "2026-11-28T12:00:09.001"), ("5.1.0", "2026-12-10T08:12:40.211"),
                                    ("5.0.4", "2026-12-10T08:31:05.870"), ("5.1.1", "2026-12-10T09:57:13.402")]},
        "markers": [("inventory-rs", "5.1.0", "5.0.4", "2026-12-10T08:12:40.211", {"deployment.strategy": "rollingUpdate"}),
                    ("inventory-rs", "5.0.4", "5.1.0", "2026-12-10T08:31:05.870", {"deployment.strategy": "rollback"}),
                    ("inventory-rs", "5.1.1", "5.0.4", "2026-12-10T09:57:13.402", {"deployment.strategy": "rollingUpdate"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "InventoryReservationsFailing", "team": "inventory", "starts": "2026-12-10T10:06:00",
                  "burn": ("annotation", "slo_burn_rate", "10.3")},
        "onset": "09:57:2x, the first 5.1.1 pods",
        "story": "inventory-rs 5.1.0 panicked on 30% of reservations and was rolled back to 5.0.4 at 08:31 (prior_actions). 5.1.1, an hour and a half later, fixes the overflow but writes reservations.hold_expires_at, whose migration was not run: 35% of reservations (the ones with a hold) fail. Rolling back to 5.0.4 is right.",
    }


def kafka_consumer():
    rel = at("2026-12-10T16:22:47.650")

    def fault(w, t, svc, ver, call):
        if call["kind"] == "self" and ver == "1.8.0" and w.rng.random() < 0.3:
            m = "failed to decode ledger.events value: Avro: field `fx_rate`: expected Decimal, found Null"
            return {"err": m, "log": m, "exc": ("apache_avro::Error", m)}
        return None
    op = rs_op("ledger.events process", "", "", "", 220, [
        {"kind": "sqlx", "name": "INSERT balances_projection", "sql": "INSERT INTO balances_projection (account_id, currency, delta_minor, event_id) VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING",
         "host": PG_PAY, "ms": 2.4, "db": "projections"}], consumer=True,
        consumer_attrs={"messaging.system": "kafka", "messaging.operation": "process",
                        "messaging.destination.name": "ledger.events", "messaging.kafka.consumer.group": "ledger-projector",
                        "messaging.destination.partition.id": "3", "server.address": "kafka-0.kafka.quill.internal"})

    def tick(w, m):
        out = []
        for k in range(2):
            t = m + k * 30 * S + 1234567
            ver = w.version("ledger-projector", t)
            lag = int(120 + 30 * w.rng.random() + (ramp(t, rel + 40 * S, rel + 25 * MIN) * 180000 if ver == "1.8.0" else 0))
            out.append(("ledger-projector", ver, t, "WARN" if lag > 5000 else "INFO", "consumer lag",
                        {"target": "ledger_projector::lag", "group": "ledger-projector", "topic": "ledger.events",
                         "lag": lag}))
        return out
    return {
        "id": "qh8-kafka-avro-decode-ledger-projector", "service": "ledger-projector",
        "title": "ledger-projector 1.8.0 (rdkafka consumer) cannot decode 30% of ledger.events (fx_rate null); the consumer group's lag grows",
        "start": "2026-12-10T15:01:00", "now": "2026-12-10T16:40:00", "one_in": 10,
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["rust", "rdkafka", "consumer-spans", "no-http", "lag", "head-1-in-10"],
        "serving": {"ledger-projector": [("1.7.4", None, 0, 1), ("1.8.0", "2026-12-10T16:22:47.650", 45, 1)]},
        "ledger": {"ledger-projector": [("1.7.4", "2026-11-25T10:44:30.000"), ("1.8.0", "2026-12-10T16:22:47.650")]},
        "markers": [("ledger-projector", "1.8.0", "1.7.4", "2026-12-10T16:22:47.650", {"deployment.strategy": "rollingUpdate"})],
        "ops": [op], "fault": fault, "tick": tick,
        "alert": {"name": "LedgerProjectorFailures", "team": "ledger", "starts": "2026-12-10T16:31:00",
                  "burn": ("annotation", "slo_burn_rate", "8.1"),
                  "desc": "Error rate of ledger.events process spans above 5% for 5m"},
        "onset": "16:22:5x, the first 1.8.0 consumer",
        "story": "ledger-projector 1.8.0 reads ledger.events with a new Avro reader schema that declares fx_rate a non-null decimal; same-currency events carry null: 30% of messages fail to decode, are retried and dead-lettered, and the group's lag climbs. Rolling back to 1.7.4 is right.",
    }


# ---------------------------------------------------------------- traps

def spanner_outage():
    bad = at("2026-12-08T13:07:00.310")

    def fault(w, t, svc, ver, call):
        if call["kind"] == "spanner" and t >= bad:
            p = 0.45 * ramp(t, bad, bad + 50 * S)
            if w.rng.random() < p:
                m = 'spanner: code = "Unavailable", desc = "upstream connect error or disconnect/reset before headers. reset reason: connection termination"'
                return {"err": m, "fatal": True, "mult": 30, "attempts": 4, "http": 503,
                        "exc": ("*spanner.Error", m)}
            return {"mult": 1 + 3 * ramp(t, bad, bad + 50 * S) * w.rng.random()}
        return None
    ops = [go_op("GET", "/v1/accounts/{id}", "/v1/accounts/acc_9a1c", 150, [
        {"kind": "spanner", "op": "Query", "sql": "SELECT AccountId, Status, Tier FROM Accounts WHERE AccountId = @id", "ms": 4}]),
        go_op("POST", "/v1/accounts/{id}/limits", "/v1/accounts/acc_9a1c/limits", 20, [
            {"kind": "spanner", "op": "ReadWriteTransaction", "ms": 11}])]
    return {
        "id": "qh8-trap-spanner-unavailable-accounts-go", "service": "accounts-go",
        "title": "Cloud Spanner's accounts instance answers UNAVAILABLE to 45% of calls from 13:07:00; accounts-go 7.3.1 (a metrics label) finished rolling out at 13:06:02",
        "start": "2026-12-08T11:38:00", "now": "2026-12-08T13:19:00", "one_in": 12,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["go", "otelhttp", "spanner", "gcp-client-tracing", "no-host", "rolling-update", "trap", "head-1-in-12"],
        "serving": {"accounts-go": [("7.3.0", None, 0, 1), ("7.3.1", "2026-12-08T13:05:12.400", 50, 1)]},
        "ledger": {"accounts-go": [("7.3.0", "2026-12-01T11:20:00.000"), ("7.3.1", "2026-12-08T13:05:12.400")]},
        "markers": [("accounts-go", "7.3.1", "7.3.0", "2026-12-08T13:05:12.400", {"deployment.strategy": "rollingUpdate"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "AccountsAvailability", "team": "identity", "starts": "2026-12-08T13:12:00",
                  "burn": ("annotation", "slo_burn_rate", "19.5")},
        "onset": "13:07:0x, Spanner's first UNAVAILABLE",
        "story": "The regional Spanner instance behind accounts-go loses a split's leader and its frontend answers UNAVAILABLE; the Go client retries inside the span (up to its deadline) and 45% of calls still fail, so accounts-go answers 503. accounts-go 7.3.1 only renames a metrics label and finished rolling out 58 s before; every failing request is 7.3.1's because 7.3.0 no longer serves. Rolling back does not touch Spanner.",
    }


def memorystore():
    bad = at("2026-12-09T09:44:10.077")

    def fault(w, t, svc, ver, call):
        if call["kind"] != "redis" or t < bad:
            return None
        if t < bad + 80 * S:
            if w.rng.random() < 0.85:
                m = "Error connecting to Redis on 10.91.0.4:6378 (Errno::ECONNREFUSED)"
                return {"err": m, "fatal": True, "exc": ("Redis::CannotConnectError", m), "mult": 3}
            return {"mult": 4}
        if w.rng.random() < 0.22:
            m = "Waited 1.0 seconds"
            return {"err": m, "fatal": True, "exc": ("Redis::TimeoutError", m), "add": 1000 * MS}
        return {"mult": 5}
    ops = [rb_op("SessionsController#show", "GET", "/session", "/session", 200, [
        {"kind": "redis", "cmd": "GET", "host": REDIS_MAIN, "ms": 0.5},
        {"kind": "pg", "op": "SELECT", "sql": "SELECT \"users\".* FROM \"users\" WHERE \"users\".\"id\" = $1 LIMIT $2", "host": PG_MAIN, "ms": 1.1, "p": 0.3}]),
        rb_op("SessionsController#refresh", "POST", "/session/refresh", "/session/refresh", 40, [
            {"kind": "redis", "cmd": "GET", "host": REDIS_MAIN, "ms": 0.5},
            {"kind": "redis", "cmd": "SETEX", "host": REDIS_MAIN, "ms": 0.6},
            {"kind": "pg", "op": "UPDATE", "sql": "UPDATE \"users\" SET \"last_seen_at\" = $1 WHERE \"users\".\"id\" = $2", "host": PG_MAIN, "ms": 1.8}])]
    return {
        "id": "qh8-trap-memorystore-failover-session-web", "service": "session-web",
        "title": "Memorystore for Redis fails over at 09:44:10 and its new primary loads cold: session-web's Redis calls refused, then time out; session-web 9.14.2 (a gem bump) finished at 09:43:03",
        "start": "2026-12-09T08:15:00", "now": "2026-12-09T09:58:00", "one_in": 20,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["ruby", "rails", "redis", "memorystore", "rolling-update", "trap", "head-1-in-20"],
        "serving": {"session-web": [("9.14.1", None, 0, 1), ("9.14.2", "2026-12-09T09:41:03.228", 120, 1)]},
        "ledger": {"session-web": [("9.14.1", "2026-12-02T14:18:27.700"), ("9.14.2", "2026-12-09T09:41:03.228")]},
        "markers": [("session-web", "9.14.2", "9.14.1", "2026-12-09T09:41:03.228", {"deployment.strategy": "rollingUpdate"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "SessionWebErrors", "team": "identity", "starts": "2026-12-09T09:49:00",
                  "burn": ("label", "burnRate", "22.7")},
        "onset": "09:44:1x, the failover",
        "story": "Memorystore (standard tier) fails over for maintenance at 09:44:10: connections are refused for 80 s, then the new primary, still loading its dataset, answers slowly and 22% of commands time out. session-web 9.14.2 bumps rack-attack and finished rolling out 67 s before the failover. Rolling back does not touch Redis.",
    }


def canary_stable():
    bad = at("2026-12-09T11:55:40.520")

    def fault(w, t, svc, ver, call):
        if ver != "6.1.3" or t < bad:
            return None
        g = ramp(t, bad, bad + 4 * MIN)
        if call["kind"] == "self":
            if w.rng.random() < 0.12 * g:
                m = "connection reset: upstream pod orders-rs terminated (OOMKilled)"
                return {"err": m, "http": 503, "mult": 1 + 3 * g, "log": m}
            return {"mult": 1 + 3 * g}
        return {"mult": 1 + 2 * g}
    ops = [rs_op("POST /v1/orders", "POST", "/v1/orders", "/v1/orders", 60, [
        {"kind": "sqlx", "name": "INSERT orders", "sql": "INSERT INTO orders (id, customer_id, total_minor, status) VALUES ($1, $2, $3, 'pending')",
         "host": PG_PAY, "ms": 2.6, "db": "orders"},
        {"kind": "tonic", "service": "menu.v2.Menu", "method": "PriceBasket", "host": "menu-rs.payments.svc.cluster.local", "ms": 9}], self_ms=5),
        rs_op("GET /v1/orders/{id}", "GET", "/v1/orders/{id}", "/v1/orders/ord_7hq2", 150, [
            {"kind": "sqlx", "name": "SELECT orders", "sql": "SELECT * FROM orders WHERE id = $1", "host": PG_PAY, "ms": 1.4, "db": "orders"}])]

    def tick(w, m):
        if m < bad:
            return []
        g = ramp(m, bad, bad + 4 * MIN)
        return [("orders-rs", "6.1.3", m + 17 * S, "WARN", "menu cache above soft limit, evicting",
                 {"target": "orders_rs::menu_cache", "resident_mb": int(900 + 2100 * g)})]
    return {
        "id": "qh8-trap-canary-stable-oom-orders-rs", "service": "orders-rs",
        "title": "orders-rs: Argo holds canary 6.2.0 at weight 20 from 11:52:30; from 11:55:40 the stable 6.1.3 pods' menu cache grows until they are OOM-killed; the canary is clean",
        "start": "2026-12-09T10:22:00", "now": "2026-12-09T12:07:00", "one_in": 9,
        "expect": {"root_cause": "resource_saturation", "verdict": "deny"},
        "tags": ["rust", "axum", "tonic", "argo-canary", "two-versions", "stable-fails", "trap", "head-1-in-9"],
        "serving": {"orders-rs": [("6.1.3", None, 0, 1), ("6.2.0", "2026-12-09T11:52:30.105", 15, 0.2)]},
        "ledger": {"orders-rs": [("6.1.3", "2026-12-03T09:41:52.004"), ("6.2.0", "2026-12-09T11:52:30.105")]},
        "markers": [("orders-rs", "6.2.0", "6.1.3", "2026-12-09T11:52:30.105",
                     {"deployment.strategy": "canary", "argo.rollout.name": "orders-rs", "argo.rollout.step": 1,
                      "argo.rollout.canary.weight": 20})],
        "ops": ops, "fault": fault, "tick": tick,
        "alert": {"name": "OrdersLatencyAndErrors", "team": "orders", "starts": "2026-12-09T12:00:00",
                  "burn": ("annotation", "slo_burn_rate", "12.8")},
        "onset": "11:55:4x, the stable pods' cache growth",
        "story": "Argo Rollouts starts orders-rs 6.2.0 as a canary at weight 20 and pauses for analysis. Three minutes later the stable 6.1.3 pods (up five days) import the new winter menu and their unbounded menu cache grows until they are OOM-killed: every route slower on 6.1.3, 12% of its requests 503. The canary pods (fresh, and 6.2.0 bounds the cache) are clean. The ledger's rollback would abort the canary and send all traffic to the failing 6.1.3.",
    }


def callee_release():
    wrel = at("2026-12-10T12:33:09.061")

    def fault(w, t, svc, ver, call):
        if svc == "wallet-rs" and call["kind"] == "self" and ver == "4.0.0" and w.rng.random() < 0.4:
            m = "invariant violated: ledger hold not found for debit"
            return {"err": m, "log": m, "http": 500}
        return None
    wallet_op = {"name": "wallet.v1.Wallet/Debit", "method": "POST", "route": "/wallet.v1.Wallet/Debit",
                 "target": "/wallet.v1.Wallet/Debit", "rate": 0, "grpc_codes": {500: 13},
                 "calls": [{"kind": "sqlx", "name": "SELECT holds", "sql": "SELECT * FROM holds WHERE payment_id = $1 FOR UPDATE",
                            "host": PG_PAY, "ms": 2.2, "db": "wallet"},
                           {"kind": "sqlx", "name": "UPDATE wallets", "sql": "UPDATE wallets SET balance_minor = balance_minor - $2 WHERE id = $1",
                            "host": PG_PAY, "ms": 1.8, "db": "wallet"}]}
    ops = [rb_op("CheckoutsController#create", "POST", "/checkout", "/checkout", 45, [
        {"kind": "pg", "op": "SELECT", "sql": "SELECT \"carts\".* FROM \"carts\" WHERE \"carts\".\"id\" = $1 LIMIT $2", "host": PG_MAIN, "ms": 1.5},
        {"kind": "tonic", "service": "wallet.v1.Wallet", "method": "Debit", "host": "wallet-rs.payments.svc.cluster.local",
         "ms": 12, "callee": "wallet-rs", "callee_op": wallet_op, "fail_http": 502},
        {"kind": "pg", "op": "INSERT", "sql": "INSERT INTO \"orders\" (\"cart_id\", \"status\") VALUES ($1, $2) RETURNING \"id\"", "host": PG_MAIN, "ms": 2.0}]),
        rb_op("CheckoutsController#summary", "GET", "/checkout/summary", "/checkout/summary", 90, [
            {"kind": "pg", "op": "SELECT", "sql": "SELECT \"carts\".* FROM \"carts\" WHERE \"carts\".\"id\" = $1 LIMIT $2", "host": PG_MAIN, "ms": 1.3},
            {"kind": "redis", "cmd": "GET", "host": REDIS_MAIN, "ms": 0.4}])]
    return {
        "id": "qh8-trap-wallet-release-breaks-checkout-web", "service": "checkout-web",
        "title": "wallet-rs 4.0.0 (12:33:09) fails 40% of Debit with INTERNAL; checkout-web, itself released at 12:30:48 (copy changes), answers 502",
        "start": "2026-12-10T11:02:00", "now": "2026-12-10T12:47:00", "one_in": 6,
        "expect": {"root_cause": "bad_release", "verdict": "deny", "culprit": {"service": "wallet-rs", "verdict": "allow"}},
        "tags": ["ruby", "rails", "grpc", "rust", "tonic", "callee-release", "culprit", "caller-also-released", "trap", "head-1-in-6"],
        "serving": {"checkout-web": [("21.2.4", None, 0, 1), ("21.3.0", "2026-12-10T12:30:48.700", 75, 1)],
                    "wallet-rs": [("3.9.1", None, 0, 1), ("4.0.0", "2026-12-10T12:33:09.061", 60, 1)]},
        "ledger": {"checkout-web": [("21.2.4", "2026-12-07T16:00:41.210"), ("21.3.0", "2026-12-10T12:30:48.700")],
                   "wallet-rs": [("3.9.1", "2026-11-30T10:10:10.100"), ("4.0.0", "2026-12-10T12:33:09.061")]},
        "markers": [("checkout-web", "21.3.0", "21.2.4", "2026-12-10T12:30:48.700", {"deployment.strategy": "rollingUpdate"}),
                    ("wallet-rs", "4.0.0", "3.9.1", "2026-12-10T12:33:09.061", {"deployment.strategy": "rollingUpdate"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "CheckoutErrors", "team": "checkout", "starts": "2026-12-10T12:39:00",
                  "burn": ("label", "burnRate", "16.4")},
        "onset": "12:33:1x, the first wallet-rs 4.0.0 pods",
        "story": "wallet-rs 4.0.0 moves holds to a new table and looks them up before the backfill finished: 40% of Debit calls return INTERNAL. checkout-web calls Debit on every checkout and answers 502. checkout-web's own 21.3.0 (copy changes) finished rolling out a minute before wallet-rs began. Rolling checkout-web back changes nothing; rolling wallet-rs back does.",
    }


def surge():
    push = at("2026-12-10T19:00:00.000")

    def mult(t):
        return 1 + 5 * ramp(t, push, push + 3 * MIN) - 1.0 * ramp(t, push + 6 * MIN, push + 15 * MIN)

    def fault(w, t, svc, ver, call):
        k = mult(t)
        if k <= 1.01:
            return None
        g = (k - 1) / 5
        if call["kind"] == "pg" and w.rng.random() < 0.07 * g:
            m = "could not obtain a connection from the pool within 5.000 seconds (waited 5.001 seconds); all pooled connections were in use"
            return {"err": m, "fatal": True, "exc": ("ActiveRecord::ConnectionTimeoutError", m), "add": 5000 * MS}
        return {"mult": 1 + 2.5 * g}
    ops = [rb_op("OffersController#index", "GET", "/offers", "/offers?city=rotterdam", 120, [
        {"kind": "redis", "cmd": "GET", "host": REDIS_MAIN, "ms": 0.4},
        {"kind": "pg", "op": "SELECT", "sql": "SELECT \"offers\".* FROM \"offers\" WHERE \"offers\".\"city_id\" = $1 AND (ends_at > $2) ORDER BY rank LIMIT $3", "host": PG_MAIN, "ms": 6}]),
        rb_op("OffersController#show", "GET", "/offers/:id", "/offers/20931", 80, [
            {"kind": "pg", "op": "SELECT", "sql": "SELECT \"offers\".* FROM \"offers\" WHERE \"offers\".\"id\" = $1 LIMIT $2", "host": PG_MAIN, "ms": 1.2}]),
        rb_op("RedemptionsController#create", "POST", "/offers/:id/redeem", "/offers/20931/redeem", 15, [
            {"kind": "pg", "op": "UPDATE", "sql": "UPDATE \"offers\" SET \"redemptions_count\" = COALESCE(\"redemptions_count\", 0) + $1 WHERE \"offers\".\"id\" = $2", "host": PG_MAIN, "ms": 2.4},
            {"kind": "sidekiq", "queue": "mailers", "job": "RedemptionMailer", "ms": 0.7}])]
    return {
        "id": "qh8-trap-push-surge-offers-web", "service": "offers-web",
        "title": "a 19:00 push notification (\"2-for-1 Friday\") sends offers-web 6x its traffic on every route; 5.2.1 (Dutch strings) rolled out at 18:57:31",
        "start": "2026-12-10T17:28:00", "now": "2026-12-10T19:12:00", "one_in": 25,
        "expect": {"root_cause": "traffic_surge", "verdict": "deny"},
        "tags": ["ruby", "rails", "sidekiq", "surge", "ar-pool", "rolling-update", "trap", "head-1-in-25"],
        "serving": {"offers-web": [("5.2.0", None, 0, 1), ("5.2.1", "2026-12-10T18:57:31.902", 100, 1)]},
        "ledger": {"offers-web": [("5.2.0", "2026-12-06T08:30:00.000"), ("5.2.1", "2026-12-10T18:57:31.902")]},
        "markers": [("offers-web", "5.2.1", "5.2.0", "2026-12-10T18:57:31.902", {"deployment.strategy": "rollingUpdate"})],
        "ops": ops, "fault": fault, "surge": mult,
        "alert": {"name": "OffersLatency", "team": "growth", "starts": "2026-12-10T19:04:00",
                  "burn": ("label", "burnRate", "13.1")},
        "onset": "19:00:xx, the push",
        "story": "Marketing's push goes to 1.9M devices at 19:00: requests rise six-fold on every route within three minutes; Puma queues, queries slow, and at the peak 7% of queries wait 5 s for an ActiveRecord connection and fail. offers-web 5.2.1 (translations) finished rolling out 48 s before the push. Rolling back does not shed load.",
    }


def restart_marker():
    bad = at("2026-12-08T07:20:05.402")
    rs = at("2026-12-08T07:18:44.530")

    def fault(w, t, svc, ver, call):
        if call["kind"] != "faraday":
            return None
        if t >= bad and w.rng.random() < 0.5 * ramp(t, bad, bad + 40 * S):
            return {"attempts": 3, "backoff_ms": 100, "status": 503, "err": "",
                    "attempt_faults": {"status": 503, "err": ""}, "fatal": True, "http": 503, "attempt_ms": 900,
                    "log": "index shard fetch failed: HTTP status server error (503 Service Unavailable) for url (https://storage.googleapis.com/storage/v1/b/quill-search-index/o/shards%2F0042.idx)"}
        if t >= bad:
            return {"mult": 3}
        return None
    cold = lambda t: 0.25 + 0.5 * (1 - ramp(t, rs + 20 * S, rs + 8 * MIN)) if t > rs else 0.25
    ops = [rs_op("GET /v1/search", "GET", "/v1/search", "/v1/search?q=pad+thai", 180, [
        {"kind": "faraday", "method": "GET", "url": "https://storage.googleapis.com/storage/v1/b/quill-search-index/o/shards%2F0042.idx?alt=media",
         "host": "storage.googleapis.com", "ms": 60, "p": 0.12}], self_ms=12),
        rs_op("GET /v1/suggest", "GET", "/v1/suggest", "/v1/suggest?q=pa", 100, [
            {"kind": "faraday", "method": "GET", "url": "https://storage.googleapis.com/storage/v1/b/quill-search-index/o/suggest%2Ffst.bin?alt=media",
             "host": "storage.googleapis.com", "ms": 45, "p": 0.04}], self_ms=3)]
    spec = {
        "id": "qh8-trap-restart-marker-gcs-search-rs", "service": "search-rs",
        "title": "search-rs: a rollout restart at 07:18:44 writes a marker for the same 2.4.0; from 07:20:05 Cloud Storage answers 503 to half the index-shard reads",
        "start": "2026-12-08T05:50:00", "now": "2026-12-08T07:33:00", "one_in": 15,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["rust", "axum", "reqwest", "gcs", "restart-marker", "same-version", "trap", "head-1-in-15"],
        "serving": {"search-rs": [("2.4.0", None, 0, 1)]},
        "ledger": {"search-rs": [("2.3.9", "2026-11-30T13:00:00.000"), ("2.4.0", "2026-12-05T10:12:40.880")]},
        "markers": [("search-rs", "2.4.0", "2.4.0", "2026-12-08T07:18:44.530",
                     {"deployment.strategy": "restart", "argo.rollout.name": "search-rs"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "SearchAvailability", "team": "discovery", "starts": "2026-12-08T07:25:00",
                  "burn": ("annotation", "slo_burn_rate", "9.9")},
        "onset": "07:20:0x, GCS's first 503s",
        "story": "An on-call engineer runs `kubectl argo rollouts restart search-rs` at 07:18:44 to pick up a rotated secret; the notification hook writes a deployment marker for 2.4.0 over 2.4.0. From 07:20:05 Cloud Storage answers 503 to half the index-shard reads (after three tries) (a regional GCS incident); the restarted pods' cold caches read shards more often than usual. The last release (2.4.0) is three days old; rolling back to 2.3.9 does not touch GCS.",
    }
    # the cold cache after the restart reads shards more often (call probability by time)
    spec["ops"][0]["calls"][0]["p"] = cold
    return spec


# ---------------------------------------------------------------- twins (README.md, "Twins")

def twin_spanner_grpc():
    """The Spanner trap with otelgrpc's client spans under the library's spans (one per
    attempt, server.address spanner.googleapis.com, UNAVAILABLE 14): what the client
    writes when the application also passes otelgrpc's stats handler."""
    spec = spanner_outage()
    spec["id"] = "qh8-twin-spanner-grpc-spans-accounts-go"
    spec["title"] = spec["title"] + " (otelgrpc attempt spans under the library's spans)"
    for op in spec["ops"]:
        for c in op["calls"]:
            c["grpc_children"] = ("google.spanner.v1.Spanner", "ExecuteStreamingSql" if c["op"] == "Query" else "Commit",
                                  "spanner.googleapis.com")
    spec["tags"] = spec["tags"] + ["twin", "otelgrpc"]
    return spec


def twin_spanner_midrollout():
    """The Spanner trap with a slower rollout: 7.3.1 is still replacing 7.3.0 when the
    instance fails (both versions fail alike), the marker 95 s before the failure."""
    spec = spanner_outage()
    spec["id"] = "qh8-twin-spanner-mid-rollout-accounts-go"
    spec["title"] = "Cloud Spanner answers UNAVAILABLE from 13:07:00 while accounts-go 7.3.1 is still rolling out (from 13:05:25, 4 min)"
    spec["serving"] = {"accounts-go": [("7.3.0", None, 0, 1), ("7.3.1", "2026-12-08T13:05:25.120", 240, 1)]}
    spec["ledger"] = {"accounts-go": [("7.3.0", "2026-12-01T11:20:00.000"), ("7.3.1", "2026-12-08T13:05:25.120")]}
    spec["markers"] = [("accounts-go", "7.3.1", "7.3.0", "2026-12-08T13:05:25.120", {"deployment.strategy": "rollingUpdate"})]
    spec["tags"] = spec["tags"] + ["twin", "mid-rollout"]
    return spec


def twin_gcs_go():
    """Cloud Storage answering 503 backendError to receipts-go (Go's storage client:
    internal spans, gcp.client.service storage, no host) 70 s after receipts-go 2.6.0
    (a PDF font) finished rolling out."""
    bad = at("2026-12-09T16:21:40.250")

    def fault(w, t, svc, ver, call):
        if call["kind"] == "gcs" and t >= bad and w.rng.random() < 0.5 * ramp(t, bad, bad + 30 * S):
            m = "googleapi: Error 503: We encountered an internal error. Please try again., backendError"
            return {"err": m, "fatal": True, "mult": 8, "attempts": 3, "http": 503, "exc": ("*googleapi.Error", m)}
        return None
    ops = [go_op("GET", "/v1/receipts/{id}", "/v1/receipts/rc_11f0", 140, [
        {"kind": "spanner", "op": "Query", "sql": "SELECT ReceiptId, ObjectName FROM Receipts WHERE ReceiptId = @id", "ms": 4},
        {"kind": "gcs", "bucket": "quill-receipts-prod", "ms": 35}]),
        go_op("GET", "/v1/receipts", "/v1/receipts?order=o_77", 40, [
            {"kind": "spanner", "op": "Query", "sql": "SELECT ReceiptId FROM Receipts WHERE OrderId = @order", "ms": 5}])]
    return {
        "id": "qh8-twin-gcs-backend-error-receipts-go", "service": "receipts-go",
        "title": "Cloud Storage answers 503 backendError to half of receipts-go's object reads from 16:21:40; receipts-go 2.6.0 (a PDF font) finished rolling out at 16:20:30",
        "start": "2026-12-09T14:52:00", "now": "2026-12-09T16:34:00", "one_in": 10,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["go", "otelhttp", "gcs", "spanner", "gcp-client-tracing", "no-host", "rolling-update", "trap", "twin", "head-1-in-10"],
        "serving": {"receipts-go": [("2.5.7", None, 0, 1), ("2.6.0", "2026-12-09T16:19:40.008", 50, 1)]},
        "ledger": {"receipts-go": [("2.5.7", "2026-12-02T10:00:00.000"), ("2.6.0", "2026-12-09T16:19:40.008")]},
        "markers": [("receipts-go", "2.6.0", "2.5.7", "2026-12-09T16:19:40.008", {"deployment.strategy": "rollingUpdate"})],
        "ops": ops, "fault": fault,
        "alert": {"name": "ReceiptsAvailability", "team": "payments", "starts": "2026-12-09T16:27:00",
                  "burn": ("annotation", "slo_burn_rate", "15.2")},
        "onset": "16:21:4x, GCS's first 503s",
        "story": "A regional Cloud Storage incident answers 503 backendError to half of receipts-go's object reads; the Go client retries inside its span and still fails, so receipts-go answers 503. receipts-go 2.6.0 (a font for PDF receipts) finished rolling out 70 s before. Rolling back does not touch Cloud Storage.",
    }


def twin_memorystore_sparse():
    """The Memorystore trap sampled 1 in 40 with 40 s of refused connections (not 80 s)
    before the cold primary's timeouts: a handful of refusals open the peer's failures."""
    spec = memorystore()
    bad = at("2026-12-09T09:44:10.077")
    inner = spec["fault"]

    def fault(w, t, svc, ver, call):
        if call["kind"] == "redis" and bad + 40 * S <= t < bad + 80 * S:
            if w.rng.random() < 0.22:
                m = "Waited 1.0 seconds"
                return {"err": m, "fatal": True, "exc": ("Redis::TimeoutError", m), "add": 1000 * MS}
            return {"mult": 5}
        return inner(w, t, svc, ver, call)
    spec["fault"] = fault
    spec["id"] = "qh8-twin-memorystore-sparse-session-web"
    spec["title"] = "Memorystore fails over at 09:44:10 (40 s refused, then timeouts); session-web sampled 1 in 40; 9.14.2 finished at 09:43:03"
    spec["one_in"] = 40
    spec["tags"] = [x for x in spec["tags"] if not x.startswith("head-")] + ["twin", "head-1-in-40"]
    return spec


INCIDENTS = [canary_panic, faraday_storm, prompt_assist, pubsub_config, back_to_back, kafka_consumer,
             spanner_outage, memorystore, canary_stable, callee_release, surge, restart_marker]
def twin_canary_outside(shift, name):
    """The canary trap's twin for the version-confined onset (session 19): the same canary of
    ledger-rs 3.4.0 at weight 25, clean; from shift seconds after its start a rates feed job
    leaves fx_rates without the pairs of one region, and every version (the stable 3.3.2 too)
    panics on 60% of its POST /v1/transfers. A rollback to 3.3.2 undoes nothing."""
    spec = canary_panic()
    rel = at("2026-12-08T10:14:22.318")

    def fault(w, t, svc, ver, call):
        if call["kind"] == "self" and call["op"] == "POST /v1/transfers" and t >= rel + shift * S and w.rng.random() < 0.6:
            msg = "panicked at src/transfer/fx.rs:198:37: called `Option::unwrap()` on a `None` value"
            return {"err": msg, "exc": ("panic", msg), "frames": PANIC + ["ledger_rs::transfer::fx::rate_for"],
                    "log": "request handler panicked: " + msg}
        return None
    spec["fault"] = fault
    spec["id"] = "qh8-twin-canary-%s-transfers-ledger-rs" % name
    spec["title"] = ("ledger-rs: the fx_rates feed drops a region's pairs %+d s from the 3.4.0 canary's start; "
                     "every version panics on 60%% of POST /v1/transfers" % shift)
    spec["expect"] = {"root_cause": "dependency_outage", "verdict": "deny"}
    spec["tags"] = spec["tags"] + ["twin", "every-version-fails", "trap"]
    spec["onset"] = "%+d s from the canary's start, on both versions" % shift
    spec["story"] = ("The fx_rates feed job drops a region's currency pairs; every ledger-rs version unwraps the "
                     "missing rate and panics. The canary started seconds apart from it; aborting it sends every "
                     "request to 3.3.2, which fails the same way.")
    return spec


TWINS = {"spanner-grpc": twin_spanner_grpc, "spanner-mid-rollout": twin_spanner_midrollout, "gcs-go": twin_gcs_go,
         "memorystore-sparse": twin_memorystore_sparse,
         "canary-outside-plus8s": lambda: twin_canary_outside(8, "outside-plus8s"),
         "canary-outside-minus10s": lambda: twin_canary_outside(-10, "outside-minus10s")}



def main():
    if sys.argv[1:2] == ["--twin"]:
        for name in sys.argv[3:]:
            generate(TWINS[name], sys.argv[2])
        return
    only = set(sys.argv[1:])
    for make in INCIDENTS:
        if not only or make().get("id") in only:
            generate(make, HERE)


if __name__ == "__main__":
    main()
