#!/usr/bin/env python3
"""Generates e2e/incidents-heldout14: a language-learning app ("Parla") on Google Cloud Run.

Run from this folder: `python3 gen.py` (writes every incident here). Seeded (SEED below): byte for
byte the same on every run, whatever PYTHONHASHSEED (every draw comes from a random.Random seeded
with a string; no set or dict order of unhashed keys decides anything). Files over 3 MB are written
gzip'd with no name and mtime 0.

Style (README.md): fully managed Cloud Run in europe-west1, no node, no pod, no host. Each deploy
makes a new immutable **revision** (`lesson-api-00232-taw`) and that revision name is the version
(service.version = faas.version = $K_REVISION). Cloud Deploy moves traffic, either at once or as a
canary (10% or 25%, then 100%); its post-deploy hook writes the deployment.marker. Instances are
`faas.instance` ids that belong to one revision. Three runtimes: Deno 2 with its built-in OTel
(server and fetch spans named by the METHOD only, no http.route), Python 3.12 (Flask and FastAPI
instrumentations with the OLD HTTP conventions: http.method, http.status_code, net.peer.name) and
Go (otelhttp with the stable conventions). Google APIs through gRPC (Speech-to-Text v2, Firestore:
rpc.grpc.status_code), Vertex AI Gemini over REST, Google Play's Developer API, Cloud SQL for
PostgreSQL through the connector's unix socket, Memorystore for Redis through a Serverless VPC
connector, Pub/Sub PUSH subscriptions (Google's push endpoint POSTs to the service; a 2xx acks).
HEAD sampling: the SDKs' parentbased_traceidratio at a per-incident ratio (the root decides, so the
kept traffic is the traffic); logs go to Cloud Logging unsampled, with trace ids of traces that were
often not kept. Timestamps with nanoseconds and a +01:00 offset (CET).
"""
import gzip
import hashlib
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone

SEED = 140529
HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000
MS = 1000 * US
S = 1000 * MS
MIN = 60 * S
CET = timezone(timedelta(hours=1))
DAY = "2026-12-07T"
D8 = "2026-12-08T"  # the league rollover runs past midnight
PROJECT = "parla-prod"
REGION = "europe-west1"


def ts(ns):
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, CET).strftime("%Y-%m-%dT%H:%M:%S") + ".%09d+01:00" % frac


def at(s):
    if "T" not in s:
        s = DAY + s
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=CET)
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


# ---------------------------------------------------------------- services and resources

RUNTIME = {
    "deno": {"telemetry.sdk.language": "deno", "telemetry.sdk.name": "deno-opentelemetry",
             "telemetry.sdk.version": "2.1.4", "process.runtime.name": "deno", "process.runtime.version": "2.1.4"},
    "python": {"telemetry.sdk.language": "python", "telemetry.sdk.name": "opentelemetry",
               "telemetry.sdk.version": "1.29.0", "telemetry.auto.version": "0.50b0",
               "process.runtime.name": "cpython", "process.runtime.version": "3.12.8"},
    "go": {"telemetry.sdk.language": "go", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.33.0",
           "process.runtime.name": "go", "process.runtime.version": "go1.23.4"},
}
SERVICES = {  # service -> (runtime, instances per revision)
    "lesson-api": ("deno", 6),
    "tutor-chat": ("deno", 4),
    "profile-api": ("python", 5),
    "speech-scorer": ("python", 6),
    "billing-webhooks": ("go", 3),
    "streak-worker": ("go", 4),
}


def resource(svc, rev, inst):
    rt = SERVICES[svc][0]
    r = {"service.name": svc, "service.version": rev, "service.namespace": "parla", "service.instance.id": inst,
         "deployment.environment.name": "prod", "cloud.provider": "gcp", "cloud.platform": "gcp_cloud_run",
         "cloud.region": REGION, "cloud.account.id": PROJECT, "faas.name": svc, "faas.version": rev,
         "faas.instance": inst}
    r.update(RUNTIME[rt])
    return r


def other(name, extra=None):
    """The resource of a log source that is not one of our services (audit logs, jobs, Google's status)."""
    r = {"service.name": name, "cloud.provider": "gcp", "cloud.account.id": PROJECT, "cloud.region": REGION}
    r.update(extra or {})
    return r


class World:
    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, self.id))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.ratio = spec["ratio"]
        self.spans, self.logs = [], []
        self.fx = spec.get("fx", lambda w, t, svc, rev, op, ctx: None)
        # svc -> list of (revision, marker time or None, traffic steps [(time, share of the new one)])
        self.rel = {}
        self.inst = {}
        for svc, rows in spec["releases"].items():
            out = []
            for row in rows:
                rev, when = row[0], row[1]
                steps = row[2] if len(row) > 2 else None
                b = at(when) if when else None
                if b is not None and steps is None:
                    steps = [(b, 1.0)]
                elif steps is not None:
                    steps = [(at(x), p) for x, p in steps]
                out.append((rev, b, steps))
                r = random.Random("inst/%s/%s" % (self.id, rev))
                self.inst[rev] = [hexid(r, 96) for _ in range(SERVICES[svc][1])]
            self.rel[svc] = out

    def revision(self, svc, t):
        rows = self.rel[svc]
        cur = rows[0][0]
        for rev, b, steps in rows[1:]:
            if not steps or t < steps[0][0]:
                continue
            share = 0.0
            for st, p in steps:
                if t >= st:
                    share = p
            if share >= 1.0 or self.rng.random() < share:
                cur = rev
        return cur

    def log(self, t, res, sev, body, trace="", span="", attrs=None):
        num = {"DEBUG": 5, "INFO": 9, "WARNING": 13, "ERROR": 17, "CRITICAL": 21, "NOTICE": 10}[sev]
        self.logs.append({"timestamp": ts(t), "observed_timestamp": ts(t + 41 * MS), "severity_text": sev,
                          "severity_number": num, "body": body, "trace_id": trace, "span_id": span,
                          "resource": res, "attributes": attrs or {}})

    def run(self):
        rng = self.rng
        for m0 in range(self.start, self.now, MIN):
            for svc, op, rate in self.spec["traffic"]:
                lam = rate(self, m0) if callable(rate) else rate
                for _ in range(poisson(rng, lam)):
                    t = m0 + rng.randrange(MIN)
                    if t < self.now:
                        request(self, t, svc, op)
        for t, res, sev, body in self.spec.get("extra_logs", lambda w: [])(self):
            if t < self.now:
                self.log(t, res, sev, body)
        for svc, rows in self.rel.items():
            prev = rows[0][0]
            for rev, b, steps in rows[1:]:
                if b is not None and b < self.now:
                    marker(self, svc, rev, prev, b, steps)
                prev = rev
        for extra in self.spec.get("extra_spans", lambda w: [])(self):
            self.spans.append(extra)
        self.spans.sort(key=lambda r: (r["timestamp"], r["trace_id"], r["span_id"]))
        self.logs.sort(key=lambda r: (r["timestamp"], r["body"]))


def rollout_id(svc, b):
    d = datetime.fromtimestamp(b // S, CET)
    return "projects/%s/locations/%s/deliveryPipelines/%s/releases/rel-%s/rollouts/rel-%s-to-prod-0001" % (
        PROJECT, REGION, svc, d.strftime("%m%d-%H%M"), d.strftime("%m%d-%H%M"))


def marker_span(w, svc, rev, prev, b, steps, extra=None):
    rng = w.rng
    strategy = "standard" if not steps or len(steps) == 1 else "canary %s" % "/".join(
        "%d" % round(p * 100) for _, p in steps)
    attrs = {"deployment.version": rev, "deployment.previous_version": prev, "deployment.id": rollout_id(svc, b),
             "deployment.environment.name": "prod", "deployment.strategy": strategy,
             "cloud_deploy.target": "prod", "cloud_deploy.phase": "canary-%d" % round(steps[0][1] * 100) if steps and steps[0][1] < 1 else "stable",
             "vcs.ref.head.revision": hashlib.sha1(("%s/%s" % (svc, rev)).encode()).hexdigest()[:12]}
    attrs.update(extra or {})
    res = {"service.name": svc, "service.version": rev, "service.namespace": "parla",
           "deployment.environment.name": "prod", "cloud.provider": "gcp", "cloud.platform": "gcp_cloud_run",
           "cloud.region": REGION, "cloud.account.id": PROJECT, "faas.name": svc, "faas.version": rev,
           "telemetry.sdk.name": "cloud-deploy-postdeploy-hook"}
    return {"timestamp": ts(b), "trace_id": hexid(rng, 32), "span_id": hexid(rng, 16), "parent_span_id": "",
            "name": "deployment.marker", "kind": 1, "duration_nano": 1200 * MS, "has_error": False,
            "status_code": 0, "status_message": "", "resource": res, "attributes": attrs}


def marker(w, svc, rev, prev, b, steps):
    w.spans.append(marker_span(w, svc, rev, prev, b, steps))


# ---------------------------------------------------------------- one request: a tree of spans

class Trace:
    def __init__(self, w, svc, rev):
        self.w, self.svc, self.rev = w, svc, rev
        self.inst = w.inst[rev][w.rng.randrange(len(w.inst[rev]))]
        self.id = hexid(w.rng, 32)
        self.rows = []
        self.logs = []
        self.res = resource(svc, rev, self.inst)
        self.err = False

    def span(self, parent, name, kind, start, dur, attrs, err=False, msg="", sid=None, events=None):
        sid = sid or hexid(self.w.rng, 16)
        row = {"timestamp": ts(start), "trace_id": self.id, "span_id": sid, "parent_span_id": parent,
               "name": name, "kind": kind, "duration_nano": int(dur), "has_error": bool(err),
               "status_code": 2 if err else 0, "status_message": msg if err else "", "resource": self.res,
               "attributes": attrs}
        if events:
            row["events"] = events
        self.rows.append(row)
        self.err = self.err or bool(err)
        return sid


def exc_event(t, typ, msg):
    return [{"name": "exception", "timestamp": ts(t),
             "attributes": {"exception.type": typ, "exception.message": msg}}]


MEMSTORE = "10.12.0.4"
CLOUDSQL = "/cloudsql/%s:%s:parla-pg-17" % (PROJECT, REGION)
AIP = "%s-aiplatform.googleapis.com" % REGION
SPEECH = "%s-speech.googleapis.com" % REGION
GEMINI_URL = "https://%s/v1/projects/%s/locations/%s/publishers/google/models/%%s:generateContent" % (AIP, PROJECT, REGION)

# op -> (method, route, path template, children). Children: (kind, args...)
OPS = {
    ("lesson-api", "lesson"): ("GET", "/v2/lessons/:id", "/v2/lessons/%d", [("redis", "GET", "lesson:%d"), ("http", "content", "GET", "https://cms.parla.app/api/v3/lessons/%d")]),
    ("lesson-api", "complete"): ("POST", "/v2/lessons/:id/complete", "/v2/lessons/%d/complete", [("redis", "SET", "progress:%d"), ("http", "pubsub", "POST", "https://pubsub.googleapis.com/v1/projects/parla-prod/topics/lesson-completed:publish")]),
    ("lesson-api", "next"): ("GET", "/v2/path/next", "/v2/path/next", [("redis", "GET", "path:%d"), ("http", "recs", "POST", "https://retail.googleapis.com/v2/projects/parla-prod/locations/global/catalogs/default_catalog/servingConfigs/%s:predict")]),
    ("tutor-chat", "reply"): ("POST", "/v1/tutor/reply", "/v1/tutor/reply", [("http", "profile", "GET", "https://profile-api-7xq2kd3pfa-ew.a.run.app/v1/me"), ("llm",)]),
    ("profile-api", "me"): ("GET", "/v1/me", "/v1/me", [("redis", "GET", "profile:%d"), ("pg", "SELECT", "learners")]),
    ("profile-api", "settings"): ("PATCH", "/v1/me/settings", "/v1/me/settings", [("pg", "UPDATE", "learner_settings"), ("redis", "DEL", "profile:%d")]),
    ("speech-scorer", "score"): ("POST", "/v1/score", "/v1/score", [("decode",), ("grpc", "speech", "google.cloud.speech.v2.Speech", "Recognize")]),
    ("billing-webhooks", "rtdn"): ("POST", "/push/rtdn", "/push/rtdn", [("pg", "SELECT", "purchases"), ("http", "play", "GET", "https://androidpublisher.googleapis.com/androidpublisher/v3/applications/app.parla.android/purchases/subscriptionsv2/tokens/%s"), ("pg", "UPDATE", "entitlements")]),
    ("streak-worker", "completed"): ("POST", "/push/lesson-completed", "/push/lesson-completed", [("grpc", "firestore", "google.firestore.v1.Firestore", "BeginTransaction"), ("grpc", "firestore", "google.firestore.v1.Firestore", "Commit")]),
}
BASE_MS = {"redis": 0.9, "pg": 2.4, "http": 45.0, "grpc": 38.0, "llm": 1400.0, "decode": 22.0}
SPEECH_BASE_MS = 620.0
PLAY_BASE_MS = 160.0
PUSH_SUBS = {"billing-webhooks": "rtdn-push", "streak-worker": "lesson-completed-push"}


def child(tr, kind, args, rng, status=None):
    """Name, kind and attributes of one client span in the service's runtime's conventions."""
    rt = SERVICES[tr.svc][0]
    n = rng.randrange(1, 90000)
    if kind == "redis":
        op, key = args
        if rt == "python":
            return op, 3, {"db.system": "redis", "db.statement": "%s ?" % op, "db.redis.database_index": 0,
                           "net.peer.name": MEMSTORE, "net.peer.port": 6379, "net.transport": "ip_tcp"}
        # Deno: the team's own span around ioredis (Deno's built-in OTel instruments no Redis client)
        return "redis %s" % op, 3, {"db.system": "redis", "db.operation.name": op, "db.query.text": "%s %s" % (op, key % n if "%" in key else key),
                                    "server.address": MEMSTORE, "server.port": 6379}
    if kind == "pg":
        op, table = args
        stmt = {"SELECT": "SELECT * FROM %s WHERE id = %%s" % table, "UPDATE": "UPDATE %s SET updated_at = now() WHERE id = %%s" % table}[op]
        if rt == "python":
            return op, 3, {"db.system": "postgresql", "db.name": "parla", "db.user": "profile_api", "db.statement": stmt,
                           "net.peer.name": CLOUDSQL, "net.transport": "unix"}
        return "%s %s" % (op, table), 3, {"db.system": "postgresql", "db.namespace": "parla", "db.operation.name": op,
                                          "db.collection.name": table, "db.query.text": stmt.replace("%s", "$1"),
                                          "server.address": "%s:%s:parla-pg-17" % (PROJECT, REGION)}
    if kind == "http":
        peer, method, url = args
        if "%d" in url:
            url = url % n
        elif "%s" in url:
            url = url % (tr.ctx.get("serving_config", "lessons-v1") if peer == "recs" else hexid(rng, 24))
        host = url.split("/")[2]
        a = {"http.request.method": method, "url.full": url, "server.address": host, "server.port": 443}
        if status:
            a["http.response.status_code"] = status
        if rt == "deno":
            return method, 3, a
        return method, 3, a
    if kind == "grpc":
        peer, svcname, method = args
        host = SPEECH if peer == "speech" else "firestore.googleapis.com"
        a = {"rpc.system": "grpc", "rpc.service": svcname, "rpc.method": method,
             "rpc.grpc.status_code": status if status is not None else 0}
        if rt == "python":
            a.update({"net.peer.name": host, "net.peer.port": 443})
            return "/%s/%s" % (svcname, method), 3, a
        a.update({"server.address": host, "server.port": 443, "gcp.client.service": "firestore",
                  "gcp.client.repo": "googleapis/google-cloud-go", "gcp.client.version": "1.17.0"})
        return "%s/%s" % (svcname, method), 3, a
    if kind == "llm":
        model = tr.ctx.get("model", "gemini-2.0-flash")
        a = {"http.request.method": "POST", "url.full": GEMINI_URL % model, "server.address": AIP, "server.port": 443,
             "gen_ai.system": "vertex_ai", "gen_ai.operation.name": "chat", "gen_ai.request.model": model,
             "gen_ai.request.temperature": 0.4, "gen_ai.request.max_tokens": 512}
        if status:
            a["http.response.status_code"] = status
        return "POST", 3, a
    if kind == "decode":
        return "audio.decode", 1, {"code.namespace": "parla_scorer.audio", "code.function": "decode_upload",
                                   "audio.codec": tr.ctx.get("codec", "aac"), "audio.duration_ms": int(lognormal(rng, 3400, 0.3))}
    raise ValueError(kind)


def ok_status(kind):
    return {"http": 200, "llm": 200, "grpc": 0}.get(kind)


def request(w, t, svc, op):
    rng = w.rng
    rev = w.revision(svc, t)
    tr = Trace(w, svc, rev)
    tr.ctx = {"codec": "opus" if rng.random() < 0.42 else "aac", "lang": rng.choice(["es", "fr", "de", "it", "pt"]),
              "platform": "ios" if rng.random() < 0.47 else "android"}
    f = w.fx(w, t, svc, rev, op, tr.ctx) or {}
    tr.ctx.update(f.get("ctx", {}))
    method, route, path, children = OPS[(svc, op)]
    rt = SERVICES[svc][0]
    root = hexid(rng, 16)
    cur = t + int(lognormal(rng, 0.4) * MS) + int(f.get("queue_ms", 0) * MS * rng.uniform(0.5, 1.5))
    status, msg, exc = 200 if method != "POST" or svc not in PUSH_SUBS else 204, "", None
    for ci, (kind, *args) in enumerate(children):
        cf = f.get("child", {}).get(ci) or f.get("child", {}).get(kind) or {}
        attempts = 1 + cf.get("retries", 0)
        for a in range(attempts):
            base = BASE_MS[kind]
            if kind == "grpc" and args[0] == "speech":
                base = SPEECH_BASE_MS
            if kind == "http" and args[0] == "play":
                base = PLAY_BASE_MS
            dur = lognormal(rng, base * cf.get("slow", 1.0)) * MS
            failed = rng.random() < cf.get("err", 0.0)
            cstatus = cf.get("status", 503) if failed else ok_status(kind)
            name, k, attrs = child(tr, kind, args, rng, cstatus)
            attrs = dict(attrs)
            attrs.update(cf.get("attrs", {}))
            if failed:
                attrs.update(cf.get("err_attrs", {}))
            if a > 0 and cf.get("resend"):
                attrs["http.request.resend_count"] = a
            if failed and cf.get("timeout_ms"):
                dur = cf["timeout_ms"] * MS * rng.uniform(1.0, 1.02)
            if kind == "llm" and "llm" in f:
                attrs.update(f["llm"](rng, tr.ctx))
            elif kind == "llm":
                attrs.update(llm_ok(rng, tr.ctx))
            cmsg = cf.get("msg", "") if failed else ""
            cerr = failed and cf.get("span_error", True)
            tr.span(root, name, k, cur, dur, attrs, err=cerr, msg=cmsg,
                    events=exc_event(cur + int(dur), cf["exc"], cmsg) if cerr and cf.get("exc") else None)
            cur += int(dur) + int(0.3 * MS)
            if not failed:
                break
            if cf.get("backoff_ms"):
                cur += int(cf["backoff_ms"] * MS)
        if failed and cf.get("fatal", True):
            status, msg, exc = cf.get("root_status", 500), cf.get("root_msg", cmsg), cf.get("root_exc", cf.get("exc"))
            break
    if status < 500 and rng.random() < f.get("err", 0.0):
        status, msg, exc = f.get("status", 500), f.get("msg", ""), f.get("exc")
    cur += int(lognormal(rng, f.get("self_ms", 3.0)) * MS)
    dur = cur - t
    failed = status >= 500
    n = rng.randrange(1, 90000)
    if rt == "python":
        attrs = {"http.method": method, "http.route": route, "http.target": path % n if "%d" in path else path,
                 "http.scheme": "https", "http.status_code": status, "http.host": "%s-7xq2kd3pfa-ew.a.run.app" % svc,
                 "http.flavor": "1.1", "net.host.port": 8080,
                 "http.user_agent": "Parla/7.14.0 (%s)" % ("iPhone; iOS 18.1" if tr.ctx["platform"] == "ios" else "Android 15; Pixel 8")}
        name = "%s %s" % (method, route)
    elif rt == "deno":
        attrs = {"http.request.method": method, "url.full": "https://api.parla.app%s" % (path % n if "%d" in path else path),
                 "url.scheme": "https", "url.path": path % n if "%d" in path else path, "http.response.status_code": status,
                 "network.protocol.version": "1.1", "server.address": "api.parla.app",
                 "user_agent.original": "Parla/7.14.0 (%s)" % ("iPhone; iOS 18.1" if tr.ctx["platform"] == "ios" else "Android 15; Pixel 8")}
        name = method  # Deno's built-in OTel names a server span by its method only
    else:
        attrs = {"http.request.method": method, "http.route": route, "url.path": path, "url.scheme": "https",
                 "http.response.status_code": status, "server.address": "%s-7xq2kd3pfa-ew.a.run.app" % svc,
                 "network.protocol.version": "1.1",
                 "user_agent.original": "APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)"}
        name = "%s %s" % (method, route)
        attrs.update({"messaging.system": "gcp_pubsub", "messaging.operation.type": "process",
                      "messaging.destination.subscription.name": "projects/%s/subscriptions/%s" % (PROJECT, PUSH_SUBS[svc]),
                      "messaging.message.id": str(13000000000000000 + rng.randrange(10 ** 15)),
                      "messaging.gcp_pubsub.message.delivery_attempt": f.get("attempt", 1) if not callable(f.get("attempt")) else f["attempt"](rng)})
    attrs.update(f.get("root_attrs", {}))
    if "root_attr_fn" in f:
        attrs.update(f["root_attr_fn"](rng, tr.ctx))
    tr.span("", name, 2, t, dur, attrs, err=failed, msg=msg if failed else "", sid=root,
            events=exc_event(t + dur, exc, msg) if failed and exc else None)
    if failed and f.get("log"):
        body = f["log"](rng, tr) if callable(f["log"]) else f["log"]
        tr.logs.append((t + dur, "ERROR", body, root))
    for lt, sev, body, sid in tr.logs:
        w.log(lt, tr.res, sev, body, tr.id, sid, {"logging.googleapis.com/trace": "projects/%s/traces/%s" % (PROJECT, tr.id)})
    # head sampling: parentbased_traceidratio at the root; the decision is the trace id's
    if (int(tr.id[16:], 16) / 2 ** 64) < w.ratio:
        w.spans.extend(tr.rows)


def llm_ok(rng, ctx):
    return {"gen_ai.response.model": "gemini-2.0-flash-001", "gen_ai.usage.input_tokens": int(lognormal(rng, 1250, 0.2)),
            "gen_ai.usage.output_tokens": int(lognormal(rng, 210, 0.35)), "gen_ai.response.finish_reasons": ["STOP"]}


def tutor_quality(good_target=0.93, good_level=0.9):
    def fn(rng, ctx):
        return {"tutor.prompt.template": ctx.get("template", "tutor-system-v8"), "tutor.target_language": ctx["lang"],
                "tutor.reply.in_target_language": rng.random() < ctx.get("p_target", good_target),
                "tutor.reply.cefr_level_ok": rng.random() < ctx.get("p_level", good_level)}
    return fn


# ---------------------------------------------------------------- the right rollbacks

def A_lesson_audio(w, t, svc, rev, op, ctx):
    if svc == "lesson-api" and rev == "lesson-api-00232-taw" and op == "lesson" and w.rng.random() < 0.38:
        m = "TypeError: Cannot read properties of undefined (reading 'audioUrl')"
        return {"err": 1.0, "status": 500, "msg": m, "exc": "TypeError",
                "log": lambda rng, tr: "%s\n    at renderLesson (file:///app/src/lessons/render.ts:88:41)\n    at async handler (file:///app/src/routes/lessons.ts:31:18)" % m}


def A_profile_redis_host(w, t, svc, rev, op, ctx):
    if svc == "profile-api" and rev == "profile-api-00118-lup":
        return {"child": {"redis": {"err": 1.0, "timeout_ms": 2000, "msg": "Timeout connecting to server", "exc": "redis.exceptions.TimeoutError",
                                    "err_attrs": {"net.peer.name": "10.12.8.4"}, "attrs": {"net.peer.name": "10.12.8.4"},
                                    "root_status": 503, "root_msg": "redis.exceptions.TimeoutError: Timeout connecting to server"}},
                "log": lambda rng, tr: "redis.exceptions.TimeoutError: Timeout connecting to server (REDIS_HOST=10.12.8.4:6379)"}


def A_tutor_prompt(w, t, svc, rev, op, ctx):
    if svc != "tutor-chat":
        return None
    bad = rev == "tutor-chat-00145-mep"
    c = {"template": "tutor-system-v9" if bad else "tutor-system-v8", "p_target": 0.41 if bad else 0.93,
         "p_level": 0.52 if bad else 0.9}

    def llm(rng, ctx):
        d = llm_ok(rng, ctx)
        if bad:
            d["gen_ai.usage.input_tokens"] = int(lognormal(rng, 2150, 0.2))
            d["gen_ai.usage.output_tokens"] = int(lognormal(rng, 430, 0.35))
        return d
    return {"ctx": c, "llm": llm, "root_attr_fn": tutor_quality()}


def A_billing_retry(w, t, svc, rev, op, ctx):
    if svc == "billing-webhooks" and rev == "billing-webhooks-00077-ciz":
        return {"child": {1: {"err": 0.78, "retries": 5, "resend": True, "timeout_ms": 400, "backoff_ms": 0,
                              "status": None, "msg": "context deadline exceeded", "exc": "*url.Error",
                              "root_status": 500, "root_msg": "playapi: get subscription: Get \"https://androidpublisher.googleapis.com/...\": context deadline exceeded",
                              "slow": 1.9}},
                "log": lambda rng, tr: '{"severity":"ERROR","message":"rtdn: verify purchase failed after 6 attempts","error":"context deadline exceeded","attempts":6}',
                "attempt": lambda rng: 1 + int(rng.random() < 0.35)}


def A_speech_decoder(w, t, svc, rev, op, ctx):
    if svc == "speech-scorer" and rev == "speech-scorer-00064-dov" and ctx["codec"] == "opus" and ctx["platform"] == "ios":
        m = "soundfile.LibsndfileError: Error opening <_io.BytesIO object at 0x7f3a2c1e8d10>: Format not recognised."
        return {"child": {0: {"err": 0.93, "msg": m, "exc": "soundfile.LibsndfileError", "root_status": 500}},
                "log": lambda rng, tr: "Traceback (most recent call last):\n  File \"/app/parla_scorer/audio.py\", line 57, in decode_upload\n    data, sr = sf.read(io.BytesIO(blob))\n%s" % m}


# ---------------------------------------------------------------- the traps

def T_speech_quota(w, t, svc, rev, op, ctx):
    if svc == "speech-scorer" and t >= at("10:31:50"):
        p = 0.44 * ramp(t, at("10:31:50"), at("10:33:00"))
        m = "Quota exceeded for quota metric 'Recognize requests' and limit 'Recognize requests per minute per region' of service 'speech.googleapis.com' for consumer 'project_number:418223079916'."
        return {"child": {1: {"err": p, "status": 8, "msg": m, "exc": "google.api_core.exceptions.ResourceExhausted",
                              "root_status": 503, "root_msg": "429 " + m}},
                "log": lambda rng, tr: "google.api_core.exceptions.ResourceExhausted: 429 %s" % m}


def T_speech_quota_logs(w):
    out = []
    job = other("transcript-backfill", {"cloud.platform": "gcp_cloud_run_job", "gcp.cloud_run.job.execution": "transcript-backfill-x7k2p"})
    out.append((at("10:31:41.208"), job, "INFO", "Starting backfill of 1,840,000 lesson recordings (model=long, region=europe-west1, concurrency=400)"))
    for i in range(30):
        out.append((at("10:32:10") + i * 40 * S, job, "INFO", "backfill progress: %d recordings transcribed" % (5200 * (i + 1))))
    audit = other("cloudaudit.googleapis.com")
    out.append((at("10:31:38.556"), audit, "NOTICE", "run.googleapis.com/google.cloud.run.v2.Jobs.RunJob by data-eng-airflow@parla-prod.iam.gserviceaccount.com: projects/parla-prod/locations/europe-west1/jobs/transcript-backfill"))
    return out


def T_memorystore_failover(w, t, svc, rev, op, ctx):
    if svc == "lesson-api" and at("13:44:20") <= t < at("13:51:40"):
        p = 0.7 if t < at("13:45:10") else 0.22
        if op == "complete":
            return {"child": {"redis": {"err": p, "msg": "READONLY You can't write against a read only replica.", "exc": "ReplyError", "root_status": 503}},
                    "log": lambda rng, tr: "ReplyError: READONLY You can't write against a read only replica. command=SET"}
        return {"child": {"redis": {"err": p * 0.8, "timeout_ms": 1500, "msg": "connect ETIMEDOUT 10.12.0.4:6379", "exc": "Error", "root_status": 503}},
                "log": lambda rng, tr: "Error: connect ETIMEDOUT 10.12.0.4:6379 (ioredis reconnecting)"}


def T_memorystore_logs(w):
    r = other("redis.googleapis.com", {"gcp.resource_type": "redis_instance", "gcp.redis.instance": "parla-cache"})
    return [(at("13:44:12.402"), r, "NOTICE", "Maintenance started on instance projects/parla-prod/locations/europe-west1/instances/parla-cache (maintenance policy: weekly MONDAY 13:00-14:00 Europe/Brussels)"),
            (at("13:44:19.870"), r, "WARNING", "Failover initiated: primary europe-west1-b -> replica europe-west1-c"),
            (at("13:45:08.115"), r, "NOTICE", "Failover completed; new primary in europe-west1-c; clients using the read endpoint may see READONLY until they reconnect"),
            (at("13:51:30.004"), r, "NOTICE", "Maintenance completed on instance parla-cache")]


def T_preview_marker_spans(w):
    # the PR-preview pipeline deploys lesson-api-00233-qif with --no-traffic --tag pr-1187 and its hook
    # writes a marker that says prod; QA's smoke requests through the tag URL carry the new revision
    rng = random.Random("preview/" + w.id)
    out = [marker_span(w, "lesson-api", "lesson-api-00233-qif", "lesson-api-00232-taw", at("13:40:03.511"), None,
                       {"cloud_deploy.phase": "stable", "run.traffic.tag": "pr-1187", "run.traffic.percent": 0})]
    inst = hexid(rng, 96)
    for i in range(14):
        t = at("13:40:40") + i * 17 * S + rng.randrange(3 * S)
        res = resource("lesson-api", "lesson-api-00233-qif", inst)
        out.append({"timestamp": ts(t), "trace_id": hexid(rng, 32), "span_id": hexid(rng, 16), "parent_span_id": "",
                    "name": "GET", "kind": 2, "duration_nano": int(lognormal(rng, 48) * MS), "has_error": False, "status_code": 0,
                    "status_message": "", "resource": res,
                    "attributes": {"http.request.method": "GET", "url.full": "https://pr-1187---lesson-api-7xq2kd3pfa-ew.a.run.app/v2/lessons/%d" % rng.randrange(90000),
                                   "url.path": "/v2/lessons/%d" % rng.randrange(90000), "url.scheme": "https", "http.response.status_code": 200,
                                   "server.address": "pr-1187---lesson-api-7xq2kd3pfa-ew.a.run.app", "user_agent.original": "k6/0.55.0 (https://k6.io/)"}})
    return out


def T_flag_recs(w, t, svc, rev, op, ctx):
    if svc == "lesson-api" and op == "next":
        on = t >= at("16:21:30") and w.rng.random() < 0.86 * ramp(t, at("16:21:30"), at("16:23:30"))
        variant = "on" if on else "off"
        f = {"root_attrs": {"feature_flag.key": "path_recs_v2", "feature_flag.provider.name": "firebase-remote-config",
                            "feature_flag.result.variant": variant},
             "ctx": {"serving_config": "lessons-path-v2" if on else "lessons-path-v1"}}
        if on:
            m = "NOT_FOUND: ServingConfig projects/418223079916/locations/global/catalogs/default_catalog/servingConfigs/lessons-path-v2 does not exist."
            f["child"] = {1: {"err": 1.0, "status": 404, "msg": m, "exc": "Error", "root_status": 502, "root_msg": "recs: predict failed: " + m}}
            f["log"] = lambda rng, tr: "path: recommendations failed (flag path_recs_v2=on): 404 " + m
        return f


def T_flag_logs(w):
    a = other("cloudaudit.googleapis.com")
    return [(at("16:21:24.903"), a, "NOTICE", "firebaseremoteconfig.googleapis.com UpdateRemoteConfig by lucia.ferri@parla.app: template version 4812 -> 4813; parameter path_recs_v2: false -> true (condition: all users); description \"launch personalised path v2 (PROD-2291)\"")]


def T_cloudsql_maint(w, t, svc, rev, op, ctx):
    if svc == "profile-api" and at("03:02:31") <= t < at("03:04:20"):
        m = 'connection to server on socket "/cloudsql/parla-prod:europe-west1:parla-pg-17/.s.PGSQL.5432" failed: FATAL:  the database system is shutting down' if t < at("03:03:05") else \
            'connection to server on socket "/cloudsql/parla-prod:europe-west1:parla-pg-17/.s.PGSQL.5432" failed: Connection refused'
        return {"child": {"pg": {"err": 0.9, "msg": m, "exc": "psycopg2.OperationalError", "root_status": 500}},
                "log": lambda rng, tr: "psycopg2.OperationalError: " + m}
    if svc == "profile-api" and at("03:04:20") <= t < at("03:06:00"):
        return {"child": {"pg": {"slow": 6.0}}}


def T_cloudsql_logs(w):
    s = other("cloudsql.googleapis.com", {"gcp.resource_type": "cloudsql_database", "gcp.cloudsql.instance": "parla-pg-17"})
    return [(at("03:02:29.117"), s, "NOTICE", "Maintenance operation started on instance parla-pg-17 (update: MAINTENANCE POSTGRES_17_2.R20241110.01_05 -> POSTGRES_17_2.R20241201.00_02); expected downtime < 60s"),
            (at("03:02:30.410"), s, "WARNING", "LOG:  received fast shutdown request"),
            (at("03:04:18.662"), s, "NOTICE", "LOG:  database system is ready to accept connections"),
            (at("03:04:41.001"), s, "NOTICE", "Maintenance operation completed on instance parla-pg-17")]


def rtdn_rate(w, m0):
    return 70 + 390 * ramp(m0, at("19:14:00"), at("19:16:00")) * (1.0 if m0 < at("19:32:00") else 0.6)


def T_rtdn_backlog(w, t, svc, rev, op, ctx):
    if svc == "billing-webhooks" and t >= at("19:15:00"):
        load = ramp(t, at("19:14:30"), at("19:16:30"))
        return {"queue_ms": 900 * load, "child": {0: {"slow": 1 + 9 * load}, 2: {"slow": 1 + 9 * load},
                                                  1: {"err": 0.11 * load, "status": 429, "msg": "googleapi: Error 429: Quota exceeded for quota metric 'Queries' of service 'androidpublisher.googleapis.com'",
                                                      "exc": "*googleapi.Error", "root_status": 500}},
                "attempt": lambda rng: 1 + int(rng.random() < 0.8) + int(rng.random() < 0.4),
                "err": 0.06 * load, "status": 503, "msg": "pq: sorry, too many clients already"}


def T_rtdn_logs(w):
    g = other("play-console-status", {"cloud.provider": "google_play"})
    return [(at("19:13:55.000"), g, "WARNING", "Google Play Console status: Real-time developer notifications delayed since 17:40 CET are being delivered now; developers may see a higher volume of notifications for up to 60 minutes.")] + \
           [(at("19:16:00") + i * MIN, other("run.googleapis.com", {"gcp.resource_type": "cloud_run_revision"}), "WARNING",
             "The request was aborted because there was no available instance. Additional troubleshooting documentation can be found at: https://cloud.google.com/run/docs/troubleshooting#abort-request (service billing-webhooks, max instances 20)") for i in range(12)]


def T_model_alias(w, t, svc, rev, op, ctx):
    if svc != "tutor-chat":
        return None
    moved = t >= at("11:37:00") and w.rng.random() < ramp(t, at("11:37:00"), at("11:39:00"))
    c = {"template": "tutor-system-v8", "p_target": 0.47 if moved else 0.93, "p_level": 0.6 if moved else 0.9}

    def llm(rng, ctx):
        d = llm_ok(rng, ctx)
        if moved:
            d["gen_ai.response.model"] = "gemini-2.0-flash-002"
            d["gen_ai.usage.output_tokens"] = int(lognormal(rng, 330, 0.35))
        return d
    return {"ctx": c, "llm": llm, "root_attr_fn": tutor_quality()}


def T_firestore_contention(w, t, svc, rev, op, ctx):
    if svc == "streak-worker" and t >= at(D8 + "00:00:20"):
        p = 0.34 * ramp(t, at(D8 + "00:00:20"), at(D8 + "00:01:30")) * (1.0 if t < at(D8 + "00:14:00") else 0.3)
        return {"child": {1: {"err": p, "status": 10, "msg": "rpc error: code = Aborted desc = Too much contention on these documents. Please try again.",
                              "exc": "*status.Error", "root_status": 500, "slow": 3.0}},
                "attempt": lambda rng: 1 + int(rng.random() < 0.3),
                "log": lambda rng, tr: '{"severity":"ERROR","message":"streak: update leagues/%s failed","error":"rpc error: code = Aborted desc = Too much contention on these documents. Please try again."}' % hexid(rng, 8)}


def T_firestore_logs(w):
    sch = other("cloudscheduler.googleapis.com", {"gcp.resource_type": "cloud_scheduler_job"})
    job = other("league-rollover", {"cloud.platform": "gcp_cloud_run_job", "gcp.cloud_run.job.execution": "league-rollover-q2m8d"})
    out = [(at(D8 + "00:00:00.031"), sch, "INFO", "Job projects/parla-prod/locations/europe-west1/jobs/league-rollover-nightly (schedule \"0 0 * * *\" Europe/Brussels) started: POST https://run.googleapis.com/v2/projects/parla-prod/locations/europe-west1/jobs/league-rollover:run"),
           (at(D8 + "00:00:14.520"), job, "INFO", "league rollover: rewriting 412,000 leagues/{id} documents, 64 workers, batch 500")]
    for i in range(13):
        out.append((at(D8 + "00:01:00") + i * MIN, job, "INFO", "league rollover: %d leagues rewritten" % (31000 * (i + 1))))
    return out


SPECS = [
    # ---- right rollbacks
    dict(id="pr14-lesson-api-undefined-audio", service="lesson-api", start="13:00:00", now="14:14:00", ratio=0.2,
         title="lesson-api revision 00232 reads lesson.audio.audioUrl on lessons that have no audio: 38% of lesson reads 500",
         releases={"lesson-api": [("lesson-api-00231-gon", None), ("lesson-api-00232-taw", "14:02:41.338")]},
         traffic=[("lesson-api", "lesson", 160), ("lesson-api", "complete", 45), ("lesson-api", "next", 30)],
         fx=A_lesson_audio, alert_at="14:07:00", burn=16.4, expect=("bad_release", "allow"), onset="14:02",
         story="Cloud Deploy moves 100% of lesson-api's traffic to revision lesson-api-00232-taw at 14:02:41 (a refactor of the lesson renderer). It reads lesson.audio.audioUrl on the 38% of lessons that have no audio: TypeError, HTTP 500 on GET /v2/lessons/:id. Deno's built-in OTel names every server span by its method (GET), with no http.route: only url.path tells the operations apart."),
    dict(id="pr14-profile-api-redis-host-config", service="profile-api", start="09:00:00", now="10:12:00", ratio=0.15,
         title="profile-api revision 00118 sets REDIS_HOST to staging's Memorystore IP: every profile read times out connecting and 503s",
         releases={"profile-api": [("profile-api-00117-hab", None), ("profile-api-00118-lup", "09:58:07.902")]},
         traffic=[("profile-api", "me", 150), ("profile-api", "settings", 30)],
         fx=A_profile_redis_host, alert_at="10:03:00", burn=24.0, expect=("config_regression", "allow"), onset="09:58",
         story="A Terraform change to profile-api's Cloud Run service (env REDIS_HOST=10.12.8.4, the staging Memorystore instance, copied from the staging tfvars) makes revision profile-api-00118-lup, 100% at 09:58:07. Prod's VPC cannot reach 10.12.8.4: every Redis call times out after 2 s (redis.exceptions.TimeoutError) and every request 503s; the old revision reached 10.12.0.4. Flask and redis-py spans in the OLD conventions (http.method, http.status_code, net.peer.name, db.statement)."),
    dict(id="pr14-tutor-chat-prompt-v9-canary", service="tutor-chat", start="08:30:00", now="09:44:00", ratio=0.25,
         title="tutor-chat revision 00145 ships system prompt tutor-system-v9 (canary 25% then 100%): replies leave the learner's target language, still 200",
         releases={"tutor-chat": [("tutor-chat-00144-rud", None), ("tutor-chat-00145-mep", "09:30:12.044", [("09:30:12.044", 0.25), ("09:34:40.310", 1.0)])]},
         traffic=[("tutor-chat", "reply", 60)], fx=A_tutor_prompt, alert_at="09:38:00", burn=7.5,
         alert_name="TutorReplyQuality", expect=("prompt_regression", "allow"), onset="09:30",
         story="tutor-chat-00145-mep moves the tutor's system prompt to tutor-system-v9, which drops the 'answer in the learner's target language at their CEFR level' lines. Cloud Deploy's canary sends it 25% of traffic at 09:30:12 and 100% at 09:34:40. On the new revision 41% of replies stay in the target language (93% before) and 52% at the right CEFR level (90%); input tokens 1250 -> 2150. Every answer is HTTP 200 from Vertex AI and from tutor-chat."),
    dict(id="pr14-billing-webhooks-play-retry-storm", service="billing-webhooks", start="17:00:00", now="18:16:00", ratio=0.2,
         title="billing-webhooks revision 00077 wraps the Play Developer API call in 6 attempts with no backoff and a 400 ms deadline",
         releases={"billing-webhooks": [("billing-webhooks-00076-paf", None), ("billing-webhooks-00077-ciz", "18:04:33.760")]},
         traffic=[("billing-webhooks", "rtdn", lambda w, m0: 70 + 22 * ramp(m0, at("18:05:00"), at("18:08:00")))],
         fx=A_billing_retry, alert_at="18:09:00", burn=11.2, alert_name="BillingWebhooksPushErrors", expect=("retry_storm", "allow"), onset="18:04",
         story="billing-webhooks-00077-ciz replaces the Play Developer API client's default retry with retry.Do(attempts=6, delay=0) around a context.WithTimeout(400ms). Play's purchases.subscriptionsv2.get answers in ~160 ms at p50 but its tail is longer, and ~1.9x slower once called this hard: each RTDN push makes up to 6 calls (http.request.resend_count), 78% of attempts hit the deadline (22% of pushes exhaust all six), a push that exhausts them 500s and Pub/Sub redelivers it (delivery_attempt 2). Play itself answers no error."),
    dict(id="pr14-speech-scorer-opus-decoder-canary", service="speech-scorer", start="14:50:00", now="16:04:00", ratio=0.15,
         title="speech-scorer revision 00064 (soundfile 0.13 with a libsndfile built without Opus) cannot decode iOS Opus uploads; canary 10% then 100%",
         releases={"speech-scorer": [("speech-scorer-00063-wex", None), ("speech-scorer-00064-dov", "15:50:20.118", [("15:50:20.118", 0.1), ("15:55:05.870", 1.0)])]},
         traffic=[("speech-scorer", "score", 130)], fx=A_speech_decoder, alert_at="15:58:00", burn=9.8, expect=("bad_release", "allow"), onset="15:50",
         story="speech-scorer-00064-dov upgrades soundfile to 0.13 whose bundled libsndfile is built without Opus. iOS uploads (Opus in Ogg, ~20% of all uploads) fail to decode (LibsndfileError: Format not recognised) and 500; Android's AAC is fine. Canary: 10% of traffic at 15:50:20, 100% at 15:55:05. FastAPI spans in the old conventions."),
    # ---- traps
    dict(id="pr14-trap-speech-quota-backfill-45s", service="speech-scorer", start="09:20:00", now="10:38:00", ratio=0.15,
         title="data engineering's transcript backfill job eats the regional Speech-to-Text quota 45 s after speech-scorer revision 00063 reached 100%",
         releases={"speech-scorer": [("speech-scorer-00062-kub", "2026-12-03T11:20:00"), ("speech-scorer-00063-wex", "10:31:05.402")]},
         traffic=[("speech-scorer", "score", 130)], fx=T_speech_quota, extra_logs=T_speech_quota_logs, alert_at="10:34:00", burn=13.0,
         expect=("dependency_outage", "deny"), onset="10:31",
         story="speech-scorer-00063-wex (a logging change) takes 100% of traffic at 10:31:05. At 10:31:41 Airflow starts the transcript-backfill Cloud Run job (1.84M recordings, concurrency 400) in the same project; from 10:31:50 the project's 'Recognize requests per minute per region' quota is exhausted and Speech-to-Text answers RESOURCE_EXHAUSTED (gRPC 8) to 44% of speech-scorer's calls, which 503. The release served cleanly for 45 s: nothing whole-minute. Rolling back changes nothing: the job keeps the quota."),
    dict(id="pr14-trap-preview-marker-memorystore-lesson-api", service="lesson-api", start="12:40:00", now="13:54:00", ratio=0.2,
         title="a PR preview revision's marker says prod 4 minutes before Memorystore's maintenance failover; the ledger's lesson-api has not changed since Friday",
         releases={"lesson-api": [("lesson-api-00231-gon", "2026-11-27T10:00:00"), ("lesson-api-00232-taw", "2026-12-04T16:12:09")]},
         traffic=[("lesson-api", "lesson", 160), ("lesson-api", "complete", 45), ("lesson-api", "next", 30)],
         fx=T_memorystore_failover, extra_logs=T_memorystore_logs, extra_spans=T_preview_marker_spans, alert_at="13:48:00", burn=12.0,
         expect=("dependency_outage", "deny"), onset="13:44",
         story="At 13:40:03 the PR-preview pipeline deploys lesson-api-00233-qif with --no-traffic --tag pr-1187; its post-deploy hook (copied from the prod pipeline) writes a deployment.marker with deployment.version lesson-api-00233-qif, previous lesson-api-00232-taw and deployment.environment.name prod, and k6 smoke tests reach it through the tag URL (14 spans carry service.version lesson-api-00233-qif). No production traffic ever goes to it: the release ledger says lesson-api-00232-taw has served since Dec 4. At 13:44:19 Memorystore's weekly maintenance fails parla-cache over to the replica zone: connects time out, writes answer READONLY for a minute, then a tail of timeouts until 13:51."),
    dict(id="pr14-trap-remote-config-flag-lesson-api", service="lesson-api", start="15:10:00", now="16:30:00", ratio=0.2,
         title="product flips Remote Config flag path_recs_v2 on: the app asks a Retail serving config that prod never created; lesson-api revision 00234 rolled out 5 minutes before",
         releases={"lesson-api": [("lesson-api-00232-taw", "2026-12-04T16:12:09"), ("lesson-api-00234-vor", "16:16:18.650")]},
         traffic=[("lesson-api", "lesson", 160), ("lesson-api", "complete", 45), ("lesson-api", "next", 70)],
         fx=T_flag_recs, extra_logs=T_flag_logs, alert_at="16:25:00", burn=10.5, expect=("config_regression", "deny"), onset="16:21",
         story="lesson-api-00234-vor (which also carries the path_recs_v2 code path, dark behind the flag for two weeks) takes 100% at 16:16:18 and serves cleanly. At 16:21:24 a product manager publishes Remote Config template 4813 with path_recs_v2=true for all users (the audit log). Within two minutes 86% of GET /v2/path/next requests run the v2 path, which asks the Retail API's servingConfigs/lessons-path-v2 — created in staging, never in prod: 404 NOT_FOUND, lesson-api 502. Spans carry feature_flag.key, feature_flag.result.variant. Rolling back the revision brings back 00232, which has the same dark path behind the same flag."),
    dict(id="pr14-trap-cloudsql-maintenance-profile-api", service="profile-api", start="01:50:00", now="03:08:00", ratio=0.15,
         title="Cloud SQL's maintenance restarts parla-pg-17 two minutes after the nightly profile-api revision 00119",
         releases={"profile-api": [("profile-api-00118-lup", "2026-12-06T09:58:07"), ("profile-api-00119-tem", "03:00:14.220")]},
         traffic=[("profile-api", "me", 40), ("profile-api", "settings", 8)],
         fx=T_cloudsql_maint, extra_logs=T_cloudsql_logs, alert_at="03:04:00", burn=30.0, expect=("dependency_outage", "deny"), onset="03:02",
         story="The nightly build deploys profile-api-00119-tem (dependency bumps) at 03:00:14; it serves cleanly. Cloud SQL's maintenance window (Mon 03:00) starts at 03:02:29: PostgreSQL shuts down fast (FATAL: the database system is shutting down), refuses connections until 03:04:18, then serves slowly from a cold cache. 90% of requests in that window 500."),
    dict(id="pr14-trap-play-rtdn-backlog-billing-webhooks", service="billing-webhooks", start="18:00:00", now="19:22:00", ratio=0.2,
         title="Google Play delivers two hours of delayed RTDNs at once: pushes x6, max instances hit, Cloud SQL out of connections; billing-webhooks revision 00078 six minutes before",
         releases={"billing-webhooks": [("billing-webhooks-00076-paf", "2026-12-05T10:00:00"), ("billing-webhooks-00078-yol", "19:08:47.013")]},
         traffic=[("billing-webhooks", "rtdn", rtdn_rate)], fx=T_rtdn_backlog, extra_logs=T_rtdn_logs, alert_at="19:18:00", burn=8.4,
         alert_name="BillingWebhooksPushErrors", expect=("traffic_surge", "deny"), onset="19:14",
         story="billing-webhooks-00078-yol (the retry fix, back to the default backoff) serves from 19:08:47 cleanly. Google Play's RTDN delivery, delayed since 17:40 (Play Console status), catches up from 19:14: Pub/Sub pushes go from 70 to ~460 a minute, Cloud Run reaches max instances (20) and aborts some pushes before they reach the app (no span), requests queue ~0.9 s, Cloud SQL's queries slow x10, 11% of Play calls get 429 and 6% of pushes 503 on 'too many clients'."),
    dict(id="pr14-trap-model-alias-moved-tutor-chat", service="tutor-chat", start="10:20:00", now="11:46:00", ratio=0.25,
         title="Vertex AI moves the gemini-2.0-flash alias to -002: replies leave the target language nine minutes after tutor-chat revision 00146",
         releases={"tutor-chat": [("tutor-chat-00145-mep", "2026-12-05T09:34:40"), ("tutor-chat-00146-saz", "11:28:02.775")]},
         traffic=[("tutor-chat", "reply", 60)], fx=T_model_alias, alert_at="11:42:00", burn=6.9,
         alert_name="TutorReplyQuality", expect=("prompt_regression", "deny"), onset="11:37",
         story="tutor-chat-00146-saz (a dependency bump, prompt unchanged: tutor-system-v8 on every span) takes 100% at 11:28:02 and serves nine minutes at the usual quality. From 11:37 Google's auto-updated alias gemini-2.0-flash resolves to gemini-2.0-flash-002 in europe-west1 (gen_ai.response.model flips; gen_ai.request.model is the alias throughout): replies in the target language 93% -> 47%, at the right CEFR level 90% -> 60%, output tokens 210 -> 330. A rollback sends the same alias."),
    dict(id="pr14-trap-league-rollover-cron-streak-worker", service="streak-worker", start="23:00:00", now="00:20:00", ratio=0.2,
         title="the growth team's midnight league-rollover job rewrites 412k league documents: streak-worker's Firestore commits abort on contention; streak-worker revision 00051 at 23:52",
         releases={"streak-worker": [("streak-worker-00050-fip", "2026-12-05T11:00:00"), ("streak-worker-00051-jag", "2026-12-07T23:52:31.447")]},
         traffic=[("streak-worker", "completed", 120)], fx=T_firestore_contention, extra_logs=T_firestore_logs, alert_at="00:05:00", burn=9.1,
         alert_name="StreakWorkerPushErrors", expect=("dependency_outage", "deny"), onset="00:00",
         story="streak-worker-00051-jag (a metrics change) serves from 23:52:31 cleanly. At 00:00:00 Cloud Scheduler starts the growth team's league-rollover job, which rewrites all 412k leagues/{id} documents that streak-worker's transactions also update: from 00:00:20 up to 34% of commits fail ABORTED (gRPC 10, 'Too much contention on these documents'), the pushes 500 and Pub/Sub redelivers them. It eases at 00:14 as the job passes the busiest leagues."),
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


def alert(spec, w):
    name = spec.get("alert_name", "%sSLOBurn" % "".join(p.capitalize() for p in spec["service"].split("-")))
    rule = 9000 + int(hashlib.sha1(spec["id"].encode()).hexdigest()[:4], 16) % 900
    labels = {"alertname": name, "service.name": spec["service"], "severity": "critical", "ruleId": str(rule),
              "ruleSource": "https://signoz.parla.app/alerts/edit?ruleId=%d" % rule, "team": "learner-platform",
              "cloud.region": REGION, "deployment.environment.name": "prod"}
    ann = {"summary": "%s: SLO burn rate %.1f over 5m/1h" % (spec["service"], spec["burn"]),
           "description": "The 99.5%% availability SLO of %s is burning %.1fx its budget." % (spec["service"], spec["burn"]),
           "slo_burn_rate": "%.1f" % spec["burn"], "runbook_url": "https://runbooks.parla.app/%s" % spec["service"]}
    starts = ts(alert_time(spec))
    fp = hexid(random.Random("fp/" + spec["id"]), 16)
    return {"receiver": "parla-sre-opsgenie", "status": "firing",
            "alerts": [{"status": "firing", "labels": labels, "annotations": ann, "startsAt": starts,
                        "endsAt": "0001-01-01T00:00:00Z",
                        "generatorURL": "https://signoz.parla.app/alerts/edit?ruleId=%d" % rule, "fingerprint": fp}],
            "groupLabels": {"alertname": name, "service.name": spec["service"]}, "commonLabels": labels,
            "commonAnnotations": ann, "externalURL": "https://signoz.parla.app", "version": "4",
            "groupKey": '{}/{severity="critical"}:{alertname="%s", service.name="%s"}' % (name, spec["service"]),
            "truncatedAlerts": 0}


def day_of(spec, hhmm):
    """Times of the midnight incident: the history starts on Dec 7 and runs past midnight into Dec 8."""
    if spec["start"] > spec["now"] and hhmm < spec["start"]:
        return "2026-12-08T" + hhmm
    return hhmm


def alert_time(spec):
    return at(day_of(spec, spec["alert_at"]))


def fixup(spec):
    """Resolve the past-midnight times of a spec (the league rollover) to Dec 8."""
    if spec["start"] <= spec["now"]:
        return spec
    s = dict(spec)
    s["now"] = "2026-12-08T" + spec["now"]
    return s


def write_incident(root, spec, tag):
    spec = fixup(spec)
    w = World(spec)
    w.run()
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    cls, verdict = spec["expect"]
    trap = verdict == "deny"
    tags = [tag, "parla", "gcp", "cloud-run", "pubsub-push", "head-sampling"] + (["trap"] if trap else ["deployment"])
    y = ["id: %s" % spec["id"], "title: %s" % json.dumps(spec["title"], ensure_ascii=False),
         "service: %s" % spec["service"], "now: %s" % ts(w.now), "expect:", "  root_cause: %s" % cls,
         "  verdict: %s" % verdict, "tags: [%s]" % ", ".join(tags)]
    write_text(folder, "incident.yaml", "\n".join(y) + "\n")
    write_text(folder, "alert.json", json.dumps(alert(spec, w), indent=2, ensure_ascii=False) + "\n")
    rel = ["project: parla-prod", "services:"]
    for svc, rows in spec["releases"].items():
        rel.append("  %s:" % svc)
        for row in rows:
            rev, b = row[0], row[1]
            when_ = at(b) if b else w.start - 6 * 86400 * S
            digest = hashlib.sha256(("%s/%s" % (svc, rev)).encode()).hexdigest()
            rel += ["    - version: %s" % rev,
                    "      image: %s-docker.pkg.dev/%s/services/%s@sha256:%s" % (REGION, PROJECT, svc, digest),
                    "      deployed_at: %s" % ts(when_)]
    write_text(folder, "releases.yaml", "\n".join(rel) + "\n")
    write_jsonl(folder, "spans.jsonl", w.spans)
    write_jsonl(folder, "logs.jsonl", w.logs)
    ex = {"root_cause": cls, "verdict": verdict,
          "sampling": "head sampling: parentbased_traceidratio %g at the root of every trace; logs unsampled (Cloud Logging), often naming traces that were not kept" % w.ratio,
          "history_minutes": (w.now - w.start) // MIN, "onset": spec["onset"], "story": spec["story"]}
    write_text(folder, "expect.json", json.dumps(ex, indent=2, ensure_ascii=False) + "\n")
    return len(w.spans), len(w.logs)


def main():
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for spec in SPECS:
        if only and spec["id"] not in only:
            continue
        n, m = write_incident(HERE, spec, "heldout14")
        print("%s: %d spans, %d logs" % (spec["id"], n, m))


if __name__ == "__main__":
    main()
