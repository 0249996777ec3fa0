#!/usr/bin/env python3
"""Generates e2e/incidents-heldout9: a ferry and rail ticketing platform ("Ferrybook") on AWS.

Run from this folder: `python3 gen.py`. Seeded (SEED below): every file comes out byte for byte
the same on every run, whatever PYTHONHASHSEED. Files over 3 MB are written gzip'd with no name
and mtime 0. `python3 gen.py --twin DIR NAME...` writes the harsher twins of the traps into DIR.

Style (README.md): Java 21 / Quarkus 3 and Kotlin / Ktor 3 through the OpenTelemetry Java agent
with the newest semantic conventions (http.request.method, http.response.status_code, error.type,
db.system.name, db.namespace, db.collection.name, db.operation.name, db.query.text); the MongoDB
Java driver, the DataStax Cassandra driver (db.cassandra.consistency_level), Agroal-pooled
PostgreSQL; OpenFeature with the flagd provider writing `feature_flag.evaluation` span events;
Python 3.12 Temporal workers (temporalio.contrib.opentelemetry: RunWorkflow:/StartActivity:/
RunActivity: spans with temporalWorkflowID/temporalRunID/temporalActivityID) with httpx under the
stable HTTP semconv; a Django assistant with gen_ai.* spans; a Nomad periodic batch job whose only
spans are INTERNAL; a Flyway schema migration job as a service of its own. Nomad multiregion
deployments (eu-west-1, eu-central-1) whose notifier writes one marker per region. OTel log records
with severity_number, trace and span ids. Microsecond timestamps with a +00:00 offset.
"""
import gzip
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timezone

SEED = 90913
HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000
MS = 1000 * US
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024
DAY = "2026-12-09T"
REGISTRY = "311942870117.dkr.ecr.eu-west-1.amazonaws.com/ferrybook"


def ts(ns):
    """RFC 3339 with microseconds and a +00:00 offset."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%06d+00:00" % (frac // US)


def at(s):
    if "T" not in s:
        s = DAY + s
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(d.timestamp()) * S + int((frac + "000000000")[:9])


def hexid(rng, n):
    return "%0*x" % (n, rng.getrandbits(4 * n))


def lognormal(rng, median, sigma=0.35):
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


# ---------------------------------------------------------------- runtimes and resources

RT = {
    "quarkus": {"telemetry.sdk.language": "java", "telemetry.sdk.name": "opentelemetry",
                "telemetry.sdk.version": "1.44.1", "telemetry.distro.name": "opentelemetry-java-instrumentation",
                "telemetry.distro.version": "2.10.0", "process.runtime.name": "OpenJDK Runtime Environment",
                "process.runtime.version": "21.0.5+11-LTS", "webengine.name": "Quarkus", "webengine.version": "3.17.4"},
    "ktor": {"telemetry.sdk.language": "java", "telemetry.sdk.name": "opentelemetry",
             "telemetry.sdk.version": "1.44.1", "telemetry.distro.name": "opentelemetry-java-instrumentation",
             "telemetry.distro.version": "2.10.0", "process.runtime.name": "OpenJDK Runtime Environment",
             "process.runtime.version": "21.0.5+11-LTS", "webengine.name": "Ktor", "webengine.version": "3.0.2"},
    "python": {"telemetry.sdk.language": "python", "telemetry.sdk.name": "opentelemetry",
               "telemetry.sdk.version": "1.29.0", "process.runtime.name": "cpython",
               "process.runtime.version": "3.12.8"},
}
SERVICES = {
    "fares-svc": "quarkus", "booking-api": "quarkus", "loyalty-svc": "quarkus", "kb-search": "quarkus",
    "fares-migrate": "quarkus",
    "seatmap-svc": "ktor", "pnr-gateway": "ktor",
    "ticketing-worker": "python", "agent-desk": "python", "settle-batch": "python",
}
HOST_OF = {"fares-svc": "fares-svc.service.consul", "booking-api": "booking-api.service.consul",
           "loyalty-svc": "loyalty-svc.service.consul", "kb-search": "kb-search.service.consul",
           "seatmap-svc": "seatmap-svc.service.consul", "pnr-gateway": "pnr-gateway.service.consul",
           "agent-desk": "agent-desk.service.consul"}


class World:
    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, spec["id"]))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.one_in = spec["one_in"]
        self.spans, self.logs = [], []
        # svc -> [(version, begin ns or None, rollout seconds, region or None)]
        self.serving = {svc: [(v, at(b) if b else None, secs, reg) for v, b, secs, reg in lst]
                        for svc, lst in spec["serving"].items()}

    def version(self, svc, t, region=None):
        cur = None
        for v, begin, secs, reg in self.serving.get(svc, []):
            if begin is None or cur is None:
                cur = v
                continue
            if reg and region and reg != region:
                continue
            if t < begin:
                continue
            share = min(1.0, (t - begin) / (secs * S)) if secs else 1.0
            if self.rng.random() < share:
                cur = v
        return cur or "unknown"

    def resource(self, svc, ver, region, t):
        region = region or "eu-west-1"
        h = random.Random("%s/%s/%s/%s/%d" % (self.id, svc, ver, region, (t // (11 * S)) % 3))
        alloc = "%08x-%04x-%04x-%04x-%012x" % (h.getrandbits(32), h.getrandbits(16), h.getrandbits(16),
                                               h.getrandbits(16), h.getrandbits(48))
        r = {"service.name": svc, "service.version": ver, "service.namespace": "ferrybook",
             "service.instance.id": alloc, "deployment.environment.name": "prod",
             "cloud.provider": "aws", "cloud.platform": "aws_ec2", "cloud.region": region,
             "cloud.availability_zone": region + "abc"[h.randrange(3)],
             "host.name": "ip-10-%d-%d-%d.%s.compute.internal" % (40 if region == "eu-west-1" else 52,
                                                                  h.randrange(1, 60), h.randrange(2, 250), region),
             "nomad.job.name": svc, "nomad.alloc.id": alloc, "nomad.namespace": "ferrybook"}
        r.update(RT[SERVICES[svc]])
        return r


class Trace:
    def __init__(self, w, t, keep=None):
        self.w = w
        self.rng = w.rng
        self.tid = hexid(w.rng, 32)
        self.kept = (w.rng.random() < 1.0 / w.one_in) if keep is None else keep
        self.spans, self.logs = [], []

    def sid(self):
        return hexid(self.rng, 16)

    def span(self, svc, ver, region, name, kind, start, dur, parent, attrs, err=None, events=None, sid=None):
        sid = sid or self.sid()
        row = {"timestamp": ts(start), "trace_id": self.tid, "span_id": sid, "parent_span_id": parent,
               "name": name, "kind": kind, "duration_nano": int(dur), "has_error": err is not None,
               "status_code": 2 if err is not None else 0, "status_message": err or "",
               "resource": self.w.resource(svc, ver, region, start), "attributes": attrs}
        if events:
            row["events"] = events
        self.spans.append((start, row))
        return sid

    def log(self, svc, ver, region, t, sev, body, sid="", attrs=None, always=False):
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "WARNING": 13, "ERROR": 17, "SEVERE": 17}[sev]
        rec = {"timestamp": ts(t), "observed_timestamp": ts(t + 2 * MS + self.rng.randrange(900) * US),
               "severity_text": sev, "severity_number": num, "body": body,
               "trace_id": self.tid if sid else "", "span_id": sid, "trace_flags": 1 if sid else 0,
               "resource": self.w.resource(svc, ver, region, t), "attributes": attrs or {}}
        self.logs.append((t, always, rec))

    def flush(self):
        if self.kept:
            self.w.spans.extend(self.spans)
        for lt, always, rec in self.logs:
            if (always or self.kept) and lt < self.w.now:
                self.w.logs.append((lt, rec))


def exc(t, typ, msg, stack):
    return [{"name": "exception", "timestamp": ts(t),
             "attributes": {"exception.type": typ, "exception.message": msg, "exception.stacktrace": stack}}]


def flag_event(t, key, variant, reason="TARGETING_MATCH", ctx=None):
    a = {"feature_flag.key": key, "feature_flag.result.variant": variant, "feature_flag.provider.name": "flagd",
         "feature_flag.result.reason": reason}
    if ctx:
        a["feature_flag.context.id"] = ctx
    return {"name": "feature_flag.evaluation", "timestamp": ts(t), "attributes": a}


def java_stack(typ, msg, frames):
    return "%s: %s\n" % (typ, msg) + "".join("\tat %s\n" % f for f in frames)


# ---------------------------------------------------------------- span shapes

def http_server(tr, svc, ver, region, t, dur, method, route, path, status, parent="", error_type=None,
                events=None, extra=None, msg=None):
    a = {"http.request.method": method, "http.route": route, "url.path": path, "url.scheme": "http",
         "http.response.status_code": status, "server.address": HOST_OF.get(svc, svc), "server.port": 8080,
         "network.protocol.version": "1.1", "client.address": "10.40.%d.%d" % (tr.rng.randrange(1, 60),
                                                                             tr.rng.randrange(2, 250)),
         "user_agent.original": "ferrybook-edge/4.2 (envoy)"}
    if status >= 500 or error_type:
        a["error.type"] = error_type or str(status)
    if extra:
        a.update(extra)
    err = (msg or "") if status >= 500 else None
    return tr.span(svc, ver, region, "%s %s" % (method, route), 2, t, dur, parent, a, err=err, events=events)


def http_client(tr, svc, ver, region, t, dur, method, url, host, status, parent, error_type=None, extra=None):
    a = {"http.request.method": method, "url.full": url, "server.address": host,
         "server.port": 443 if url.startswith("https") else 8080, "network.protocol.version": "1.1"}
    if status:
        a["http.response.status_code"] = status
    if error_type or (status and status >= 400):
        a["error.type"] = error_type or str(status)
    if extra:
        a.update(extra)
    err = None
    if error_type or (status and status >= 400):
        err = "" if status else error_type
    return tr.span(svc, ver, region, method, 3, t, dur, parent, a, err=err)


def db_span(tr, svc, ver, region, t, dur, system, op, ns, coll, text, host, port, parent, err=None,
            extra=None, events=None):
    a = {"db.system.name": system, "db.namespace": ns, "db.collection.name": coll, "db.operation.name": op,
         "db.query.text": text, "server.address": host, "server.port": port}
    if err:
        a["error.type"] = err[0]
    if extra:
        a.update(extra)
    name = "%s %s.%s" % (op, ns, coll)
    return tr.span(svc, ver, region, name, 3, t, dur, parent, a, err=err[1] if err else None, events=events)


MONGO = "ferrybook-prod-shard-00-0%d.q7x2p.mongodb.net"
PG = {"fares": "fares-db.cluster-c9xk2m1v.eu-west-1.rds.amazonaws.com",
      "loyalty": "loyalty-db.cluster-c9xk2m1v.eu-west-1.rds.amazonaws.com",
      "settle": "settle-db.cluster-c9xk2m1v.eu-west-1.rds.amazonaws.com"}


def quarkus_log(tr, svc, ver, region, t, sev, logger, body, sid, exc_type=None):
    a = {"log.logger.name": logger, "thread.name": "executor-thread-%d" % tr.rng.randrange(1, 40),
         "code.namespace": logger}
    if exc_type:
        a["exception.type"] = exc_type
    tr.log(svc, ver, region, t, sev, body, sid, a)


# ---------------------------------------------------------------- the traffic loop

def run(w):
    spec = w.spec
    m = w.start
    while m < w.now:
        for op in spec["ops"]:
            lam = op["rate"] * spec.get("load", lambda t, op: 1.0)(m, op)
            for _ in range(poisson(w.rng, lam)):
                t = m + int(w.rng.random() * MIN)
                if t >= w.now - 2 * S:
                    continue
                tr = Trace(w, t)
                op["emit"](w, tr, t)
                tr.flush()
        if spec.get("tick"):
            spec["tick"](w, m)
        m += MIN
    for svc, ver, prev, when, region, did, extra in spec["markers"]:
        tm = at(when)
        tr = Trace(w, tm, keep=True)
        a = {"deployment.version": ver, "deployment.id": did, "deployment.environment.name": "prod"}
        if prev:
            a["deployment.previous_version"] = prev
        if region:
            a["deployment.region"] = region
        a.update(extra)
        tr.span(svc, ver, region, "deployment.marker", 1, tm, 1 * MS, "", a)
        tr.flush()


def always_log(w, svc, ver, region, t, sev, body, attrs=None):
    tr = Trace(w, t, keep=False)
    tr.log(svc, ver, region, t, sev, body, "", attrs, always=True)
    tr.flush()


# ---------------------------------------------------------------- files

def alert_json(spec):
    a = spec["alert"]
    rid = spec.get("rule_id") or str(random.Random(spec["id"] + "/rule").randrange(100, 999))
    labels = {"alertname": a["name"], "service.name": spec["service"], "severity": a.get("severity", "page"),
              "team": a["team"], "ruleId": rid, "ruleSource": "https://signoz.ferrybook.example/alerts/edit?ruleId=" + rid,
              "deployment.environment.name": "prod", "burn_rate": a["burn"]}
    annotations = {"summary": a.get("summary", "%s SLO burn" % spec["service"]),
                   "description": a.get("desc", "%s is burning its 30d error budget" % spec["service"]),
                   "related_logs": "https://signoz.ferrybook.example/logs?service=%s" % spec["service"]}
    fp = hexid(random.Random(spec["id"] + "/fp"), 16)
    body = {
        "receiver": "ferrybook-incident-io", "status": "firing",
        "alerts": [{"status": "firing", "labels": labels, "annotations": annotations,
                    "startsAt": ts(at(a["starts"])), "endsAt": "0001-01-01T00:00:00Z",
                    "generatorURL": "https://signoz.ferrybook.example/alerts/edit?ruleId=%s" % rid,
                    "fingerprint": fp}],
        "groupLabels": {"alertname": a["name"]},
        "commonLabels": labels, "commonAnnotations": annotations,
        "externalURL": "https://signoz.ferrybook.example", "version": "4",
        "groupKey": '{}:{alertname="%s"}' % a["name"], "truncatedAlerts": 0,
    }
    return json.dumps(body, indent=2) + "\n", rid


def rule_json(spec, rid):
    r = spec["rule"]
    queries = [{"type": "builder_query",
                "spec": {"name": "A", "signal": "traces", "stepInterval": 60, "disabled": True,
                         "filter": {"expression": r["bad"]}, "aggregations": [{"expression": "count()"}]}},
               {"type": "builder_query",
                "spec": {"name": "B", "signal": "traces", "stepInterval": 60, "disabled": True,
                         "filter": {"expression": r["all"]}, "aggregations": [{"expression": "count()"}]}},
               {"type": "builder_formula", "spec": {"name": "F1", "expression": "A * 100 / B"}}]
    body = {"status": "success", "data": {
        "id": rid, "alert": spec["alert"]["name"], "alertType": "TRACES_BASED_ALERT", "ruleType": "threshold_rule",
        "state": "firing", "version": "v5", "schemaVersion": "v2alpha1", "evalWindow": "5m0s",
        "frequency": "1m0s", "disabled": False, "labels": {"severity": "page", "team": spec["alert"]["team"]},
        "annotations": {"summary": spec["alert"]["name"]},
        "condition": {"compositeQuery": {"queryType": "builder", "panelType": "graph", "unit": "percent",
                                         "queries": queries},
                      "selectedQueryName": "F1", "op": "above", "target": r["target"], "targetUnit": "percent",
                      "matchType": "all_the_times"},
        "createdAt": "2026-09-14T08:02:11.904512Z", "createdBy": "sre@ferrybook.example"}}
    return json.dumps(body, indent=2) + "\n"


def q(s):
    return json.dumps(s)


def incident_yaml(spec):
    e = spec["expect"]
    lines = ["id: %s" % spec["id"], "title: %s" % q(spec["title"]), "service: %s" % spec["service"],
             "now: %s" % ts(at(spec["now"])), "expect:",
             "  root_cause: %s" % e["root_cause"], "  verdict: %s" % e["verdict"]]
    if "culprit" in e:
        lines += ["  culprit:", "    service: %s" % e["culprit"][0], "    verdict: %s" % e["culprit"][1]]
    lines.append("tags: [%s]" % ", ".join(["heldout9", "ferrybook"] + spec["tags"]))
    return "\n".join(lines) + "\n"


def releases_yaml(spec):
    lines = ["project: ferrybook", "services:"]
    for svc, rel in spec["ledger"].items():
        lines.append("  %s:" % svc)
        for v, d in rel:
            lines += ["    - version: %s" % q(v), "      image: %s/%s:%s" % (REGISTRY, svc, v),
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
    body, rid = alert_json(spec)
    with open(os.path.join(folder, "alert.json"), "w") as f:
        f.write(body)
    if spec.get("rule"):
        with open(os.path.join(folder, "rule.json"), "w") as f:
            f.write(rule_json(spec, rid))
    with open(os.path.join(folder, "releases.yaml"), "w") as f:
        f.write(releases_yaml(spec))
    e = {"root_cause": spec["expect"]["root_cause"], "verdict": spec["expect"]["verdict"]}
    if "culprit" in spec["expect"]:
        e["culprit"] = {"service": spec["expect"]["culprit"][0], "verdict": spec["expect"]["culprit"][1]}
    e.update({"sampling": "head, trace-id ratio, 1 in %d" % spec["one_in"],
              "history_minutes": (w.now - w.start) // MIN, "onset": spec["onset"], "story": spec["story"]})
    with open(os.path.join(folder, "expect.json"), "w") as f:
        f.write(json.dumps(e, indent=2) + "\n")
    n = write_jsonl(folder, "spans.jsonl", [s for _, s in w.spans])
    write_jsonl(folder, "logs.jsonl", [r for _, r in w.logs])
    print("%-58s spans %6d (%5.1f MB) logs %6d" % (spec["id"], len(w.spans), n / 1e6, len(w.logs)))


# ---------------------------------------------------------------- building blocks per service

def region_of(w, split):
    return "eu-west-1" if w.rng.random() < split else "eu-central-1"


def quarkus_op(svc, method, route, path, rate, children, fail=None, flag=None, median=18):
    """A Quarkus endpoint. children(w, tr, t, ver, region, sid) -> (extra ms, error tuple or None);
    fail(w, t, ver, region) -> None or (status, exc type, message, frames)."""
    def emit(w, tr, t, region=None):
        region = region or "eu-west-1"
        ver = w.version(svc, t, region)
        sid = tr.sid()
        extra_ms, cerr = 0.0, None
        if children:
            extra_ms, cerr = children(w, tr, t + 300 * US, ver, region, sid)
        f = fail(w, t, ver, region) if fail else None
        f = f or cerr
        dur = (lognormal(w.rng, median) + extra_ms) * MS
        events = []
        if flag:
            key, variant = flag(w, t, ver, region)
            events.append(flag_event(t + 200 * US, key, variant))
        status, etype, msg = 200, None, None
        if f:
            status, etype, emsg, frames = f
            msg = "%s: %s" % (etype, emsg)
            events += exc(t + int(dur) - 200 * US, etype, emsg, java_stack(etype, emsg, frames))
            quarkus_log(tr, svc, ver, region, t + int(dur), "ERROR", "io.quarkus.vertx.http.runtime.QuarkusErrorHandler",
                        "HTTP Request to %s failed, error id: %s-%d" % (path, hexid(tr.rng, 8), tr.rng.randrange(1, 99)),
                        sid, etype)
        http_server(tr, svc, ver, region, t, dur, method, route, path, status, error_type=etype if f else None,
                    events=events or None, msg=msg, extra={"code.namespace": "com.ferrybook." + svc.split("-")[0]})
        # the server span takes the id we planned for its children
        tr.spans[-1][1]["span_id"] = sid
    return {"rate": rate, "emit": emit}


# ---------------------------------------------------------------- R1: flagd default variant shipped in fares-svc 8.4.0

def fares_children(pool_wait=None):
    def ch(w, tr, t, ver, region, sid):
        wait = pool_wait(w, t) if pool_wait else 0.0
        if wait is not None and wait >= 5000:
            return wait, (503, "java.sql.SQLException", "Acquisition timeout while waiting for new connection",
                          ["io.agroal.pool.ConnectionPool.handlerFromSharedCache(ConnectionPool.java:348)",
                           "io.agroal.pool.ConnectionPool.getConnection(ConnectionPool.java:293)",
                           "com.ferrybook.fares.FareRuleRepository.forRoute(FareRuleRepository.java:57)"])
        d = lognormal(w.rng, 3.2)
        db_span(tr, "fares-svc", ver, region, t + int(wait * MS), d * MS, "postgresql", "SELECT", "fares", "fare_rules",
                "SELECT r.id, r.route_id, r.valid_from, r.base_minor FROM fare_rules r WHERE r.route_id = ? AND r.valid_from <= ?",
                PG["fares"], 5432, sid, extra={"db.client.connection.pool.name": "fares"})
        return d + wait, None
    return ch


def r1_flagd():
    svc = "fares-svc"
    rel, done = at("10:11:37.402"), at("10:13:07")

    def flag(w, t, ver, region):
        return "dynamic-pricing-v2", ("on" if ver == "8.4.0" else "off")

    def fail(w, t, ver, region):
        if ver == "8.4.0" and w.rng.random() < 0.38:
            cur = w.rng.choice(["NOK", "SEK", "DKK"])
            return (500, "java.lang.ArithmeticException",
                    "Non-terminating decimal expansion; no exact representable decimal result. (%s)" % cur,
                    ["java.base/java.math.BigDecimal.divide(BigDecimal.java:1780)",
                     "com.ferrybook.fares.pricing.v2.DynamicPricer.convert(DynamicPricer.java:112)",
                     "com.ferrybook.fares.QuoteResource.quote(QuoteResource.java:64)"])
        return None

    return {
        "id": "fb9-flagd-default-on-fares-svc", "service": svc,
        "title": "fares-svc 8.4.0 bundles a flagd file whose dynamic-pricing-v2 defaults to on: 38% of POST /fares/quote throw ArithmeticException (500)",
        "start": "09:01:00", "now": "10:41:00", "one_in": 4, "onset": "10:11:50",
        "expect": {"root_cause": "config_regression", "verdict": "allow"},
        "tags": ["quarkus", "openfeature", "flagd", "config-in-release", "one-operation", "head-1-in-4"],
        "story": "8.4.0 ships flags/fares.flagd.json in the image (the in-process flagd provider's file source) with dynamic-pricing-v2 defaultVariant on; the v2 pricer divides without a MathContext for three currencies. Every quote span carries a feature_flag.evaluation event whose variant is on only on 8.4.0. Rolling back to 8.3.2 restores variant off.",
        "serving": {svc: [("8.3.2", None, 0, None), ("8.4.0", "10:11:37.402", 90, None)]},
        "ops": [quarkus_op(svc, "POST", "/fares/quote", "/fares/quote", 42, fares_children(), fail=fail, flag=flag),
                quarkus_op(svc, "GET", "/fares/{id}", "/fares/F%d" % 77120, 26, fares_children()),
                quarkus_op(svc, "GET", "/fares/calendar", "/fares/calendar", 14, fares_children(), median=34)],
        "markers": [(svc, "8.4.0", "8.3.2", "10:11:37.402", "eu-west-1", "nomad-dep-4c1f20e9", {"nomad.job.version": 212})],
        "ledger": {svc: [("8.3.2", "2026-12-04T09:12:40.118"), ("8.4.0", "10:11:37.402")]},
        "alert": {"name": "FaresQuote5xxBurn", "team": "pricing", "starts": "10:24:00", "burn": "11.2"},
        "rule": {"bad": "service.name = 'fares-svc' AND kind_string = 'Server' AND has_error = true",
                 "all": "service.name = 'fares-svc' AND kind_string = 'Server'", "target": 2},
    }


# ---------------------------------------------------------------- Temporal: ticketing-worker and pnr-gateway

def pnr_gateway(w, tr, t, region, slow, gds_fail, parent):
    """pnr-gateway (Ktor) serves POST /v2/pnr and calls the GDS. Returns (duration ms, status)."""
    ver = w.version("pnr-gateway", t)
    sid = tr.sid()
    gd = lognormal(w.rng, 900 * slow, 0.4)
    f = gds_fail(w, t) if gds_fail else None
    st = 200
    if f:
        st, etype, gd = f[0], f[1], f[2]
    http_client(tr, "pnr-gateway", ver, region, t + 2 * MS, gd * MS, "POST", "https://ws.tripgds.example/v3/pnr/create",
                "ws.tripgds.example", st if st else None, sid, error_type=(f[1] if f else None),
                extra={"http.request.resend_count": 0} if not f else None)
    dur = gd + lognormal(w.rng, 12)
    out = 200 if not f else 502
    ev = None
    if f:
        ev = exc(t + int(dur * MS), "io.ktor.client.plugins.ServerResponseException",
                 "Server error(POST https://ws.tripgds.example/v3/pnr/create: %s)" % f[3], "")
        tr.log("pnr-gateway", ver, region, t + int(dur * MS), "WARN", "GDS create PNR failed: %s" % f[3], sid,
               {"log.logger.name": "com.ferrybook.pnr.GdsClient"})
    a = {"http.request.method": "POST", "http.route": "/v2/pnr", "url.path": "/v2/pnr", "url.scheme": "http",
         "http.response.status_code": out, "server.address": HOST_OF["pnr-gateway"], "server.port": 8080,
         "network.protocol.version": "1.1"}
    if out >= 500:
        a["error.type"] = str(out)
    tr.span("pnr-gateway", ver, region, "POST /v2/pnr", 2, t, dur * MS, parent, a,
            err=("" if out >= 500 else None), events=ev, sid=sid)
    return dur, out


def temporal_workflow(svc, rate, timeout_s, max_attempts, backoff, slow=lambda w, t: 1.0, gds_fail=None):
    def emit(w, tr, t):
        region = "eu-west-1"
        ver = w.version(svc, t)
        wf_id = "issue-ticket-BK%07d" % w.rng.randrange(10 ** 7)
        run_id = "%08x-%04x-4%03x-%04x-%012x" % (w.rng.getrandbits(32), w.rng.getrandbits(16), w.rng.getrandbits(12),
                                                  w.rng.getrandbits(16), w.rng.getrandbits(48))
        to, maxa, bo = timeout_s(ver), max_attempts(ver), backoff(ver)
        bver = w.version("booking-api", t)
        root = tr.sid()
        tr.span("booking-api", bver, region, "StartWorkflow:IssueTicket", 3, t, 14 * MS, "",
                {"temporalWorkflowID": wf_id, "code.namespace": "io.temporal.opentracing"}, sid=root)
        t0 = t + 20 * MS
        wf = tr.sid()
        act = tr.sid()
        cur = t0 + 8 * MS
        ok = False
        attempt = 0
        base = {"temporalWorkflowID": wf_id, "temporalRunID": run_id}
        while attempt < maxa:
            attempt += 1
            ra = tr.sid()
            hc = tr.sid()
            gdur, st = pnr_gateway(w, tr, cur + 4 * MS, region, slow(w, cur), gds_fail, hc)
            timed_out = gdur > to * 1000
            cdur = min(gdur + 3, to * 1000) if timed_out else gdur + 3
            ca = {"http.request.method": "POST", "url.full": "http://pnr-gateway.service.consul:8080/v2/pnr",
                  "server.address": "pnr-gateway.service.consul", "server.port": 8080,
                  "network.protocol.version": "1.1"}
            if timed_out:
                ca["error.type"] = "httpx.ReadTimeout"
                tr.span(svc, ver, region, "POST", 3, cur + 2 * MS, cdur * MS, ra, ca, err="timed out")
            else:
                ca["http.response.status_code"] = st
                if st >= 500:
                    ca["error.type"] = str(st)
                tr.span(svc, ver, region, "POST", 3, cur + 2 * MS, cdur * MS, ra, ca, err=("" if st >= 500 else None))
            adur = cdur + 6
            a = dict(base, temporalActivityID=str(1))
            if timed_out or st >= 500:
                em = "timed out" if timed_out else "Server error '502 Bad Gateway' for url 'http://pnr-gateway.service.consul:8080/v2/pnr'"
                et = "httpx.ReadTimeout" if timed_out else "httpx.HTTPStatusError"
                tr.span(svc, ver, region, "RunActivity:issue_pnr", 2, cur, adur * MS, act, a, err="%s: %s" % (et, em),
                        events=exc(cur + int(adur * MS), et, em, 'Traceback (most recent call last):\n  File "/app/ticketing/activities.py", line 48, in issue_pnr\n    resp = await self._http.post("/v2/pnr", json=req)\n%s: %s\n' % (et, em)),
                        sid=ra)
                tr.log(svc, ver, region, cur + int(adur * MS), "WARNING",
                       "Completing activity as failed ({'activity_id': '1', 'activity_type': 'issue_pnr', 'attempt': %d, 'namespace': 'ferrybook', 'task_queue': 'ticketing', 'workflow_id': '%s', 'workflow_run_id': '%s', 'workflow_type': 'IssueTicket'})" % (attempt, wf_id, run_id),
                       ra, {"logger.name": "temporalio.activity", "temporal.attempt": attempt})
                cur += int((adur + bo * 1000 * (2 ** (attempt - 1) if bo >= 1 else 1)) * MS)
            else:
                tr.span(svc, ver, region, "RunActivity:issue_pnr", 2, cur, adur * MS, act, a, sid=ra)
                cur += int(adur * MS)
                ok = True
                break
        tr.span(svc, ver, region, "StartActivity:issue_pnr", 3, t0 + 6 * MS, cur - t0 - 6 * MS, wf,
                dict(base), err=None if ok else "ActivityError: Activity task failed")
        wfa = dict(base)
        tr.span(svc, ver, region, "RunWorkflow:IssueTicket", 2, t0, cur - t0 + 9 * MS, root, wfa,
                err=None if ok else "WorkflowFailureError: Workflow execution failed",
                events=None if ok else exc(cur, "temporalio.exceptions.ActivityError", "Activity task failed", ""))
        if not ok:
            tr.log(svc, ver, region, cur + 5 * MS, "ERROR",
                   "Workflow IssueTicket %s failed after %d attempts of issue_pnr" % (wf_id, attempt), wf,
                   {"logger.name": "ticketing.workflows"})
    return {"rate": rate, "emit": emit}


def r2_temporal_storm():
    svc = "ticketing-worker"
    t_rel = at("14:02:10.551")

    def slow(w, t):
        # pnr-gateway slows under the multiplied load from the 3.2.0 workers
        return 1.0 + 1.6 * ramp(t, t_rel + 40 * S, t_rel + 6 * MIN)

    return {
        "id": "fb9-temporal-activity-timeout-ticketing-worker", "service": svc,
        "title": "ticketing-worker 3.2.0 cuts issue_pnr's httpx timeout to 1.5 s with 6 immediate attempts: pnr-gateway slows under the retries and most workflows fail",
        "start": "12:58:00", "now": "14:34:00", "one_in": 6, "onset": "14:02:40",
        "expect": {"root_cause": "retry_storm", "verdict": "allow"},
        "tags": ["python", "temporal", "httpx", "ktor", "retry-in-activity-attempts", "head-1-in-6"],
        "story": "3.2.0 sets the activity's httpx timeout to 1.5 s (was 10 s) and its RetryPolicy to maximum_attempts 6 with 0.1 s interval (was 1 s, backoff 2, 3 attempts). pnr-gateway's GDS call takes ~0.9 s median with a long tail; every timed-out attempt keeps running in pnr-gateway while the worker retries, pnr-gateway's load multiplies and it slows, and most attempts time out. A rollback restores the old timeout and policy.",
        "serving": {svc: [("3.1.7", None, 0, None), ("3.2.0", "14:02:10.551", 40, None)],
                    "pnr-gateway": [("1.14.2", None, 0, None)], "booking-api": [("12.0.3", None, 0, None)]},
        "ops": [temporal_workflow(svc, 34, lambda v: 1.5 if v == "3.2.0" else 10.0,
                                  lambda v: 6 if v == "3.2.0" else 3, lambda v: 0.1 if v == "3.2.0" else 1.0,
                                  slow=slow)],
        "markers": [(svc, "3.2.0", "3.1.7", "14:02:10.551", "eu-west-1", "nomad-dep-9ab07c31", {"nomad.job.version": 88})],
        "ledger": {svc: [("3.1.7", "2026-12-07T16:44:02.310"), ("3.2.0", "14:02:10.551")],
                   "pnr-gateway": [("1.14.2", "2026-11-30T10:05:51.004")]},
        "alert": {"name": "TicketIssuanceFailures", "team": "ticketing", "starts": "14:14:00", "burn": "16.8"},
    }


# ---------------------------------------------------------------- booking-api (Mongo, two regions)

def mongo_find(w, tr, t, ver, region, sid, coll, filt, slow=1.0, err=None, med=2.4):
    d = lognormal(w.rng, med * slow)
    db_span(tr, "booking-api", ver, region, t, d * MS, "mongodb", "find", "ferrybook", coll,
            '{"find": "%s", "filter": %s, "$db": "ferrybook"}' % (coll, filt),
            (MONGO % (1 if region == "eu-west-1" else 2)), 27017, sid, err=err)
    return d


def booking_op(method, route, path, rate, coll, fail=None, slow=lambda w, t, region: 1.0, split=0.6,
               region_load=None):
    def emit(w, tr, t):
        region = region_of(w, split(w, t) if callable(split) else split)
        ver = w.version("booking-api", t, region)
        sid = tr.sid()
        sl = slow(w, t, region)
        f = fail(w, t, ver, region) if fail else None
        if f and f[0] == 503:
            d = 2000 + lognormal(w.rng, 40)
        else:
            d = mongo_find(w, tr, t + 400 * US, ver, region, sid, coll, '{"bookingRef": "?"}', slow=sl)
        dur = (lognormal(w.rng, 9) * sl + d) * MS
        status, etype, msg, events = 200, None, None, None
        if f:
            status, etype, emsg, frames = f
            msg = "%s: %s" % (etype, emsg)
            events = exc(t + int(dur), etype, emsg, java_stack(etype, emsg, frames))
            quarkus_log(tr, "booking-api", ver, region, t + int(dur), "ERROR",
                        "io.quarkus.vertx.http.runtime.QuarkusErrorHandler",
                        "HTTP Request to %s failed, error id: %s-%d" % (path, hexid(tr.rng, 8), tr.rng.randrange(1, 99)),
                        sid, etype)
        http_server(tr, "booking-api", ver, region, t, dur, method, route, path, status, error_type=etype,
                    events=events, msg=msg, extra={"code.namespace": "com.ferrybook.booking.BookingResource"})
        tr.spans[-1][1]["span_id"] = sid
    return {"rate": rate, "emit": emit}


def r3_mongo_projection():
    def fail(w, t, ver, region):
        if ver == "12.1.0" and w.rng.random() < 0.45:
            return (500, "java.lang.NullPointerException",
                    "Cannot invoke \"java.util.List.stream()\" because the return value of \"com.ferrybook.booking.Booking.passengers()\" is null",
                    ["com.ferrybook.booking.BookingView.from(BookingView.java:41)",
                     "com.ferrybook.booking.BookingResource.get(BookingResource.java:77)"])
        return None

    return {
        "id": "fb9-mongo-projection-npe-booking-api", "service": "booking-api",
        "title": "booking-api 12.1.0 (Nomad multiregion: eu-west-1 first, eu-central-1 ten minutes later) projects passengers out of GET /bookings/{ref}: 45% NullPointerException",
        "start": "07:00:00", "now": "08:38:00", "one_in": 5, "onset": "08:20:20",
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["quarkus", "mongodb", "multiregion", "marker-per-region", "second-marker-after-onset", "head-1-in-5"],
        "story": "12.1.0's new Mongo projection for the booking view leaves out passengers for bookings written before the 2025 schema; BookingView.from dereferences it. Nomad's multiregion deployment rolls eu-west-1 at 08:20:05 and, after its canary auto-promotes, eu-central-1 at 08:29:40: the notifier writes one marker per region, the second one after the onset. The ledger records the release when it first started (08:20:05).",
        "serving": {"booking-api": [("12.0.3", None, 0, None), ("12.1.0", "08:20:05.212", 60, "eu-west-1"),
                                    ("12.1.0", "08:29:40.877", 60, "eu-central-1")]},
        "ops": [booking_op("GET", "/bookings/{ref}", "/bookings/FB7Q2KX", 64, "bookings", fail=fail),
                booking_op("POST", "/bookings", "/bookings", 21, "bookings"),
                booking_op("GET", "/bookings/{ref}/documents", "/bookings/FB7Q2KX/documents", 16, "documents")],
        "markers": [("booking-api", "12.1.0", "12.0.3", "08:20:05.212", "eu-west-1", "nomad-mr-77e0a4d2", {"nomad.job.version": 301}),
                    ("booking-api", "12.1.0", "12.0.3", "08:29:40.877", "eu-central-1", "nomad-mr-77e0a4d2", {"nomad.job.version": 301})],
        "ledger": {"booking-api": [("12.0.3", "2026-12-02T13:30:12.009"), ("12.1.0", "08:20:05.212")]},
        "alert": {"name": "BookingRead5xx", "team": "booking", "starts": "08:28:00", "burn": "9.4"},
    }


# ---------------------------------------------------------------- R4: agent-desk prompt (Django, gen_ai)

def agent_desk_op(rate, quality, kb_zero=lambda w, t: 0.0):
    svc = "agent-desk"

    def emit(w, tr, t):
        region = "eu-west-1"
        ver = w.version(svc, t)
        kver = w.version("kb-search", t)
        sid = tr.sid()
        # kb-search call
        kc = tr.sid()
        ks = tr.sid()
        kd = lognormal(w.rng, 38)
        hits = 0 if w.rng.random() < kb_zero(w, t) else w.rng.randrange(3, 12)
        tr.span("kb-search", kver, region, "search ferrybook-kb", 3, t + 6 * MS + 2 * MS, kd * 0.7 * MS, ks,
                {"db.system.name": "opensearch", "db.namespace": "ferrybook-kb", "db.operation.name": "search",
                 "db.query.text": '{"query":{"multi_match":{"query":"?","fields":["title^2","body"],"analyzer":"%s"}}}' % ("norwegian" if kver == "2.9.0" else "standard"),
                 "server.address": "vpc-ferrybook-kb-4x2n.eu-west-1.es.amazonaws.com", "server.port": 443})
        tr.span("kb-search", kver, region, "GET /kb/search", 2, t + 6 * MS, kd * MS, kc,
                {"http.request.method": "GET", "http.route": "/kb/search", "url.path": "/kb/search",
                 "http.response.status_code": 200, "server.address": HOST_OF["kb-search"], "server.port": 8080,
                 "kb.search.hits": hits}, sid=ks)
        tr.span(svc, ver, region, "GET", 3, t + 5 * MS, (kd + 2) * MS, sid,
                {"http.request.method": "GET", "url.full": "http://kb-search.service.consul:8080/kb/search?q=...",
                 "server.address": "kb-search.service.consul", "server.port": 8080, "http.response.status_code": 200},
                sid=kc)
        q_ = quality(w, t, ver, hits)
        ld = lognormal(w.rng, 1400 + 6 * q_["out"], 0.25)
        tr.span(svc, ver, region, "chat gpt-4o-mini", 3, t + int((kd + 10) * MS), ld * MS, sid,
                {"gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini",
                 "gen_ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.usage.input_tokens": q_["in"],
                 "gen_ai.usage.output_tokens": q_["out"], "gen_ai.response.finish_reasons": ["stop"],
                 "server.address": "api.openai.com", "server.port": 443})
        dur = (kd + ld + lognormal(w.rng, 30)) * MS
        http_server(tr, svc, ver, region, t, dur, "POST", "api/desk/replies/", "/api/desk/replies/", 200,
                    extra={"desk.reply.policy_check": q_["policy"], "desk.reply.escalated": q_["escalated"],
                           "desk.prompt.version": q_["prompt"], "code.function": "ReplyView.post"})
        tr.spans[-1][1]["span_id"] = sid
        tr.log(svc, ver, region, t + int(dur), "INFO",
               "reply drafted thread=%d policy=%s escalated=%s tokens_out=%d" % (w.rng.randrange(10 ** 6), q_["policy"],
                                                                               q_["escalated"], q_["out"]), sid,
               {"logger.name": "desk.views"})
    return {"rate": rate, "emit": emit}


def desk_threads(rate):
    def emit(w, tr, t):
        ver = w.version("agent-desk", t)
        sid = tr.sid()
        d = lognormal(w.rng, 22)
        tr.span("agent-desk", ver, "eu-west-1", "SELECT desk", 3, t + 2 * MS, (d - 6) * MS, sid,
                {"db.system.name": "postgresql", "db.namespace": "desk", "db.collection.name": "desk_thread",
                 "db.operation.name": "SELECT", "db.query.text": "SELECT * FROM desk_thread WHERE agent_id = %s ORDER BY updated_at DESC LIMIT 50",
                 "server.address": "desk-db.cluster-c9xk2m1v.eu-west-1.rds.amazonaws.com", "server.port": 5432})
        http_server(tr, "agent-desk", ver, "eu-west-1", t, d * MS, "GET", "api/desk/threads/", "/api/desk/threads/", 200)
        tr.spans[-1][1]["span_id"] = sid
    return {"rate": rate, "emit": emit}


def r4_prompt():
    def quality(w, t, ver, hits):
        if ver == "2.7.0":
            return {"in": int(lognormal(w.rng, 2100, 0.2)), "out": int(lognormal(w.rng, 540, 0.3)),
                    "policy": "tone_violation" if w.rng.random() < 0.36 else "pass",
                    "escalated": w.rng.random() < 0.07, "prompt": "desk-reply@v19"}
        return {"in": int(lognormal(w.rng, 1650, 0.2)), "out": int(lognormal(w.rng, 190, 0.3)),
                "policy": "tone_violation" if w.rng.random() < 0.02 else "pass",
                "escalated": w.rng.random() < 0.06, "prompt": "desk-reply@v18"}

    return {
        "id": "fb9-prompt-v19-tone-agent-desk", "service": "agent-desk",
        "title": "agent-desk 2.7.0 ships reply prompt v19: 36% of drafted replies fail the tone policy check (2% before), output tokens 190 -> 540; HTTP 200 throughout",
        "start": "14:31:00", "now": "16:06:00", "one_in": 3, "onset": "15:40:30",
        "expect": {"root_cause": "prompt_regression", "verdict": "allow"},
        "tags": ["python", "django", "gen-ai", "quality-only", "http-200", "rule-json", "head-1-in-3"],
        "story": "2.7.0 replaces the reply prompt (desk-reply@v19: 'be warm, informal, use the customer's first name, add reassurance'); the policy checker flags 36% of drafts. No error and no latency change beyond the longer answers. A rollback restores v18.",
        "serving": {"agent-desk": [("2.6.4", None, 0, None), ("2.7.0", "15:40:12.090", 50, None)],
                    "kb-search": [("2.8.1", None, 0, None)]},
        "ops": [agent_desk_op(19, quality), desk_threads(11)],
        "markers": [("agent-desk", "2.7.0", "2.6.4", "15:40:12.090", "eu-west-1", "nomad-dep-0e55d7a1", {"nomad.job.version": 57})],
        "ledger": {"agent-desk": [("2.6.4", "2026-12-03T11:20:40.551"), ("2.7.0", "15:40:12.090")],
                   "kb-search": [("2.8.1", "2026-11-28T09:41:03.100")]},
        "alert": {"name": "DeskReplyToneViolations", "team": "support-tools", "starts": "15:52:00", "burn": "6.1",
                  "summary": "Share of drafted replies failing the tone policy above 10%"},
        "rule": {"bad": "service.name = 'agent-desk' AND desk.reply.policy_check = 'tone_violation'",
                 "all": "service.name = 'agent-desk' AND name = 'POST api/desk/replies/'", "target": 10},
    }


# ---------------------------------------------------------------- R5: settle-batch (Nomad periodic, INTERNAL spans only)

def settle_tick(fail_ratio, one_run_per_min=True):
    def tick(w, m):
        t = m + int((2 + w.rng.random()) * S)
        if t >= w.now - 30 * S:
            return
        svc = "settle-batch"
        ver = w.version(svc, t)
        tr = Trace(w, t, keep=True)
        root = tr.sid()
        cur = t + 40 * MS
        n = poisson(w.rng, 28)
        failed = 0
        db_span(tr, svc, ver, None, t + 5 * MS, lognormal(w.rng, 8) * MS, "postgresql", "SELECT", "settle", "settlement_item",
                "SELECT id, payee_id, amount_minor, currency, payout_route FROM settlement_item WHERE state = 'READY' LIMIT 200 FOR UPDATE SKIP LOCKED",
                PG["settle"], 5432, root)
        for i in range(n):
            it = tr.sid()
            d = lognormal(w.rng, 140)
            bad = w.rng.random() < fail_ratio(w, t, ver)
            if bad:
                failed += 1
                tr.span(svc, ver, None, "settle_item", 1, cur, 4 * MS, root,
                        {"settle.item.id": "si_%d" % w.rng.randrange(10 ** 8), "settle.payout.route": "sepa_instant",
                         "code.function": "settle_item", "code.namespace": "settle.jobs"},
                        err="KeyError: 'iban'", sid=it,
                        events=exc(cur + 4 * MS, "KeyError", "'iban'", 'Traceback (most recent call last):\n  File "/app/settle/jobs.py", line 131, in settle_item\n    iban = item.payee["bank"]["iban"]\nKeyError: \'iban\'\n'))
                tr.log(svc, ver, None, cur + 4 * MS, "ERROR", "settlement item failed: KeyError 'iban'", it,
                       {"logger.name": "settle.jobs", "exception.type": "KeyError"})
                cur += 5 * MS
                continue
            tr.span(svc, ver, None, "settle_item", 1, cur, d * MS, root,
                    {"settle.item.id": "si_%d" % w.rng.randrange(10 ** 8), "settle.payout.route": w.rng.choice(["sepa_instant", "sepa", "bacs"]),
                     "code.function": "settle_item", "code.namespace": "settle.jobs"}, sid=it)
            http_client(tr, svc, ver, None, cur + 3 * MS, (d - 8) * MS, "POST", "https://api.bankconnect.example/v2/payments",
                        "api.bankconnect.example", 201, it)
            cur += int(d * MS) + 2 * MS
        dur = cur - t + 20 * MS
        tr.span(svc, ver, None, "settle-batch run", 1, t, dur, "",
                {"nomad.periodic.launch": ts(m), "settle.items": n, "settle.failed": failed,
                 "code.function": "main", "code.namespace": "settle.__main__"},
                err=("%d of %d settlements failed" % (failed, n)) if failed else None, sid=root)
        tr.log(svc, ver, None, t + dur, "WARNING" if failed else "INFO",
               "settle run done items=%d failed=%d" % (n, failed), root, {"logger.name": "settle"})
        tr.flush()
    return tick


def r5_batch():
    return {
        "id": "fb9-periodic-keyerror-settle-batch", "service": "settle-batch",
        "title": "settle-batch 4.0.1 (a Nomad periodic job, one run a minute, INTERNAL spans only) reads payee['bank']['iban']: 41% of settlement items fail KeyError",
        "start": "10:15:00", "now": "11:53:00", "one_in": 1, "onset": "11:32:02",
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["python", "batch", "nomad-periodic", "internal-spans-only", "no-server-spans", "unsampled"],
        "story": "4.0.1 moves payout routing to the new payee schema and reads the IBAN from payee['bank']['iban']; payees created before March have it at payee['iban']. From the first run on 4.0.1 (11:32) 41% of items fail. The job has no inbound requests: every span is INTERNAL (a run, its items) or a client span to the database and the bank.",
        "serving": {"settle-batch": [("4.0.0", None, 0, None), ("4.0.1", "11:31:04.660", 0, None)]},
        "ops": [], "tick": settle_tick(lambda w, t, v: 0.41 if v == "4.0.1" else 0.004),
        "markers": [("settle-batch", "4.0.1", "4.0.0", "11:31:04.660", None, "nomad-dep-51c2aa03", {"nomad.job.type": "batch", "nomad.periodic": True})],
        "ledger": {"settle-batch": [("4.0.0", "2026-12-01T07:00:14.803"), ("4.0.1", "11:31:04.660")]},
        "alert": {"name": "SettlementItemFailures", "team": "payments", "starts": "11:41:00", "burn": "22.0"},
    }


# ---------------------------------------------------------------- seatmap-svc (Ktor + Cassandra)

CASS = ["cass-a-%d.seatmap.internal", "cass-b-%d.seatmap.internal", "cass-c-%d.seatmap.internal"]


def seatmap_op(method, route, path, rate, op, cql, cons, fail=None, slow=lambda w, t: 1.0):
    svc = "seatmap-svc"

    def emit(w, tr, t):
        region = "eu-west-1"
        ver = w.version(svc, t)
        sid = tr.sid()
        c = cons(ver)
        f = fail(w, t, ver) if fail else None
        d = lognormal(w.rng, (3.0 if c != "EACH_QUORUM" else 31.0) * slow(w, t))
        host = w.rng.choice(CASS) % w.rng.randrange(1, 4)
        err = None
        if f:
            d = f[2]
            err = (f[0], "%s: %s" % (f[0], f[1]))
        db_span(tr, svc, ver, region, t + 500 * US, d * MS, "cassandra", op, "seatmaps", "seat_holds" if op != "SELECT" else "seat_map",
                cql, host, 9042, sid, err=err,
                extra={"db.cassandra.consistency_level": c, "db.cassandra.coordinator.dc": "eu-west-1",
                       "db.cassandra.page_size": 5000, "db.cassandra.idempotence": op == "SELECT"})
        dur = (lognormal(w.rng, 7) + d) * MS
        status, msg, events = 200, None, None
        if f:
            status, msg = 503, "%s: %s" % (f[0], f[1])
            events = exc(t + int(dur), f[0], f[1], java_stack(f[0], f[1], ["com.datastax.oss.driver.internal.core.cql.CqlRequestHandler.processErrorResponse(CqlRequestHandler.java:645)",
                                                                          "com.ferrybook.seatmap.HoldRepository.hold(HoldRepository.kt:52)"]))
            tr.log(svc, ver, region, t + int(dur), "ERROR", "Unhandled: %s - %s" % (method, path), sid,
                   {"log.logger.name": "io.ktor.server.Application", "exception.type": f[0]})
        http_server(tr, svc, ver, region, t, dur, method, route, path, status, error_type=f[0] if f else None,
                    events=events, msg=msg)
        tr.spans[-1][1]["span_id"] = sid
    return {"rate": rate, "emit": emit}


def r6_consistency():
    cons = lambda v: "EACH_QUORUM" if v == "5.3.0" else "LOCAL_QUORUM"

    def fail(w, t, ver):
        if ver == "5.3.0" and w.rng.random() < 0.33:
            return ("com.datastax.oss.driver.api.core.servererrors.UnavailableException",
                    "Not enough replicas available for query at consistency EACH_QUORUM (2 required but only 1 alive)",
                    lognormal(w.rng, 4))
        return None

    return {
        "id": "fb9-each-quorum-holds-seatmap-svc", "service": "seatmap-svc",
        "title": "seatmap-svc 5.3.0 writes seat holds at EACH_QUORUM: a node of the eu-central-1 DC has been down for repair for hours; 33% of holds 503 Unavailable, the rest 10x slower",
        "start": "06:10:00", "now": "07:49:00", "one_in": 5, "onset": "07:22:50",
        "expect": {"root_cause": "config_regression", "verdict": "allow"},
        "tags": ["kotlin", "ktor", "cassandra", "consistency-level", "config-in-release", "db-error-text", "head-1-in-5"],
        "story": "5.3.0's application.conf sets datastax-java-driver.profiles.holds.basic.request.consistency to EACH_QUORUM (was LOCAL_QUORUM) to stop double-sold seats across regions. The eu-central-1 DC (RF 2) has had cass-d-2 down for repair since 05:40 with no effect at LOCAL_QUORUM; EACH_QUORUM needs both of its replicas for a third of the ring, and every hold waits on the WAN. The spans carry the consistency level; 5.2.4 pods write LOCAL_QUORUM and succeed throughout. Rollback to 5.2.4.",
        "serving": {"seatmap-svc": [("5.2.4", None, 0, None), ("5.3.0", "07:22:31.774", 60, None)]},
        "ops": [seatmap_op("POST", "/seatmaps/{sailing}/holds", "/seatmaps/OSL-KIE-20261212-0800/holds", 36, "INSERT",
                           "INSERT INTO seat_holds (sailing_id, seat, hold_id, expires_at) VALUES (?, ?, ?, ?) IF NOT EXISTS", cons, fail=fail),
                seatmap_op("GET", "/seatmaps/{sailing}", "/seatmaps/OSL-KIE-20261212-0800", 70, "SELECT",
                           "SELECT seat, state FROM seat_map WHERE sailing_id = ?", lambda v: "LOCAL_ONE")],
        "markers": [("seatmap-svc", "5.3.0", "5.2.4", "07:22:31.774", "eu-west-1", "nomad-dep-c0ffee31", {"nomad.job.version": 140})],
        "ledger": {"seatmap-svc": [("5.2.4", "2026-12-06T10:02:44.318"), ("5.3.0", "07:22:31.774")]},
        "alert": {"name": "SeatHoldAvailability", "team": "seatmap", "starts": "07:34:00", "burn": "14.5"},
    }


# ---------------------------------------------------------------- T1: flag flip without a release (loyalty-svc)

def loyalty_children(w, tr, t, ver, region, sid):
    d = lognormal(w.rng, 2.6)
    db_span(tr, "loyalty-svc", ver, region, t, d * MS, "postgresql", "INSERT", "loyalty", "accrual",
            "INSERT INTO accrual (member_id, booking_ref, points, tier) VALUES (?, ?, ?, ?)", PG["loyalty"], 5432, sid)
    return d, None


def t1_flag_flip(flip="10:10:41.220", rel="10:05:48.301", secs=70, one_in=5, ident="fb9-trap-flag-flip-no-release-loyalty-svc"):
    svc = "loyalty-svc"
    t_flip = at(flip)

    def flag(w, t, ver, region):
        return "points-multiplier-v3", ("on" if t >= t_flip else "off")

    def fail(w, t, ver, region):
        if t >= t_flip and w.rng.random() < 0.4:
            return (500, "java.lang.IllegalStateException", "no multiplier tier for segment FREQUENT_PLUS",
                    ["com.ferrybook.loyalty.multiplier.V3Multiplier.tierFor(V3Multiplier.java:58)",
                     "com.ferrybook.loyalty.AccrualResource.accrue(AccrualResource.java:39)"])
        return None

    def tick(w, m):
        if m <= t_flip < m + MIN:
            for v in ["6.0.3"]:
                for k in range(3):
                    always_log(w, svc, v, "eu-west-1", t_flip + (300 + 170 * k) * MS, "INFO",
                               "Flag configuration changed: [points-multiplier-v3] (flagd sync, selector=loyalty)",
                               {"log.logger.name": "dev.openfeature.contrib.providers.flagd.resolver.process.InProcessResolver"})

    return {
        "id": ident, "service": svc,
        "title": "points-multiplier-v3 is switched on in flagd at 10:10:41 (no release); loyalty-svc 6.0.3 (a Jackson bump) finished rolling out minutes before: 40% of accruals 500",
        "start": "08:40:00", "now": "10:27:00", "one_in": one_in, "onset": flip[:8],
        "expect": {"root_cause": "config_regression", "verdict": "deny"},
        "tags": ["quarkus", "openfeature", "flagd", "runtime-flag-flip", "release-before-onset", "head-1-in-%d" % one_in],
        "story": "A product manager turns points-multiplier-v3 on in the flagd UI at %s; the flagd provider in every loyalty-svc pod logs the configuration change and evaluations switch to variant on at once. The V3 multiplier has no tier for FREQUENT_PLUS members. loyalty-svc 6.0.3 (jackson-databind 2.18.2) rolled out from %s, clean until the flip. Rolling 6.0.3 back leaves the flag on: the fix is the flag." % (flip, rel),
        "serving": {svc: [("6.0.2", None, 0, None), ("6.0.3", rel, secs, None)]},
        "ops": [quarkus_op(svc, "POST", "/loyalty/accruals", "/loyalty/accruals", 38, loyalty_children, fail=fail, flag=flag),
                quarkus_op(svc, "GET", "/loyalty/members/{id}", "/loyalty/members/M2231904", 30, None)],
        "tick": tick,
        "markers": [(svc, "6.0.3", "6.0.2", rel, "eu-west-1", "nomad-dep-3b9d44f0", {"nomad.job.version": 66})],
        "ledger": {svc: [("6.0.2", "2026-12-02T15:12:09.440"), ("6.0.3", rel)]},
        "alert": {"name": "LoyaltyAccrual5xx", "team": "loyalty", "starts": "10:19:00", "burn": "12.3"},
    }


# ---------------------------------------------------------------- T2: region failover during a multiregion deploy

def t2_failover():
    fo = at("16:22:05.000")

    def split(w, t):
        return 0.6 if t < fo else (0.6 * (1 - ramp(t, fo, fo + 50 * S)))

    def load(t, op):
        return 1.0

    def slow(w, t, region):
        if region == "eu-central-1" and t >= fo:
            return 1.0 + 5.0 * ramp(t, fo + 20 * S, fo + 3 * MIN)
        return 1.0

    def fail(w, t, ver, region):
        if region == "eu-central-1" and t >= fo + 60 * S and w.rng.random() < 0.16 * ramp(t, fo + 60 * S, fo + 4 * MIN):
            return (503, "com.mongodb.MongoTimeoutException",
                    "Timed out after 2000 ms while waiting for a connection to server ferrybook-prod-shard-00-02.q7x2p.mongodb.net:27017.",
                    ["com.mongodb.internal.connection.DefaultConnectionPool.createTimeoutException(DefaultConnectionPool.java:554)",
                     "com.ferrybook.booking.BookingRepository.byRef(BookingRepository.java:44)"])
        return None

    def tick(w, m):
        if m <= fo < m + MIN:
            always_log(w, "booking-api", "12.1.2", "eu-west-1", fo - 4 * S, "WARN",
                       "Shutdown requested: SIGTERM (allocation stopping: node ip-10-40-17-88 drained by eu-west-1 zone impairment)",
                       {"log.logger.name": "io.quarkus.runtime.Application"})
        if m >= fo:
            for _ in range(2):
                always_log(w, "booking-api", "12.1.2", "eu-central-1", m + int(w.rng.random() * MIN), "WARN",
                           "Connection pool for ferrybook-prod-shard-00-02.q7x2p.mongodb.net:27017 at maxSize 100: %d waiters" % w.rng.randrange(40, 190),
                           {"log.logger.name": "org.mongodb.driver.connection"})

    ops = [booking_op("GET", "/bookings/{ref}", "/bookings/FB2M8QD", 70, "bookings", fail=fail, slow=slow, split=split),
           booking_op("POST", "/bookings", "/bookings", 24, "bookings", fail=fail, slow=slow, split=split),
           booking_op("GET", "/bookings/{ref}/documents", "/bookings/FB2M8QD/documents", 18, "documents", fail=fail, slow=slow, split=split)]
    return {
        "id": "fb9-trap-region-failover-booking-api", "service": "booking-api",
        "title": "eu-west-1 is impaired at 16:22 and Route 53 fails all traffic over to eu-central-1, whose booking-api runs out of Mongo connections; booking-api 12.1.2 (both regions) finished deploying two minutes before",
        "start": "14:48:00", "now": "16:38:00", "one_in": 6, "onset": "16:22:30",
        "expect": {"root_cause": "traffic_surge", "verdict": "deny"},
        "tags": ["quarkus", "mongodb", "multiregion", "region-failover", "release-before-onset", "head-1-in-6"],
        "story": "A zone impairment in eu-west-1 fails the ALB health checks at 16:22:05; Route 53 sends all traffic to eu-central-1 within a minute. The total request rate is unchanged, but eu-central-1's allocations (sized for 40%) serve it all: Mongo connection pools at maxSize, waits, 16% MongoTimeoutException 503s. booking-api 12.1.2 (a logging change) rolled eu-west-1 at 16:18:44 and eu-central-1 at 16:19:58 and served clean in both for two minutes. Rolling back to 12.1.1 would restart every eu-central-1 allocation in the middle of the failover.",
        "serving": {"booking-api": [("12.1.1", None, 0, None), ("12.1.2", "16:18:44.120", 45, "eu-west-1"),
                                    ("12.1.2", "16:19:58.402", 45, "eu-central-1")]},
        "ops": ops, "load": load, "tick": tick,
        "markers": [("booking-api", "12.1.2", "12.1.1", "16:18:44.120", "eu-west-1", "nomad-mr-a4410c5e", {"nomad.job.version": 309}),
                    ("booking-api", "12.1.2", "12.1.1", "16:19:58.402", "eu-central-1", "nomad-mr-a4410c5e", {"nomad.job.version": 309})],
        "ledger": {"booking-api": [("12.1.1", "2026-12-08T10:02:31.554"), ("12.1.2", "16:18:44.120")]},
        "alert": {"name": "BookingLatencyP95", "team": "booking", "starts": "16:31:00", "burn": "8.2"},
    }


# ---------------------------------------------------------------- T3: a schema migration job locks fare_rules

def t3_migration():
    mig = at("09:42:05.331")
    lock_end = mig + 11 * MIN + 20 * S

    def pool_wait(w, t):
        if mig + 2 * S <= t < lock_end:
            # statements wait on the ACCESS EXCLUSIVE lock; the pool empties within ~40 s
            if t < mig + 40 * S:
                return lognormal(w.rng, 800 + 100 * (t - mig) / S)
            return 5000.0 if w.rng.random() < 0.55 else lognormal(w.rng, 3800, 0.2)
        return 0.0

    def tick(w, m):
        if m <= mig < m + MIN:
            tr = Trace(w, mig, keep=True)
            root = tr.sid()
            tr.span("fares-migrate", "2026.12.09.1", None, "ALTER fares.fare_rules", 3, mig + 400 * MS,
                    lock_end - mig - 400 * MS, root,
                    {"db.system.name": "postgresql", "db.namespace": "fares", "db.collection.name": "fare_rules",
                     "db.operation.name": "ALTER",
                     "db.query.text": "ALTER TABLE fare_rules ALTER COLUMN valid_from TYPE timestamptz USING valid_from AT TIME ZONE 'Europe/Oslo'",
                     "server.address": PG["fares"], "server.port": 5432})
            tr.span("fares-migrate", "2026.12.09.1", None, "flyway migrate", 1, mig, lock_end - mig + 600 * MS, "",
                    {"flyway.version": "10.21.0", "flyway.target": "2026.12.09.1", "code.namespace": "org.flywaydb.core.Flyway"},
                    sid=root)
            tr.log("fares-migrate", "2026.12.09.1", None, mig + 300 * MS, "INFO",
                   'Migrating schema "public" to version "2026.12.09.1 - retype fare rules valid from"', root,
                   {"log.logger.name": "org.flywaydb.core.internal.command.DbMigrate"})
            tr.log("fares-migrate", "2026.12.09.1", None, lock_end + 500 * MS, "INFO",
                   'Successfully applied 1 migration to schema "public", now at version v2026.12.09.1 (execution time 11:20.412s)', root,
                   {"log.logger.name": "org.flywaydb.core.internal.command.DbMigrate"})
            tr.flush()
        if mig <= m < lock_end:
            always_log(w, "fares-svc", "8.3.1", "eu-west-1", m + 20 * S, "WARN",
                       "Datasource '<default>': pool fares exhausted, %d threads waiting for a connection" % w.rng.randrange(30, 120),
                       {"log.logger.name": "io.agroal.pool"})

    svc = "fares-svc"
    return {
        "id": "fb9-trap-migration-lock-fares-svc", "service": svc,
        "title": "the fares-migrate job (Flyway) retypes fare_rules.valid_from at 09:42 and holds an ACCESS EXCLUSIVE lock for 11 minutes; fares-svc's Agroal pool runs dry; fares-svc 8.3.1 rolled out two minutes before",
        "start": "08:10:00", "now": "09:57:00", "one_in": 5, "onset": "09:42:10",
        "expect": {"root_cause": "db_pool_exhaustion", "verdict": "deny", "culprit": ("fares-migrate", "deny")},
        "tags": ["quarkus", "agroal", "postgresql", "schema-migration-job", "another-service-release", "release-before-onset", "head-1-in-5"],
        "story": "The migration is a Nomad batch job of its own (fares-migrate, versioned by its schema version) that ran once at 09:42:05: ALTER COLUMN ... TYPE rewrites the table under an ACCESS EXCLUSIVE lock. Every fares-svc query on fare_rules waits; within 40 s the Agroal pool (max 20) is exhausted and requests fail with 'Acquisition timeout while waiting for new connection' (503). fares-svc 8.3.1 (log format) rolled out at 09:40:10 and ran clean. Neither rollback undoes a running ALTER; the job's image is not what holds the lock.",
        "serving": {svc: [("8.3.0", None, 0, None), ("8.3.1", "09:40:10.019", 50, None)],
                    "fares-migrate": [("2026.11.27.2", None, 0, None), ("2026.12.09.1", "09:42:05.331", 0, None)]},
        "ops": [quarkus_op(svc, "POST", "/fares/quote", "/fares/quote", 40, fares_children(pool_wait)),
                quarkus_op(svc, "GET", "/fares/{id}", "/fares/F51108", 24, fares_children(pool_wait)),
                quarkus_op(svc, "GET", "/fares/calendar", "/fares/calendar", 13, fares_children(pool_wait), median=34)],
        "tick": tick,
        "markers": [(svc, "8.3.1", "8.3.0", "09:40:10.019", "eu-west-1", "nomad-dep-7d02f6b4", {"nomad.job.version": 211}),
                    ("fares-migrate", "2026.12.09.1", "2026.11.27.2", "09:42:05.331", "eu-west-1", "nomad-dep-7d02f8e1", {"nomad.job.type": "batch"})],
        "ledger": {svc: [("8.3.0", "2026-12-05T10:30:44.207"), ("8.3.1", "09:40:10.019")],
                   "fares-migrate": [("2026.11.27.2", "2026-11-27T21:04:10.600"), ("2026.12.09.1", "09:42:05.331")]},
        "alert": {"name": "FaresAvailability", "team": "pricing", "starts": "09:50:00", "burn": "19.7"},
    }


# ---------------------------------------------------------------- T4: a re-emitted marker, then a Cassandra node struggles

def t4_stale_marker(remark="11:14:02.510", onset="11:15:30.000", one_in=5, new_id=False,
                    ident="fb9-trap-reemitted-marker-seatmap-svc"):
    t_on = at(onset)

    def slow(w, t):
        return 1.0 + 7.0 * ramp(t, t_on, t_on + 90 * S)

    def fail(w, t, ver):
        if t >= t_on and w.rng.random() < 0.22 * ramp(t, t_on, t_on + 60 * S):
            return ("com.datastax.oss.driver.api.core.servererrors.ReadTimeoutException",
                    "Cassandra timeout during read query at consistency LOCAL_QUORUM (2 responses were required but only 1 replica responded)",
                    2000.0 + lognormal(w.rng, 10))
        return None

    def fail_w(w, t, ver):
        if t >= t_on and w.rng.random() < 0.12 * ramp(t, t_on, t_on + 60 * S):
            return ("com.datastax.oss.driver.api.core.servererrors.WriteTimeoutException",
                    "Cassandra timeout during SIMPLE write query at consistency LOCAL_QUORUM (2 replica were required but only 1 acknowledged the write)",
                    2000.0 + lognormal(w.rng, 10))
        return None

    def tick(w, m):
        if m >= t_on:
            always_log(w, "seatmap-svc", "5.2.0", "eu-west-1", m + int(w.rng.random() * MIN), "WARN",
                       "[s0|/10.40.12.31:9042] Error while opening new channel / node cass-c-2 is slow to respond (speculative executions triggered)",
                       {"log.logger.name": "com.datastax.oss.driver.internal.core.pool.ChannelPool"})

    did = "nomad-dep-%s" % ("e91d3a27" if new_id else "5f6a0b12")
    return {
        "id": ident, "service": "seatmap-svc",
        "title": "a drained node's allocation is rescheduled and the deploy notifier re-emits the 5.2.0 marker (from 5.1.4, two days old); 90 s later cass-c-2 stalls in a compaction storm: 22% of seat-map reads time out",
        "start": "09:40:00", "now": "11:29:00", "one_in": one_in, "onset": onset,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["kotlin", "ktor", "cassandra", "re-emitted-marker", "stale-marker", "ledger-contradicts", "head-1-in-%d" % one_in],
        "story": "seatmap-svc 5.2.0 has run since 2026-12-07 14:03. At %s Nomad reschedules an allocation off a drained node; the deploy-notifier sidecar starts with it and writes a deployment.marker for 5.2.0 with previous_version 5.1.4 (%s). At %s cass-c-2 falls into a compaction storm: LOCAL_QUORUM reads that need it time out after 2 s, the rest slow. Nothing was released; a rollback to 5.1.4 would undo two days of work and leave the node stalled." % (remark, "a fresh deployment.id" if new_id else "the original deployment.id", onset),
        "serving": {"seatmap-svc": [("5.2.0", None, 0, None)]},
        "ops": [seatmap_op("GET", "/seatmaps/{sailing}", "/seatmaps/BGO-HIR-20261211-2000", 72, "SELECT",
                           "SELECT seat, state FROM seat_map WHERE sailing_id = ?", lambda v: "LOCAL_QUORUM", fail=fail, slow=slow),
                seatmap_op("POST", "/seatmaps/{sailing}/holds", "/seatmaps/BGO-HIR-20261211-2000/holds", 30, "INSERT",
                           "INSERT INTO seat_holds (sailing_id, seat, hold_id, expires_at) VALUES (?, ?, ?, ?) IF NOT EXISTS",
                           lambda v: "LOCAL_QUORUM", fail=fail_w, slow=slow)],
        "tick": tick,
        "markers": [("seatmap-svc", "5.2.0", "5.1.4", remark, "eu-west-1", did, {"nomad.job.version": 139})],
        "ledger": {"seatmap-svc": [("5.1.4", "2026-12-05T08:51:20.130"), ("5.2.0", "2026-12-07T14:03:11.882")]},
        "alert": {"name": "SeatmapReadLatency", "team": "seatmap", "starts": "11:23:00", "burn": "10.9"},
    }


# ---------------------------------------------------------------- T5: the GDS fails; Temporal retries as it always did

def t5_gds(rel="13:31:05.448", secs=40, fail_from="13:32:40", status=503, ratio=0.55, one_in=6,
           ident="fb9-trap-gds-outage-temporal-retries-ticketing-worker", throttle=False):
    t_f = at(fail_from)

    def gds_fail(w, t):
        if t >= t_f and w.rng.random() < ratio * ramp(t, t_f, t_f + 40 * S):
            if throttle:
                return (429, "429", lognormal(w.rng, 30), "429 Too Many Requests (Retry-After: 2; quota ferrybook-prod reduced)")
            if w.rng.random() < 0.3:
                return (None, "io.ktor.client.network.sockets.ConnectTimeoutException", 3000.0, "Connect timeout has expired [url=https://ws.tripgds.example/v3/pnr/create, connect_timeout=3000 ms]")
            return (status, str(status), lognormal(w.rng, 60), "503 Service Unavailable")
        return None

    title = ("the GDS throttles Ferrybook's quota at %s (429 to %d%% of PNR creations); Temporal retries every activity as it always did; ticketing-worker 3.1.4 rolled out 40 s before" % (fail_from, ratio * 100)
             if throttle else
             "the GDS answers 503 or times out on %d%% of PNR creations from %s; Temporal retries every activity as it always did; ticketing-worker 3.1.4 (a structlog bump) rolled out a minute before" % (ratio * 100, fail_from))
    return {
        "id": ident, "service": "ticketing-worker", "title": title,
        "start": "12:02:00", "now": "13:49:00", "one_in": one_in, "onset": fail_from,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["python", "temporal", "ktor", "external-gds", "retries-unchanged", "release-before-onset", "head-1-in-%d" % one_in]
        + (["provider-throttle"] if throttle else []),
        "story": "The external GDS (ws.tripgds.example) %s from %s; pnr-gateway answers 502 to the worker, and the worker's unchanged RetryPolicy (1 s, backoff 2, 3 attempts) retries each issue_pnr activity: the calls per workflow rise, which looks like a retry storm, on the old version as on the new. ticketing-worker %s rolled out at %s and changed neither timeouts nor retries." % ("throttles (429)" if throttle else "fails", fail_from, "3.1.4", rel),
        "serving": {"ticketing-worker": [("3.1.3", None, 0, None), ("3.1.4", rel, secs, None)],
                    "pnr-gateway": [("1.14.2", None, 0, None)], "booking-api": [("12.0.3", None, 0, None)]},
        "ops": [temporal_workflow("ticketing-worker", 30, lambda v: 10.0, lambda v: 3, lambda v: 1.0, gds_fail=gds_fail)],
        "markers": [("ticketing-worker", "3.1.4", "3.1.3", rel, "eu-west-1", "nomad-dep-22b1c9d0", {"nomad.job.version": 86})],
        "ledger": {"ticketing-worker": [("3.1.3", "2026-12-04T12:12:12.120"), ("3.1.4", rel)],
                   "pnr-gateway": [("1.14.2", "2026-11-30T10:05:51.004")]},
        "alert": {"name": "TicketIssuanceFailures", "team": "ticketing", "starts": "13:41:00", "burn": "13.0"},
    }


# ---------------------------------------------------------------- T6: kb-search's release empties agent-desk's answers

def t6_kb_release(desk_rel="15:12:05.880", kb_rel="15:13:20.114", one_in=3, ident="fb9-trap-kb-search-release-agent-desk"):
    t_kb = at(kb_rel)

    def kb_zero(w, t):
        return 0.62 * ramp(t, t_kb, t_kb + 40 * S)

    def quality(w, t, ver, hits):
        prompt = "desk-reply@v18"
        if hits == 0:
            return {"in": int(lognormal(w.rng, 420, 0.2)), "out": int(lognormal(w.rng, 70, 0.3)),
                    "policy": "pass", "escalated": w.rng.random() < 0.9, "prompt": prompt}
        return {"in": int(lognormal(w.rng, 1650, 0.2)), "out": int(lognormal(w.rng, 190, 0.3)),
                "policy": "tone_violation" if w.rng.random() < 0.02 else "pass",
                "escalated": w.rng.random() < 0.06, "prompt": prompt}

    return {
        "id": ident, "service": "agent-desk",
        "title": "kb-search 2.9.0 switches the OpenSearch analyzer: 62% of searches return no article and agent-desk escalates 9 in 10 of those replies (HTTP 200); agent-desk 2.7.2 rolled out a minute before",
        "start": "13:40:00", "now": "15:29:00", "one_in": one_in, "onset": kb_rel[:8],
        "expect": {"root_cause": "bad_release", "verdict": "deny", "culprit": ("kb-search", "allow")},
        "tags": ["python", "django", "quarkus", "opensearch", "gen-ai", "quality-only", "callee-release", "own-release-before", "rule-json", "head-1-in-%d" % one_in],
        "story": "kb-search 2.9.0 queries with the norwegian analyzer on the English index: 62%% of searches return 0 hits (HTTP 200). agent-desk, finding no article, drafts a short hand-off and escalates: desk.reply.escalated true on ~60%% of replies (6%% before), input and output tokens fall. agent-desk 2.7.2 (Django 5.1.4) rolled out at %s and changed no prompt (desk.prompt.version unchanged). Rolling agent-desk back changes nothing; kb-search is the release to roll back." % desk_rel,
        "serving": {"agent-desk": [("2.7.1", None, 0, None), ("2.7.2", desk_rel, 45, None)],
                    "kb-search": [("2.8.1", None, 0, None), ("2.9.0", kb_rel, 40, None)]},
        "ops": [agent_desk_op(20, quality, kb_zero), desk_threads(11)],
        "markers": [("agent-desk", "2.7.2", "2.7.1", desk_rel, "eu-west-1", "nomad-dep-61aa0e3c", {"nomad.job.version": 59}),
                    ("kb-search", "2.9.0", "2.8.1", kb_rel, "eu-west-1", "nomad-dep-61aa1f07", {"nomad.job.version": 31})],
        "ledger": {"agent-desk": [("2.7.1", "2026-12-08T09:22:31.004"), ("2.7.2", desk_rel)],
                   "kb-search": [("2.8.1", "2026-11-28T09:41:03.100"), ("2.9.0", kb_rel)]},
        "alert": {"name": "DeskReplyEscalations", "team": "support-tools", "starts": "15:22:00", "burn": "7.7",
                  "summary": "Share of drafted replies escalated to a human above 20%"},
        "rule": {"bad": "service.name = 'agent-desk' AND desk.reply.escalated = true",
                 "all": "service.name = 'agent-desk' AND name = 'POST api/desk/replies/'", "target": 20},
    }


INCIDENTS = [r1_flagd, r2_temporal_storm, r3_mongo_projection, r4_prompt, r5_batch, r6_consistency,
             t1_flag_flip, t2_failover, t3_migration, t4_stale_marker, t5_gds, t6_kb_release]

TWINS = {
    # the flag flips 35 s after the rollout finished, sampled 1 in 15
    "flag-flip-fast": lambda: t1_flag_flip(flip="10:07:33.900", rel="10:05:48.301", secs=70, one_in=15,
                                           ident="fb9-twin-flag-flip-fast-loyalty-svc"),
    # the marker is re-emitted with a fresh deployment id, 38 s before the node stalls, 1 in 12
    "reemitted-fresh-id": lambda: t4_stale_marker(remark="11:14:52.004", onset="11:15:30.000", one_in=12, new_id=True,
                                                  ident="fb9-twin-reemitted-fresh-id-seatmap-svc"),
    # a cloud provider's throttle: 429 to 70% of calls, 40 s after the worker's release, 1 in 10
    "gds-throttle": lambda: t5_gds(rel="13:31:55.448", secs=20, fail_from="13:32:35", ratio=0.7, one_in=10,
                                   ident="fb9-twin-gds-throttle-ticketing-worker", throttle=True),
    # kb-search's release 25 s after agent-desk's, sampled 1 in 8
    "kb-release-close": lambda: t6_kb_release(desk_rel="15:12:55.880", kb_rel="15:13:20.114", one_in=8,
                                              ident="fb9-twin-kb-release-close-agent-desk"),
}


def main():
    if sys.argv[1:2] == ["--twin"]:
        for name in sys.argv[3:]:
            generate(TWINS[name], sys.argv[2])
        return
    only = set(sys.argv[1:])
    for make in INCIDENTS:
        if not only or make()["id"] in only:
            generate(make, HERE)


if __name__ == "__main__":
    main()
