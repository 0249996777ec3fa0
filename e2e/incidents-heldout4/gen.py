#!/usr/bin/env python3
"""Generates e2e/incidents-heldout4: an online game studio's backend ("lanternfall").

Run from this folder: `python3 gen.py`. Seeded (SEED below): every file comes out
byte for byte the same on every run (json with sorted insertion order, gzip with
no name and mtime 0). Files over 3 MB are written gzip'd (spans.jsonl.gz).

Style (see README.md): PHP/Laravel, Ruby/Rails+Faraday+Bunny, Elixir/Phoenix+Broadway,
C++ (Drogon, a game-session host); HTTP/1.1 behind an envoy sidecar that traces
under the app's service.name with envoy's own tags (strings, no service.version);
AMQP (RabbitMQ) producer and consumer spans, consumers linked to producers by span
links; OTel semantic conventions 1.26+ (error.type, http.response.status_code,
server.address, messaging.operation.type send/process, gen_ai.*); log records with
severity_number only; tail sampling that keeps every trace with an error and every
trace slower than 2 s and 1 in N of the rest; per-host clock skew of about 200 ms;
timestamps in local time with a +01:00 offset and nanoseconds.
"""
import gzip
import io
import json
import math
import os
import random
from datetime import datetime, timedelta, timezone

SEED = 4304
HERE = os.path.dirname(os.path.abspath(__file__))
CET = timezone(timedelta(hours=1))
NS = 1_000_000_000
MS = 1_000_000
GZIP_OVER = 3 * 1024 * 1024


def ts(ns):
    """RFC 3339 in local time (+01:00) with nanoseconds."""
    sec, frac = divmod(ns, NS)
    d = datetime.fromtimestamp(sec, CET)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%09d" % frac + "+01:00"


def ts_alert(ns):
    """Alertmanager's JSON (Go time.Time, UTC): trailing zeros trimmed."""
    sec, frac = divmod(ns, NS)
    d = datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        d += ("." + "%09d" % frac).rstrip("0")
    return d + "Z"


def at(s):
    """'2026-12-05T14:07:23.4' local (+01:00) to ns."""
    if "." in s:
        base, frac = s.split(".")
        frac = (frac + "000000000")[:9]
    else:
        base, frac = s, "000000000"
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=CET)
    return int(d.timestamp()) * NS + int(frac)


# ---------------------------------------------------------------- services

RUNTIMES = {
    "php": {"telemetry.sdk.language": "php", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.1.2",
            "process.runtime.name": "php", "process.runtime.version": "8.3.14"},
    "ruby": {"telemetry.sdk.language": "ruby", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.5.0",
             "process.runtime.name": "ruby", "process.runtime.version": "3.3.6",
             "process.runtime.description": "ruby 3.3.6 (2024-11-05 revision 75015d4c1f) +YJIT [x86_64-linux]"},
    "elixir": {"telemetry.sdk.language": "erlang", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.5.0",
               "process.runtime.name": "BEAM", "process.runtime.version": "27.1.2",
               "process.runtime.description": "Erlang/OTP 27 [erts-15.1.2] Elixir 1.17.3"},
    "cpp": {"telemetry.sdk.language": "cpp", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.17.0"},
}

# service -> (runtime, host, clock skew of that host in ms, behind envoy?)
SERVICES = {
    "account-portal": ("php", "lf-web-03", 0, True),
    "store-api": ("ruby", "lf-web-04", 0, True),
    "report-triage": ("ruby", "lf-ai-01", -190, False),
    "wallet-svc": ("elixir", "lf-pay-02", 205, True),
    "matchmaker": ("elixir", "lf-mm-01", -210, True),
    "progression-worker": ("elixir", "lf-q-02", 195, False),
    "replay-indexer": ("elixir", "lf-q-03", -185, False),
    "presence": ("elixir", "lf-rt-01", 210, True),
    "chat-gateway": ("elixir", "lf-rt-02", -200, True),
    "session-host": ("cpp", "lf-gs-11", 180, False),
    "inventory": ("cpp", "lf-gs-12", -220, True),
    "leaderboard-api": ("cpp", "lf-gs-14", 200, True),
    "replay-transcoder": ("cpp", "lf-gs-14", 200, False),
}


def hexid(rng, n):
    return "%0*x" % (n, rng.getrandbits(4 * n))


class World:
    def __init__(self, spec, seed):
        self.spec = spec
        self.rng = random.Random(seed)
        self.start = spec["start"]
        self.now = spec["now"]
        self.keep_one_in = spec["keep_one_in"]
        self.spans = []
        self.logs = []
        self.releases = spec["releases"]  # svc -> [(version, serve_ns or None for history)]
        self.containers = {}

    # which version serves a request at t: a rolling update over 90 s that
    # begins 2.5 s after the release's marker
    def version(self, svc, t):
        rel = self.releases[svc]
        cur = rel[0][0]
        for i in range(1, len(rel)):
            v, begin = rel[i][0], rel[i][1]
            if begin is None:
                cur = v
                continue
            serve = begin + int(2.5 * NS)
            if t >= serve + 90 * NS:
                cur = v
            elif t >= serve:
                if self.rng.random() < (t - serve) / (90 * NS):
                    cur = v
        return cur

    def resource(self, svc, version, envoy=False, extra=None):
        runtime, host, _, _ = SERVICES[svc]
        r = {"service.name": svc}
        if not envoy:
            r["service.version"] = version
        r["service.namespace"] = "lanternfall"
        r["deployment.environment.name"] = "production"
        r["host.name"] = host
        key = (svc, version)
        if key not in self.containers:
            self.containers[key] = hexid(random.Random("%s/%s/%s" % (self.spec["id"], svc, version)), 64)
        if envoy:
            r["telemetry.sdk.name"] = "envoy"
            r["container.name"] = svc + "-envoy-1"
        else:
            r.update(RUNTIMES[runtime])
            r["container.id"] = self.containers[key]
            r["container.image.name"] = "registry.lanternfall.gg/%s" % svc
        if extra:
            r.update(extra)
        return r

    def skew(self, svc):
        return SERVICES[svc][2] * MS


class Trace:
    def __init__(self, w, trace_id=None):
        self.w = w
        self.id = trace_id or hexid(w.rng, 32)
        self.spans = []
        self.logs = []
        self.error = False
        self.root_dur = 0

    def span(self, svc, name, kind, start, dur, parent=None, err=False, msg="", attrs=None, version=None,
             envoy=False, res=None, links=None):
        w = self.w
        sid = hexid(w.rng, 16)
        if version is None:
            version = w.version(svc, start)
        s = {
            "timestamp": start + w.skew(svc),
            "trace_id": self.id,
            "span_id": sid,
            "parent_span_id": parent["span_id"] if parent else "",
            "name": name,
            "kind": kind,
            "duration_nano": int(dur),
            "has_error": bool(err),
            "status_code": 2 if err else 0,
            "status_message": msg if err else "",
            "resource": w.resource(svc, version, envoy=envoy, extra=res),
            "attributes": attrs or {},
        }
        if links:
            s["links"] = links
        if err:
            self.error = True
        if parent is None and not self.spans:
            self.root_dur = dur
        self.spans.append(s)
        s["_v"] = version
        return s

    def log(self, svc, t, sev, body, span=None, attrs=None, version=None):
        w = self.w
        if version is None:
            version = span["_v"] if span else w.version(svc, t)
        self.logs.append({
            "timestamp": t + w.skew(svc),
            "severity_number": sev,
            "body": body,
            "trace_id": self.id if span else "",
            "span_id": span["span_id"] if span else "",
            "resource": w.resource(svc, version),
            "attributes": attrs or {},
        })

    def keep(self, force=False):
        w = self.w
        if force or self.error or self.root_dur > 2 * NS or w.rng.random() < 1.0 / w.keep_one_in:
            w.spans.extend(self.spans)
            w.logs.extend(self.logs)


def free_log(w, svc, t, sev, body, attrs=None, version=None):
    w.logs.append({
        "timestamp": t + w.skew(svc),
        "severity_number": sev,
        "body": body,
        "trace_id": "",
        "span_id": "",
        "resource": w.resource(svc, version or w.version(svc, t)),
        "attributes": attrs or {},
    })


def marker(w, svc, t, version, prev, dep_id, env="production", res_extra=None):
    rng = w.rng
    r = w.resource(svc, version)
    r["deployment.environment.name"] = env
    if res_extra:
        r.update(res_extra)
    w.spans.append({
        "timestamp": t,
        "trace_id": hexid(rng, 32),
        "span_id": hexid(rng, 16),
        "parent_span_id": "",
        "name": "deployment.marker",
        "kind": 1,
        "duration_nano": 0,
        "has_error": False,
        "status_code": 0,
        "status_message": "",
        "resource": r,
        "attributes": {"deployment.version": version, "deployment.previous_version": prev,
                       "deployment.id": dep_id, "deployment.environment.name": env},
        "_v": version,
    })


# ---------------------------------------------------------------- helpers

def lognorm(rng, median_ms, sigma=0.35):
    return int(median_ms * math.exp(rng.gauss(0, sigma)) * MS)


def poisson(rng, lam):
    if lam <= 0:
        return 0
    if lam > 50:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    L, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= L:
            return k
        k += 1


def reqid(rng):
    h = hexid(rng, 32)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def server(tr, svc, method, route, path, start, dur, status, err_type=None, attrs=None, version=None):
    """An HTTP/1.1 server span, behind the envoy sidecar when the service has one.
    Returns the app's server span."""
    w = tr.w
    envoy = SERVICES[svc][3]
    err = status >= 500
    a = {"http.request.method": method, "http.route": route, "url.path": path, "url.scheme": "http",
         "http.response.status_code": status, "server.address": svc, "server.port": 8080,
         "network.protocol.version": "1.1", "client.address": "127.0.0.6"}
    if err_type or err:
        a["error.type"] = err_type or str(status)
    if attrs:
        a.update(attrs)
    parent = None
    if envoy:
        e = tr.span(svc, "ingress " + svc + ":8080", 2, start, dur + lognorm(w.rng, 0.6, 0.3), err=err, msg="",
                    envoy=True, version=version,
                    attrs={"component": "proxy", "node_id": "sidecar~%s~%s" % (SERVICES[svc][1], svc),
                           "zone": "eu-central-1b", "guid:x-request-id": reqid(w.rng),
                           "http.method": method, "http.url": "http://%s:8080%s" % (svc, path),
                           "http.protocol": "HTTP/1.1", "http.status_code": str(status),
                           "upstream_cluster": "inbound|8080||", "upstream_cluster.name": "inbound|8080||",
                           "downstream_cluster": "-", "response_flags": "-", "request_size": "0",
                           "response_size": str(w.rng.randint(180, 4000)), "peer.address": "10.40.%d.%d" % (w.rng.randint(0, 9), w.rng.randint(2, 250))})
        parent = e
        start += int(0.3 * MS)
    return tr.span(svc, "%s %s" % (method, route), 2, start, dur, parent=parent, err=err, attrs=a, version=version)


def client(tr, svc, parent, peer, method, route_or_path, start, dur, status, err_type=None, attrs=None,
           port=8080, outside=False):
    """An HTTP client span of svc to peer (semconv 1.26: name is the method)."""
    err = status >= 500 or status == 0
    a = {"http.request.method": method, "server.address": peer, "server.port": port,
         "url.full": "%s://%s%s" % ("https" if outside else "http", peer, route_or_path),
         "network.protocol.version": "1.1"}
    if status:
        a["http.response.status_code"] = status
    if err_type or err:
        a["error.type"] = err_type or str(status)
    if attrs:
        a.update(attrs)
    return tr.span(svc, method, 3, start, dur, parent=parent, err=err, attrs=a)


def db(tr, svc, parent, system, op, table, stmt, start, dur, err=False, err_type=None, msg="", ns_name="lanternfall"):
    a = {"db.system.name": system, "db.operation.name": op, "db.collection.name": table,
         "db.query.text": stmt, "db.namespace": ns_name,
         "server.address": {"postgresql": "pg-main.lanternfall.internal", "mysql": "mysql-acc.lanternfall.internal",
                            "redis": "redis-rt.lanternfall.internal"}.get(system, system), }
    if err_type:
        a["error.type"] = err_type
    name = "%s %s" % (op, table) if table else op
    return tr.span(svc, name, 3, start, dur, parent=parent, err=err, msg=msg, attrs=a)


def publish(tr, svc, parent, exchange, rkey, start, dur, err=False, err_type=None, msg=""):
    a = {"messaging.system": "rabbitmq", "messaging.operation.type": "send", "messaging.operation.name": "publish",
         "messaging.destination.name": exchange, "messaging.rabbitmq.destination.routing_key": rkey,
         "messaging.message.id": reqid(tr.w.rng), "server.address": "rabbitmq.lanternfall.internal",
         "server.port": 5672, "network.protocol.name": "amqp", "network.protocol.version": "0.9.1"}
    if err_type:
        a["error.type"] = err_type
    return tr.span(svc, "publish " + exchange, 4, start, dur, parent=parent, err=err, msg=msg, attrs=a)


def process(w, svc, queue, exchange, rkey, start, dur, producer_span, err=False, err_type=None, msg="",
            redelivered=False, attrs=None):
    """A consumer's process span: a new trace linked to the producer's span."""
    tr = Trace(w)
    links = None
    if producer_span is not None:
        links = [{"trace_id": producer_span["trace_id"], "span_id": producer_span["span_id"],
                  "attributes": {"messaging.operation.type": "send"}}]
    a = {"messaging.system": "rabbitmq", "messaging.operation.type": "process", "messaging.operation.name": "consume",
         "messaging.destination.name": exchange, "messaging.rabbitmq.destination.routing_key": rkey,
         "messaging.consumer.group.name": queue, "messaging.message.id": reqid(w.rng),
         "messaging.rabbitmq.message.delivery_tag": w.rng.randint(1, 900000),
         "server.address": "rabbitmq.lanternfall.internal", "server.port": 5672}
    if redelivered:
        a["messaging.rabbitmq.message.redelivered"] = True
    if err_type:
        a["error.type"] = err_type
    if attrs:
        a.update(attrs)
    s = tr.span(svc, "process " + queue, 5, start, dur, err=err, msg=msg, attrs=a, links=links)
    return tr, s


def minutes(w):
    m = w.start
    while m < w.now:
        yield m
        m += 60 * NS


def arrivals(w, m, per_min):
    n = poisson(w.rng, per_min)
    return sorted(m + int(w.rng.random() * 60 * NS) for _ in range(n))


def ramp(t, begin, full_after_s):
    """0 before begin, then linear to 1 over full_after_s seconds."""
    if t < begin:
        return 0.0
    return min(1.0, (t - begin) / (full_after_s * NS))


# ---------------------------------------------------------------- incidents
# Each builder gets the World and fills spans and logs.

def build_account_portal(w, sp):
    # PHP 8.4.0 of account-portal: a TypeError on POST /api/account/link-platform
    routes = [("GET", "/api/account/profile", 90, 35), ("POST", "/api/account/link-platform", 14, 120),
              ("GET", "/api/account/entitlements", 60, 45), ("POST", "/api/account/session", 40, 60)]
    for m in minutes(w):
        for method, route, rate, med in routes:
            for t in arrivals(w, m, rate):
                tr = Trace(w)
                v = w.version("account-portal", t)
                dur = lognorm(w.rng, med)
                status, et = 200, None
                fails = v == "8.4.0" and route == "/api/account/link-platform" and w.rng.random() < 0.62
                if fails:
                    status, et, dur = 500, "TypeError", lognorm(w.rng, 18)
                elif w.rng.random() < 0.002:
                    status, et = 503, "Illuminate\\Database\\QueryException"
                path = route.replace("link-platform", "link-platform") if "{" not in route else route
                s = server(tr, "account-portal", method, route, path, t, dur, status, err_type=et, version=v)
                d1 = lognorm(w.rng, med * 0.3)
                db(tr, "account-portal", s, "mysql", "SELECT", "accounts", "select * from `accounts` where `id` = ? limit 1",
                   t + MS, d1)
                if route == "/api/account/link-platform":
                    if fails:
                        tr.log("account-portal", t + dur - MS, 17,
                               "App\\Services\\PlatformLink::normalize(): Argument #1 ($handle) must be of type string, null given, called in /var/www/app/Http/Controllers/LinkController.php on line 58",
                               span=s, attrs={"exception.type": "TypeError", "code.filepath": "app/Services/PlatformLink.php", "code.lineno": 31})
                    else:
                        client(tr, "account-portal", s, "platform-auth.lanternfall.internal", "POST", "/v2/link",
                               t + d1 + 2 * MS, lognorm(w.rng, med * 0.5), 200)
                tr.keep()


def build_matchmaker(w, sp):
    # Elixir matchmaker, config build cfg.2026120502: eu-west pool max_wait_ms=0
    regions = [("eu-west", 0.45), ("eu-central", 0.3), ("na-east", 0.25)]
    cfg = sp["bad_version"]
    for m in minutes(w):
        for t in arrivals(w, m, 160):
            tr = Trace(w)
            v = w.version("matchmaker", t)
            r = w.rng.random()
            region = "eu-west" if r < 0.45 else ("eu-central" if r < 0.75 else "na-east")
            dur = lognorm(w.rng, 70)
            status, et = 200, None
            bad = v == cfg and region == "eu-west" and w.rng.random() < 0.41
            if bad:
                status, et, dur = 503, "pool_unavailable", lognorm(w.rng, 4)
            s = server(tr, "matchmaker", "POST", "/v1/queue/join", "/v1/queue/join", t, dur, status, err_type=et,
                       attrs={"lanternfall.region": region, "lanternfall.queue": "ranked-5v5"}, version=v)
            if bad:
                tr.log("matchmaker", t + dur, 17,
                       "[error] join rejected region=%s reason=:pool_unavailable max_wait_ms=0" % region, span=s,
                       attrs={"code.namespace": "Matchmaker.Pools", "code.function": "reserve/2"})
            else:
                db(tr, "matchmaker", s, "redis", "ZADD", "", "ZADD queue:ranked-5v5:%s ? ?" % region, t + MS,
                   lognorm(w.rng, 1.5))
            tr.keep()
        for t in arrivals(w, m, 45):
            tr = Trace(w)
            s = server(tr, "matchmaker", "GET", "/v1/queue/status", "/v1/queue/status", t, lognorm(w.rng, 8), 200)
            tr.keep()


def build_report_triage(w, sp):
    # Ruby report-triage, prompt v12: verdict JSON stops parsing; HTTP 200 throughout
    bad_v = sp["bad_version"]
    for m in minutes(w):
        for t in arrivals(w, m, 22):
            tr = Trace(w)
            v = w.version("report-triage", t)
            bad = v == bad_v
            parsed = not (bad and w.rng.random() < 0.58) and w.rng.random() > 0.01
            out_tok = int(w.rng.gauss(410 if bad else 120, 40 if bad else 25))
            in_tok = int(w.rng.gauss(1540 if bad else 1180, 60))
            llm = lognorm(w.rng, 2400 if bad else 1100, 0.25)
            dur = llm + lognorm(w.rng, 30)
            s = server(tr, "report-triage", "POST", "/triage/reports", "/triage/reports", t, dur, 200, version=v,
                       attrs={"triage.verdict": ("needs_human" if not parsed else w.rng.choice(["dismiss", "warn", "mute_24h", "dismiss"])),
                              "triage.verdict_parsed": parsed, "triage.prompt_version": "v12" if bad else "v11"})
            tr.span("report-triage", "chat gpt-4o-mini-2024-07-18", 3, t + 5 * MS, llm, parent=s, attrs={
                "gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini-2024-07-18",
                "gen_ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.request.max_tokens": 600,
                "gen_ai.request.temperature": 0.2, "gen_ai.usage.input_tokens": in_tok, "gen_ai.usage.output_tokens": out_tok,
                "gen_ai.response.finish_reasons": ["stop"], "server.address": "api.openai.com", "server.port": 443})
            if not parsed:
                tr.log("report-triage", t + dur - MS, 13,
                       "triage verdict unparseable, routed to human queue (JSON::ParserError: unexpected character: 'Here' at line 1 column 1)",
                       span=s, attrs={"code.namespace": "Triage::VerdictParser"})
            tr.keep()


def build_store_storm(w, sp):
    # Ruby store-api 3.9.0: Faraday retry (max 4, no backoff), timeout 300 ms, on inventory
    bad_v = sp["bad_version"]
    for m in minutes(w):
        for t in arrivals(w, m, 120):
            tr = Trace(w)
            v = w.version("store-api", t)
            storm = v == bad_v
            s_start = t
            cur = t + 2 * MS
            attempts = 1
            final = 200
            calls = []
            max_attempts = 5 if storm else 1
            # inventory's load: the share of store-api's new version, amplified
            load = ramp(t, sp["release"] + int(2.5 * NS), 90)
            p503 = 0.004 + 0.34 * load
            slow = 1 + 2.2 * load
            for a in range(max_attempts):
                inv_d = lognorm(w.rng, 95 * slow, 0.5)
                timeout = 300 * MS if storm else 2000 * MS
                st = 200
                if w.rng.random() < p503:
                    st = 503
                    inv_d = lognorm(w.rng, 3)
                if inv_d > timeout:
                    st = 0
                    inv_d = timeout
                calls.append((cur, inv_d, st, a))
                cur += inv_d + MS
                final = st
                if st == 200:
                    break
            dur = cur - t + lognorm(w.rng, 12)
            status = 200 if final == 200 else 502
            s = server(tr, "store-api", "POST", "/v1/purchases", "/v1/purchases", t, dur, status,
                       err_type=None if status == 200 else "Faraday::ServerError", version=v)
            for (c0, cd, st, a) in calls:
                at_ = {"http.request.resend_count": a} if a else {}
                c = client(tr, "store-api", s, "inventory", "POST", "/reserve", c0, cd, st,
                           err_type="Faraday::TimeoutError" if st == 0 else None, attrs=at_)
                if st != 0:
                    server(tr, "inventory", "POST", "/reserve", "/reserve", c0 + int(0.5 * MS), max(cd - MS, MS), st,
                           err_type="overloaded" if st == 503 else None)
            if status != 200:
                tr.log("store-api", t + dur, 17, "Faraday::ServerError: the server responded with status 503 (POST http://inventory:8080/reserve) after %d attempts" % len(calls), span=s)
            if storm and len(calls) > 1:
                tr.log("store-api", calls[1][0], 13, "Retrying Faraday request POST /reserve, attempt %d of 5" % 2, span=s)
            tr.keep()
        for t in arrivals(w, m, 80):
            tr = Trace(w)
            s = server(tr, "store-api", "GET", "/v1/catalog", "/v1/catalog", t, lognorm(w.rng, 25), 200)
            db(tr, "store-api", s, "postgresql", "SELECT", "offers", "SELECT offers.* FROM offers WHERE offers.active = $1",
               t + MS, lognorm(w.rng, 6))
            tr.keep()


def build_progression(w, sp):
    # Elixir Broadway progression-worker 4.2.0 crashes on match.results with the new field
    bad_v = sp["bad_version"]
    for m in minutes(w):
        for t in arrivals(w, m, 140):
            tr = Trace(w)
            d = lognorm(w.rng, 6)
            root = tr.span("session-host", "match.finalize", 1, t, d + 3 * MS,
                           attrs={"lanternfall.match.mode": "ranked-5v5", "lanternfall.match.players": 10})
            p = publish(tr, "session-host", root, "match.results", "ranked.finished", t + MS, lognorm(w.rng, 0.8))
            tr.keep()
            lag = lognorm(w.rng, 40, 0.6)
            ct = t + lag
            v = w.version("progression-worker", ct)
            fails = v == bad_v and w.rng.random() < 0.88
            redel = False
            for attempt in range(3 if fails else 1):
                dur = lognorm(w.rng, 3 if fails else 22)
                ctr, cs = process(w, "progression-worker", "progression.match_results", "match.results",
                                  "ranked.finished", ct, dur, p, err=fails,
                                  err_type="FunctionClauseError" if fails else None,
                                  msg="no function clause matching in Progression.XP.award/2" if fails else "",
                                  redelivered=redel)
                if fails:
                    ctr.log("progression-worker", ct + dur, 17,
                            "** (FunctionClauseError) no function clause matching in Progression.XP.award/2\n    (progression 4.2.0) lib/progression/xp.ex:44: Progression.XP.award(%{mode: \"ranked-5v5\", placement: nil, ...}, ...)",
                            span=cs)
                else:
                    db(ctr, "progression-worker", cs, "postgresql", "UPDATE", "player_xp",
                       "UPDATE player_xp SET xp = xp + $1 WHERE player_id = ANY($2)", ct + MS, lognorm(w.rng, 9))
                ctr.keep()
                redel = True
                ct += lognorm(w.rng, 1000, 0.2)


def build_trap_broker(w, sp):
    # store-api 3.14.0 (receipt copy) ships; 3 minutes later the broker raises a memory alarm
    onset = sp["outage"]
    end = sp["outage_end"]
    for m in minutes(w):
        for t in arrivals(w, m, 110):
            tr = Trace(w)
            v = w.version("store-api", t)
            blocked = onset <= t < end and w.rng.random() < 0.7
            d_db = lognorm(w.rng, 12)
            if blocked:
                pub_d = 5000 * MS  # Bunny's publisher confirm timeout
                dur = d_db + pub_d + lognorm(w.rng, 8)
                s = server(tr, "store-api", "POST", "/v1/purchases", "/v1/purchases", t, dur, 503,
                           err_type="Bunny::ConnectionClosedError", version=v)
            else:
                pub_d = lognorm(w.rng, 1.2)
                dur = d_db + pub_d + lognorm(w.rng, 15)
                s = server(tr, "store-api", "POST", "/v1/purchases", "/v1/purchases", t, dur, 200, version=v)
            db(tr, "store-api", s, "postgresql", "INSERT", "purchases", "INSERT INTO purchases (player_id, offer_id, price_cents) VALUES ($1, $2, $3)",
               t + MS, d_db)
            publish(tr, "store-api", s, "store.purchases", "purchase.completed", t + d_db + 2 * MS, pub_d,
                    err=blocked, err_type="Bunny::ConnectionClosedError" if blocked else None,
                    msg="connection.blocked: low on memory (resource alarm)" if blocked else "")
            if blocked:
                tr.log("store-api", t + dur, 17,
                       "Bunny::ConnectionClosedError: Trying to send frame through a closed connection. Frame is #<AMQ::Protocol::MethodFrame @payload=basic.publish> (connection.blocked: low on memory)",
                       span=s)
            tr.keep()
        for t in arrivals(w, m, 70):
            tr = Trace(w)
            s = server(tr, "store-api", "GET", "/v1/catalog", "/v1/catalog", t, lognorm(w.rng, 25), 200)
            tr.keep()
    # the broker's own warning reaches the logs only through the ops channel: none here.


def build_trap_envoy_retries(w, sp):
    # wallet-svc 1.19.0 ships (receipt rendering); the payment processor fails 55-65% of
    # attempts; envoy's egress retry policy (3 retries on 5xx) hides most of it
    onset = sp["outage"]
    for m in minutes(w):
        for t in arrivals(w, m, 75):
            tr = Trace(w)
            v = w.version("wallet-svc", t)
            failing = t >= onset
            pfail = 0.6 * ramp(t, onset, 60) if failing else 0.003
            attempts = []
            cur = t + 4 * MS
            for a in range(4):
                st = 503 if w.rng.random() < pfail else 200
                d = lognorm(w.rng, 6 if st == 503 else 180, 0.3)
                attempts.append((cur, d, st))
                cur += d + (lognorm(w.rng, 25) if st == 503 and a < 3 else 0)
                if st == 200:
                    break
            final = attempts[-1][2]
            egress_d = cur - (t + 4 * MS)
            dur = egress_d + lognorm(w.rng, 14)
            status = 200 if final == 200 else 502
            s = server(tr, "wallet-svc", "POST", "/v1/wallet/topup", "/v1/wallet/topup", t, dur, status,
                       err_type=None if status == 200 else "Req.TransportError", version=v)
            db(tr, "wallet-svc", s, "postgresql", "INSERT", "topups", "INSERT INTO topups (player_id, amount, state) VALUES ($1,$2,'pending')",
               t + MS, lognorm(w.rng, 3))
            c = client(tr, "wallet-svc", s, "api.paygate.example", "POST", "/v3/charges", t + 4 * MS, egress_d,
                       final, port=443, outside=True)
            eg = tr.span("wallet-svc", "egress api.paygate.example", 3, t + 4 * MS + int(0.2 * MS), egress_d - int(0.3 * MS),
                         parent=c, err=final != 200, envoy=True,
                         attrs={"component": "proxy", "upstream_cluster": "outbound|443||api.paygate.example",
                                "http.method": "POST", "http.url": "https://api.paygate.example/v3/charges",
                                "http.protocol": "HTTP/1.1", "http.status_code": str(final),
                                "response_flags": "URX" if final != 200 else "-",
                                "upstream_address": "203.0.113.%d:443" % w.rng.randint(10, 40)})
            for i, (a0, ad, st) in enumerate(attempts):
                tr.span("wallet-svc", "router outbound|443||api.paygate.example egress", 3, a0, ad, parent=eg,
                        err=st != 200, envoy=True,
                        attrs={"component": "proxy", "upstream_cluster": "outbound|443||api.paygate.example",
                               "http.status_code": str(st), "upstream_address": "203.0.113.%d:443" % w.rng.randint(10, 40),
                               "retry.count": str(i) if i else "0", "response_flags": "UF" if st != 200 else "-"})
            if status != 200:
                tr.log("wallet-svc", t + dur, 17, "[error] topup failed: %Req.TransportError{reason: :upstream_5xx} status=503 body=\"{\\\"error\\\":\\\"processor_unavailable\\\"}\"", span=s)
            tr.keep()
        for t in arrivals(w, m, 90):
            tr = Trace(w)
            s = server(tr, "wallet-svc", "GET", "/v1/wallet/balance", "/v1/wallet/balance", t, lognorm(w.rng, 9), 200)
            db(tr, "wallet-svc", s, "postgresql", "SELECT", "wallets", "SELECT balance FROM wallets WHERE player_id = $1",
               t + MS, lognorm(w.rng, 2))
            tr.keep()


def build_trap_restart_marker(w, sp):
    # session-host 7.3.1 (two days old): the season finale's 64-player lobbies grow memory;
    # an OOM kill restarts one host process and its startup hook re-emits a marker
    restart = sp["restart"]
    onset = sp["onset"]
    for m in minutes(w):
        for t in arrivals(w, m, 95):
            tr = Trace(w)
            press = ramp(t, onset, 600)
            players = 10 if w.rng.random() > 0.35 * ramp(t, sp["finale"], 300) else 64
            tick = lognorm(w.rng, 14 * (1 + 2.6 * press), 0.3)
            err = press > 0.3 and w.rng.random() < 0.25 * press
            dur = lognorm(w.rng, 40 * (1 + 3 * press), 0.3)
            s = server(tr, "session-host", "POST", "/sessions/{id}/input", "/sessions/%d/input" % w.rng.randint(10000, 99999),
                       t, dur, 503 if err else 200, err_type="std::bad_alloc" if err else None,
                       attrs={"lanternfall.lobby.players": players, "lanternfall.tick.duration_ms": round(tick / MS, 2),
                              "process.memory.usage": int((1.9 + 3.7 * press) * 1024 ** 3)})
            if err:
                tr.log("session-host", t + dur, 17, "terminate called after throwing an instance of 'std::bad_alloc': what(): std::bad_alloc (lobby %d)" % w.rng.randint(100, 999), span=s)
            tr.keep()
    free_log(w, "session-host", restart - 2 * NS, 21, "Memory cgroup out of memory: Killed process 1 (session-host) total-vm:7331204kB, anon-rss:6083112kB",
             attrs={"log.source": "kernel"})
    free_log(w, "session-host", restart + 3 * NS, 9, "session-host 7.3.1 starting, build 7.3.1+g4a1e22c, deployment hook: marker sent")
    m = sp["onset"] + 60 * NS
    while m < w.now:
        free_log(w, "session-host", m + w.rng.randint(0, 50) * NS, 13, "tick overran budget: %.1fms > 33.3ms (lobbies=%d, rss=%.1fGiB)" % (
            33.3 + 40 * ramp(m, onset, 600) + w.rng.random() * 5, 40 + w.rng.randint(0, 20), 2 + 3.5 * ramp(m, onset, 600)))
        m += 60 * NS


def build_trap_surge_queue(w, sp):
    # replay-indexer 2.4.0 ships; 6 minutes later the season finale ends 5x as many matches
    surge = sp["surge"]
    for m in minutes(w):
        factor = 1 + 4 * ramp(m, surge, 120)
        for t in arrivals(w, m, 60 * factor):
            tr = Trace(w)
            root = tr.span("session-host", "match.finalize", 1, t, lognorm(w.rng, 4),
                           attrs={"lanternfall.match.mode": "ranked-5v5"})
            p = publish(tr, "session-host", root, "match.replays", "replay.ready", t + MS, lognorm(w.rng, 0.9))
            tr.keep()
            # the consumer keeps up to 90 a minute; the backlog grows past that
            backlog_s = max(0.0, (factor * 60 - 90) / 90.0) * max(0.0, (t - surge) / NS) * 0.5 if t > surge else 0
            ct = t + lognorm(w.rng, 80, 0.4) + int(backlog_s * NS)
            if ct >= w.now:
                continue
            slowp = ramp(t, surge, 300)
            dur = lognorm(w.rng, 420 * (1 + 1.4 * slowp), 0.3)
            err = w.rng.random() < 0.002 + 0.05 * slowp
            ctr, cs = process(w, "replay-indexer", "replay-indexer.replays", "match.replays", "replay.ready", ct, dur, p,
                              err=err, err_type="DBConnection.ConnectionError" if err else None,
                              msg="connection not available and request was dropped from queue after 1500ms" if err else "")
            db(ctr, "replay-indexer", cs, "postgresql", "INSERT", "replay_index", "INSERT INTO replay_index (match_id, blob_key, events) VALUES ($1,$2,$3)",
               ct + 2 * MS, lognorm(w.rng, 30 * (1 + 3 * slowp)), err=err,
               err_type="DBConnection.ConnectionError" if err else None)
            if err:
                ctr.log("replay-indexer", ct + dur, 17, "[error] Broadway processor failed: %DBConnection.ConnectionError{message: \"connection not available and request was dropped from queue after 1500ms\"}", span=cs)
            ctr.keep()
    m = surge + 3 * 60 * NS
    while m < w.now:
        free_log(w, "replay-indexer", m, 13, "[warning] replay-indexer.replays: prefetch saturated, %d messages ready on the queue" % int(800 * (m - surge) / (60 * NS)))
        m += 60 * NS


def build_trap_noisy(w, sp):
    # leaderboard-api 5.0.2 ships; 9 minutes later a replay-transcoder batch lands on the same host
    batch = sp["batch"]
    routes = [("GET", "/v1/leaderboards/{season}", 150, 18), ("GET", "/v1/leaderboards/{season}/around/{player}", 60, 25),
              ("POST", "/v1/scores", 90, 12)]
    for m in minutes(w):
        for method, route, rate, med in routes:
            for t in arrivals(w, m, rate):
                tr = Trace(w)
                p = ramp(t, batch, 90) * (1 if t < sp["batch_end"] else 0)
                dur = lognorm(w.rng, med * (1 + 2.5 * p), 0.35 + 0.2 * p)
                err = w.rng.random() < 0.001 + 0.03 * p
                path = route.replace("{season}", "s14").replace("{player}", str(w.rng.randint(1000, 99999)))
                s = server(tr, "leaderboard-api", method, route, path, t, dur, 504 if err else 200,
                           err_type="drogon::TimeoutError" if err else None,
                           attrs={"thread.id": w.rng.randint(1, 8)})
                db(tr, "leaderboard-api", s, "redis", "ZREVRANGE" if method == "GET" else "ZADD", "",
                   "ZREVRANGE lb:s14 ? ? WITHSCORES" if method == "GET" else "ZADD lb:s14 ? ?", t + MS, lognorm(w.rng, 1.2))
                tr.keep()
    # the neighbour's own spans: one per transcode job, same host
    t = batch
    while t < min(sp["batch_end"], w.now):
        tr = Trace(w)
        tr.span("replay-transcoder", "transcode replay", 1, t, lognorm(w.rng, 38000, 0.2),
                attrs={"lanternfall.job": "season-finale-highlights", "ffmpeg.preset": "slow", "ffmpeg.threads": 16,
                       "process.cpu.utilization": round(0.92 + w.rng.random() * 0.07, 3)})
        tr.keep(force=True)
        t += 20 * NS
    m = batch + 60 * NS
    while m < min(sp["batch_end"], w.now):
        free_log(w, "leaderboard-api", m + w.rng.randint(0, 40) * NS, 13, "event loop lag %dms on io thread %d (cpu steal)" % (w.rng.randint(120, 320), w.rng.randint(1, 8)))
        m += 60 * NS


def build_trap_canary(w, sp):
    # presence: the canary ring's 3.1.0 marker; the production pool's Ecto pool runs dry
    onset = sp["onset"]
    for m in minutes(w):
        for t in arrivals(w, m, 200):
            tr = Trace(w)
            canary = t >= sp["canary"] and w.rng.random() < 0.05
            ver = "3.1.0" if canary else "3.0.6"
            press = ramp(t, onset, 240)
            queue_ms = 2 + 1900 * press * w.rng.random()
            err = press > 0 and queue_ms > 1500 and w.rng.random() < 0.8
            res = {"deployment.environment.name": "canary", "host.name": "lf-rt-canary-1"} if canary else None
            dur = int(queue_ms * MS) + lognorm(w.rng, 12)
            route = "/v1/presence/friends"
            envoy = SERVICES["presence"][3]
            # presence's server span (its envoy span first)
            status = 500 if err else 200
            s = server(tr, "presence", "GET", route, route, t, dur, status,
                       err_type="DBConnection.ConnectionError" if err else None, version=ver)
            if res:
                s["resource"].update(res)
                for x in tr.spans:
                    x["resource"].update(res)
            ck = tr.span("presence", "presence.repo checkout", 1, t + MS, int(queue_ms * MS), parent=s, err=err,
                         msg="connection not available and request was dropped from queue after 1500ms" if err else "",
                         version=ver, res=res,
                         attrs={"db.system.name": "postgresql", "db.client.connection.pool.name": "Presence.Repo",
                                "db.client.connection.state": "idle" if not err else "used", "error.type": "DBConnection.ConnectionError"} if err else
                         {"db.system.name": "postgresql", "db.client.connection.pool.name": "Presence.Repo"})
            if not err:
                q = tr.span("presence", "SELECT friendships", 3, t + int(queue_ms * MS) + MS, lognorm(w.rng, 6), parent=s, version=ver, res=res,
                            attrs={"db.system.name": "postgresql", "db.operation.name": "SELECT", "db.collection.name": "friendships",
                                   "db.query.text": "SELECT f0.\"friend_id\" FROM \"friendships\" AS f0 WHERE (f0.\"player_id\" = $1)",
                                   "server.address": "pg-main.lanternfall.internal"})
            else:
                tr.log("presence", t + dur, 17, "[error] Postgrex.Protocol (#PID<0.%d.0>) disconnected: ** (DBConnection.ConnectionError) connection not available and request was dropped from queue after 1500ms. This means requests are coming in and your connection pool cannot serve them fast enough." % w.rng.randint(2000, 9000),
                       span=s, version=ver)
            tr.keep()
    # a long-running analytics query holds connections: its own spans, no release
    t = onset - 20 * NS
    while t < w.now:
        tr = Trace(w)
        tr.span("presence", "Presence.Stats.weekly_rollup", 1, t, lognorm(w.rng, 240000, 0.1),
                attrs={"oban.queue": "analytics", "oban.worker": "Presence.Stats.WeeklyRollup", "db.system.name": "postgresql"},
                version="3.0.6")
        tr.keep(force=True)
        t += 120 * NS


def build_trap_hotfix_after(w, sp):
    # chat-gateway: redis-rt slows from 09:12 (history reads p95 up); hotfix 4.8.1 at 09:16
    # shortens the read timeout 5 s -> 2 s, so timeouts (504) appear only after it
    onset = sp["onset"]
    hot = sp["hotfix_serve"]
    for m in minutes(w):
        for t in arrivals(w, m, 130):
            tr = Trace(w)
            v = w.version("chat-gateway", t)
            slow = ramp(t, onset, 420)
            rd = lognorm(w.rng, 3 * (1 + 600 * slow * w.rng.random()), 0.4)
            timeout = (2000 if v == "4.8.1" else 5000) * MS
            err = rd > timeout
            if err:
                rd = timeout
            dur = rd + lognorm(w.rng, 6)
            s = server(tr, "chat-gateway", "GET", "/v1/chat/{channel}/history", "/v1/chat/guild-%d/history" % w.rng.randint(1, 5000),
                       t, dur, 504 if err else 200, err_type="Redix.TimeoutError" if err else None, version=v)
            db(tr, "chat-gateway", s, "redis", "LRANGE", "", "LRANGE chat:history:? ? ?", t + MS, rd, err=err,
               err_type="Redix.TimeoutError" if err else None, msg="timeout" if err else "")
            if err:
                tr.log("chat-gateway", t + dur, 17, "[error] history read failed: %Redix.ConnectionError{reason: :timeout}", span=s)
            tr.keep()
        for t in arrivals(w, m, 90):
            tr = Trace(w)
            s = server(tr, "chat-gateway", "POST", "/v1/chat/{channel}/messages", "/v1/chat/guild-%d/messages" % w.rng.randint(1, 5000),
                       t, lognorm(w.rng, 8), 200)
            db(tr, "chat-gateway", s, "redis", "RPUSH", "", "RPUSH chat:history:? ?", t + MS, lognorm(w.rng, 1))
            tr.keep()
    m = onset + 30 * NS
    while m < w.now:
        free_log(w, "chat-gateway", m, 13, "[warning] Redix pool :history: %d of 20 connections busy, slowlog len %d" % (min(20, 6 + int(14 * ramp(m, onset, 300))), int(300 * ramp(m, onset, 420))))
        m += 60 * NS


# ---------------------------------------------------------------- the corpus

D = "2026-12-05T"


def spec_list():
    L = []

    def add(**kw):
        L.append(kw)

    add(id="ho4-typeerror-link-platform-account-portal", builder=build_account_portal,
        title="account-portal 8.4.0 throws a TypeError on POST /api/account/link-platform (one route of four)",
        service="account-portal", start=at(D + "09:00:00"), now=at(D + "10:30:00"), keep_one_in=10,
        releases={"account-portal": [("8.3.2", None), ("8.4.0", at(D + "09:58:41.7"))]},
        ledger={"account-portal": [("8.2.5", "2026-11-18T10:12:05.000000000+01:00"), ("8.3.2", "2026-11-27T16:40:12.310000000+01:00"),
                                   ("8.4.0", D + "09:58:42.610000000+01:00")]},
        markers=[("account-portal", at(D + "09:58:41.7"), "8.4.0", "8.3.2", "gitlab-deploy-88412", "production")],
        alert=("AccountPortal5xxBudget", at(D + "10:14:00"), "9.6"),
        expect=("bad_release", "allow"), tags=["php", "laravel", "envoy", "bad-release"])

    add(id="ho4-config-eu-pool-matchmaker", builder=build_matchmaker, bad_version="4.11.0+cfg.2026120502",
        title="matchmaker's config build cfg.2026120502 sets the eu-west pool's max_wait_ms to 0: 41% of eu-west joins answer 503",
        service="matchmaker", start=at(D + "12:00:00"), now=at(D + "13:10:00"), keep_one_in=8,
        releases={"matchmaker": [("4.11.0+cfg.2026120401", None), ("4.11.0+cfg.2026120502", at(D + "12:31:08.2"))]},
        ledger={"matchmaker": [("4.11.0+cfg.2026120401", "2026-12-04T09:02:44.000000000+01:00"),
                               ("4.11.0+cfg.2026120502", D + "12:31:09.020000000+01:00")]},
        markers=[("matchmaker", at(D + "12:31:08.2"), "4.11.0+cfg.2026120502", "4.11.0+cfg.2026120401", "argo-config-mm-2205", "production")],
        alert=("MatchmakerJoinAvailability", at(D + "12:49:30"), "5.1"),
        expect=("config_regression", "allow"), tags=["elixir", "phoenix", "envoy", "config"])

    add(id="ho4-prompt-v12-report-triage", builder=build_report_triage, bad_version="2.6.0+prompt.12",
        title="report-triage's prompt v12 makes 58% of verdicts unparseable (routed to humans); HTTP 200 throughout",
        service="report-triage", start=at(D + "14:00:00"), now=at(D + "15:30:00"), keep_one_in=4,
        releases={"report-triage": [("2.6.0+prompt.11", None), ("2.6.0+prompt.12", at(D + "14:47:52.9"))]},
        ledger={"report-triage": [("2.6.0+prompt.11", "2026-12-01T11:20:00.500000000+01:00"),
                                  ("2.6.0+prompt.12", D + "14:47:53.700000000+01:00")]},
        markers=[("report-triage", at(D + "14:47:52.9"), "2.6.0+prompt.12", "2.6.0+prompt.11", "gitlab-deploy-88590", "production")],
        alert=("TriageVerdictQuality", at(D + "15:08:00"), "4.2"),
        expect=("prompt_regression", "allow"), tags=["ruby", "rails", "gen_ai", "prompt"])

    add(id="ho4-faraday-retry-store-api-inventory", builder=build_store_storm, bad_version="3.9.0",
        release=at(D + "16:20:17.4"),
        title="store-api 3.9.0 adds a Faraday retry (max 4, no backoff, 300 ms timeout) on inventory: inventory's load x3, 503s",
        service="store-api", start=at(D + "15:30:00"), now=at(D + "16:50:00"), keep_one_in=12,
        releases={"store-api": [("3.8.4", None), ("3.9.0", at(D + "16:20:17.4"))], "inventory": [("2.2.0", None)]},
        ledger={"store-api": [("3.8.1", "2026-11-20T13:00:00.000000000+01:00"), ("3.8.4", "2026-11-30T10:44:31.000000000+01:00"),
                              ("3.9.0", D + "16:20:18.250000000+01:00")],
                "inventory": [("2.2.0", "2026-11-25T09:30:00.000000000+01:00")]},
        markers=[("store-api", at(D + "16:20:17.4"), "3.9.0", "3.8.4", "gitlab-deploy-88633", "production")],
        alert=("StorePurchaseErrors", at(D + "16:36:00"), "11.3"),
        expect=("retry_storm", "allow"), tags=["ruby", "faraday", "cpp", "envoy", "retry-storm"])

    add(id="ho4-amqp-crash-progression-worker", builder=build_progression, bad_version="4.2.0",
        title="progression-worker 4.2.0 (Broadway) raises FunctionClauseError on 88% of match.results; RabbitMQ redelivers",
        service="progression-worker", start=at(D + "17:00:00"), now=at(D + "18:05:00"), keep_one_in=10,
        releases={"progression-worker": [("4.1.3", None), ("4.2.0", at(D + "17:38:26.0"))], "session-host": [("7.3.1", None)]},
        ledger={"progression-worker": [("4.1.3", "2026-11-29T15:00:10.000000000+01:00"), ("4.2.0", D + "17:38:26.880000000+01:00")],
                "session-host": [("7.3.1", "2026-12-03T11:05:00.000000000+01:00")]},
        markers=[("progression-worker", at(D + "17:38:26.0"), "4.2.0", "4.1.3", "argo-progression-431", "production")],
        alert=("ProgressionProcessFailures", at(D + "17:52:00"), "14.0"),
        expect=("bad_release", "allow"), tags=["elixir", "broadway", "amqp", "span-links", "bad-release"])

    # ------------------------------------------------------------ traps
    add(id="ho4-trap-broker-memory-alarm-store-api", builder=build_trap_broker,
        outage=at(D + "19:24:40"), outage_end=at(D + "23:00:00"),
        title="RabbitMQ's memory alarm blocks store-api's publishes 3 minutes after 3.14.0 (receipt copy) shipped",
        service="store-api", start=at(D + "18:30:00"), now=at(D + "19:50:00"), keep_one_in=10,
        releases={"store-api": [("3.13.2", None), ("3.14.0", at(D + "19:21:35.1"))]},
        ledger={"store-api": [("3.13.2", "2026-12-02T10:10:00.000000000+01:00"), ("3.14.0", D + "19:21:35.900000000+01:00")]},
        markers=[("store-api", at(D + "19:21:35.1"), "3.14.0", "3.13.2", "gitlab-deploy-88702", "production")],
        alert=("StorePurchaseErrors", at(D + "19:33:00"), "18.5"),
        expect=("dependency_outage", "deny"), tags=["ruby", "bunny", "amqp", "trap", "coincident-release"])

    add(id="ho4-trap-paygate-behind-envoy-retries-wallet-svc", builder=build_trap_envoy_retries,
        outage=at(D + "20:33:20"),
        title="the payment processor fails 60% of attempts 4 minutes after wallet-svc 1.19.0; envoy's egress retries hide most of it",
        service="wallet-svc", start=at(D + "19:40:00"), now=at(D + "21:00:00"), keep_one_in=8,
        releases={"wallet-svc": [("1.18.3", None), ("1.19.0", at(D + "20:29:02.3"))]},
        ledger={"wallet-svc": [("1.18.3", "2026-11-28T14:00:00.000000000+01:00"), ("1.19.0", D + "20:29:03.150000000+01:00")]},
        markers=[("wallet-svc", at(D + "20:29:02.3"), "1.19.0", "1.18.3", "argo-wallet-1190", "production")],
        alert=("WalletTopupLatency", at(D + "20:44:00"), "6.8"),
        expect=("dependency_outage", "deny"), tags=["elixir", "envoy", "retries-hidden", "trap", "coincident-release"])

    add(id="ho4-trap-restart-marker-session-host", builder=build_trap_restart_marker,
        restart=at(D + "21:41:12.4"), onset=at(D + "21:47:00"), finale=at(D + "21:20:00"),
        title="session-host's startup hook re-emits a 7.3.1 marker after an OOM restart; the release is two days old; 64-player lobbies exhaust memory",
        service="session-host", start=at(D + "21:00:00"), now=at(D + "22:15:00"), keep_one_in=6,
        releases={"session-host": [("7.3.0", None), ("7.3.1", None)]},
        ledger={"session-host": [("7.3.0", "2026-11-26T08:00:00.000000000+01:00"), ("7.3.1", "2026-12-03T11:05:00.410000000+01:00")]},
        markers=[("session-host", at(D + "21:41:15.4"), "7.3.1", "7.3.0", "startup-hook-lf-gs-11", "production")],
        alert=("SessionHostInputLatency", at(D + "22:02:00"), "7.7"),
        expect=("resource_saturation", "deny"), tags=["cpp", "marker-ledger-contradiction", "trap"])

    add(id="ho4-trap-finale-surge-replay-indexer", builder=build_trap_surge_queue,
        surge=at(D + "22:36:00"),
        title="the season finale ends 5x as many matches 6 minutes after replay-indexer 2.4.0: the queue backs up",
        service="replay-indexer", start=at(D + "21:45:00"), now=at(D + "23:05:00"), keep_one_in=10,
        releases={"replay-indexer": [("2.3.7", None), ("2.4.0", at(D + "22:29:47.5"))], "session-host": [("7.3.1", None)]},
        ledger={"replay-indexer": [("2.3.7", "2026-11-21T12:00:00.000000000+01:00"), ("2.4.0", D + "22:29:48.300000000+01:00")],
                "session-host": [("7.3.1", "2026-12-03T11:05:00.410000000+01:00")]},
        markers=[("replay-indexer", at(D + "22:29:47.5"), "2.4.0", "2.3.7", "argo-replay-240", "production")],
        alert=("ReplayIndexerLag", at(D + "22:50:00"), "5.9"),
        expect=("traffic_surge", "deny"), tags=["elixir", "broadway", "amqp", "surge", "trap", "coincident-release"])

    add(id="ho4-trap-transcoder-neighbour-leaderboard-api", builder=build_trap_noisy,
        batch=at(D + "08:21:00"), batch_end=at(D + "09:30:00"),
        title="a replay-transcoder batch lands on leaderboard-api's host 9 minutes after 5.0.2: every route 2.5x slower",
        service="leaderboard-api", start=at(D + "07:30:00"), now=at(D + "08:45:00"), keep_one_in=15,
        releases={"leaderboard-api": [("5.0.1", None), ("5.0.2", at(D + "08:12:05.8"))], "replay-transcoder": [("1.4.0", None)]},
        ledger={"leaderboard-api": [("5.0.1", "2026-11-30T09:00:00.000000000+01:00"), ("5.0.2", D + "08:12:06.600000000+01:00")],
                "replay-transcoder": [("1.4.0", "2026-11-15T09:00:00.000000000+01:00")]},
        markers=[("leaderboard-api", at(D + "08:12:05.8"), "5.0.2", "5.0.1", "gitlab-deploy-88101", "production")],
        alert=("LeaderboardLatencyP95", at(D + "08:33:00"), "4.4"),
        expect=("resource_saturation", "deny"), tags=["cpp", "drogon", "envoy", "noisy-neighbour", "trap"])

    add(id="ho4-trap-canary-marker-presence", builder=build_trap_canary,
        canary=at(D + "11:02:30"), onset=at(D + "11:09:00"),
        title="presence's canary ring marks 3.1.0 (canary environment, not in the production ledger); an analytics job drains the Ecto pool",
        service="presence", start=at(D + "10:20:00"), now=at(D + "11:35:00"), keep_one_in=20,
        releases={"presence": [("3.0.6", None)]},
        ledger={"presence": [("3.0.5", "2026-11-19T10:00:00.000000000+01:00"), ("3.0.6", "2026-11-26T14:31:20.000000000+01:00")]},
        markers=[("presence", at(D + "11:02:28.6"), "3.1.0", "3.0.6", "argo-presence-canary-310", "canary")],
        alert=("PresenceFriendsErrors", at(D + "11:20:00"), "12.2"),
        expect=("db_pool_exhaustion", "deny"), tags=["elixir", "ecto", "canary-marker", "trap"])

    add(id="ho4-trap-hotfix-after-redis-chat-gateway", builder=build_trap_hotfix_after,
        onset=at(D + "13:12:00"), hotfix_serve=at(D + "13:16:40"),
        title="redis-rt slows history reads from 13:12; hotfix 4.8.1 (read timeout 5 s -> 2 s) at 13:16 makes them 504 from then on",
        service="chat-gateway", start=at(D + "12:20:00"), now=at(D + "13:40:00"), keep_one_in=12,
        releases={"chat-gateway": [("4.8.0", None), ("4.8.1", at(D + "13:16:37.9"))]},
        ledger={"chat-gateway": [("4.7.2", "2026-11-24T10:00:00.000000000+01:00"), ("4.8.0", "2026-12-02T16:00:00.000000000+01:00"),
                                 ("4.8.1", D + "13:16:38.700000000+01:00")]},
        markers=[("chat-gateway", at(D + "13:16:37.9"), "4.8.1", "4.8.0", "argo-chat-481", "production")],
        alert=("ChatHistoryErrors", at(D + "13:26:00"), "8.9"),
        expect=("retrieval_latency", "deny"), tags=["elixir", "redix", "envoy", "release-after-onset", "trap"])
    return L


def strip_private(s):
    out = dict(s)
    out.pop("_v", None)
    out["timestamp"] = ts(out["timestamp"])
    return out


def write_jsonl(folder, name, rows):
    data = "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in rows).encode()
    p = os.path.join(folder, name)
    for q in (p, p + ".gz"):
        if os.path.exists(q):
            os.remove(q)
    if len(data) > GZIP_OVER:
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=buf, mtime=0) as g:
            g.write(data)
        with open(p + ".gz", "wb") as f:
            f.write(buf.getvalue())
        return name + ".gz", len(rows)
    with open(p, "wb") as f:
        f.write(data)
    return name, len(rows)


def write(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def alert_json(sp):
    name, starts, burn = sp["alert"]
    svc = sp["service"]
    rule_id = str(40000 + sum(ord(c) for c in name))
    labels = {"alertname": name, "service": svc, "severity": "page", "ruleId": rule_id,
              "team": "lanternfall-live-ops", "env": "production"}
    ann = {"summary": "%s is burning its error budget" % svc, "slo_burn_rate": burn,
           "description": "%s: %s over 1h window" % (svc, name)}
    fp = hexid(random.Random(sp["id"]), 16)
    body = {
        "receiver": "signoz-to-pagerduty",
        "status": "firing",
        "alerts": [{"status": "firing", "labels": labels, "annotations": ann, "startsAt": ts_alert(starts),
                    "endsAt": "0001-01-01T00:00:00Z",
                    "generatorURL": "https://signoz.lanternfall.gg/alerts/overview?ruleId=" + rule_id,
                    "fingerprint": fp}],
        "groupLabels": {"alertname": name, "service": svc},
        "commonLabels": labels,
        "commonAnnotations": ann,
        "externalURL": "https://signoz.lanternfall.gg",
        "version": "4",
        "groupKey": "{}:{alertname=\"%s\", service=\"%s\"}" % (name, svc),
        "truncatedAlerts": 0,
    }
    return json.dumps(body, indent=2) + "\n"


def main():
    for i, sp in enumerate(spec_list()):
        folder = os.path.join(HERE, sp["id"])
        os.makedirs(folder, exist_ok=True)
        w = World(sp, SEED * 1000 + i)
        for (svc, t, v, prev, dep, env) in sp["markers"]:
            marker(w, svc, t, v, prev, dep, env,
                   res_extra={"host.name": "lf-rt-canary-1"} if env == "canary" else None)
        sp["builder"](w, sp)
        spans = sorted(w.spans, key=lambda s: (s["timestamp"], s["trace_id"], s["span_id"]))
        spans = [strip_private(s) for s in spans if s["timestamp"] < sp["now"]]
        logs = sorted(w.logs, key=lambda l: (l["timestamp"], l["span_id"]))
        logs = [dict(l, timestamp=ts(l["timestamp"])) for l in logs if l["timestamp"] < sp["now"]]
        sname, ns = write_jsonl(folder, "spans.jsonl", spans)
        lname, nl = write_jsonl(folder, "logs.jsonl", logs)
        rc, verdict = sp["expect"]
        hist = (sp["now"] - sp["start"]) // (60 * NS)
        y = ["id: %s" % sp["id"], "title: %s" % json.dumps(sp["title"]), "service: %s" % sp["service"],
             "now: %s" % ts(sp["now"]).replace(".000000000", ""), "expect:", "  root_cause: %s" % rc,
             "  verdict: %s" % verdict, "tags: [%s]" % ", ".join(["heldout4", "lanternfall"] + sp["tags"])]
        write(folder, "incident.yaml", "\n".join(y) + "\n")
        r = ["project: lanternfall", "services:"]
        for svc, entries in sp["ledger"].items():
            r.append("  %s:" % svc)
            for v, when in entries:
                r += ["    - version: \"%s\"" % v, "      image: registry.lanternfall.gg/%s:%s" % (svc, v.replace("+", "_")),
                      "      deployed_at: \"%s\"" % when]
        write(folder, "releases.yaml", "\n".join(r) + "\n")
        write(folder, "alert.json", alert_json(sp))
        write(folder, "expect.json", json.dumps({"root_cause": rc, "verdict": verdict,
                                                 "sampling": "tail: all errors, all > 2 s, 1 in %d of the rest" % sp["keep_one_in"],
                                                 "history_minutes": hist}, indent=2) + "\n")
        print("%-52s %s %6d spans  %s %5d logs" % (sp["id"], sname, ns, lname, nl))


def head_twin(out, ids):
    """Writes head-sampled twins of the incidents ids into out (not part of the
    corpus): the same worlds, each trace kept 1 in N whatever its outcome, as a
    collector without tail sampling would keep them. README.md says why."""
    global HERE
    HERE = out

    def keep(self, force=False):
        w = self.w
        if force or w.rng.random() < 1.0 / w.keep_one_in:
            w.spans.extend(self.spans)
            w.logs.extend(self.logs)
    Trace.keep = keep
    global spec_list
    every = spec_list
    spec_list = lambda: [s for s in every() if s["id"] in ids]
    os.makedirs(out, exist_ok=True)
    main()


if __name__ == "__main__":
    import sys
    if len(sys.argv) > 2 and sys.argv[1] == "--head-twin":
        # python3 gen.py --head-twin OUT-DIR ID...
        head_twin(sys.argv[2], set(sys.argv[3:]))
    else:
        main()
