#!/usr/bin/env python3
"""Writes e2e/incidents-heldout3 (issue 35's third held-out corpus, branch h42ho3).

Deterministic: every incident draws from random.Random(SEED + its index), and the
telemetry is written as spans.jsonl.gz through `gzip -9 -n`, so running
`python3 gen.py` again gives the same bytes. Style (README.md): a freight forwarder
("harbourline") with Java/Spring, Go (net/http + go-retryablehttp, grpc-go), Rust
(axum + reqwest), Python (FastAPI, OpenAI SDK, SQLAlchemy), .NET and Node.js
services; the current OpenTelemetry semantic conventions (http.request.method,
http.response.status_code, url.full, server.address, db.system.name, db.query.text,
rpc.grpc.status_code, gen_ai.usage.input_tokens, deployment.environment.name);
millisecond `Z` timestamps; history 1 to 4 hours; head sampling 1 in 2 to 1 in 25;
logs kept for sampled traces only.
"""
import datetime
import hashlib
import json
import math
import os
import random
import subprocess

SEED = 1342
HERE = os.path.dirname(os.path.abspath(__file__))


def ts(t):
    d = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (d.microsecond // 1000)


def epoch(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


class Rec:
    """One incident's recording: spans, logs and its random stream."""

    def __init__(self, seed, start, minutes, sample):
        self.rng = random.Random(seed)
        self.start, self.minutes, self.sample = start, minutes, sample
        self.spans, self.logs = [], []

    def tid(self):
        return "%032x" % self.rng.getrandbits(128)

    def sid(self):
        return "%016x" % self.rng.getrandbits(64)

    def at(self, x):
        return self.start + x * 60.0

    def span(self, res, name, kind, start, ms, attrs, trace, parent="", err=False, msg=""):
        s = self.sid()
        self.spans.append({
            "timestamp": ts(start), "trace_id": trace, "span_id": s,
            "parent_span_id": parent, "name": name, "kind": kind,
            "duration_nano": int(ms * 1e6), "has_error": bool(err),
            "status_code": 2 if err else 0, "status_message": msg if err else "",
            "resource": res, "attributes": attrs})
        return s

    def log(self, res, t, sev, body, trace="", span="", attrs=None):
        self.logs.append({"timestamp": ts(t), "severity_text": sev, "body": body,
                          "trace_id": trace, "span_id": span, "resource": res,
                          "attributes": attrs or {}})

    def lat(self, median, sigma=0.35):
        return median * math.exp(self.rng.gauss(0, sigma))

    def poisson(self, lam):
        if lam > 30:
            return max(0, int(round(self.rng.gauss(lam, math.sqrt(lam)))))
        l, k, p = math.exp(-lam), 0, 1.0
        while True:
            p *= self.rng.random()
            if p <= l:
                return k
            k += 1

    def drive(self, ops):
        """ops: (rate per minute as a function of the minute, builder(t, x))."""
        for m in range(self.minutes):
            for rate, build in ops:
                for _ in range(self.poisson(rate(m + 0.5) / self.sample)):
                    x = m + self.rng.random()
                    if x < self.minutes:
                        build(self.at(x), x)

    def marker(self, res, x, version, previous, env="production", dep_id=""):
        attrs = {"deployment.version": version, "deployment.previous_version": previous,
                 "deployment.environment.name": env}
        if dep_id:
            attrs["deployment.id"] = dep_id
        self.span(res, "deployment.marker", 1, self.at(x), 0, attrs, self.tid())


def res(svc, ver, lang, pod, ns="harbourline", env="production", **extra):
    r = {"service.name": svc, "service.version": ver, "service.namespace": "harbourline",
         "deployment.environment.name": env, "telemetry.sdk.language": lang,
         "telemetry.sdk.name": "opentelemetry", "k8s.namespace.name": ns,
         "k8s.pod.name": pod}
    r.update(extra)
    return r


def http_server(method, route, path, status, host, **extra):
    a = {"http.request.method": method, "http.route": route, "url.path": path,
         "url.scheme": "http", "http.response.status_code": status,
         "server.address": host, "network.protocol.version": "1.1"}
    a.update(extra)
    return a


def http_client(method, url, status, host, port=443, **extra):
    a = {"http.request.method": method, "url.full": url, "server.address": host,
         "server.port": port}
    if status:
        a["http.response.status_code"] = status
    a.update(extra)
    return a


def grpc_attrs(service, method, code, peer=None):
    a = {"rpc.system": "grpc", "rpc.service": service, "rpc.method": method,
         "rpc.grpc.status_code": code}
    if peer:
        a["server.address"], a["server.port"] = peer, 9090
    return a


def db(system, query, ns, **extra):
    a = {"db.system.name": system, "db.query.text": query, "db.namespace": ns}
    a.update(extra)
    return a


# gRPC server spans follow the semantic conventions: only these codes mark a
# server span as an error (UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL,
# UNAVAILABLE, DATA_LOSS); a client span is an error on every code but OK.
GRPC_SERVER_ERR = {2, 4, 12, 13, 14, 15}


# ---------------------------------------------------------------- incidents


def prompt_claims_digest(r):
    """A prompt template release: outputs run to max_tokens, HTTP 200 throughout."""
    rel = 97.0
    old = {"v": "0.41.0", "pod": "claims-digest-6c9d7f5b8-"}
    new = {"v": "0.42.0", "pod": "claims-digest-7f48c2d9a-"}
    pods = {k: [d["pod"] + p for p in ("k2x9q", "m7trw")] for k, d in (("o", old), ("n", new))}

    def rs(x):
        d, k = (new, "n") if x >= rel + 0.04 else (old, "o")
        return res("claims-digest", d["v"], "python", r.rng.choice(pods[k]), ns="claims",
                   **{"process.runtime.name": "cpython", "process.runtime.version": "3.12.7"})

    def post(t, x):
        R, tr = rs(x), r.tid()
        newp = x >= rel + 0.04
        cid = "CLM-%07d" % r.rng.randrange(10**7)
        inp = int(r.rng.gauss(2950 if newp else 1850, 240))
        if newp and r.rng.random() < 0.86:
            out, fin = 1024, "length"
        else:
            out, fin = min(1023, int(r.lat(300 if not newp else 640, 0.3))), "stop"
        dbms, llm = r.lat(7), 320 + out * r.lat(9.2, 0.12)
        total = dbms + llm + r.lat(12)
        root = r.span(R, "POST /v1/digests", 2, t, total,
                      http_server("POST", "/v1/digests", "/v1/digests", 200, "claims-digest",
                                  **{"user_agent.original": "claims-portal/5.2.1"}), tr)
        r.span(R, "SELECT claims", 3, t + 0.002, dbms,
               db("postgresql", "SELECT id, body, lines FROM claims WHERE id = %(id)s", "claims"),
               tr, root)
        c = r.span(R, "chat gpt-4.1-mini", 3, t + dbms / 1000 + 0.004, llm, {
            "gen_ai.system": "openai", "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4.1-mini", "gen_ai.request.max_tokens": 1024,
            "gen_ai.request.temperature": 0.2,
            "gen_ai.response.model": "gpt-4.1-mini-2025-04-14",
            "gen_ai.response.id": "chatcmpl-" + r.sid() + r.sid()[:8],
            "gen_ai.usage.input_tokens": inp, "gen_ai.usage.output_tokens": out,
            "gen_ai.response.finish_reasons": [fin], "server.address": "api.openai.com",
            "app.claim.id": cid}, tr, root)
        r.span(R, "POST", 3, t + dbms / 1000 + 0.005, llm - 2,
               http_client("POST", "https://api.openai.com/v1/chat/completions", 200,
                           "api.openai.com"), tr, c)

    def get(t, x):
        R, tr = rs(x), r.tid()
        dbms = r.lat(5)
        root = r.span(R, "GET /v1/digests/{digest_id}", 2, t, dbms + r.lat(3),
                      http_server("GET", "/v1/digests/{digest_id}",
                                  "/v1/digests/%d" % r.rng.randrange(10**6), 200,
                                  "claims-digest"), tr)
        r.span(R, "SELECT digests", 3, t + 0.001, dbms,
               db("postgresql", "SELECT * FROM digests WHERE id = %(id)s", "claims"), tr, root)

    r.drive([(lambda m: 40, post), (lambda m: 15, get)])
    r.marker(res("claims-digest", new["v"], "python", pods["n"][0], ns="claims"), rel,
             new["v"], old["v"], dep_id="argocd-claims-digest-1187")
    return {"releases": {"claims-digest": [("0.40.2", "2026-11-20T10:02:11Z"),
                                           ("0.41.0", "2026-11-27T08:45:30Z"),
                                           (new["v"], rel)]},
            "images": "ghcr.io/harbourline/{svc}:{v}"}


def retryablehttp_tariff(r):
    """A Go release: client timeout 2s -> 250ms, RetryMax 4, waits 50-400ms."""
    rel = 160.0
    fx = "https://fx-rates.pricing.svc.cluster.local:8443/v2/convert"

    def rs(x):
        v = "git-b92a4f1" if x >= rel + 0.03 else "git-7d41c0e"
        return res("tariff-engine", v, "go", "tariff-engine-%s-%s" % (
            v[4:9], r.rng.choice(["q8w2n", "z4v6c", "h1p0s"])), ns="pricing",
            **{"process.runtime.name": "go", "process.runtime.version": "go1.23.4"})

    def fxres():
        return res("fx-rates", "1.9.3", "go", "fx-rates-84c-" + r.rng.choice(["aa1", "bb2"]),
                   ns="pricing")

    def fx_median(x):
        load = 0.0 if x < rel else min(1.0, (x - rel) / 4.0)
        return 105 * (1 + 1.1 * load)

    def quote(t, x):
        R, tr = rs(x), r.tid()
        newv = x >= rel + 0.03
        timeout, retry_max = (250, 4) if newv else (2000, 4)
        wait = (50, 400) if newv else (1000, 30000)
        dbms = r.lat(4)
        root_t = t
        t1 = t + dbms / 1000 + 0.001
        cur, resend, ok, last = t1, 0, False, ""
        attempts = []
        for i in range(retry_max + 1):
            lat = r.lat(fx_median(x), 0.55)
            p503 = 0.002 if not newv else 0.06
            code = 503 if r.rng.random() < p503 else 200
            attempts.append((cur, min(lat, timeout), lat, code))
            if lat <= timeout and code == 200:
                ok = True
                cur += lat / 1000
                break
            last = "503 Service Unavailable" if lat <= timeout else \
                "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
            cur += min(lat, timeout) / 1000
            if i == retry_max:
                break
            w = min(wait[1], wait[0] * 2 ** i) / 1000
            left = retry_max - i - 1
            desc = "POST %s" % fx + (" (status: 503)" if lat <= timeout else "")
            rec_t = cur
            cur += w
            resend += 1
            attempts[-1] = attempts[-1] + ((rec_t, desc, w, left),)
        callms = (cur - t1) * 1000
        total = dbms + callms + r.lat(3)
        status = 200 if ok else 502
        root = r.span(R, "POST /tariffs/quote", 2, root_t, total,
                      http_server("POST", "/tariffs/quote", "/tariffs/quote", status,
                                  "tariff-engine"), tr, err=not ok,
                      msg="" if ok else "fx conversion failed")
        r.span(R, "SELECT lane_rates", 3, t + 0.0005, dbms,
               db("postgresql", "SELECT * FROM lane_rates WHERE lane = $1", "tariffs"), tr, root)
        ca = http_client("POST", fx, 200 if ok else (503 if "503" in last else 0),
                         "fx-rates.pricing.svc.cluster.local", 8443)
        if resend:
            ca["http.request.resend_count"] = resend
        if not ok:
            ca["error.type"] = "503" if "503" in last else "*url.Error"
        c = r.span(R, "POST", 3, t1, callms, ca, tr, root, err=not ok,
                   msg="" if ok else "POST %s giving up after %d attempt(s): %s" % (
                       fx, retry_max + 1, last))
        for a in attempts:
            st, _, full, code = a[:4]
            r.span(fxres(), "POST /v2/convert", 2, st + 0.001, full - 1,
                   http_server("POST", "/v2/convert", "/v2/convert", code, "fx-rates"),
                   tr, c, err=code >= 500, msg="upstream ECB feed stale" if code >= 500 else "")
            if len(a) > 4:
                rt, desc, w, left = a[4]
                r.log(R, rt, "INFO", "[DEBUG] %s: retrying in %dms (%d left)" % (
                    desc, round(w * 1000), left), tr, c, {"logger": "retryablehttp"})
        if not ok:
            r.log(R, cur, "INFO", "[ERR] POST %s giving up after %d attempt(s)" % (
                fx, retry_max + 1), tr, c, {"logger": "retryablehttp"})

    def lanes(t, x):
        R, tr = rs(x), r.tid()
        dbms = r.lat(3)
        root = r.span(R, "GET /tariffs/lanes/{lane}", 2, t, dbms + r.lat(2),
                      http_server("GET", "/tariffs/lanes/{lane}", "/tariffs/lanes/NLRTM-USNYC",
                                  200, "tariff-engine"), tr)
        r.span(R, "SELECT lanes", 3, t + 0.0005, dbms,
               db("postgresql", "SELECT * FROM lanes WHERE code = $1", "tariffs"), tr, root)

    def fx_other(t, x):
        lat = r.lat(fx_median(x) * 0.6, 0.4)
        r.span(fxres(), "GET /v2/rates", 2, t, lat,
               http_server("GET", "/v2/rates", "/v2/rates", 200, "fx-rates"), r.tid())

    r.drive([(lambda m: 150, quote), (lambda m: 80, lanes), (lambda m: 60, fx_other)])
    r.marker(res("tariff-engine", "git-b92a4f1", "go", "tariff-engine-b92a4-q8w2n",
                 ns="pricing"), rel, "git-b92a4f1", "git-7d41c0e",
             dep_id="flux-pricing-tariff-engine-2291")
    return {"releases": {"tariff-engine": [("git-7d41c0e", "2026-11-24T16:20:00Z"),
                                           ("git-b92a4f1", rel)],
                         "fx-rates": [("1.9.3", "2026-11-10T09:00:00Z")]},
            "images": "registry.harbourline.io/pricing/{svc}:{v}"}


def config_amend_manifest(r):
    """A configuration build sets amend_cutoff_hours=0: AmendManifest alone fails."""
    rel = 41.0
    svc = "harbourline.manifest.v1.ManifestService"
    old, new = "2026.49.2+cfg.12", "2026.49.2+cfg.13"

    def rs(x):
        v = new if x >= rel + 0.05 else old
        return res("manifest-svc", v, "go", "manifest-svc-%s-%s" % (
            v[-2:], r.rng.choice(["x1", "x2", "x3"])), ns="ops")

    def portal():
        return res("customs-portal", "8.3.0", "java", "customs-portal-5d-" + r.rng.choice(
            ["a", "b"]), ns="ops")

    def rpc(method, dbq, fail):
        def build(t, x):
            R, tr = rs(x), r.tid()
            failing = fail and x >= rel + 0.05 and r.rng.random() < 0.7
            code = 9 if failing else 0
            dbms = r.lat(6)
            total = dbms + r.lat(4)
            cl = r.span(portal(), svc + "/" + method, 3, t - 0.002, total + 3,
                        grpc_attrs(svc, method, code, "manifest-svc.ops"), tr,
                        err=code != 0, msg="amendment window closed" if failing else "")
            sv = r.span(R, svc + "/" + method, 2, t, total, grpc_attrs(svc, method, code), tr,
                        cl, err=code in GRPC_SERVER_ERR,
                        msg="amendment window closed" if failing else "")
            r.span(R, dbq.split()[0] + " manifests", 3, t + 0.001, dbms,
                   db("postgresql", dbq, "manifests"), tr, sv)
            if failing:
                r.log(R, t + total / 1000, "warn", json.dumps({
                    "level": "warn", "caller": "amend/handler.go:88",
                    "msg": "amend rejected", "reason": "window closed",
                    "amend_cutoff_hours": 0, "manifest_id": "MF-%06d" % r.rng.randrange(10**6)}),
                    tr, sv, {"logger": "zap"})
        return build

    r.drive([(lambda m: 60, rpc("GetManifest", "SELECT * FROM manifests WHERE id=$1", False)),
             (lambda m: 20, rpc("ListManifests", "SELECT id FROM manifests WHERE voyage=$1", False)),
             (lambda m: 10, rpc("CreateManifest", "INSERT INTO manifests VALUES ($1,$2,$3)", False)),
             (lambda m: 6, rpc("AmendManifest", "UPDATE manifests SET lines=$2 WHERE id=$1", True))])
    r.marker(res("manifest-svc", new, "go", "manifest-svc-13-x1", ns="ops"), rel, new, old,
             dep_id="spinnaker-manifest-svc-cfg-13")
    return {"releases": {"manifest-svc": [("2026.48.5+cfg.11", "2026-11-26T12:00:00Z"),
                                          ("2026.49.2+cfg.12", "2026-12-01T07:15:00Z"),
                                          (new, rel)],
                         "customs-portal": [("8.3.0", "2026-11-19T11:11:00Z")]},
            "images": "registry.harbourline.io/ops/{svc}:{v}"}


def hedging_dispatch(r):
    """An earlier slow episode of the callee, then a release that turns on hedging."""
    rel, ep0, ep1 = 215.0, 95.0, 122.0
    ysvc = "harbourline.yard.v1.YardPlanner"
    dsvc = "harbourline.dispatch.v1.Dispatch"

    def rs(x):
        v = "v5.9.0" if x >= rel + 0.03 else "v5.8.0"
        return res("dispatch-router", v, "go", "dispatch-router-%s-%s" % (
            v.replace(".", "")[1:], r.rng.choice(["aa", "bb", "cc", "dd"])), ns="dispatch")

    def yres():
        return res("yard-planner", "3.14.2", "go", "yard-planner-" + r.rng.choice(
            ["p1", "p2", "p3"]), ns="dispatch")

    def load(x):
        return 1.0 if x < rel else 1.0 + min(1.8, (x - rel) * 0.45)

    def ymed(x):
        m = 45.0 * (1 + (load(x) - 1) * 1.6)
        if ep0 <= x < ep1:
            m = 380.0 if x < ep1 - 3 else 120.0
        return m

    def assign(t, x):
        R, tr = rs(x), r.tid()
        hedge = x >= rel + 0.03
        deadline = 2000.0
        attempts, cur, ok = [], t + 0.001, False
        n = 3 if hedge else 1
        end = None
        for i in range(n):
            st = t + 0.001 + (0.02 * i if hedge else 0)
            lat = r.lat(ymed(x), 0.5)
            code = 0
            if r.rng.random() < (0.004 if not hedge else 0.45 * (load(x) - 1) / 1.8):
                code, lat = 8, r.lat(3)
            attempts.append((st, lat, code, i))
            fin = st + min(lat, deadline) / 1000
            if code == 0 and lat < deadline:
                ok = True
                end = fin if end is None else min(end, fin)
            if hedge and i < n - 1 and (st + 0.02) * 1 > fin and code == 0:
                break
        if end is None:
            end = max(a[0] + min(a[1], deadline) / 1000 for a in attempts)
        callms = (end - (t + 0.001)) * 1000
        code = 0 if ok else (4 if all(a[2] == 0 for a in attempts) else 8)
        total = callms + r.lat(2)
        srv_code = 0 if ok else 14
        root = r.span(R, dsvc + "/AssignTruck", 2, t, total,
                      grpc_attrs(dsvc, "AssignTruck", srv_code), tr,
                      err=srv_code in GRPC_SERVER_ERR,
                      msg="" if ok else "no yard slot: upstream unavailable")
        ca = grpc_attrs(ysvc, "ReserveSlot", code, "yard-planner.dispatch")
        if len(attempts) > 1:
            ca["previous-rpc-attempts"] = len(attempts) - 1
        c = r.span(R, ysvc + "/ReserveSlot", 3, t + 0.001, callms, ca, tr, root,
                   err=code != 0, msg={0: "", 4: "context deadline exceeded",
                                       8: "slot limiter: too many concurrent reservations"}[code])
        for st, lat, acode, i in attempts:
            a = grpc_attrs(ysvc, "ReserveSlot", acode)
            if i:
                a["rpc.grpc.request.metadata.grpc-previous-rpc-attempts"] = [str(i)]
            r.span(yres(), ysvc + "/ReserveSlot", 2, st + 0.0005, lat, a, tr, c,
                   err=acode in GRPC_SERVER_ERR,
                   msg="slot limiter: too many concurrent reservations" if acode else "")
        if not ok:
            r.log(R, end, "error", "assign failed truck=TRK-%05d err=%s" % (
                r.rng.randrange(10**5), "rpc error: code = ResourceExhausted desc = slot limiter"
                if code == 8 else "rpc error: code = DeadlineExceeded desc = context deadline exceeded"),
                tr, root, {"logger": "slog"})

    def get(t, x):
        R, tr = rs(x), r.tid()
        dbms = r.lat(3)
        root = r.span(R, dsvc + "/GetAssignment", 2, t, dbms + r.lat(1.5),
                      grpc_attrs(dsvc, "GetAssignment", 0), tr)
        r.span(R, "GET", 3, t + 0.0003, dbms,
               db("redis", "GET assignment:*", "0", **{"server.address": "redis-dispatch"}),
               tr, root)

    def compaction(t, x):
        if ep0 <= x < ep1:
            r.log(yres(), t, "warn", "pebble: write stall: L0 file count 24 >= 20, compaction behind",
                  attrs={"logger": "pebble"})

    r.drive([(lambda m: 300, assign), (lambda m: 200, get), (lambda m: 20, compaction)])
    r.marker(res("dispatch-router", "v5.9.0", "go", "dispatch-router-590-aa", ns="dispatch"),
             rel, "v5.9.0", "v5.8.0", dep_id="argocd-dispatch-router-v5.9.0")
    return {"releases": {"dispatch-router": [("v5.7.3", "2026-11-18T13:40:00Z"),
                                             ("v5.8.0", "2026-11-29T10:05:00Z"),
                                             ("v5.9.0", rel)],
                         "yard-planner": [("3.14.2", "2026-11-21T08:30:00Z")]},
            "images": "registry.harbourline.io/dispatch/{svc}:{v}"}


def cache_dropped_quote_api(r):
    """A Rust release keys its rate cache by request id: ratecard is called per leg, saturates."""
    rel = 128.0

    def rs(x):
        v = "3.3.0" if x >= rel + 0.03 else "3.2.0"
        return res("quote-api", v, "rust", "quote-api-%s-%s" % (
            v.replace(".", ""), r.rng.choice(["t1", "t2", "t3"])), ns="sales",
            **{"process.runtime.name": "rustc", "process.runtime.version": "1.83.0"})

    def rcres():
        return res("ratecard", "2.7.1", "java", "ratecard-7b-" + r.rng.choice(["m1", "m2"]),
                   ns="pricing", **{"process.runtime.name": "OpenJDK Runtime Environment",
                                    "process.runtime.version": "21.0.5+11-LTS"})

    def pressure(x):
        return 0.0 if x < rel else min(1.0, (x - rel) / 3.0)

    def rc_call(x):
        p = pressure(x)
        lat = r.lat(32 * (1 + 11 * p), 0.45)
        code = 503 if r.rng.random() < 0.22 * p else 200
        if code == 503:
            lat = r.lat(4)
        return lat, code

    def quote(t, x):
        R, tr = rs(x), r.tid()
        newv = x >= rel + 0.03
        legs = r.rng.choice([2, 3, 3, 4])
        cur = t + 0.0005
        root_spans, ok, failed_lane = [], True, ""
        for leg in range(legs):
            lane = r.rng.choice(["CNSHA-NLRTM", "NLRTM-USNYC", "SGSIN-DEHAM", "USLAX-JPTYO"])
            hit = (not newv) and r.rng.random() < 0.85
            rms = r.lat(0.6, 0.3)
            root_spans.append(("redis", cur, rms, hit, lane))
            cur += rms / 1000
            if not hit:
                lat, code = rc_call(x)
                timeout = 500.0
                if lat > timeout:
                    code, lat = 0, timeout
                root_spans.append(("rc", cur, lat, code, lane))
                cur += lat / 1000
                if code != 200:
                    ok, failed_lane = False, lane
                    break
        total = (cur - t) * 1000 + r.lat(1)
        status = 200 if ok else 503
        root = r.span(R, "GET /v1/quotes", 2, t, total,
                      http_server("GET", "/v1/quotes", "/v1/quotes", status, "quote-api"),
                      tr, err=not ok, msg="" if ok else "rate lookup failed")
        for kind, st, ms, v, lane in root_spans:
            if kind == "redis":
                r.span(R, "GET", 3, st, ms, db("redis", "GET ratecache:%s" % lane, "0",
                                               **{"server.address": "redis-sales"}), tr, root)
                continue
            url = "http://ratecard.pricing:8080/rates/" + lane
            c = r.span(R, "GET", 3, st, ms, http_client("GET", url, v, "ratecard.pricing", 8080),
                       tr, root, err=v != 200,
                       msg="" if v == 200 else ("HTTP status server error (503 Service Unavailable)"
                                                if v else "operation timed out"))
            if v:
                r.span(rcres(), "GET /rates/{lane}", 2, st + 0.0008, ms - 0.8,
                       http_server("GET", "/rates/{lane}", "/rates/" + lane, v, "ratecard"),
                       tr, c, err=v >= 500, msg="Bulkhead 'rates' is full" if v >= 500 else "")
        if not ok:
            r.log(R, cur, "WARN", "quote_api::legs: ratecard call failed lane=%s error=%s" % (
                failed_lane, "HTTP status server error (503 Service Unavailable)"),
                tr, root, {"target": "quote_api::legs"})

    def accept(t, x):
        R, tr = rs(x), r.tid()
        dbms = r.lat(8)
        root = r.span(R, "POST /v1/quotes/{id}/accept", 2, t, dbms + r.lat(2),
                      http_server("POST", "/v1/quotes/{id}/accept", "/v1/quotes/q_8812/accept",
                                  200, "quote-api"), tr)
        r.span(R, "INSERT bookings_draft", 3, t + 0.0004, dbms,
               db("postgresql", "INSERT INTO bookings_draft VALUES ($1,$2)", "sales"), tr, root)

    def rc_other(t, x):
        lat, code = rc_call(x)
        r.span(rcres(), "GET /rates/{lane}", 2, t, lat,
               http_server("GET", "/rates/{lane}", "/rates/CNSHA-NLRTM", code, "ratecard"),
               r.tid(), err=code >= 500, msg="Bulkhead 'rates' is full" if code >= 500 else "")

    r.drive([(lambda m: 200, quote), (lambda m: 30, accept), (lambda m: 100, rc_other)])
    r.marker(res("quote-api", "3.3.0", "rust", "quote-api-330-t1", ns="sales"), rel,
             "3.3.0", "3.2.0", dep_id="argocd-quote-api-3.3.0")
    return {"releases": {"quote-api": [("3.1.4", "2026-11-17T09:30:00Z"),
                                       ("3.2.0", "2026-11-28T14:10:00Z"), ("3.3.0", rel)],
                         "ratecard": [("2.7.1", "2026-11-12T11:00:00Z")]},
            "images": "ghcr.io/harbourline/{svc}:{v}"}


def trap_carrier_outage(r):
    """The ocean carrier's API answers 503; booking-gateway released 3 minutes before."""
    rel, out0 = 92.0, 95.0
    carrier = "https://api.oceancarrier.example/v3/bookings"

    def rs(x):
        v = "4.12.2" if x >= rel + 0.05 else "4.12.1"
        return res("booking-gateway", v, "java", "booking-gateway-%s-%s" % (
            v.replace(".", ""), r.rng.choice(["r1", "r2", "r3"])), ns="booking",
            **{"process.runtime.name": "OpenJDK Runtime Environment",
               "process.runtime.version": "21.0.5+11-LTS"})

    def book(t, x):
        R, tr = rs(x), r.tid()
        p503 = 0.003 if x < out0 else (0.55 if x < out0 + 1 else 0.78)
        dbms = r.lat(9)
        cur = t + dbms / 1000 + 0.002
        calls, ok = [], False
        for attempt in range(1, 4):
            code = 503 if r.rng.random() < p503 else 201
            lat = r.lat(30 if code == 503 else 240, 0.4)
            calls.append((cur, lat, code, attempt))
            cur += lat / 1000
            if code == 201:
                ok = True
                break
            if attempt < 3:
                cur += 0.5
        total = (cur - t) * 1000 + r.lat(6)
        ref = "BKG-%08d" % r.rng.randrange(10**8)
        root = r.span(R, "POST /api/bookings", 2, t, total,
                      http_server("POST", "/api/bookings", "/api/bookings", 201 if ok else 502,
                                  "booking-gateway"), tr, err=not ok,
                      msg="" if ok else "CARRIER_UNAVAILABLE")
        r.span(R, "INSERT booking.bookings", 3, t + 0.001, dbms,
               db("postgresql", "insert into bookings (ref,status,payload) values (?,?,?)",
                  "booking"), tr, root)
        for st, lat, code, attempt in calls:
            c = r.span(R, "POST", 3, st, lat,
                       http_client("POST", carrier, code, "api.oceancarrier.example"), tr, root,
                       err=code >= 500, msg="503 Service Unavailable" if code >= 500 else "")
            if code >= 500 and attempt < 3:
                r.log(R, st + lat / 1000, "WARN",
                      "Retry 'oceanCarrier', waiting PT0.5S until attempt '%d'. Last attempt "
                      "failed with exception 'org.springframework.web.client.HttpServerErrorException"
                      "$ServiceUnavailable: 503 Service Unavailable: \"{\"error\":\"upstream maintenance\"}\"'."
                      % (attempt + 1), tr, c,
                      {"logger.name": "io.github.resilience4j.retry.internal.RetryImpl"})
        if not ok:
            r.log(R, cur, "ERROR", "booking %s failed after 3 attempts: carrier unavailable" % ref,
                  tr, root, {"logger.name": "io.harbourline.booking.CarrierClient"})

    def get(t, x):
        R, tr = rs(x), r.tid()
        dbms = r.lat(4)
        root = r.span(R, "GET /api/bookings/{ref}", 2, t, dbms + r.lat(3),
                      http_server("GET", "/api/bookings/{ref}", "/api/bookings/BKG-00123456",
                                  200, "booking-gateway"), tr)
        r.span(R, "SELECT booking.bookings", 3, t + 0.0008, dbms,
               db("postgresql", "select * from bookings where ref=?", "booking"), tr, root)

    r.drive([(lambda m: 90, book), (lambda m: 150, get)])
    r.marker(res("booking-gateway", "4.12.2", "java", "booking-gateway-4122-r1", ns="booking"),
             rel, "4.12.2", "4.12.1", dep_id="jenkins-booking-gateway-918")
    return {"releases": {"booking-gateway": [("4.11.0", "2026-11-16T10:00:00Z"),
                                             ("4.12.1", "2026-11-30T15:20:00Z"),
                                             ("4.12.2", rel)]},
            "images": "registry.harbourline.io/booking/{svc}:{v}"}


def trap_staging_marker(r):
    """Month-end batch drives invoicing into GC pressure and OOM kills; staging's marker."""
    mk, on = 61.0, 63.0
    pods = ["invoicing-5f9d-h7k2p", "invoicing-5f9d-w3n8s"]
    restarts = {75.0: 0, 82.0: 1}

    def pod(x):
        p = list(pods)
        for at, i in restarts.items():
            if x >= at:
                p[i] = p[i][:-5] + ("q9z1m" if i == 0 else "b6t4c")
        return r.rng.choice(p)

    def rs(x):
        return res("invoicing", "2026.11.5", "dotnet", pod(x), ns="billing",
                   **{"process.runtime.name": ".NET", "process.runtime.version": "8.0.11"})

    def slow(x):
        return 1.0 if x < on else 1.0 + min(3.2, (x - on) * 0.6)

    def ep(name, route, path, med, dbq):
        def build(t, x):
            R, tr = rs(x), r.tid()
            s = slow(x)
            fail = any(at <= x < at + 1.2 for at in restarts) and r.rng.random() < 0.5
            fail = fail or (x >= on and r.rng.random() < 0.02 * (s - 1))
            dbms = r.lat(5)
            total = r.lat(med * s, 0.45) + dbms
            root = r.span(R, name, 2, t, total,
                          http_server(name.split()[0], route, path, 503 if fail else 200,
                                      "invoicing"), tr, err=fail,
                          msg="" if not fail else "System.OutOfMemoryException: Insufficient memory")
            r.span(R, "invoicing", 3, t + 0.001, dbms,
                   db("mssql", dbq, "invoicing"), tr, root)
        return build

    def batch(t, x):
        if x >= 60:
            R = rs(x)
            r.span(R, "InvoiceBatchJob.Execute", 1, t, r.lat(42000, 0.2),
                   {"hangfire.job.id": str(r.rng.randrange(10**5)),
                    "app.batch.invoices": r.rng.randrange(8000, 14000)}, r.tid())
            r.log(R, t, "Warning", "GC gen2 pause %dms; managed heap %.1f GiB of 4 GiB container limit"
                  % (r.lat(900, 0.3) * slow(x) / 2, min(3.95, 2.2 + (x - 60) * 0.09)),
                  attrs={"category": "Invoicing.Diagnostics.GcMonitor"})

    r.drive([(lambda m: 80, ep("POST /invoices/render", "/invoices/render", "/invoices/render",
                                140, "SELECT lines FROM dbo.InvoiceLines WHERE InvoiceId=@p0")),
             (lambda m: 120, ep("GET /invoices/{id}", "/invoices/{id}", "/invoices/INV-2026-7781",
                                18, "SELECT * FROM dbo.Invoices WHERE Id=@p0")),
             (lambda m: 6, batch)])
    R = res("invoicing", "2026.12.1-rc.3", "dotnet", "invoicing-7c1a-s4kd2", ns="billing-staging",
            env="staging")
    r.marker(R, mk, "2026.12.1-rc.3", "2026.11.5", env="staging", dep_id="octopus-Deployments-4471")
    return {"releases": {"invoicing": [("2026.11.4", "2026-11-12T09:00:00Z"),
                                       ("2026.11.5", "2026-11-26T09:30:00Z")]},
            "images": "harbourline.azurecr.io/billing/{svc}:{v}"}


def trap_hotfix_after_pool(r):
    """SQLAlchemy's pool runs dry; an unrelated hotfix ships 6 minutes after the onset."""
    on, rel = 168.0, 174.0

    def rs(x):
        v = "1.30.2" if x >= rel + 0.05 else "1.30.1"
        return res("tracking-events", v, "python", "tracking-events-%s-%s" % (
            v.replace(".", ""), r.rng.choice(["a", "b", "c", "d"])), ns="tracking",
            **{"process.runtime.name": "cpython", "process.runtime.version": "3.11.10"})

    def pfail(x):
        return 0.0 if x < on else min(0.4, 0.08 + (x - on) * 0.04)

    msg = ("sqlalchemy.exc.TimeoutError: QueuePool limit of size 10 overflow 5 reached, "
           "connection timed out, timeout 5.00")

    def ep(name, route, path, dbq, med):
        def build(t, x):
            R, tr = rs(x), r.tid()
            fail = r.rng.random() < pfail(x)
            wait = 5000 + r.lat(3) if fail else (r.lat(0.3) if x < on else r.lat(900, 0.8))
            dbms = 0 if fail else r.lat(med)
            total = wait + dbms + r.lat(2)
            root = r.span(R, name, 2, t, total,
                          http_server(name.split()[0], route, path, 500 if fail else 200,
                                      "tracking-events"), tr, err=fail,
                          msg=msg if fail else "")
            r.span(R, "connect", 1, t + 0.0005, wait,
                   {"db.system.name": "postgresql", "db.client.connection.pool.name": "tracking"},
                   tr, root, err=fail, msg=msg if fail else "")
            if not fail:
                r.span(R, dbq.split()[0], 3, t + wait / 1000 + 0.001, dbms,
                       db("postgresql", dbq, "tracking"), tr, root)
            else:
                r.log(R, t + total / 1000, "ERROR", "Exception in ASGI application\n" + msg,
                      tr, root, {"code.namespace": "uvicorn.error"})
        return build

    r.drive([(lambda m: 240, ep("GET /v1/shipments/{shipment_id}/events",
                                "/v1/shipments/{shipment_id}/events",
                                "/v1/shipments/SHP-4471/events",
                                "SELECT * FROM events WHERE shipment_id = %(id)s", 6)),
             (lambda m: 120, ep("POST /v1/events", "/v1/events", "/v1/events",
                                "INSERT INTO events (shipment_id, kind, at) VALUES (%(a)s, %(b)s, %(c)s)",
                                4))])
    r.marker(res("tracking-events", "1.30.2", "python", "tracking-events-1302-a", ns="tracking"),
             rel, "1.30.2", "1.30.1", dep_id="gha-tracking-events-5120")
    return {"releases": {"tracking-events": [("1.29.0", "2026-11-21T10:00:00Z"),
                                             ("1.30.1", "2026-12-02T16:45:00Z"),
                                             ("1.30.2", rel)]},
            "images": "ghcr.io/harbourline/{svc}:{v}"}


def trap_surge(r):
    """A partner's bulk sync triples parcel-search traffic 3 minutes after a release."""
    rel, s0 = 96.0, 99.0

    def L(x):
        return 1.0 if x < s0 else 1.0 + min(2.2, (x - s0) * 0.45)

    def rs(x):
        v = "v2.31.0" if x >= rel + 0.03 else "v2.30.0"
        return res("parcel-search", v, "go", "parcel-search-%s-%s" % (
            v.replace(".", "")[1:], r.rng.choice(["a1", "b2", "c3", "d4", "e5"])), ns="tracking")

    def ep(route, path, esq):
        def build(t, x):
            R, tr = rs(x), r.tid()
            partner = x >= s0 and r.rng.random() < 1 - 1 / L(x)
            es = r.lat(22 * (1 + 0.95 * (L(x) - 1)), 0.4)
            fail = r.rng.random() < 0.025 * (L(x) - 1)
            a = http_server("GET", route, path, 503 if fail else 200, "parcel-search")
            a["user_agent.original"] = "coastline-partner-sync/1.4" if partner else \
                r.rng.choice(["Mozilla/5.0", "harbourline-ios/7.2", "harbourline-android/7.2"])
            root = r.span(R, "GET " + route, 2, t, es + r.lat(4), a, tr, err=fail,
                          msg="es: 429 Too Many Requests" if fail else "")
            r.span(R, "search", 3, t + 0.001, es,
                   db("elasticsearch", esq, "parcels",
                      **{"server.address": "es-parcels.tracking", "server.port": 9200,
                         "db.operation.name": "search"}), tr, root, err=fail,
                   msg="es_rejected_execution_exception" if fail else "")
        return build

    r.drive([(lambda m: 900 * L(m), ep("/search", "/search", '{"query":{"match":{"ref":"?"}}}')),
             (lambda m: 500 * L(m), ep("/parcels/{id}", "/parcels/PCL88123", '{"ids":["?"]}')),
             (lambda m: 300 * L(m), ep("/suggest", "/suggest", '{"suggest":{"ref":"?"}}'))])
    r.marker(res("parcel-search", "v2.31.0", "go", "parcel-search-2310-a1", ns="tracking"), rel,
             "v2.31.0", "v2.30.0", dep_id="argocd-parcel-search-v2.31.0")
    return {"releases": {"parcel-search": [("v2.29.4", "2026-11-25T08:00:00Z"),
                                           ("v2.30.0", "2026-12-01T13:00:00Z"),
                                           ("v2.31.0", rel)]},
            "images": "registry.harbourline.io/tracking/{svc}:{v}"}


def trap_noisy_neighbour(r):
    """A customs archiver's batch lands on label-render's node 11 minutes after a release."""
    rel, nb = 40.0, 51.0
    node = "ip-10-40-17-88.eu-west-1.compute.internal"

    def rs(x):
        v = "12.4.1" if x >= rel + 0.05 else "12.4.0"
        return res("label-render", v, "nodejs", "label-render-%s-%s" % (
            v.replace(".", ""), r.rng.choice(["f2", "g7"])), ns="labels",
            **{"k8s.node.name": node, "process.runtime.name": "nodejs",
               "process.runtime.version": "22.11.0"})

    def cpu(x):
        return 1.0 if x < nb else 1.0 + min(2.6, (x - nb) * 0.9)

    def ep(name, route, path, med, s3):
        def build(t, x):
            R, tr = rs(x), r.tid()
            render = r.lat(med * cpu(x), 0.4)
            s3ms = r.lat(25)
            total = render + s3ms + r.lat(2)
            fail = total > 2500
            if fail:
                total = 2500.0
            root = r.span(R, name, 2, t, total,
                          http_server(name.split()[0], route, path, 504 if fail else 200,
                                      "label-render"), tr, err=fail,
                          msg="render timed out" if fail else "")
            r.span(R, "pdfkit.render", 1, t + 0.001, min(render, total - 1),
                   {"app.label.format": "zpl" if r.rng.random() < 0.3 else "pdf"}, tr, root)
            r.span(R, s3, 3, t + render / 1000, s3ms,
                   {"rpc.system": "aws-api", "rpc.service": "S3", "rpc.method": s3.split(".")[1],
                    "aws.s3.bucket": "harbourline-labels", "server.address": "s3.eu-west-1.amazonaws.com"},
                   tr, root)
        return build

    def neighbour(t, x):
        if x >= nb - 1:
            R = res("customs-archiver", "0.9.7", "python", "customs-archiver-28911760-x8r2", ns="customs",
                    **{"k8s.node.name": node, "k8s.cronjob.name": "customs-archiver"})
            r.span(R, "archive.compress_batch", 1, t, r.lat(55000, 0.2),
                   {"app.batch.files": r.rng.randrange(400, 900), "app.codec": "zstd-19"}, r.tid())
        if x >= nb:
            r.log(rs(x), t, "warn", "event loop delay p99 %dms over the last 10s" % (
                r.lat(120 * cpu(x), 0.3)), attrs={"logger": "pino"})

    r.drive([(lambda m: 60, ep("POST /labels", "/labels", "/labels", 210, "S3.PutObject")),
             (lambda m: 90, ep("GET /labels/:id.pdf", "/labels/:id.pdf", "/labels/LBL-99812.pdf",
                               35, "S3.GetObject")),
             (lambda m: 6, neighbour)])
    r.marker(res("label-render", "12.4.1", "nodejs", "label-render-1241-f2", ns="labels"), rel,
             "12.4.1", "12.4.0", dep_id="argocd-label-render-12.4.1")
    return {"releases": {"label-render": [("12.3.9", "2026-11-23T12:00:00Z"),
                                          ("12.4.0", "2026-12-02T10:30:00Z"), ("12.4.1", rel)],
                         "customs-archiver": [("0.9.7", "2026-10-30T08:00:00Z")]},
            "images": "ghcr.io/harbourline/{svc}:{v}"}


# id, builder, service, start, minutes, sample, alert name, burn, expect, title, tags
INCIDENTS = [
    ("ho3-prompt-length-claims-digest", prompt_claims_digest, "claims-digest",
     "2026-12-02T07:00:00Z", 120, 4, "ClaimsDigestLatencySLO", 6.4,
     ("prompt_regression", "allow"),
     "claims-digest 0.42.0's longer template runs answers into max_tokens; HTTP 200 throughout",
     ["python", "openai", "gen-ai-only", "http-200"]),
    ("ho3-retryablehttp-timeout-tariff-engine", retryablehttp_tariff, "tariff-engine",
     "2026-12-02T13:00:00Z", 180, 10, "TariffQuoteLatencySLO", 11.8,
     ("retry_storm", "allow"),
     "tariff-engine git-b92a4f1 cuts its fx-rates timeout to 250ms with four retries inside one client span",
     ["go", "retryablehttp", "resend-count", "retries-in-one-span"]),
    ("ho3-config-amend-rpc-manifest-svc", config_amend_manifest, "manifest-svc",
     "2026-12-03T05:00:00Z", 60, 2, "ManifestRpcFailures", 3.1,
     ("config_regression", "allow"),
     "manifest-svc's config build cfg.13 closes the amendment window: AmendManifest alone fails FAILED_PRECONDITION",
     ["go", "grpc", "one-operation", "config-build", "server-span-status-unset"]),
    ("ho3-hedging-after-slow-episode-dispatch-router", hedging_dispatch, "dispatch-router",
     "2026-12-03T09:30:00Z", 240, 20, "DispatchAssignErrors", 9.2,
     ("retry_storm", "allow"),
     "dispatch-router v5.9.0 turns on gRPC hedging (3 attempts) 90 minutes after yard-planner's own slow episode",
     ["go", "grpc", "hedging", "grpc-previous-rpc-attempts", "storm-after-episode"]),
    ("ho3-cache-key-quote-api-ratecard-effect", cache_dropped_quote_api, "quote-api",
     "2026-12-04T08:00:00Z", 150, 8, "QuoteApiAvailability", 14.5,
     ("bad_release", "allow"),
     "quote-api 3.3.0 keys its rate cache by request id: ratecard is called on every leg, saturates and answers 503",
     ["rust", "java", "callee-effect-not-cause", "bulkhead-503"]),
    ("ho3-trap-carrier-503-booking-gateway", trap_carrier_outage, "booking-gateway",
     "2026-12-04T15:00:00Z", 120, 6, "BookingCreateErrors", 16.0,
     ("dependency_outage", "deny"),
     "the ocean carrier's API answers 503 three minutes after booking-gateway 4.12.2 (templates only) shipped",
     ["java", "resilience4j", "trap", "coincident-release"]),
    ("ho3-trap-staging-marker-invoicing", trap_staging_marker, "invoicing",
     "2026-12-05T06:00:00Z", 90, 5, "InvoicingLatencySLO", 7.7,
     ("resource_saturation", "deny"),
     "month-end batch drives invoicing into GC pauses and OOM kills; the only marker is staging's rc",
     ["dotnet", "trap", "other-environment-marker", "oom"]),
    ("ho3-trap-hotfix-after-pool-tracking-events", trap_hotfix_after_pool, "tracking-events",
     "2026-12-05T06:30:00Z", 190, 12, "TrackingEventsErrors", 10.3,
     ("db_pool_exhaustion", "deny"),
     "tracking-events' SQLAlchemy pool runs dry; hotfix 1.30.2 ships 6 minutes after the onset",
     ["python", "sqlalchemy", "trap", "marker-after-onset"]),
    ("ho3-trap-partner-surge-parcel-search", trap_surge, "parcel-search",
     "2026-12-05T17:00:00Z", 120, 25, "ParcelSearchLatency", 5.2,
     ("traffic_surge", "deny"),
     "a partner's bulk sync triples parcel-search traffic three minutes after v2.31.0",
     ["go", "elasticsearch", "trap", "surge-with-release"]),
    ("ho3-trap-noisy-neighbour-label-render", trap_noisy_neighbour, "label-render",
     "2026-12-05T20:00:00Z", 75, 3, "LabelRenderLatency", 4.6,
     ("resource_saturation", "deny"),
     "a customs-archiver batch saturates label-render's node 11 minutes after 12.4.1",
     ["nodejs", "trap", "noisy-neighbour"]),
]


def yaml_time(start, v):
    return ts(start + v * 60.0 + 1.5) if isinstance(v, float) else v


def write_releases(path, start, rel, images):
    lines = ["project: harbourline", "services:"]
    for svc, entries in rel.items():
        lines.append("  %s:" % svc)
        for v, at in entries:
            lines += ['    - version: "%s"' % v,
                      "      image: %s" % images.format(svc=svc, v=v.replace("+", "_")),
                      '      deployed_at: "%s"' % yaml_time(start, at)]
    open(path, "w").write("\n".join(lines) + "\n")


def write_alert(path, iid, svc, name, burn, starts):
    labels = {"alertname": name, "service.name": svc, "severity": "critical",
              "team": "harbourline-sre", "cluster": "prod-euw1"}
    ann = {"summary": "%s: %s" % (svc, name), "runbook": "https://runbooks.harbourline.io/" + svc}
    labels["burnRate"] = "%.2f" % burn
    body = {"receiver": "opsgenie-relay", "status": "firing",
            "alerts": [{"status": "firing", "labels": labels, "annotations": ann,
                        "startsAt": ts(starts), "endsAt": "0001-01-01T00:00:00Z",
                        "generatorURL": "https://signoz.harbourline.io/alerts/history?ruleId=" + iid[-6:],
                        "fingerprint": hashlib.sha256(iid.encode()).hexdigest()[:16]}],
            "groupLabels": {"alertname": name}, "commonLabels": labels,
            "commonAnnotations": ann, "externalURL": "https://alertmanager.harbourline.io",
            "version": "4", "groupKey": '{}/{severity="critical"}:{alertname="%s"}' % name,
            "truncatedAlerts": 0}
    open(path, "w").write(json.dumps(body, indent=2) + "\n")


def write_jsonl_gz(path, rows):
    data = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in rows).encode()
    with open(path, "wb") as f:
        subprocess.run(["gzip", "-9", "-n", "-c"], input=data, stdout=f, check=True)


def main():
    for i, (iid, build, svc, start, minutes, sample, aname, burn, exp, title, tags) in \
            enumerate(INCIDENTS):
        d = os.path.join(HERE, iid)
        os.makedirs(d, exist_ok=True)
        t0 = epoch(start)
        r = Rec(SEED + i, t0, minutes, sample)
        meta = build(r)
        now = t0 + minutes * 60.0
        r.spans.sort(key=lambda s: s["timestamp"])
        r.logs.sort(key=lambda s: s["timestamp"])
        write_jsonl_gz(os.path.join(d, "spans.jsonl.gz"), r.spans)
        if r.logs:
            write_jsonl_gz(os.path.join(d, "logs.jsonl.gz"), r.logs)
        write_releases(os.path.join(d, "releases.yaml"), t0, meta["releases"], meta["images"])
        write_alert(os.path.join(d, "alert.json"), iid, svc, aname, burn, now - 4 * 60.0)
        cause, verdict = exp
        with open(os.path.join(d, "incident.yaml"), "w") as f:
            f.write("id: %s\ntitle: %s\nservice: %s\nnow: %s\nexpect:\n  root_cause: %s\n"
                    "  verdict: %s\ntags: [%s]\n" % (
                        iid, json.dumps(title), svc, ts(now), cause, verdict,
                        ", ".join(["heldout3", "issue-35"] + tags)))
        with open(os.path.join(d, "expect.json"), "w") as f:
            f.write(json.dumps({"root_cause": cause, "verdict": verdict,
                                "sampling": "1 in %d" % sample,
                                "history_minutes": minutes}, indent=2) + "\n")
        print("%-48s %6d spans %5d logs  1/%d %dmin" % (iid, len(r.spans), len(r.logs),
                                                        sample, minutes))


if __name__ == "__main__":
    main()
