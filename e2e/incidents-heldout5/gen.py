#!/usr/bin/env python3
"""Generates e2e/incidents-heldout5: a digital bank's platform ("Fernhill").

Run from this folder: `python3 gen.py`. Seeded (SEED below): every file comes out
byte for byte the same on every run. Files over 3 MB are written gzip'd with no
name and mtime 0.

Style (README.md): Kotlin/Spring Boot 3 services traced by Micrometer Tracing (the
OTel bridge: span names like "http post /api/v1/transfers", tags method/uri/
status/outcome/exception, datasource-micrometer "query"/"connection" spans, Spring
Kafka "send"/"receive" spans in the producer's trace), one Kotlin service whose
HTTP client is Ktor's OTel instrumentation (semconv, http.request.resend_count),
Scala (http4s + otel4s, current semconv, some without service.version) and Swift
(Vapor + swift-otel, gRPC-web) services; every pod behind an Istio sidecar that
traces as "<app>.<namespace>" with envoy's string tags and no service.version;
exceptions as span events; head sampling (parent-based trace-id ratio, 1 in 5 to
1 in 40: the whole trace or nothing), logs for every request whatever the sampler
decided; timestamps in UTC with "Z" and milliseconds.

Every request is simulated (so the logs and the kept traces agree); only the
traces the sampler keeps are written.
"""
import gzip
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timezone

SEED = 5405
HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1_000_000
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024


def ts(ns):
    """RFC 3339, UTC, milliseconds, Z."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (frac // MS)


def at(s):
    """'2026-12-03T10:07:12.480' (UTC) to ns."""
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(d.timestamp()) * S + int((frac + "000")[:3]) * MS


def hexid(rng, n):
    return "%0*x" % (n, rng.getrandbits(4 * n))


# ---------------------------------------------------------------- services

RUNTIME = {
    "kotlin": {"telemetry.sdk.language": "java", "telemetry.sdk.name": "opentelemetry",
               "telemetry.sdk.version": "1.43.0", "process.runtime.name": "OpenJDK Runtime Environment",
               "process.runtime.version": "21.0.5+11-LTS", "process.runtime.description":
               "Eclipse Adoptium OpenJDK 64-Bit Server VM 21.0.5+11-LTS"},
    "scala": {"telemetry.sdk.language": "scala", "telemetry.sdk.name": "otel4s",
              "telemetry.sdk.version": "0.11.1", "process.runtime.name": "OpenJDK Runtime Environment",
              "process.runtime.version": "17.0.13+11"},
    "swift": {"telemetry.sdk.language": "swift", "telemetry.sdk.name": "swift-otel",
              "telemetry.sdk.version": "0.11.0", "process.runtime.name": "swift",
              "process.runtime.version": "6.0.2"},
}

# service -> (runtime, namespace, reports service.version?)
SERVICES = {
    "transfers-api": ("kotlin", "payments", True),
    "ledger-core": ("scala", "core", False),
    "notifications": ("kotlin", "engagement", True),
    "fx-quote": ("scala", "markets", True),
    "dispute-assistant": ("kotlin", "servicing", True),
    "policy-search": ("scala", "servicing", False),
    "card-auth": ("kotlin", "cards", True),
    "risk-scoring": ("scala", "risk", False),
    "statements-svc": ("scala", "servicing", True),
    "payments-gateway": ("kotlin", "payments", True),
    "balance-api": ("kotlin", "core", True),
    "accounts-api": ("kotlin", "core", True),
    "merchant-api": ("swift", "cards", True),
    "loans-api": ("kotlin", "lending", True),
    "checkout-bff": ("swift", "commerce", True),
    "rewards-svc": ("scala", "commerce", True),
    "loans-batch": ("kotlin", "lending", True),
}


class World:
    """One incident's world: releases (rollouts), the sampler, spans, logs."""

    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, spec["id"]))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.one_in = spec["one_in"]
        self.rollouts = spec["rollouts"]  # svc -> [(version, start_ns or None, steps [(minutes, weight)])]
        self.spans, self.logs = [], []
        self.fault = spec["fault"]
        self.ops = spec["ops"]

    def version(self, svc, t):
        cur = None
        for v, begin, steps in self.rollouts.get(svc, []):
            if begin is None or cur is None:
                cur = v
                continue
            b = at(begin) if isinstance(begin, str) else begin
            if t < b:
                break
            elapsed, weight = (t - b) / MIN, 1.0
            acc = 0.0
            for mins, wt in steps:
                if elapsed < acc + mins:
                    weight = wt if wt is not None else (elapsed - acc) / mins
                    break
                acc += mins
            if weight >= 1.0 or self.rng.random() < weight:
                cur = v
        return cur

    def pod(self, svc, ver):
        h = random.Random("%s/%s/%s" % (self.id, svc, ver))
        rs = hexid(h, 10)[:9].replace("0", "7")
        tail = "".join(h.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
        return "%s-%s-%s" % (svc, rs, tail)

    def resource(self, svc, ver, sidecar=False, env="production"):
        rt, ns, has_ver = SERVICES[svc]
        pod = self.pod(svc, ver)
        if sidecar:
            return {"service.name": "%s.%s" % (svc, ns), "k8s.namespace.name": ns, "k8s.pod.name": pod,
                    "telemetry.sdk.name": "envoy", "istio.mesh_id": "fernhill-prod"}
        r = {"service.name": svc}
        if has_ver:
            r["service.version"] = ver
        r["service.namespace"] = ns
        r["deployment.environment.name"] = env
        r["k8s.namespace.name"] = ns
        r["k8s.deployment.name"] = svc
        r["k8s.pod.name"] = pod
        r["service.instance.id"] = pod
        r.update(RUNTIME[rt])
        r["container.image.name"] = "harbor.fernhill.bank/%s/%s" % (ns, svc)
        return r


class Trace:
    def __init__(self, w, t):
        self.w = w
        self.id = hexid(w.rng, 32)
        self.kept = int(self.id[16:], 16) < (1 << 64) // w.one_in
        self.spans = []
        self.t0 = t
        self.error = False

    def sid(self):
        return hexid(self.w.rng, 16)

    def span(self, sid, svc, ver, name, kind, start, dur, parent, attrs, err=None, sidecar=False, events=None,
             env="production"):
        s = {"timestamp": ts(start), "trace_id": self.id, "span_id": sid, "parent_span_id": parent or "",
             "name": name, "kind": kind, "duration_nano": int(dur), "has_error": bool(err),
             "status_code": 2 if err else 0, "status_message": err or "",
             "resource": self.w.resource(svc, ver, sidecar=sidecar, env=env), "attributes": attrs}
        if events:
            s["events"] = events
        self.spans.append((start, s))
        return s

    def log(self, svc, ver, t, sev, body, sid="", attrs=None):
        self.w.logs.append((t, {"timestamp": ts(t), "severity_text": sev,
                                "severity_number": {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17}[sev],
                                "body": body, "trace_id": self.id, "span_id": sid,
                                "resource": self.w.resource(svc, ver), "attributes": attrs or {}}))


def lognormal(rng, median, sigma=0.35):
    return median * math.exp(rng.gauss(0, sigma))


def exc_event(t, typ, msg, frames):
    st = "%s: %s\n" % (typ, msg) + "".join("\tat %s\n" % f for f in frames)
    return [{"name": "exception", "timestamp": ts(t),
             "attributes": {"exception.type": typ, "exception.message": msg, "exception.stacktrace": st}}]


# ---------------------------------------------------------------- span shapes per runtime

def server_attrs(rt, op, status, exc):
    method, route = op["method"], op["route"]
    if op.get("grpc"):
        svc_name, meth = op["grpc"]
        return {"rpc.system": "grpc", "rpc.service": svc_name, "rpc.method": meth,
                "rpc.grpc.status_code": status, "network.protocol.name": "http", "network.protocol.version": "1.1",
                "rpc.grpc.request.metadata.content-type": ["application/grpc-web+proto"]}
    if rt == "kotlin":
        outcome = "SUCCESS" if status < 400 else ("CLIENT_ERROR" if status < 500 else "SERVER_ERROR")
        return {"method": method, "uri": route, "status": str(status), "outcome": outcome,
                "exception": exc.rsplit(".", 1)[-1] if exc else "none", "http.url": op.get("path", route)}
    a = {"http.request.method": method, "http.route": route, "url.path": op.get("path", route),
         "url.scheme": "http", "http.response.status_code": status, "network.protocol.version": "1.1"}
    if status >= 500:
        a["error.type"] = exc or str(status)
    return a


def server_name(rt, op):
    if op.get("grpc"):
        return "%s/%s" % op["grpc"]
    if rt == "kotlin":
        return "http %s %s" % (op["method"].lower(), op["route"])
    return "%s %s" % (op["method"], op["route"])


def client_attrs(style, method, host, path, status, exc=None, resend=0):
    if style == "micrometer":
        outcome = "UNKNOWN" if status == 0 else ("SUCCESS" if status < 400 else
                                                 ("CLIENT_ERROR" if status < 500 else "SERVER_ERROR"))
        return {"client.name": host, "method": method, "uri": path, "status": "CLIENT_ERROR" if status == 0
                else str(status), "outcome": outcome, "exception": exc or "none",
                "http.url": "http://%s%s" % (host, path)}
    a = {"http.request.method": method, "server.address": host, "server.port": 8080 if "." not in host or
         host.endswith(".local") else 443, "url.full": ("http://%s:8080%s" if host.endswith(".local") else
                                                       "https://%s%s") % (host, path)}
    if status:
        a["http.response.status_code"] = status
    if resend:
        a["http.request.resend_count"] = resend
    if status == 0 or status >= 500:
        a["error.type"] = exc or str(status)
    return a


def fqdn(svc):
    return "%s.%s.svc.cluster.local" % (svc, SERVICES[svc][1])


def sidecar_attrs(w, svc, ver, direction, method, url, status, flags="-", upstream=None, dur_ns=0):
    ns = SERVICES[svc][1]
    a = {"component": "proxy", "node_id": "sidecar~10.%d.%d.%d~%s.%s~%s.svc.cluster.local" % (
        sum(map(ord, svc)) % 200 + 20, 3, 17, w.pod(svc, ver), ns, ns),
        "zone": "eu-west-1b", "guid:x-request-id": "%s-%s-4%s-a%s-%s" % (
            hexid(w.rng, 8), hexid(w.rng, 4), hexid(w.rng, 3), hexid(w.rng, 3), hexid(w.rng, 12)),
        "http.url": url, "http.method": method, "downstream_cluster": "-", "user_agent": "-",
        "http.protocol": "HTTP/1.1", "http.status_code": str(status), "response_flags": flags,
        "istio.canonical_service": svc, "istio.canonical_revision": ver if SERVICES[svc][2] else "latest",
        "istio.namespace": ns, "istio.mesh_id": "fernhill-prod"}
    if direction == "inbound":
        a["upstream_cluster"] = "inbound|8080||"
        a["upstream_cluster.name"] = "inbound|8080||"
    else:
        a["upstream_cluster"] = "outbound|%s||%s" % ("443" if upstream and "." in upstream and not
                                                     upstream.endswith(".local") else "8080", upstream)
        a["upstream_cluster.name"] = a["upstream_cluster"]
    if status >= 500 or status == 0:
        a["error"] = "true"
    return a


# ---------------------------------------------------------------- the request engine

def serve(tr, svc, opname, t, parent_sid, ctx):
    """Runs svc's operation at t under parent_sid; returns (duration ns, status, error text)."""
    w = tr.w
    op = w.ops[svc][opname]
    rt = SERVICES[svc][0]
    ver = w.version(svc, t)
    rng = w.rng
    eff = w.fault(w, svc, opname, t, ver, "server", ctx) or {}
    side_sid, app_sid = tr.sid(), tr.sid()
    start = t + int(rng.uniform(0.2, 0.6) * MS)
    cur = start + int(lognormal(rng, op.get("pre_ms", 2)) * MS)
    failed = None
    for ch in ([] if eff.get("skip_calls") else op.get("calls", [])):
        if failed:
            break
        if ch[0] == "maybe":
            if rng.random() >= ch[1]:
                continue
            ch = ch[2]
        d, fail = child(tr, svc, ver, rt, ch, cur, app_sid, ctx)
        cur += d + int(rng.uniform(0.1, 0.8) * MS)
        if fail:
            failed = fail
    own = lognormal(rng, op["ms"], op.get("sigma", 0.35)) * eff.get("slow", 1.0) + eff.get("add_ms", 0)
    end = cur + int(own * MS)
    status, exc, msg = op.get("ok", 200), None, None
    if failed:
        status, exc, msg = failed
    elif eff.get("fail"):
        status, exc, msg = eff["fail"]
    if op.get("grpc"):
        gstatus = {200: 0, 500: 13, 502: 14, 503: 14, 504: 4}.get(status, 13 if status >= 500 else 0)
    err = None
    events = None
    if status >= 500:
        err = msg
        events = exc_event(end - MS, exc, msg, op.get("frames", ["%s.Handler.handle(Handler.kt:88)" % svc]))
        tr.error = True
    attrs = server_attrs(rt, op, gstatus if op.get("grpc") else status, exc)
    attrs.update(eff.get("attrs", {}))
    if op.get("grpc"):
        err = msg if gstatus else None
    dur = end - start
    tr.span(app_sid, svc, ver, server_name(rt, op), 2, start, dur, side_sid, attrs, err=err, events=events)
    if status >= 500 and eff.get("log", True):
        tr.log(svc, ver, end - MS, "ERROR", eff.get("logbody") or "%s: %s" % (exc, msg), app_sid,
               {"exception.type": exc, "exception.message": msg, "thread.name": "http-nio-8080-exec-%d" %
                rng.randint(1, 40) if rt == "kotlin" else "io-compute-%d" % rng.randint(0, 7)})
    for extra in eff.get("logs", []):
        tr.log(svc, ver, end - MS, extra[0], extra[1], app_sid, extra[2] if len(extra) > 2 else None)
    # the Istio sidecar's inbound span wraps the app's
    side_start = t
    side_dur = dur + int(rng.uniform(0.6, 1.4) * MS)
    sstatus = status if not op.get("grpc") else 200
    flags = eff.get("flags", "-")
    tr.span(side_sid, svc, ver, "%s:8080/*" % fqdn(svc), 2, side_start, side_dur, parent_sid,
            sidecar_attrs(w, svc, ver, "inbound", op["method"], "http://%s:8080%s" % (fqdn(svc), op.get(
                "path", op["route"])), sstatus, flags), err=("response code %d" % sstatus) if sstatus >= 500
            else None, sidecar=True)
    return side_dur, status, (exc, msg)


def child(tr, svc, ver, rt, ch, t, parent, ctx):
    """One child of a server span; returns (duration ns, failure (status, exc, msg) or None)."""
    w, rng = tr.w, tr.w.rng
    kind = ch[0]
    if kind == "db":
        _, table, stmt, med = ch
        eff = w.fault(w, svc, table, t, ver, "db", ctx) or {}
        if eff.get("pool_timeout_ms"):
            d = eff["pool_timeout_ms"] * MS + int(rng.uniform(0, 2) * MS)
            msg = "HikariPool-1 - Connection is not available, request timed out after %dms." % eff["pool_timeout_ms"]
            sid = tr.sid()
            tr.span(sid, svc, ver, "connection", 3, t, d, parent, {"jdbc.datasource.name": "dataSource",
                    "jdbc.datasource.driver": "org.postgresql.Driver"}, err=msg,
                    events=exc_event(t + d, "java.sql.SQLTransientConnectionException", msg,
                                     ["com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:686)",
                                      "com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:179)"]))
            tr.log(svc, ver, t + d, "WARN", "HikariPool-1 - Connection is not available, request timed out after "
                   "%dms (total=%d, active=%d, idle=0, waiting=%d)" % (eff["pool_timeout_ms"], 20, 20,
                                                                      rng.randint(14, 60)), sid)
            return d, (503, "org.springframework.transaction.CannotCreateTransactionException",
                       "Could not open JPA EntityManager for transaction")
        wait = eff.get("wait_ms", lognormal(rng, 0.3, 0.5))
        q = lognormal(rng, med) * eff.get("slow", 1.0) + eff.get("add_ms", 0)
        if rt == "kotlin":
            cs = tr.sid()
            tr.span(cs, svc, ver, "connection", 3, t, int((wait + q + 0.5) * MS), parent,
                    {"jdbc.datasource.name": "dataSource", "jdbc.datasource.driver": "org.postgresql.Driver"})
            tr.span(tr.sid(), svc, ver, "query", 3, t + int((wait + 0.2) * MS), int(q * MS), cs,
                    {"jdbc.query[0]": stmt, "jdbc.datasource.name": "dataSource", "jdbc.row-count":
                     str(rng.randint(0, 40))})
        else:
            tr.span(tr.sid(), svc, ver, stmt.split()[0].upper() + " " + table, 3, t + int(wait * MS), int(q * MS),
                    parent, {"db.system.name": "postgresql", "db.namespace": SERVICES[svc][1],
                             "db.collection.name": table, "db.operation.name": stmt.split()[0].upper(),
                             "db.query.text": stmt, "server.address": "pg-%s.db.fernhill.internal" % SERVICES[svc][1],
                             "server.port": 5432})
        return int((wait + q + 0.5) * MS), None
    if kind == "redis":
        _, cmd, key, med = ch
        d = lognormal(rng, med) * MS
        tr.span(tr.sid(), svc, ver, cmd, 3, t, d, parent, {"db.system.name": "redis", "db.operation.name": cmd,
                "db.query.text": "%s %s" % (cmd, key), "server.address": "redis-%s.cache.fernhill.internal"
                % SERVICES[svc][1], "server.port": 6379})
        return int(d), None
    if kind == "os":
        _, index, med = ch
        eff = w.fault(w, svc, index, t, ver, "os", ctx) or {}
        d = (lognormal(rng, med, 0.4) * eff.get("slow", 1.0) + eff.get("add_ms", 0)) * MS
        timeout = eff.get("timeout_ms")
        err = None
        a = {"db.system.name": "opensearch", "db.operation.name": "search", "db.collection.name": index,
             "server.address": "merchants-os.search.svc.cluster.local", "server.port": 9200,
             "http.request.method": "POST", "url.full": "http://merchants-os.search.svc.cluster.local:9200/%s/_search"
             % index}
        if timeout and d > timeout * MS:
            d = timeout * MS
            err = "deadline exceeded after %dms" % timeout
            a["error.type"] = "timeout"
        else:
            a["http.response.status_code"] = 200
        tr.span(tr.sid(), svc, ver, "search %s" % index, 3, t, d, parent, a, err=err)
        if err:
            return int(d), (504, "HTTPClientError.deadlineExceeded", "search %s: %s" % (index, err))
        return int(d), None
    if kind == "call":
        return call(tr, svc, ver, rt, ch, t, parent, ctx)
    if kind == "ext":
        return ext(tr, svc, ver, rt, ch, t, parent, ctx)
    if kind == "kafka":
        _, topic, consumer, cop = ch
        ps = tr.sid()
        d = lognormal(rng, 1.2) * MS
        tr.span(ps, svc, ver, "%s send" % topic, 4, t, d, parent, {
            "spring.kafka.template.name": "kafkaTemplate", "messaging.system": "kafka",
            "messaging.destination.name": topic, "messaging.operation": "publish",
            "messaging.kafka.message.key": hexid(rng, 8)})
        delay = int(lognormal(rng, 40, 0.6) * MS)
        consume(tr, consumer, cop, topic, t + d + delay, ps, ctx)
        return int(d), None
    if kind == "llm":
        return llm(tr, svc, ver, ch, t, parent, ctx)
    raise ValueError(kind)


def consume(tr, svc, opname, topic, t, producer_sid, ctx):
    w, rng = tr.w, tr.w.rng
    ver = w.version(svc, t)
    op = w.ops[svc][opname]
    sid = tr.sid()
    cur = t + int(rng.uniform(0.3, 1.0) * MS)
    failed = None
    for ch in op.get("calls", []):
        d, fail = child(tr, svc, ver, "kotlin", ch, cur, sid, ctx)
        cur += d
        if fail:
            failed = fail
            break
    end = cur + int(lognormal(rng, op["ms"]) * MS)
    a = {"spring.kafka.listener.id": "%s-listener-0" % svc, "messaging.system": "kafka",
         "messaging.destination.name": topic, "messaging.operation": "receive",
         "messaging.kafka.consumer.group": svc, "messaging.kafka.source.partition": str(rng.randint(0, 11)),
         "messaging.kafka.message.offset": str(rng.randint(4_000_000, 9_000_000))}
    err, events = None, None
    if failed:
        err = failed[2]
        events = exc_event(end, "org.springframework.kafka.listener.ListenerExecutionFailedException",
                           "Listener method threw exception: " + failed[2],
                           ["org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer"
                            ".invokeRecordListener(KafkaMessageListenerContainer.java:2871)"])
        tr.log(svc, ver, end, "ERROR", "Error handler threw an exception: %s: %s" % (failed[1], failed[2]), sid,
               {"thread.name": "%s-listener-0-C-1" % svc, "exception.type": failed[1]})
        tr.error = True
    tr.span(sid, svc, ver, "%s receive" % topic, 5, t, end - t, producer_sid, a, err=err, events=events)


def call(tr, svc, ver, rt, ch, t, parent, ctx):
    """A call to another service of the mesh, through both sidecars; retries per the fault hook."""
    w, rng = tr.w, tr.w.rng
    _, callee, cop = ch[:3]
    cop_spec = w.ops[callee][cop]
    style = ch[3] if len(ch) > 3 else ("micrometer" if rt == "kotlin" else "semconv")
    pol = w.fault(w, svc, callee, t, ver, "call", ctx) or {}
    attempts, timeout = pol.get("attempts", 1), pol.get("timeout_ms")
    cur = t
    path = cop_spec.get("path", cop_spec["route"])
    for i in range(attempts):
        cs, os_ = tr.sid(), tr.sid()
        start = cur
        d, status, (exc, msg) = serve(tr, callee, cop, start + int(0.5 * MS), os_, ctx)
        timed_out = timeout is not None and d + MS > timeout * MS
        total = (timeout * MS) if timed_out else d + int(rng.uniform(0.8, 1.6) * MS)
        if cop_spec.get("grpc"):
            gs = {200: 0, 500: 13, 503: 14, 504: 4}.get(status, 13 if status >= 500 else 0)
            a = {"rpc.system": "grpc", "rpc.service": cop_spec["grpc"][0], "rpc.method": cop_spec["grpc"][1],
                 "rpc.grpc.status_code": gs, "server.address": fqdn(callee), "server.port": 8080}
            cname, cerr = "%s/%s" % cop_spec["grpc"], (msg if gs else None)
        elif timed_out:
            a = client_attrs(style, cop_spec["method"], fqdn(callee), path, 0, pol.get("timeout_exc"), i)
            cname = "http %s" % cop_spec["method"].lower() if style == "micrometer" else cop_spec["method"]
            cerr = pol.get("timeout_msg", "Read timed out")
        else:
            a = client_attrs(style, cop_spec["method"], fqdn(callee), path, status, exc if status >= 500 else
                             None, i)
            cname = "http %s" % cop_spec["method"].lower() if style == "micrometer" else cop_spec["method"]
            cerr = ("%d %s" % (status, msg)) if status >= 500 else None
        tr.span(cs, svc, ver, cname, 3, start, total, parent, a, err=cerr)
        # the caller's sidecar, outbound
        sflag = "UT" if timed_out else ("-" if status < 500 else "URX" if status == 503 else "-")
        tr.span(os_, svc, ver, "%s:8080/*" % fqdn(callee), 3, start + int(0.2 * MS), total - int(0.3 * MS), cs,
                sidecar_attrs(w, svc, ver, "outbound", cop_spec["method"], "http://%s:8080%s" % (fqdn(callee), path),
                              0 if timed_out else status, sflag, fqdn(callee)),
                err=("upstream request timeout" if timed_out else ("response code %d" % status) if status >= 500
                     else None), sidecar=True)
        cur = start + total + int(pol.get("backoff_ms", 0) * MS)
        if not timed_out and status < 500:
            return cur - t, None
        if timed_out:
            tr.error = True
    if timed_out:
        return cur - t, pol.get("exhausted", (504, "java.net.SocketTimeoutException", "Read timed out"))
    return cur - t, (502 if status != 503 else 503, pol.get("propagate_exc", "UpstreamException"),
                     "%s answered %d: %s" % (callee, status, msg))


def ext(tr, svc, ver, rt, ch, t, parent, ctx):
    """A call outside the mesh (a ServiceEntry) through the egress sidecar."""
    w, rng = tr.w, tr.w.rng
    _, host, method, path, med = ch
    eff = w.fault(w, svc, host, t, ver, "ext", ctx) or {}
    d = lognormal(rng, med, 0.3) * eff.get("slow", 1.0) * MS
    status, flags, msg = 200, "-", None
    if eff.get("fail"):
        status, flags, msg = eff["fail"]
        d = eff.get("fail_ms", lognormal(rng, 30)) * MS
    style = "micrometer" if rt == "kotlin" else "semconv"
    cs, os_ = tr.sid(), tr.sid()
    exc = eff.get("exc") if status >= 500 else None
    a = client_attrs(style, method, host, path, status, exc)
    cname = "http %s" % method.lower() if style == "micrometer" else method
    tr.span(cs, svc, ver, cname, 3, t, d + 1.2 * MS, parent, a, err=("%d %s" % (status, msg)) if status >= 500 else None,
            events=exc_event(t + d, exc, msg, ["org.springframework.web.client.DefaultRestClient"
                                              ".readWithMessageConverters(DefaultRestClient.java:224)"])
            if status >= 500 else None)
    tr.span(os_, svc, ver, "%s:443/*" % host, 3, t + int(0.3 * MS), d, cs,
            sidecar_attrs(w, svc, ver, "outbound", method, "https://%s%s" % (host, path), status, flags, host),
            err=("response code %d" % status) if status >= 500 else None, sidecar=True)
    if status >= 500:
        return int(d + 1.2 * MS), (502, eff.get("propagate_exc", "UpstreamException"), "%s: %s" % (host, msg))
    return int(d + 1.2 * MS), None


def llm(tr, svc, ver, ch, t, parent, ctx):
    w, rng = tr.w, tr.w.rng
    _, model = ch[:2]
    eff = w.fault(w, svc, model, t, ver, "llm", ctx) or {}
    out_tokens = int(lognormal(rng, eff.get("out_tokens", 310), 0.25))
    in_tokens = int(lognormal(rng, eff.get("in_tokens", 2400), 0.15))
    d = (350 + out_tokens * 4.6 * math.exp(rng.gauss(0, 0.15))) * MS
    a = {"gen_ai.system": "openai", "gen_ai.operation.name": "chat", "gen_ai.request.model": model,
         "gen_ai.response.model": model + "-2024-08-06", "gen_ai.request.temperature": 0.2,
         "gen_ai.request.max_tokens": 1200, "gen_ai.usage.input_tokens": in_tokens,
         "gen_ai.usage.output_tokens": out_tokens, "gen_ai.response.finish_reasons": ["stop"],
         "gen_ai.response.id": "chatcmpl-" + hexid(rng, 24), "server.address": "fernhill-oai.openai.azure.com",
         "server.port": 443}
    a.update(eff.get("attrs", {}))
    tr.span(tr.sid(), svc, ver, "chat %s" % model, 3, t, d, parent, a)
    ctx["llm_eff"] = eff
    return int(d), None


# ---------------------------------------------------------------- traffic

def run(w):
    rng = w.rng
    for svc, opname, rate in w.spec["entries"]:
        t = w.start
        while True:
            r = rate(t) if callable(rate) else rate
            t += int(rng.expovariate(r / 60.0) * S)
            if t >= w.now - 2 * S:
                break
            tr = Trace(w, t)
            ctx = {"entry": opname}
            serve(tr, svc, opname, t, "", ctx)
            if tr.kept:
                w.spans.extend(tr.spans)
    for extra in w.spec.get("extra", []):
        extra(w)
    # deployment markers (spans), one per rollout, and any listed in the spec
    for svc, rel in w.rollouts.items():
        prev = None
        for v, begin, _ in rel:
            if begin is not None and at(begin) >= w.start:
                marker(w, svc, v, prev, at(begin), "argo-rollouts:%s:%s" % (svc, v))
            prev = v
    for m in w.spec.get("markers", []):
        marker(w, *m)


def marker(w, svc, ver, prev, t, dep_id, env="production"):
    tr = Trace(w, t)
    a = {"deployment.version": ver, "deployment.id": dep_id, "deployment.environment.name": env}
    if prev:
        a["deployment.previous_version"] = prev
    r = w.resource(svc, ver, env=env)
    s = {"timestamp": ts(t), "trace_id": tr.id, "span_id": tr.sid(), "parent_span_id": "",
         "name": "deployment.marker", "kind": 1, "duration_nano": 0, "has_error": False, "status_code": 0,
         "status_message": "", "resource": r, "attributes": a}
    w.spans.append((t, s))


def minute_logs(w, svc, every_s, fn):
    """Trace-less periodic log lines (GC, pool stats, consumer lag): fn(t, ver) -> (sev, body, attrs) or None."""
    t = w.start + w.rng.randint(0, every_s) * S
    while t < w.now:
        ver = w.version(svc, t)
        r = fn(t, ver)
        if r:
            w.logs.append((t, {"timestamp": ts(t), "severity_text": r[0], "severity_number":
                               {"INFO": 9, "WARN": 13, "ERROR": 17}[r[0]], "body": r[1], "trace_id": "",
                               "span_id": "", "resource": w.resource(svc, ver), "attributes": r[2]}))
        t += every_s * S


def ramp(t, a, b):
    """0 before a, 1 after b, linear between (ns)."""
    if t <= a:
        return 0.0
    if t >= b:
        return 1.0
    return (t - a) / (b - a)


# ---------------------------------------------------------------- the incidents

def op(method, route, ms, calls=(), path=None, grpc=None, frames=None, sigma=0.35):
    o = {"method": method, "route": route, "ms": ms, "calls": list(calls), "sigma": sigma}
    if path:
        o["path"] = path
    if grpc:
        o["grpc"] = grpc
    if frames:
        o["frames"] = frames
    return o


ROLLING = [(1.5, None)]
KT = "com.fernhill"


def inc_sepa():
    rel = "2026-12-03T10:07:12.480"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "transfers-api" and name == "sepa" and ver == "2.41.0" \
                and w.rng.random() < 0.48:
            return {"skip_calls": True, "fail": (500, "kotlin.UninitializedPropertyAccessException",
                                                 "lateinit property bicDirectory has not been initialized")}
        return None
    return {
        "id": "fh5-sepa-lateinit-transfers-api",
        "title": "transfers-api 2.41.0 fails 48% of SEPA transfers: a lateinit BIC directory the new "
                 "startup order never initialises (one endpoint of four; canary 25% then all)",
        "service": "transfers-api", "start": "2026-12-03T09:11:00.000", "now": "2026-12-03T10:26:40.000",
        "one_in": 5,
        "ledger": {"transfers-api": [("2.40.3", "2026-11-27T09:41:18.220"), ("2.41.0", rel)],
                   "ledger-core": [("2026.11.2", "2026-11-20T12:03:51.000")],
                   "notifications": [("3.3.0", "2026-11-25T08:12:40.511")]},
        "steps": {"transfers-api": [(4, 0.25), (1.5, None)]},
        "ops": {
            "transfers-api": {
                "sepa": op("POST", "/api/v1/transfers/sepa", 14, [
                    ("db", "accounts", "select a.id, a.iban, a.status from accounts a where a.id=?", 1.8),
                    ("call", "ledger-core", "post"),
                    ("db", "transfers", "insert into transfers (id, kind, amount, currency, debtor_iban, "
                                        "creditor_iban, status) values (?, ?, ?, ?, ?, ?, ?)", 2.4),
                    ("kafka", "transfers.initiated", "notifications", "initiated")],
                    frames=[KT + ".transfers.sepa.SepaTransferService.validateCreditor(SepaTransferService.kt:77)",
                            KT + ".transfers.sepa.SepaTransferService.create(SepaTransferService.kt:41)",
                            KT + ".transfers.api.TransferController.sepa(TransferController.kt:58)"]),
                "internal": op("POST", "/api/v1/transfers/internal", 10, [
                    ("db", "accounts", "select a.id, a.iban, a.status from accounts a where a.id=?", 1.8),
                    ("call", "ledger-core", "post"),
                    ("db", "transfers", "insert into transfers (id, kind, amount, currency, debtor_iban, "
                                        "creditor_iban, status) values (?, ?, ?, ?, ?, ?, ?)", 2.4),
                    ("kafka", "transfers.initiated", "notifications", "initiated")]),
                "get": op("GET", "/api/v1/transfers/{transferId}", 3, [
                    ("db", "transfers", "select t.* from transfers t where t.id=? and t.owner_id=?", 1.2)],
                    path="/api/v1/transfers/tr_8c1f0e"),
                "list": op("GET", "/api/v1/transfers", 7, [
                    ("db", "transfers", "select t.* from transfers t where t.owner_id=? order by t.created_at "
                                        "desc limit ?", 4.5)]),
            },
            "ledger-core": {"post": op("POST", "/v1/postings", 5, [
                ("db", "postings", "INSERT INTO postings (id, account_id, amount, side) VALUES ($1, $2, $3, $4)",
                 1.6)])},
            "notifications": {"initiated": {"ms": 2, "calls": [("redis", "GET", "prefs:{customerId}", 0.4)]}},
        },
        "entries": [("transfers-api", "sepa", 14), ("transfers-api", "internal", 22),
                    ("transfers-api", "get", 40), ("transfers-api", "list", 16)],
        "fault": fault,
        "alert": {"name": "TransfersApiSepaErrorBudget", "starts": "2026-12-03T10:16:00.000", "burn": ("label",
                  "burn_rate", "14.4"), "receiver": "signoz-payments-oncall", "team": "payments"},
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["kotlin", "spring-boot", "micrometer", "istio", "kafka", "argo-rollouts-canary"],
        "story": "2.41.0 moved the BIC directory's loading behind a feature-flag listener; SEPA transfers to a "
                 "creditor outside the instant fast path (48%) read the lateinit property before it is set. "
                 "The canary takes 25% for 4 minutes, then the rest in 90 s.",
        "onset": "10:07:1x, seconds after the canary's first pods serve",
    }


def inc_fx():
    rel = "2026-12-03T13:41:37.214"
    bad = {"HUF", "RON", "ISK", "BGN"}
    quotes = ["USD", "GBP", "CHF", "PLN", "SEK", "NOK", "DKK", "CZK", "JPY", "HUF", "RON", "ISK", "BGN",
              "CAD", "AUD", "USD", "GBP", "USD", "CHF"]

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "fx-quote" and name in ("quotes", "lock"):
            ccy = w.rng.choice(quotes)
            ctx["ccy"] = ccy
            if ver.endswith("cfg.38") and ccy in bad:
                msg = "EUR/%s is not in fx.quote.allowed-currencies (28 entries)" % ccy
                return {"skip_calls": True, "fail": (500, "com.fernhill.fx.UnsupportedCurrencyPairException", msg),
                        "attrs": {"fx.pair": "EUR/" + ccy}}
            return {"attrs": {"fx.pair": "EUR/" + ccy}}
        return None
    return {
        "id": "fh5-cfg-currency-allowlist-fx-quote",
        "title": "fx-quote's config build cfg.38 ships an allow-list of 28 currencies without HUF, RON, ISK "
                 "and BGN: a fifth of quotes and locks answer 500",
        "service": "fx-quote", "start": "2026-12-03T12:30:00.000", "now": "2026-12-03T13:58:30.000",
        "one_in": 20,
        "ledger": {"fx-quote": [("5.2.4+cfg.37", "2026-11-24T15:10:02.118"), ("5.2.4+cfg.38", rel)]},
        "steps": {"fx-quote": [(1.0, None)]},
        "ops": {"fx-quote": {
            "quotes": op("GET", "/v2/quotes", 2.5, [("redis", "GET", "rates:EUR:{ccy}", 0.5)],
                         path="/v2/quotes", frames=[
                             "com.fernhill.fx.config.AllowList.require(AllowList.scala:31)",
                             "com.fernhill.fx.http.QuoteRoutes.$anonfun$routes$2(QuoteRoutes.scala:54)"]),
            "lock": op("POST", "/v2/quotes/{quoteId}/lock", 4, [
                ("redis", "GET", "rates:EUR:{ccy}", 0.5),
                ("db", "quote_locks", "INSERT INTO quote_locks (quote_id, pair, rate, expires_at) VALUES "
                                      "($1, $2, $3, $4)", 1.9)], path="/v2/quotes/q_51d0/lock"),
            "currencies": op("GET", "/v2/currencies", 1.0),
        }},
        "entries": [("fx-quote", "quotes", 220), ("fx-quote", "lock", 40), ("fx-quote", "currencies", 15)],
        "fault": fault,
        "alert": {"name": "FxQuote5xxRatio", "starts": "2026-12-03T13:49:00.000", "burn": ("annotation",
                  "slo_burn_rate", "9.7"), "receiver": "signoz-markets", "team": "markets"},
        "expect": {"root_cause": "config_regression", "verdict": "allow"},
        "tags": ["scala", "http4s", "otel4s", "istio", "config-build"],
        "story": "The config build 5.2.4+cfg.38 (same code, new application.conf) replaces the currency "
                 "allow-list with the treasury's new 28-entry list, which forgot four currencies. Every quote "
                 "or lock for EUR/HUF, EUR/RON, EUR/ISK, EUR/BGN (about 21%) answers 500.",
        "onset": "13:41:4x, as the first cfg.38 pods serve",
    }


def inc_prompt():
    rel = "2026-12-03T14:12:50.631"

    def fault(w, svc, name, t, ver, what, ctx):
        new = ver == "1.14.0"
        if what == "llm":
            return {"out_tokens": 880 if new else 310,
                    "attrs": {"gen_ai.prompt.template.name": "dispute-draft",
                              "gen_ai.prompt.template.version": "v38" if new else "v37"}}
        if what == "server" and svc == "dispute-assistant" and name == "draft":
            bad = w.rng.random() < (0.61 if new else 0.02)
            a = {"dispute.draft.schema_valid": not bad, "dispute.draft.reason_code_present": not bad,
                 "dispute.draft.outcome": "routed_to_agent" if bad else "drafted"}
            e = {"attrs": a}
            if bad:
                e["logs"] = [("WARN", "Draft for dispute failed schema validation: missing field 'reasonCode', "
                                      "'chargebackDeadline'; routed to agent queue disputes-manual",
                              {"dispute.draft.prompt_version": "v38" if new else "v37"})]
            return e
        return None
    return {
        "id": "fh5-prompt-v38-dispute-assistant",
        "title": "dispute-assistant 1.14.0 ships prompt v38: 61% of drafts fail the schema and go to an agent, "
                 "output tokens 310 to 880, every answer HTTP 200",
        "service": "dispute-assistant", "start": "2026-12-03T13:00:00.000", "now": "2026-12-03T14:40:00.000",
        "one_in": 5,
        "ledger": {"dispute-assistant": [("1.13.2", "2026-11-26T10:30:44.870"), ("1.14.0", rel)],
                   "policy-search": [("0.9.12", "2026-11-12T09:00:00.000")]},
        "steps": {"dispute-assistant": [(2.0, None)]},
        "ops": {
            "dispute-assistant": {
                "draft": op("POST", "/api/v1/disputes/{disputeId}/draft", 20, [
                    ("db", "disputes", "select d.* from disputes d where d.id=?", 1.5),
                    ("call", "policy-search", "search"),
                    ("llm", "gpt-4o"),
                    ("db", "dispute_drafts", "insert into dispute_drafts (dispute_id, body, prompt_version, "
                                             "valid) values (?, ?, ?, ?)", 2.0)],
                    path="/api/v1/disputes/dsp_20931/draft"),
                "view": op("GET", "/api/v1/disputes/{disputeId}", 4, [
                    ("db", "disputes", "select d.* from disputes d where d.id=?", 1.5)],
                    path="/api/v1/disputes/dsp_20931"),
            },
            "policy-search": {"search": op("GET", "/v1/search", 30, [
                ("db", "policy_chunks", "SELECT id, body FROM policy_chunks ORDER BY embedding <=> $1 LIMIT 8",
                 18)])},
        },
        "entries": [("dispute-assistant", "draft", 18), ("dispute-assistant", "view", 40)],
        "fault": fault,
        "alert": {"name": "DisputeDraftSchemaInvalidRatio", "starts": "2026-12-03T14:27:00.000",
                  "burn": ("label", "burn_rate", "6.2"), "receiver": "signoz-servicing-ai", "team": "servicing"},
        "expect": {"root_cause": "prompt_regression", "verdict": "allow"},
        "tags": ["kotlin", "spring-ai", "micrometer", "istio", "gen_ai", "http-200"],
        "story": "1.14.0 replaces the draft prompt (template v37 to v38: 'write for the customer first'); the "
                 "model writes long letters and drops the structured fields. 61% of drafts fail schema "
                 "validation (attribute dispute.draft.schema_valid=false) and go to agents; HTTP stays 200.",
        "onset": "14:12:5x, as the first 1.14.0 pods serve (rolling 2 min)",
    }


def inc_retry():
    rel = "2026-12-03T19:02:41.903"
    relns = at(rel)

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "call" and svc == "card-auth" and name == "risk-scoring":
            if ver == "7.2.0":
                return {"attempts": 4, "timeout_ms": 150, "timeout_exc": "io.ktor.client.plugins."
                        "HttpRequestTimeoutException", "timeout_msg": "Request timeout has expired [url=http://"
                        "risk-scoring.risk.svc.cluster.local:8080/v3/score, request_timeout=150 ms]",
                        "exhausted": (504, "io.ktor.client.plugins.HttpRequestTimeoutException",
                                      "risk score unavailable after 4 attempts (request_timeout=150 ms)")}
            return {"attempts": 1, "timeout_ms": 800, "timeout_exc": "io.ktor.client.plugins."
                    "HttpRequestTimeoutException", "timeout_msg": "Request timeout has expired [url=http://"
                    "risk-scoring.risk.svc.cluster.local:8080/v3/score, request_timeout=800 ms]",
                    "exhausted": (504, "io.ktor.client.plugins.HttpRequestTimeoutException",
                                  "risk score unavailable (request_timeout=800 ms)")}
        if what == "server" and svc == "risk-scoring":
            share = ramp(t, relns + 2500 * MS, relns + 92 * S)
            return {"slow": 1.0 + 1.25 * share}
        return None
    return {
        "id": "fh5-ktor-retry-storm-card-auth",
        "title": "card-auth 7.2.0 cuts its risk-scoring timeout to 150 ms and retries 4 times without backoff: "
                 "risk-scoring's load and latency double, a third of authorisations time out",
        "service": "card-auth", "start": "2026-12-03T17:25:00.000", "now": "2026-12-03T19:21:00.000",
        "one_in": 40,
        "ledger": {"card-auth": [("7.1.4", "2026-11-19T08:55:31.004"), ("7.2.0", rel)],
                   "risk-scoring": [("2026.47.1", "2026-11-21T11:40:00.000")]},
        "steps": {"card-auth": [(1.5, None)]},
        "ops": {
            "card-auth": {
                "authorize": op("POST", "/v1/authorizations", 6, [
                    ("db", "cards", "select c.* from cards c where c.pan_token=?", 1.2),
                    ("call", "risk-scoring", "score", "semconv"),
                    ("db", "authorizations", "insert into authorizations (id, card_id, amount, mcc, decision) "
                                             "values (?, ?, ?, ?, ?)", 1.8)]),
                "capture": op("POST", "/v1/authorizations/{authId}/capture", 5, [
                    ("db", "authorizations", "update authorizations set captured_at=? where id=?", 1.9)],
                    path="/v1/authorizations/au_77a1/capture"),
                "reverse": op("POST", "/v1/authorizations/{authId}/reverse", 5, [
                    ("db", "authorizations", "update authorizations set reversed_at=? where id=?", 1.9)],
                    path="/v1/authorizations/au_77a1/reverse"),
            },
            "risk-scoring": {"score": op("POST", "/v3/score", 90, [("redis", "HGETALL", "features:{cardId}", 0.7)],
                                         sigma=0.45)},
        },
        "entries": [("card-auth", "authorize", 420), ("card-auth", "capture", 90), ("card-auth", "reverse", 8)],
        "fault": fault,
        "alert": {"name": "CardAuthAuthorizeLatencyAndErrors", "starts": "2026-12-03T19:09:00.000",
                  "burn": ("annotation", "slo_burn_rate", "21.3"), "receiver": "signoz-cards-pager", "team": "cards"},
        "expect": {"root_cause": "retry_storm", "verdict": "allow"},
        "tags": ["kotlin", "ktor-client", "resend_count", "istio", "head-1-in-40"],
        "story": "7.2.0 moves the risk-scoring client to Ktor's HttpRequestRetry (4 attempts, no delay) with "
                 "HttpTimeout 150 ms (was one attempt at 800 ms). risk-scoring's p50 is about 90 ms and its "
                 "tail passes 150 ms; every retry adds load, its latency rises 2.25x, and a third of "
                 "authorisations exhaust their attempts (504). Each attempt is a client span with "
                 "http.request.resend_count.",
        "onset": "19:02:4x, the first 7.2.0 pods",
    }


def inc_pdf():
    rel = "2026-12-03T07:48:03.716"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "statements-svc" and name == "pdf" and ver == "1.18.0":
            return {"fail": (500, "java.lang.NoSuchMethodError", "'void org.apache.pdfbox.pdmodel.PDDocument."
                                                                 "<init>(org.apache.pdfbox.io.MemoryUsageSetting)'")}
        return None
    return {
        "id": "fh5-pdfbox-nosuchmethod-statements-svc",
        "title": "statements-svc 1.18.0 pulls pdfbox 3 through a transitive upgrade: every statement PDF "
                 "answers 500 (NoSuchMethodError), the other four routes are fine",
        "service": "statements-svc", "start": "2026-12-03T05:00:00.000", "now": "2026-12-03T08:06:00.000",
        "one_in": 5,
        "ledger": {"statements-svc": [("1.17.6", "2026-11-28T13:22:09.441"), ("1.18.0", rel)]},
        "steps": {"statements-svc": [(0.75, None)]},
        "ops": {"statements-svc": {
            "list": op("GET", "/v1/statements", 9, [("db", "statements", "SELECT id, period, status FROM "
                                                     "statements WHERE account_id = $1 ORDER BY period DESC", 3)]),
            "get": op("GET", "/v1/statements/{statementId}", 4, [("db", "statements", "SELECT * FROM statements "
                                                                  "WHERE id = $1", 1.3)],
                      path="/v1/statements/st_2026_11_4471"),
            "pdf": op("GET", "/v1/statements/{statementId}/pdf", 160, [
                ("db", "statement_lines", "SELECT * FROM statement_lines WHERE statement_id = $1", 6)],
                path="/v1/statements/st_2026_11_4471/pdf", frames=[
                    "com.fernhill.statements.pdf.PdfRenderer.render(PdfRenderer.scala:44)",
                    "com.fernhill.statements.http.StatementRoutes.$anonfun$pdf$1(StatementRoutes.scala:87)"]),
            "summary": op("GET", "/v1/statements/summary", 2, [("redis", "GET", "summary:{accountId}", 0.5)]),
            "export": op("POST", "/v1/statements/exports", 12, [("db", "exports", "INSERT INTO exports "
                                                                 "(id, account_id, format) VALUES ($1, $2, $3)", 2)]),
        }},
        "entries": [("statements-svc", "list", 30), ("statements-svc", "get", 20), ("statements-svc", "pdf", 8),
                    ("statements-svc", "summary", 10), ("statements-svc", "export", 2)],
        "fault": fault,
        "alert": {"name": "StatementsPdf5xx", "starts": "2026-12-03T07:56:00.000",
                  "burn": ("label", "burn_rate", "30.0"), "receiver": "signoz-servicing", "team": "servicing"},
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["scala", "http4s", "otel4s", "istio", "one-operation", "3h-history"],
        "story": "A dependency bump in 1.18.0 brings pdfbox 3.0 on the classpath next to code compiled "
                 "against 2.0; every GET /v1/statements/{id}/pdf (8 a minute of 70) throws NoSuchMethodError "
                 "after reading the lines. The four other routes are untouched.",
        "onset": "07:48:0x, the first 1.18.0 pod (rolling 45 s)",
    }


def inc_clearing():
    out = at("2026-12-03T10:14:20.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "ext" and name == "sepa-inst.clearing.example":
            p = 0.55 * ramp(t, out, out + 70 * S)
            if w.rng.random() < p:
                return {"fail": (503, "UC", "upstream connect error or disconnect/reset before headers. "
                                           "reset reason: connection termination"),
                        "fail_ms": lognormal(w.rng, 22), "exc": "org.springframework.web.client."
                        "HttpServerErrorException$ServiceUnavailable", "propagate_exc":
                        "com.fernhill.payments.clearing.ClearingUnavailableException"}
        return None
    return {
        "id": "fh5-trap-clearing-outage-payments-gateway",
        "title": "the SEPA Instant clearing house resets connections from 10:14; payments-gateway 3.9.2 "
                 "(receipt wording) rolls out at 10:18, four minutes into the outage",
        "service": "payments-gateway", "start": "2026-12-03T09:10:00.000", "now": "2026-12-03T10:25:30.000",
        "one_in": 10,
        "ledger": {"payments-gateway": [("3.9.1", "2026-11-30T16:04:12.300"), ("3.9.2", "2026-12-03T10:18:02.311")]},
        "steps": {"payments-gateway": [(1.0, None)]},
        "ops": {"payments-gateway": {
            "instant": op("POST", "/v1/payments/sepa-instant", 8, [
                ("db", "payments", "insert into payments (id, scheme, amount, status) values (?, ?, ?, ?)", 1.7),
                ("ext", "sepa-inst.clearing.example", "POST", "/rt1/v2/credit-transfers", 180),
                ("db", "payments", "update payments set status=?, clearing_ref=? where id=?", 1.5)]),
            "card": op("POST", "/v1/payments/card", 7, [
                ("db", "payments", "insert into payments (id, scheme, amount, status) values (?, ?, ?, ?)", 1.7),
                ("ext", "acquirer.cardnet.example", "POST", "/v1/auth", 120)]),
            "get": op("GET", "/v1/payments/{paymentId}", 3, [
                ("db", "payments", "select p.* from payments p where p.id=?", 1.1)], path="/v1/payments/pm_5a2f"),
        }},
        "entries": [("payments-gateway", "instant", 60), ("payments-gateway", "card", 70),
                    ("payments-gateway", "get", 90)],
        "fault": fault,
        "alert": {"name": "PaymentsGatewayErrorBudget", "starts": "2026-12-03T10:21:00.000",
                  "burn": ("label", "burn_rate", "11.8"), "receiver": "signoz-payments-oncall", "team": "payments"},
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["kotlin", "micrometer", "istio-egress", "trap", "outage-before-release"],
        "story": "The clearing house's RT1 endpoint starts resetting connections at 10:14:20 (55% of attempts "
                 "by 10:15:30; Istio's egress span: response_flags UC). payments-gateway 3.9.2, which only "
                 "rewords receipts, rolls out at 10:18:02. Both versions fail the same; the errors began 3.7 "
                 "minutes before the marker.",
        "onset": "10:14:2x, before the marker (10:18:02.311)",
    }


def inc_payday():
    surge = at("2026-12-03T07:00:00.000")
    rel = "2026-12-03T06:55:41.027"

    def load(t):
        return 1.0 + 3.5 * ramp(t, surge, surge + 210 * S)

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "db":
            L = load(t)
            if L > 3.2 and w.rng.random() < 0.05 * (L - 3.2):
                return {"pool_timeout_ms": 1000}
            return {"wait_ms": lognormal(w.rng, 0.3 + max(0.0, L - 2.2) * 45, 0.6), "slow": 1 + 0.35 * (L - 1)}
        if what == "server":
            return {"slow": 1 + 0.2 * (load(t) - 1)}
        return None
    return {
        "id": "fh5-trap-payday-surge-balance-api",
        "title": "salaries land at 07:00 and balance checks rise 4.5x; balance-api 5.8.0 rolled out at 06:55",
        "service": "balance-api", "start": "2026-12-03T05:25:00.000", "now": "2026-12-03T07:09:00.000",
        "one_in": 25,
        "ledger": {"balance-api": [("5.7.3", "2026-11-26T14:48:19.007"), ("5.8.0", rel)]},
        "steps": {"balance-api": ROLLING},
        "ops": {"balance-api": {
            "balance": op("GET", "/v1/accounts/{accountId}/balance", 3, [
                ("db", "balances", "select b.available, b.booked from balances b where b.account_id=?", 1.1)],
                path="/v1/accounts/ac_31f9/balance"),
            "txns": op("GET", "/v1/accounts/{accountId}/transactions", 6, [
                ("db", "transactions", "select t.* from transactions t where t.account_id=? order by "
                                       "t.booked_at desc limit ?", 7)], path="/v1/accounts/ac_31f9/transactions"),
            "accounts": op("GET", "/v1/accounts", 4, [
                ("db", "accounts", "select a.* from accounts a where a.customer_id=?", 1.6)]),
        }},
        "entries": [("balance-api", "balance", lambda t: 200 * load(t)),
                    ("balance-api", "txns", lambda t: 120 * load(t)),
                    ("balance-api", "accounts", lambda t: 60 * load(t))],
        "fault": fault,
        "extra": [lambda w: minute_logs(w, "balance-api", 30, lambda t, v: ("WARN", "HikariPool-1 - Pool stats "
                  "(total=20, active=20, idle=0, waiting=%d)" % int(8 * load(t)), {"logger.name":
                  "com.zaxxer.hikari.pool.HikariPool"}) if load(t) > 2.5 else None)],
        "alert": {"name": "BalanceApiLatencySLO", "starts": "2026-12-03T07:05:00.000",
                  "burn": ("annotation", "slo_burn_rate", "7.5"), "receiver": "signoz-core-banking", "team": "core"},
        "expect": {"root_cause": "traffic_surge", "verdict": "deny"},
        "tags": ["kotlin", "micrometer", "hikari", "istio", "trap", "surge-after-release", "head-1-in-25"],
        "story": "Payday: the salary batch posts at 07:00 and customers open the app; requests rise 4.5x over "
                 "3.5 minutes on all three routes, the Hikari pool (20) queues, every route slows and a few "
                 "percent time out on checkout (503). 5.8.0 (adds a field to the balance DTO) finished rolling "
                 "out at 06:57.",
        "onset": "07:00-07:01, 4.3 minutes after the marker",
    }


def inc_resync():
    sat = at("2026-12-03T14:11:00.000")

    def press(t):
        return ramp(t, sat, sat + 7 * MIN)

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "accounts-api":
            p = press(t)
            e = {"slow": 1 + 3.0 * p}
            if p > 0 and w.rng.random() < 0.6 * p:
                e["add_ms"] = w.rng.uniform(150, 1900) * p
            if p > 0.6 and w.rng.random() < 0.06 * p:
                e["fail"] = (500, "java.lang.OutOfMemoryError", "Java heap space")
                e["skip_calls"] = True
            return e
        return None

    def gc(t, v):
        p = press(t)
        if p <= 0:
            return ("INFO", "[gc] GC(%d) Pause Young (Normal) (G1 Evacuation Pause) 1411M->612M(4096M) 9.8ms"
                    % (t // S % 100000), {"log.iostream": "stdout"}) if (t // S) % 120 < 15 else None
        return ("WARN", "[gc] GC(%d) Pause Full (G1 Compaction Pause) %dM->%dM(4096M) %dms" % (
            t // S % 100000, 3700 + int(380 * p), 3600 + int(460 * p), int(300 + 1600 * p)), {"log.iostream": "stdout"})
    return {
        "id": "fh5-trap-aborted-canary-marker-accounts-api",
        "title": "an aborted 4.1.0 canary leaves a marker at 14:05 (the ledger never ran 4.1.0; 4.0.3 since "
                 "three days); a session cache without bound fills the heap from 14:11",
        "service": "accounts-api", "start": "2026-12-03T12:50:00.000", "now": "2026-12-03T14:24:00.000",
        "one_in": 10,
        "ledger": {"accounts-api": [("4.0.2", "2026-11-21T10:14:55.600"), ("4.0.3", "2026-11-30T09:12:44.120")]},
        "steps": {},
        "markers": [("accounts-api", "4.1.0", "4.0.3", at("2026-12-03T14:05:10.512"),
                     "argo-rollouts:accounts-api:4.1.0")],
        "ops": {"accounts-api": {
            "get": op("GET", "/v1/accounts/{accountId}", 4, [
                ("redis", "GET", "acct:{accountId}", 0.4),
                ("db", "accounts", "select a.* from accounts a where a.id=?", 1.4)], path="/v1/accounts/ac_31f9"),
            "profile": op("GET", "/v1/customers/{customerId}/profile", 6, [
                ("db", "customers", "select c.* from customers c where c.id=?", 1.8)],
                path="/v1/customers/cu_881d/profile"),
            "update": op("PATCH", "/v1/customers/{customerId}", 9, [
                ("db", "customers", "update customers set email=?, phone=? where id=?", 2.5)],
                path="/v1/customers/cu_881d"),
        }},
        "entries": [("accounts-api", "get", 150), ("accounts-api", "profile", 80), ("accounts-api", "update", 15)],
        "fault": fault,
        "extra": [lambda w: minute_logs(w, "accounts-api", 15, gc)],
        "alert": {"name": "AccountsApiLatencyP95", "starts": "2026-12-03T14:17:00.000",
                  "burn": ("label", "burn_rate", "8.9"), "receiver": "signoz-core-banking", "team": "core"},
        "expect": {"root_cause": "resource_saturation", "verdict": "deny"},
        "tags": ["kotlin", "micrometer", "jvm-gc", "trap", "marker-contradicted-by-ledger"],
        "story": "Argo Rollouts started a 4.1.0 canary at 14:05:10 and its notification hook emitted a "
                 "deployment marker; the canary's analysis failed before any pod took traffic and the rollout "
                 "was aborted, so the ledger still ends with 4.0.3 (30 Nov) and every span is 4.0.3's. From "
                 "14:11 a session cache without a size bound fills the heap: Full GC pauses of up to 1.9 s, "
                 "every route slows, a few requests die with OutOfMemoryError.",
        "onset": "14:11-14:12, 6 minutes after a marker whose version never served",
    }


def inc_staging():
    slow = at("2026-12-03T16:33:00.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "os":
            r = ramp(t, slow, slow + 3 * MIN)
            return {"slow": 1 + 45 * r * math.exp(w.rng.gauss(0, 0.5)), "timeout_ms": 2500}
        return None
    return {
        "id": "fh5-trap-staging-canary-marker-merchant-api",
        "title": "a staging canary's marker for merchant-api 3.2.0-rc.4 at 16:31; production's OpenSearch "
                 "merchant index slows from 16:33 (search p95 60 ms to 2.5 s)",
        "service": "merchant-api", "start": "2026-12-03T15:10:00.000", "now": "2026-12-03T16:42:00.000",
        "one_in": 15,
        "ledger": {"merchant-api": [("3.1.6", "2026-11-18T09:30:00.000"), ("3.1.7", "2026-11-28T10:02:11.400")]},
        "steps": {},
        "markers": [("merchant-api", "3.2.0-rc.4", "3.1.7", at("2026-12-03T16:31:12.055"),
                     "spinnaker:merchant-api:staging-canary-412", "staging")],
        "ops": {"merchant-api": {
            "search": op("GET", "/v1/merchants/search", 3, [
                ("redis", "GET", "merchant-search:{q}", 0.4), ("os", "merchants-v7", 22)]),
            "get": op("GET", "/v1/merchants/:merchantID", 2, [
                ("db", "merchants", "SELECT * FROM merchants WHERE id = $1", 1.2)], path="/v1/merchants/m_10442"),
            "categories": op("GET", "/v1/merchant-categories", 1, [("redis", "GET", "mcc:all", 0.3)]),
        }},
        "entries": [("merchant-api", "search", 200), ("merchant-api", "get", 150), ("merchant-api", "categories", 30)],
        "fault": fault,
        "alert": {"name": "MerchantSearchLatency", "starts": "2026-12-03T16:37:00.000",
                  "burn": ("annotation", "slo_burn_rate", "5.1"), "receiver": "signoz-cards", "team": "cards"},
        "expect": {"root_cause": "retrieval_latency", "verdict": "deny"},
        "tags": ["swift", "vapor", "swift-otel", "opensearch", "trap", "marker-other-environment"],
        "story": "Spinnaker's staging canary of 3.2.0-rc.4 emits a marker under service.name merchant-api "
                 "with deployment.environment.name=staging (same collector). Two minutes later production's "
                 "OpenSearch cluster starts a force-merge on the hot merchants-v7 shard: searches slow ~45x, "
                 "the slowest hit the client's 2.5 s deadline (504). Production runs 3.1.7 throughout.",
        "onset": "16:33-16:34, 2 minutes after another environment's marker",
    }


def inc_loans():
    rel = "2026-12-03T11:20:04.930"
    batch = at("2026-12-03T11:21:40.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "db" and svc == "loans-api":
            r = ramp(t, batch, batch + 150 * S)
            if r > 0.2 and w.rng.random() < 0.5 * r:
                return {"pool_timeout_ms": 3000}
            return {"wait_ms": lognormal(w.rng, 0.3 + 900 * r, 0.7), "slow": 1 + 20 * r}
        return None

    def batch_spans(w):
        t = batch
        while t < w.now - 40 * S:
            tr = Trace(w, t)
            root = tr.sid()
            d = int(w.rng.uniform(20, 45) * S)
            tr.span(tr.sid(), "loans-batch", "1.6.0", "query", 3, t + 5 * MS, d - 10 * MS, root,
                    {"jdbc.query[0]": "update loan_balances lb set accrued_interest = accrued_interest + "
                                      "(lb.principal * r.daily_rate) from rates r where lb.product_id = r.product_id "
                                      "and lb.shard = ?", "jdbc.datasource.name": "dataSource"})
            tr.span(root, "loans-batch", "1.6.0", "task accrue-interest", 1, t, d, "",
                    {"spring.batch.step.name": "accrueInterestStep", "spring.batch.job.name": "monthEndAccrual"})
            w.spans.extend(tr.spans)
            t += int(w.rng.uniform(25, 40) * S)
    return {
        "id": "fh5-trap-month-end-locks-hikari-loans-api",
        "title": "loans-api 6.4.0's canary takes 20% at 11:20; at 11:21:40 the month-end accrual batch "
                 "locks loan_balances and loans-api's Hikari pool runs dry on every version",
        "service": "loans-api", "start": "2026-12-03T09:25:00.000", "now": "2026-12-03T11:33:00.000",
        "one_in": 10,
        "ledger": {"loans-api": [("6.3.2", "2026-11-24T13:01:09.775"), ("6.4.0", rel)]},
        "steps": {"loans-api": [(5, 0.2), (5, 0.5), (1.0, None)]},
        "ops": {"loans-api": {
            "schedule": op("GET", "/v1/loans/{loanId}/schedule", 5, [
                ("db", "loan_balances", "select lb.* from loan_balances lb where lb.loan_id=?", 1.5)],
                path="/v1/loans/ln_7720/schedule"),
            "apply": op("POST", "/v1/loan-applications", 12, [
                ("db", "applicants", "select a.* from applicants a where a.customer_id=?", 1.5),
                ("db", "loan_applications", "insert into loan_applications (id, customer_id, amount, term) values "
                                            "(?, ?, ?, ?)", 2.1)]),
            "repay": op("POST", "/v1/loans/{loanId}/repayments", 8, [
                ("db", "loan_balances", "update loan_balances set principal=principal-? where loan_id=?", 2.2)],
                path="/v1/loans/ln_7720/repayments"),
        }},
        "entries": [("loans-api", "schedule", 90), ("loans-api", "apply", 20), ("loans-api", "repay", 30)],
        "fault": fault,
        "extra": [batch_spans],
        "alert": {"name": "LoansApiErrorBudget", "starts": "2026-12-03T11:27:00.000",
                  "burn": ("label", "burn_rate", "16.0"), "receiver": "signoz-lending", "team": "lending"},
        "expect": {"root_cause": "db_pool_exhaustion", "verdict": "deny"},
        "tags": ["kotlin", "hikari", "spring-batch", "argo-rollouts-canary", "trap", "pool-during-release"],
        "story": "6.4.0 (a new repayment-holiday field) starts an Argo canary at 11:20:04: 20% for 5 min, "
                 "50% for 5 min, then all. At 11:21:40 the month-end accrual job (loans-batch, a CronJob "
                 "outside the ledger) updates loan_balances shard by shard, holding row locks for 20-45 s; "
                 "loans-api's queries wait on the locks, its pool of 20 runs dry, and requests fail with "
                 "HikariPool 'Connection is not available' at the same rate on 6.3.2 and 6.4.0 pods.",
        "onset": "11:21:40-11:22:30, 1.6-2.4 minutes after the marker, during the 20% canary step",
    }


def inc_rewards():
    rel = "2026-12-03T15:02:27.604"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "rewards-svc" and name == "redeem" and ver == "9.1.0" \
                and w.rng.random() < 0.4:
            return {"fail": (500, "scala.MatchError", "PointsBalance(PLATINUM_PLUS,41250,None) (of class "
                                                      "com.fernhill.rewards.domain.PointsBalance)")}
        return None
    return {
        "id": "fh5-trap-rewards-910-breaks-checkout-bff",
        "title": "checkout-bff's Confirm fails (gRPC INTERNAL) because rewards-svc 9.1.0, released at "
                 "15:02, throws MatchError on 40% of redemptions; checkout-bff unchanged since 1 Dec",
        "service": "checkout-bff", "start": "2026-12-03T13:40:00.000", "now": "2026-12-03T15:16:00.000",
        "one_in": 10,
        "ledger": {"checkout-bff": [("12.3.1", "2026-11-24T11:11:11.000"), ("12.4.0", "2026-12-01T16:20:05.318")],
                   "rewards-svc": [("9.0.4", "2026-11-27T10:45:50.902"), ("9.1.0", rel)]},
        "steps": {"rewards-svc": [(1.0, None)]},
        "ops": {
            "checkout-bff": {
                "confirm": op("POST", "/fernhill.checkout.v1.CheckoutService/Confirm", 6, [
                    ("redis", "GET", "cart:{cartId}", 0.5),
                    ("maybe", 0.5, ("call", "rewards-svc", "redeem")),
                    ("db", "orders", "INSERT INTO orders (id, cart_id, total, points) VALUES ($1, $2, $3, $4)", 1.8)],
                    grpc=("fernhill.checkout.v1.CheckoutService", "Confirm")),
                "cart": op("POST", "/fernhill.checkout.v1.CheckoutService/GetCart", 2, [
                    ("redis", "GET", "cart:{cartId}", 0.5)], grpc=("fernhill.checkout.v1.CheckoutService", "GetCart")),
                "voucher": op("POST", "/fernhill.checkout.v1.CheckoutService/ApplyVoucher", 4, [
                    ("call", "rewards-svc", "quote")], grpc=("fernhill.checkout.v1.CheckoutService", "ApplyVoucher")),
            },
            "rewards-svc": {
                "redeem": op("POST", "/fernhill.rewards.v2.RewardsService/Redeem", 8, [
                    ("db", "points_ledger", "INSERT INTO points_ledger (account_id, delta, reason) VALUES "
                                            "($1, $2, $3)", 2.0)], grpc=("fernhill.rewards.v2.RewardsService", "Redeem"),
                    frames=["com.fernhill.rewards.domain.Redemption$.apply(Redemption.scala:63)",
                            "com.fernhill.rewards.grpc.RewardsServiceImpl.redeem(RewardsServiceImpl.scala:40)"]),
                "quote": op("POST", "/fernhill.rewards.v2.RewardsService/Quote", 3, [
                    ("redis", "GET", "points:{accountId}", 0.4)], grpc=("fernhill.rewards.v2.RewardsService", "Quote")),
            },
        },
        "entries": [("checkout-bff", "confirm", 45), ("checkout-bff", "cart", 120), ("checkout-bff", "voucher", 25)],
        "fault": fault,
        "alert": {"name": "CheckoutConfirmErrors", "starts": "2026-12-03T15:10:00.000",
                  "burn": ("annotation", "slo_burn_rate", "13.4"), "receiver": "signoz-commerce", "team": "commerce"},
        "expect": {"root_cause": "bad_release", "verdict": "deny",
                   "culprit": {"service": "rewards-svc", "verdict": "allow"}},
        "tags": ["swift", "grpc-web", "scala", "fs2-grpc", "trap", "callee-release", "culprit"],
        "story": "rewards-svc 9.1.0 adds a PLATINUM_PLUS tier to the domain but not to the redemption's pattern "
                 "match: 40% of Redeem calls throw scala.MatchError (gRPC INTERNAL). checkout-bff (Swift, "
                 "gRPC-web from the apps; last release 12.4.0 on 1 Dec) calls Redeem on half of its Confirms "
                 "and answers INTERNAL. Rolling checkout-bff back changes nothing; rolling rewards-svc back does.",
        "onset": "15:02:3x, the first 9.1.0 pods of rewards-svc",
    }


def inc_sms():
    out = at("2026-12-03T16:40:10.000")
    rel = "2026-12-03T16:47:33.018"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "ext" and name == "api.smsgate.example":
            p = 0.7 * ramp(t, out, out + 60 * S)
            if w.rng.random() < p:
                if ver == "3.3.1":
                    return {"fail": (503, "-", "Service Unavailable"), "fail_ms": lognormal(w.rng, 35),
                            "exc": "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
                            "propagate_exc": "com.fernhill.notify.sms.SmsDeliveryException"}
                return {"fail": (503, "-", "Service Unavailable"), "fail_ms": lognormal(w.rng, 35),
                        "exc": "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
                        "propagate_exc": "com.fernhill.notify.sms.SmsGatewayException"}
            return {"slow": 1 + 2.0 * ramp(t, out, out + 60 * S)}
        return None
    return {
        "id": "fh5-trap-hotfix-after-smsgate-notifications",
        "title": "the SMS gateway answers 503 to 70% of sends from 16:40; the on-call's hotfix 3.3.1 (a "
                 "different exception, a fallback flag left off) rolls out at 16:47, the alert fires at 16:49",
        "service": "notifications", "start": "2026-12-03T15:20:00.000", "now": "2026-12-03T16:51:30.000",
        "one_in": 8,
        "ledger": {"notifications": [("3.3.0", "2026-11-25T08:12:40.511"), ("3.3.1", rel)],
                   "transfers-api": [("2.40.3", "2026-11-27T09:41:18.220")]},
        "steps": {"notifications": [(1.0, None)]},
        "ops": {
            "transfers-api": {
                "internal": op("POST", "/api/v1/transfers/internal", 10, [
                    ("db", "transfers", "insert into transfers (id, kind, amount, currency, debtor_iban, "
                                        "creditor_iban, status) values (?, ?, ?, ?, ?, ?, ?)", 2.4),
                    ("kafka", "transfers.completed", "notifications", "completed")]),
            },
            "notifications": {
                "completed": {"ms": 2, "calls": [("redis", "GET", "prefs:{customerId}", 0.4),
                                                 ("ext", "api.smsgate.example", "POST", "/v1/messages", 140)]},
                "notify": op("POST", "/v1/notify", 3, [("redis", "GET", "prefs:{customerId}", 0.4),
                                                       ("ext", "api.smsgate.example", "POST", "/v1/messages", 140)]),
                "prefs": op("GET", "/v1/preferences/{customerId}", 2, [("redis", "GET", "prefs:{customerId}", 0.4)],
                            path="/v1/preferences/cu_881d"),
            },
        },
        "entries": [("transfers-api", "internal", 40), ("notifications", "notify", 20),
                    ("notifications", "prefs", 30)],
        "fault": fault,
        "alert": {"name": "NotificationsDeliveryErrors", "starts": "2026-12-03T16:49:00.000",
                  "burn": ("label", "burn_rate", "10.2"), "receiver": "signoz-engagement", "team": "engagement"},
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["kotlin", "spring-kafka", "micrometer", "istio-egress", "trap", "hotfix-after-outage"],
        "story": "The outside SMS gateway (a ServiceEntry, reached through the egress sidecar) answers 503 to "
                 "70% of sends from 16:40:10 and is slow on the rest. At 16:47:33 the on-call ships 3.3.1, which "
                 "wraps the failure in a new exception type (SmsDeliveryException) to page less; its push "
                 "fallback stays behind a flag. Failures continue at the same rate, now with an error "
                 "signature 'new with 3.3.1'; the alert, on a 10-minute window, fires at 16:49, after it.",
        "onset": "16:40:1x, 7.4 minutes before the hotfix's marker",
    }


INCIDENTS = [inc_sepa, inc_fx, inc_prompt, inc_retry, inc_pdf, inc_clearing, inc_payday, inc_resync, inc_staging,
             inc_loans, inc_rewards, inc_sms]


# ---------------------------------------------------------------- writing

def rollouts(spec):
    start = at(spec["start"])
    out = {}
    for svc, rel in spec["ledger"].items():
        out[svc] = [(v, d if at(d) >= start else None, spec["steps"].get(svc, ROLLING)) for v, d in rel]
    return out


def alert_json(spec):
    a = spec["alert"]
    labels = {"alertname": a["name"], "service.name": spec["service"], "severity": "critical",
              "team": a["team"], "deployment.environment": "production", "ruleId": "0193%s" % (
                  hexid(random.Random(spec["id"]), 28))}
    annotations = {"summary": "%s: %s" % (spec["service"], a["name"]),
                   "description": "SLO burn over the 1h window is above threshold for %s" % spec["service"]}
    kind, key, val = a["burn"]
    (labels if kind == "label" else annotations)[key] = val
    fp = hexid(random.Random(spec["id"] + "/fp"), 16)
    body = {
        "receiver": a["receiver"], "status": "firing",
        "alerts": [{"status": "firing", "labels": labels, "annotations": annotations,
                    "startsAt": ts(at(a["starts"])).replace(".000Z", "Z"), "endsAt": "0001-01-01T00:00:00Z",
                    "generatorURL": "https://signoz.fernhill.bank/alerts/edit?ruleId=%s" % labels["ruleId"],
                    "fingerprint": fp}],
        "groupLabels": {"alertname": a["name"], "service.name": spec["service"]},
        "commonLabels": labels, "commonAnnotations": annotations,
        "externalURL": "https://signoz.fernhill.bank", "version": "4",
        "groupKey": '{}/{severity="critical"}:{alertname="%s", service.name="%s"}' % (
            a["name"], spec["service"]),
        "truncatedAlerts": 0,
    }
    return json.dumps(body, indent=2) + "\n"


def q(s):
    return json.dumps(s)


def incident_yaml(spec):
    e = spec["expect"]
    lines = ["id: %s" % spec["id"], "title: %s" % q(spec["title"]), "service: %s" % spec["service"],
             "now: %s" % ts(at(spec["now"])), "expect:", "  root_cause: %s" % e["root_cause"],
             "  verdict: %s" % e["verdict"]]
    if "culprit" in e:
        lines += ["  culprit:", "    service: %s" % e["culprit"]["service"],
                  "    verdict: %s" % e["culprit"]["verdict"]]
    tags = ["heldout5", "fernhill"] + spec["tags"]
    lines.append("tags: [%s]" % ", ".join(tags))
    return "\n".join(lines) + "\n"


def releases_yaml(spec):
    lines = ["project: fernhill", "services:"]
    for svc, rel in spec["ledger"].items():
        ns = SERVICES[svc][1]
        lines.append("  %s:" % svc)
        for v, d in rel:
            lines += ["    - version: %s" % q(v), "      image: harbor.fernhill.bank/%s/%s:%s" % (
                ns, svc, v.replace("+", "_")), "      deployed_at: %s" % ts(at(d))]
    return "\n".join(lines) + "\n"


def write_jsonl(folder, name, rows):
    data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows).encode()
    for old in (name, name + ".gz"):
        if os.path.exists(os.path.join(folder, old)):
            os.remove(os.path.join(folder, old))
    if len(data) > GZIP_OVER:
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as g:
            g.write(data)
        with open(os.path.join(folder, name + ".gz"), "wb") as f:
            f.write(buf.getvalue())
    else:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return len(data)


def generate(make, root):
    spec = make()
    spec["rollouts"] = rollouts(spec)
    w = World(spec)
    run(w)
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    w.spans.sort(key=lambda x: x[0])
    w.logs.sort(key=lambda x: x[0])
    spans = [s for _, s in w.spans]
    with open(os.path.join(folder, "incident.yaml"), "w") as f:
        f.write(incident_yaml(spec))
    with open(os.path.join(folder, "alert.json"), "w") as f:
        f.write(alert_json(spec))
    with open(os.path.join(folder, "releases.yaml"), "w") as f:
        f.write(releases_yaml(spec))
    hist = (at(spec["now"]) - at(spec["start"])) // MIN
    with open(os.path.join(folder, "expect.json"), "w") as f:
        f.write(json.dumps(dict(spec["expect"], sampling="head, parent-based trace-id ratio, 1 in %d"
                                % spec["one_in"], history_minutes=hist, onset=spec["onset"],
                                story=spec["story"]), indent=2) + "\n")
    n1 = write_jsonl(folder, "spans.jsonl", spans)
    n2 = write_jsonl(folder, "logs.jsonl", [r for _, r in w.logs])
    print("%-48s spans %6d (%5.1f MB)  logs %6d (%4.1f MB)" % (spec["id"], len(spans), n1 / 1e6, len(w.logs),
                                                             n2 / 1e6))


def twin_loans_rolling():
    """heldout5's month-end trap with a plain rolling update (90 s) instead of the canary: the rollout is
    done 5 s before the batch begins, so every failing request is 6.4.0's. Not part of the corpus."""
    spec = inc_loans()
    spec["id"] = "fh5-twin-month-end-locks-rolling-loans-api"
    spec["title"] = spec["title"].replace("'s canary takes 20% at 11:20", " rolls out over 90 s at 11:20")
    spec["steps"] = {"loans-api": ROLLING}
    spec["tags"] = [x if x != "argo-rollouts-canary" else "rolling-update" for x in spec["tags"]] + ["twin"]
    spec["onset"] = "11:21:40-11:22:30, after a rollout that finished at 11:21:37"
    return spec


def twin_clearing_after():
    """heldout5's clearing-house trap with the outage moved 2.5 min after payments-gateway 3.9.2 finished
    rolling out (outage 10:21:30, alert 10:27, now 10:30): every failing request is 3.9.2's. Not part of
    the corpus."""
    spec = inc_clearing()
    spec["id"] = "fh5-twin-clearing-outage-after-release-payments-gateway"
    spec["title"] = "the SEPA Instant clearing house resets connections from 10:21:30, 2.5 minutes after " \
                    "payments-gateway 3.9.2 (receipt wording) finished rolling out"
    out = at("2026-12-03T10:21:30.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "ext" and name == "sepa-inst.clearing.example":
            if w.rng.random() < 0.55 * ramp(t, out, out + 70 * S):
                return {"fail": (503, "UC", "upstream connect error or disconnect/reset before headers. "
                                           "reset reason: connection termination"),
                        "fail_ms": lognormal(w.rng, 22), "exc": "org.springframework.web.client."
                        "HttpServerErrorException$ServiceUnavailable", "propagate_exc":
                        "com.fernhill.payments.clearing.ClearingUnavailableException"}
        return None
    spec["fault"] = fault
    spec["now"] = "2026-12-03T10:30:00.000"
    spec["alert"] = dict(spec["alert"], starts="2026-12-03T10:27:00.000")
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "10:21:3x, 2.5 minutes after the rollout finished"
    return spec


TWINS = {"loans-rolling": twin_loans_rolling, "clearing-after": twin_clearing_after}


def main():
    if sys.argv[1:2] == ["--twin"]:
        # python3 gen.py --twin DIR NAME...: writes twins outside the corpus (README, "Twins")
        for name in sys.argv[3:]:
            generate(TWINS[name], sys.argv[2])
        return
    only = set(sys.argv[1:])
    for make in INCIDENTS:
        if only and make.__name__ not in only:
            continue
        generate(make, HERE)


if __name__ == "__main__":
    main()
