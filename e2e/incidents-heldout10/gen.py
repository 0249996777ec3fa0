#!/usr/bin/env python3
"""Writes e2e/incidents-heldout10 (and, with --twin DIR NAME..., its twins): Kilnwatt, a heat-pump
and EV-charger telemetry platform on self-managed Kubernetes (k3s on Hetzner), deployed by Flux.

Deterministic: every random draw comes from random.Random seeded per incident, so a run writes the
same bytes every time, whatever PYTHONHASHSEED. Files over 3 MB are written gzip'd with no name
and mtime 0. Usage: python3 gen.py            (the corpus, next to this file)
                    python3 gen.py --twin DIR noisy-node-fast payload-oom-fast compactor-close purge-small
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

SEED = 101049
HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1000 * 1000
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024
TZ = timezone(timedelta(hours=-5))
DAY = "2026-12-14"
REG = "registry.kilnwatt.io/platform"


def ts(ns):
    """RFC 3339 in the platform's local zone (-05:00), milliseconds."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, TZ).strftime("%Y-%m-%dT%H:%M:%S") + ".%03d-05:00" % (frac // MS)


def at(s):
    """'HH:MM:SS[.mmm]' local time (-05:00) on DAY, in ns."""
    base, _, frac = s.partition(".")
    d = datetime.strptime(DAY + "T" + base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=TZ)
    return int(d.timestamp()) * S + int((frac + "000000000")[:9])


def poisson(rng, lam):
    if lam > 40:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    L, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= L:
            return k
        k += 1


def ramp(t, a, b):
    if t <= a:
        return 0.0
    if t >= b:
        return 1.0
    return (t - a) / (b - a)


RT = {
    "go": {"telemetry.sdk.language": "go", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.32.0",
           "process.runtime.name": "go", "process.runtime.version": "go1.23.4"},
    "node": {"telemetry.sdk.language": "nodejs", "telemetry.sdk.name": "opentelemetry",
             "telemetry.sdk.version": "1.29.0", "process.runtime.name": "nodejs", "process.runtime.version": "22.12.0"},
}
# Go services carry no service.version: only the pod and the image tag say which build runs.
SVC = {"ingest-gw": ("go", "ingest"), "device-registry": ("go", "ingest"), "telemetry-router": ("go", "pipeline"),
       "telemetry-writer": ("go", "pipeline"), "rollup-compactor": ("go", "pipeline"), "ota-svc": ("go", "fleet"),
       "fleet-api": ("node", "fleet"), "diag-copilot": ("node", "support"), "tariff-svc": ("node", "energy")}
NODES = ["hel1-worker-0%d" % i for i in range(1, 10)]


class Pod:
    def __init__(self, w, svc, ver, start, end=None, node=None, rs=None):
        self.svc, self.ver, self.start, self.end = svc, ver, start, end
        rng = w.rng
        self.rs = rs or hashlib.sha1((svc + ver).encode()).hexdigest()[:10]
        self.name = "%s-%s-%s" % (svc, self.rs, "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5)))
        self.node = node or rng.choice(NODES)
        self.restarts = 0
        rt, ns = SVC[svc]
        r = {"service.name": svc, "service.namespace": "kilnwatt", "deployment.environment.name": "production",
             "k8s.namespace.name": ns, "k8s.deployment.name": svc, "k8s.replicaset.name": svc + "-" + self.rs,
             "k8s.pod.name": self.name, "k8s.node.name": self.node, "k8s.cluster.name": "hel1-prod",
             "container.image.name": REG + "/" + svc, "container.image.tag": ver}
        if rt == "node":
            r["service.version"] = ver
        r.update(RT[rt])
        self.res = r

    def resource(self):
        if self.restarts:
            r = dict(self.res)
            r["k8s.container.restart_count"] = str(self.restarts)
            return r
        return self.res


class World:
    def __init__(self, spec):
        self.spec = spec
        self.rng = random.Random("%d:%s" % (SEED, spec["id"]))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.one_in = spec["one_in"]
        self.spans, self.logs, self.pods = [], [], {}

    def hex(self, n):
        return "%0*x" % (n, self.rng.getrandbits(4 * n))

    def sampled(self, tid):
        # the collector's probabilistic_sampler (hash_seed 22): the same decision for every span of a trace
        h = int(hashlib.sha1(("22" + tid).encode()).hexdigest()[:8], 16)
        return h % self.one_in == 0

    def fleet(self, svc, plan):
        """plan: list of (version, count, start, end or None, node or None)."""
        ps = []
        for ver, n, st, en, node in plan:
            for _ in range(n):
                ps.append(Pod(self, svc, ver, at(st) if isinstance(st, str) else st,
                              (at(en) if isinstance(en, str) else en) if en else None, node))
        self.pods[svc] = ps
        return ps

    def pod(self, svc, t, pred=None):
        live = [p for p in self.pods[svc] if p.start <= t and (p.end is None or t < p.end) and (pred is None or pred(p))]
        if not live:
            return None
        return live[self.rng.randrange(len(live))]

    def span(self, out, tid, pod, name, kind, t, dur_ms, parent="", err=None, attrs=None, status=0):
        sid = self.hex(16)
        row = {"timestamp": ts(t), "trace_id": tid, "span_id": sid, "parent_span_id": parent, "name": name,
               "kind": kind, "duration_nano": int(dur_ms * MS), "has_error": bool(err),
               "status_code": 2 if err else status, "status_message": err or "",
               "resource": pod.resource() if isinstance(pod, Pod) else pod, "attributes": attrs or {}}
        out.append((t, row))
        return sid

    def log(self, pod, t, sev, body, tid="", sid="", attrs=None):
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17, "FATAL": 21}.get(sev, 0)
        r = {"timestamp": ts(t), "observed_timestamp": ts(t + 3 * MS), "severity_text": sev, "severity_number": num,
             "body": body, "trace_id": tid, "span_id": sid,
             "resource": pod.resource() if isinstance(pod, Pod) else pod, "attributes": attrs or {}}
        self.logs.append((t, r))

    def keep(self, tid, out):
        if self.sampled(tid):
            self.spans.extend(out)

    def each_request(self, rate, fn, start=None, end=None):
        """rate(t) requests a minute; fn(t) per request."""
        t = start or self.start
        end = end or self.now
        while t < end:
            lam = rate(t) / 60.0
            for _ in range(poisson(self.rng, lam)):
                fn(t + self.rng.randrange(S))
            t += S

    def marker(self, svc, ver, prev, t, rev):
        res = {"service.name": svc, "service.namespace": "kilnwatt", "deployment.environment.name": "production",
               "k8s.namespace.name": SVC[svc][1], "telemetry.sdk.name": "flux-otel-notifier"}
        attrs = {"deployment.version": ver, "deployment.previous_version": prev,
                 "deployment.id": "main@sha1:" + hashlib.sha1((svc + ver + rev).encode()).hexdigest(),
                 "flux.kustomization.name": SVC[svc][1] + "-apps", "flux.revision": rev,
                 "deployment.strategy": "RollingUpdate"}
        self.span(self.spans, self.hex(32), res, "deployment.marker", 1, t, 1, attrs=attrs, status=1)


def lat(w, median, sigma=0.35):
    return median * math.exp(w.rng.gauss(0, sigma))


# ---------------------------------------------------------------- building blocks

def gateway(w, out, tid, pod, t, method, route, path, status, dur, rpc, inner):
    """grpc-gateway in process: the HTTP server span, the loopback gRPC client and server spans."""
    err = None if status < 500 else "%d %s" % (status, {500: "Internal Server Error", 503: "Service Unavailable",
                                                         504: "Gateway Timeout"}[status])
    code = {200: 0, 500: 13, 503: 14, 504: 4}.get(status, 0)
    h = w.span(out, tid, pod, "%s %s" % (method, route), 2, t, dur, err=err, attrs={
        "http.request.method": method, "http.route": route, "url.path": path, "url.scheme": "https",
        "http.response.status_code": status, "server.address": "api.kilnwatt.io", "network.protocol.version": "1.1",
        "user_agent.original": "kw-firmware/3.1 (hp-x3)" if "readings" in path else "kilnwatt-app/8.4"})
    c = w.span(out, tid, pod, rpc, 3, t + MS // 5, dur - 0.4, parent=h, err=err and "rpc error: code = %d" % code, attrs={
        "rpc.system": "grpc", "rpc.service": rpc.split("/")[0], "rpc.method": rpc.split("/")[1],
        "rpc.grpc.status_code": code, "server.address": "127.0.0.1", "server.port": 9090})
    s = w.span(out, tid, pod, rpc, 2, t + MS // 3, dur - 0.8, parent=c, err=err and "rpc error: code = %d" % code, attrs={
        "rpc.system": "grpc", "rpc.service": rpc.split("/")[0], "rpc.method": rpc.split("/")[1],
        "rpc.grpc.status_code": code, "network.peer.address": "127.0.0.1"})
    inner(s)
    return h


def grpc_client(w, out, tid, pod, t, dur, rpc, host, parent, code=0, msg=None, attempt=None):
    a = {"rpc.system": "grpc", "rpc.service": rpc.split("/")[0], "rpc.method": rpc.split("/")[1],
         "rpc.grpc.status_code": code, "server.address": host, "server.port": 9090}
    if attempt is not None:
        a["grpc.previous_rpc_attempts"] = attempt
    return w.span(out, tid, pod, rpc, 3, t, dur, parent=parent, err=msg if code else None, attrs=a)


def pgx(w, out, tid, pod, t, dur, op, table, stmt, parent, err=None, host="tsdb-rw.pipeline.svc"):
    return w.span(out, tid, pod, "%s %s" % (op, table), 3, t, dur, parent=parent, err=err, attrs={
        "db.system": "postgresql", "db.name": "telemetry", "db.operation": op, "db.sql.table": table,
        "db.statement": stmt, "net.peer.name": host, "net.peer.port": 5432})


def nats_pub(w, out, tid, pod, t, subject, size, parent):
    return w.span(out, tid, pod, subject + " publish", 4, t, lat(w, 0.9), parent=parent, attrs={
        "messaging.system": "nats", "messaging.destination.name": subject, "messaging.operation.type": "publish",
        "messaging.message.body.size": size, "server.address": "nats.pipeline.svc", "server.port": 4222})


def nats_process(w, out, tid, pod, t, dur, subject, group, size, parent, delivered=1, err=None, model="hp-x3"):
    return w.span(out, tid, pod, subject + " process", 5, t, dur, parent=parent, err=err, attrs={
        "messaging.system": "nats", "messaging.destination.name": subject, "messaging.operation.type": "process",
        "messaging.consumer.group.name": group, "messaging.message.body.size": size,
        "messaging.nats.jetstream.stream": "TELEMETRY", "messaging.nats.jetstream.num_delivered": delivered,
        "kilnwatt.device.model": model})


def hono(w, out, tid, pod, t, method, route, path, status, dur):
    err = None if status < 500 else "HTTP %d" % status
    return w.span(out, tid, pod, "%s %s" % (method, route), 2, t, dur, err=err, attrs={
        "http.request.method": method, "http.route": route, "url.path": path, "url.scheme": "http",
        "http.response.status_code": status, "server.address": pod.svc + "." + SVC[pod.svc][1] + ".svc",
        "server.port": 3000, "client.address": "10.42.%d.%d" % (w.rng.randrange(1, 9), w.rng.randrange(2, 250))})


def prisma(w, out, tid, pod, t, dur, model, method, sql, parent, err=None, conn_wait=0.4, host="pg-fleet.fleet.svc"):
    op = w.span(out, tid, pod, "prisma:client:operation", 1, t, dur, parent=parent, err=err, attrs={
        "model": model, "method": method, "name": "%s.%s" % (model, method)})
    e = w.span(out, tid, pod, "prisma:engine", 1, t + MS // 10, dur - 0.2, parent=op, err=err, attrs={})
    w.span(out, tid, pod, "prisma:engine:connection", 1, t + MS // 5, conn_wait, parent=e, err=err,
           attrs={"db.system": "postgresql"})
    if not err:
        w.span(out, tid, pod, "prisma:engine:db_query", 3, t + int(conn_wait * MS) + MS // 4,
               max(0.3, dur - conn_wait - 0.6), parent=e, attrs={"db.system": "postgresql", "db.query.text": sql,
                                                                 "server.address": host})
    return op


def golog(w, pod, t, sev, msg, tid="", sid="", **kv):
    a = {"code.namespace": "kilnwatt/" + pod.svc}
    a.update({k.replace("_", "."): v for k, v in kv.items()})
    w.log(pod, t, sev, msg, tid, sid, a)


def nodelog(w, pod, t, sev, msg, tid="", sid="", **kv):
    a = {"logger": pod.svc}
    a.update(kv)
    w.log(pod, t, sev.lower() if sev != "WARN" else "warning", msg, tid, sid, a)
    w.logs[-1][1]["severity_number"] = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17}[sev]


# ---------------------------------------------------------------- background traffic per service

def readings_path(w):
    return "/v1/devices/kw-%06d/readings" % w.rng.randrange(1, 400000)


def ingest_traffic(w, rate, reg_ms=lambda t: 60.0, retry=None, size=lambda t, m: 3900,
                   model=lambda t: "hp-x3", router=None, reg_host="device-registry.ingest.svc", reg_port=9090,
                   reg_fail=lambda t: None):
    """Devices push readings through ingest-gw: registry lookup, NATS publish; telemetry-router consumes.
    reg_host/reg_port: where the registry call goes (a mesh sidecar on loopback: 127.0.0.1:15001);
    reg_fail(t): the registry's own failure (a gRPC status message, UNAVAILABLE) or None."""
    router = router or router_default

    def one(t):
        out, tid = [], w.hex(32)
        pod = w.pod("ingest-gw", t)
        m = model(t)
        sz = size(t, m)
        calls, final, spent = [], 0, 0.0
        deadline, attempts = retry(t, pod) if retry else (800, 1)
        outage = reg_fail(t)
        for i in range(attempts):
            d = lat(w, reg_ms(t), 0.45)
            if outage:
                calls.append((spent, lat(w, 4.0), 14, i))
                spent += calls[-1][1]
                final = 14
                break
            if d > deadline:
                calls.append((spent, deadline, 4, i))
                spent += deadline + 0.4
                final = 4
                continue
            calls.append((spent, d, 0, i))
            spent += d
            final = 0
            break
        st = {0: 200, 4: 504, 14: 503}[final]
        dur = spent + lat(w, 3.2) + 1.5

        def inner(sid):
            for off, d, code, i in calls:
                msg = {4: "context deadline exceeded", 14: "rpc error: code = Unavailable desc = " + (outage or "")}.get(code)
                c = grpc_client(w, out, tid, pod, t + int((1 + off) * MS), d, "registry.v1.Registry/GetDevice",
                                reg_host, sid, code, msg, i if retry else None)
                if reg_port != 9090:
                    out[-1][1]["attributes"]["server.port"] = reg_port
                rp = w.pod("device-registry", t)
                if rp:
                    sd = d - 1.0 if code == 0 else (d - 1.0 if code == 14 else lat(w, reg_ms(t) * 1.6, 0.3))
                    s = w.span(out, tid, rp, "registry.v1.Registry/GetDevice", 2, t + int((1.4 + off) * MS),
                               max(0.5, sd), parent=c, err=outage if code == 14 else None, attrs={
                                   "rpc.system": "grpc", "rpc.service": "registry.v1.Registry",
                                   "rpc.method": "GetDevice", "rpc.grpc.status_code": 14 if code == 14 else 0,
                                   "network.peer.address": "127.0.0.6" if reg_port != 9090 else
                                   "10.42.%d.%d" % (w.rng.randrange(1, 9), w.rng.randrange(2, 250))})
                    pgx(w, out, tid, rp, t + int((1.8 + off) * MS), max(0.3, sd * 0.3), "SELECT", "devices",
                        "SELECT id, model, fw_version, tariff_zone FROM devices WHERE id = $1", s,
                        host="pg-registry.ingest.svc", err=outage if code == 14 else None)
            if st == 200:
                p = nats_pub(w, out, tid, pod, t + int((spent + 2) * MS), "telemetry.raw", sz, sid)
                router(w, out, tid, t + int((spent + 2 + lat(w, 40)) * MS), sz, p, m)
        gateway(w, out, tid, pod, t, "POST", "/v1/devices/{device_id}/readings", readings_path(w), st, dur,
                "ingest.v1.IngestService/PushReadings", inner)
        if st >= 500:
            golog(w, pod, t + int(dur * MS), "ERROR", "push readings failed", tid, "",
                  error="rpc error: code = DeadlineExceeded desc = context deadline exceeded" if final == 4 else
                  "rpc error: code = Unavailable desc = " + outage,
                  grpc_method="registry.v1.Registry/GetDevice", attempts=len(calls))
        w.keep(tid, out)
    w.each_request(rate, one)


def router_default(w, out, tid, t, size, parent, model):
    pod = w.pod("telemetry-router", t)
    if not pod:
        return
    s = nats_process(w, out, tid, pod, t, lat(w, 2.4), "telemetry.raw", "router", size, parent, model=model)
    nats_pub(w, out, tid, pod, t + int(1.8 * MS), "telemetry.normalized", int(size * 0.7), s)


def fleet_traffic(w, rate, fail=lambda t, p, route: None, slow=lambda t, p: 1.0, db_err=lambda t: None):
    routes = [("GET", "/v1/fleets/:fleetId/devices", "Device", "findMany", 0.5,
               'SELECT "public"."Device"."id", "public"."Device"."model" FROM "public"."Device" WHERE "fleetId" = $1 LIMIT $2'),
              ("GET", "/v1/devices/:deviceId", "Device", "findUnique", 0.35,
               'SELECT "public"."Device"."id", "public"."Device"."fwVersion" FROM "public"."Device" WHERE "id" = $1 LIMIT $2'),
              ("PATCH", "/v1/devices/:deviceId/schedule", "Schedule", "upsert", 0.15,
               'INSERT INTO "public"."Schedule" ("deviceId","slots") VALUES ($1,$2) ON CONFLICT ("deviceId") DO UPDATE SET "slots" = $2')]

    def one(t):
        out, tid = [], w.hex(32)
        pod = w.pod("fleet-api", t)
        x = w.rng.random()
        for method, route, model, meth, share, sql in routes:
            if x < share:
                break
            x -= share
        path = route.replace(":fleetId", "f-%04d" % w.rng.randrange(1, 3000)).replace(":deviceId", "kw-%06d" % w.rng.randrange(1, 400000))
        k = slow(t, pod)
        f = fail(t, pod, route) or db_err(t)
        d_db = lat(w, 4.0 * k)
        if f:
            kind, msg, d_db = f
            st = 500 if kind != "timeout" else 503
        else:
            st = 200
        dur = d_db + lat(w, 3.0 * k) + 1
        h = hono(w, out, tid, pod, t, method, route, path, st, dur)
        prisma(w, out, tid, pod, t + MS, d_db, model, meth, sql, h, err=msg if f else None,
               conn_wait=d_db - 0.5 if f else 0.3 * k)
        if f:
            nodelog(w, pod, t + int(dur * MS), "ERROR", msg, tid, h, **{"err.name": kind, "req.method": method,
                                                                           "req.url": path, "res.statusCode": st})
        w.keep(tid, out)
    w.each_request(rate, one)


def ota_traffic(w, rate, fail=lambda t, p, model: None, slow=lambda t, p: 1.0, status=lambda t, p: None,
                client=lambda t: None):
    def one(t):
        out, tid = [], w.hex(32)
        pod = w.pod("ota-svc", t)
        if w.rng.random() < 0.7:
            model = w.rng.choice(["hp-x3", "hp-x3", "hp-x4", "ev-c2", "ev-c2"])
            route, path, rpc = "/v1/firmware/{model}/manifest", "/v1/firmware/%s/manifest" % model, \
                "ota.v1.Firmware/GetManifest"
            method = "GET"
        else:
            model, method = None, "POST"
            route, path, rpc = "/v1/devices/{device_id}/ota-status", "/v1/devices/kw-%06d/ota-status" % \
                w.rng.randrange(1, 400000), "ota.v1.Firmware/ReportStatus"
        k = slow(t, pod)
        f = fail(t, pod, model) if model else None
        st = status(t, pod) or (500 if f else 200)
        dur = lat(w, 6.0 * k) + 1.5

        def inner(sid):
            if model:
                pgx(w, out, tid, pod, t + int(1.2 * MS), lat(w, 1.8 * k), "SELECT", "firmware_releases",
                    "SELECT version, sha256, key_id, url FROM firmware_releases WHERE model = $1 AND channel = $2",
                    sid, host="pg-fleet.fleet.svc")
            else:
                pgx(w, out, tid, pod, t + int(1.2 * MS), lat(w, 2.4 * k), "UPDATE", "ota_status",
                    "UPDATE ota_status SET state = $2, updated_at = now() WHERE device_id = $1", sid,
                    host="pg-fleet.fleet.svc")
        h = gateway(w, out, tid, pod, t, method, route, path, st, dur, rpc, inner)
        c = client(t)
        if c:
            for _, row in out:
                if row["span_id"] == h:
                    row["attributes"].update(c)
        if f:
            golog(w, pod, t + int(dur * MS), "ERROR", f, tid, h, model=model, http_route=route)
        elif st >= 500:
            golog(w, pod, t + int(dur * MS), "WARN", "shedding load: in-flight limit reached", tid, h,
                  inflight=w.rng.randrange(256, 300), limit=256)
        w.keep(tid, out)
    w.each_request(rate, one)


def writer_traffic(w, rate, copy_err=lambda t, p: None, slow=lambda t: 1.0, acquire=lambda t, p: None):
    """telemetry-writer consumes telemetry.normalized (published by the router) and COPYs into TimescaleDB."""
    def one(t):
        out, tid = [], w.hex(32)
        rp = w.pod("telemetry-router", t)
        p = nats_pub(w, out, tid, rp, t, "telemetry.normalized", w.rng.randrange(2400, 3100), "")
        t2 = t + int(lat(w, 30) * MS)
        pod = w.pod("telemetry-writer", t2)
        a = acquire(t2, pod)
        e = copy_err(t2, pod)
        k = slow(t2)
        d_copy = lat(w, 9.0 * k, 0.5)
        if a:
            dur = a[1] + lat(w, 0.5)
            s = nats_process(w, out, tid, pod, t2, dur, "telemetry.normalized", "writer", 2700, p, err=a[0],
                             delivered=1 + (w.rng.random() < 0.3))
            golog(w, pod, t2 + int(dur * MS), "ERROR", "write batch failed", tid, s, error=a[0], table="readings")
        else:
            dur = d_copy + lat(w, 1.2)
            s = nats_process(w, out, tid, pod, t2, dur, "telemetry.normalized", "writer", 2700, p, err=e)
            pgx(w, out, tid, pod, t2 + int(0.6 * MS), d_copy if not e else lat(w, 3), "COPY", "readings",
                "COPY readings (device_id, ts, metric, value) FROM STDIN", s, err=e)
            if e:
                golog(w, pod, t2 + int(dur * MS), "ERROR", "write batch failed", tid, s, error=e, table="readings")
        w.keep(tid, out)
    w.each_request(rate, one)


# ---------------------------------------------------------------- the incidents

def spec(ident, title, svc, start, now, one_in, expect, onset, story, tags, alert, releases, **kw):
    d = {"id": ident, "title": title, "service": svc, "start": start, "now": now, "one_in": one_in,
         "expect": expect, "onset": onset, "story": story, "tags": tags, "alert": alert, "releases": releases}
    d.update(kw)
    return d


def rel(svc, *entries):
    return (svc, [(v, DAY + "T" + t if "T" not in t else t) for v, t in entries])


# R1 --------------------------------------------------------------------------------------------
def r1_retry_storm():
    sp = spec("kw10-grpc-retry-policy-ingest-gw",
              "ingest-gw 3.8.0 cuts the GetDevice deadline to 150 ms with 5 gRPC attempts: attempts multiply, device-registry slows under them, 504s",
              "ingest-gw", "07:40:00", "09:14:00", 8, {"root_cause": "retry_storm", "verdict": "allow"}, "08:56",
              "3.8.0 adds a gRPC service config (retryPolicy maxAttempts 5 on DEADLINE_EXCEEDED) and lowers the per-attempt deadline from 800 ms to 150 ms. device-registry answers in ~60 ms but its tail passes 150 ms; every timed-out attempt keeps running in the registry, whose latency climbs under the extra attempts, so more attempts time out. Each attempt is its own client span (grpc.previous_rpc_attempts). Rolling back to 3.7.4 restores one attempt at 800 ms.",
              ["grpc-gateway", "grpc-retry-policy", "no-service-version", "probabilistic-1-in-8"],
              ("IngestReadings5xx", "ingest", "14.8", "09:04:00"),
              [rel("ingest-gw", ("3.7.4", "2026-12-10T15:02:11.420"), ("3.8.0", "08:55:42.118"))])

    def build(w):
        r = at("08:55:42.118")
        w.fleet("ingest-gw", [("3.7.4", 6, w.start - 4 * 1440 * MIN, r + 40 * S, None), ("3.8.0", 6, r, None, None)])
        w.fleet("device-registry", [("6.2.1", 4, w.start - 9 * 1440 * MIN, None, None)])
        w.fleet("telemetry-router", [("2.13.1", 4, w.start - 2 * 1440 * MIN, None, None)])
        w.marker("ingest-gw", "3.8.0", "3.7.4", r + 310 * MS, "v3.8.0")
        reg = lambda t: 60.0 + 150.0 * ramp(t, r + 50 * S, r + 7 * MIN)
        ingest_traffic(w, lambda t: 240, reg_ms=reg,
                       retry=lambda t, p: (150, 5) if p.ver == "3.8.0" else (800, 1))
    sp["build"] = build
    return sp


# R2 --------------------------------------------------------------------------------------------
def r2_crashloop():
    sp = spec("kw10-nil-map-crashloop-telemetry-router",
              "telemetry-router 2.14.0 panics on hp-x4 readings (nil map): recovered per message, and the batcher's panic crash-loops the pods",
              "telemetry-router", "10:05:00", "11:45:00", 6, {"root_cause": "bad_release", "verdict": "allow"}, "11:30",
              "2.14.0 adds defrost-cycle normalisation; hp-x4 firmware sends a defrost block the new code writes into a nil map. The per-message handler recovers (the span fails with the panic) and the batcher goroutine's second write crashes the process every minute or two: restart counts climb, JetStream redelivers. 2.13.1 ignores the block. Rolling back restores it.",
              ["nats-jetstream", "consumer-only", "crashloop", "no-service-version", "probabilistic-1-in-6"],
              ("RouterProcessErrors", "pipeline", "9.6", "11:37:00"),
              [rel("telemetry-router", ("2.13.1", "2026-12-12T09:40:02.301"), ("2.14.0", "11:30:48.904"))])

    def build(w):
        r = at("11:30:48.904")
        w.fleet("ingest-gw", [("3.7.4", 6, w.start - 4 * 1440 * MIN, None, None)])
        w.fleet("device-registry", [("6.2.1", 4, w.start - 9 * 1440 * MIN, None, None)])
        olds = w.fleet("telemetry-router", [("2.13.1", 4, w.start - 2 * 1440 * MIN, r + 45 * S, None)])
        news = [Pod(w, "telemetry-router", "2.14.0", r + i * 15 * S) for i in range(4)]
        w.pods["telemetry-router"] = olds + news
        w.marker("telemetry-router", "2.14.0", "2.13.1", r + 520 * MS, "v2.14.0")
        crash = {p.name: p.start + (80 + 25 * i) * S for i, p in enumerate(news)}

        def router(w, out, tid, t, size, parent, model):
            pod = w.pod("telemetry-router", t)
            if pod.ver == "2.14.0":
                while t >= crash[pod.name]:
                    c = crash[pod.name]
                    golog(w, pod, c, "FATAL", "panic: assignment to entry in nil map\n\ngoroutine 214 [running]:\n"
                          "kilnwatt/telemetry-router/internal/normalize.(*Batcher).flush(0xc0004a2000)\n"
                          "\t/src/internal/normalize/batcher.go:118 +0x2c4\ncreated by kilnwatt/telemetry-router/internal/normalize.NewBatcher\n"
                          "\t/src/internal/normalize/batcher.go:41 +0x1a5", exit_code=2)
                    pod.restarts += 1
                    golog(w, pod, c + 9 * S, "INFO", "telemetry-router starting", version="2.14.0", stream="TELEMETRY")
                    crash[pod.name] = c + (60 + w.rng.randrange(60)) * S
                delivered = 1 + (w.rng.random() < 0.35)
                if model == "hp-x4":
                    s = nats_process(w, out, tid, pod, t, lat(w, 1.1), "telemetry.raw", "router", size, parent,
                                     delivered, "panic: assignment to entry in nil map [recovered]", model)
                    if w.rng.random() < 0.3:
                        golog(w, pod, t + MS, "ERROR", "handler panic recovered", tid, s,
                              panic="assignment to entry in nil map", subject="telemetry.raw", model=model)
                    return
                s = nats_process(w, out, tid, pod, t, lat(w, 2.6), "telemetry.raw", "router", size, parent, delivered,
                                 model=model)
            else:
                s = nats_process(w, out, tid, pod, t, lat(w, 2.4), "telemetry.raw", "router", size, parent, model=model)
            nats_pub(w, out, tid, pod, t + int(1.8 * MS), "telemetry.normalized", int(size * 0.7), s)
        ingest_traffic(w, lambda t: 210, model=lambda t: "hp-x4" if w.rng.random() < 0.27 else "hp-x3", router=router)
    sp["build"] = build
    return sp


# R3 --------------------------------------------------------------------------------------------
P2024 = ("PrismaClientKnownRequestError",
         "Invalid `prisma.device.findMany()` invocation: Timed out fetching a new connection from the connection pool. "
         "More info: http://pris.ly/d/connection-pool (Current connection pool timeout: 2, connection limit: 3)")


def r3_prisma_pool():
    sp = spec("kw10-prisma-connection-limit-fleet-api",
              "fleet-api 7.2.0 ships DATABASE_URL with connection_limit=3: Prisma P2024 pool timeouts on 20% of requests",
              "fleet-api", "12:00:00", "13:27:00", 10, {"root_cause": "config_regression", "verdict": "allow"}, "13:14",
              "7.2.0's Helm values set DATABASE_URL ...?connection_limit=3&pool_timeout=2 (it was 20/10) while moving the schema to a pooled endpoint. Every pod now queues for three connections; at the usual 420 req/min a fifth of the queries time out waiting (P2024, which quotes the limit). The database itself is idle. Rolling back to 7.1.3 restores the pool of 20.",
              ["node", "hono", "prisma", "config-in-release", "probabilistic-1-in-10"],
              ("FleetApi5xx", "fleet", "12.1", "13:20:00"),
              [rel("fleet-api", ("7.1.3", "2026-12-11T10:20:44.010"), ("7.2.0", "13:13:05.650"))])

    def build(w):
        r = at("13:13:05.650")
        w.fleet("fleet-api", [("7.1.3", 8, w.start - 3 * 1440 * MIN, r + 70 * S, None),
                              ("7.2.0", 8, r, None, None)])
        w.marker("fleet-api", "7.2.0", "7.1.3", r + 180 * MS, "v7.2.0")

        def fail(t, p, route):
            if p.ver == "7.2.0" and w.rng.random() < 0.21 * ramp(t, r + 60 * S, r + 150 * S):
                call = "device.findMany" if "fleets" in route else ("schedule.upsert" if "schedule" in route
                                                                     else "device.findUnique")
                return (P2024[0], P2024[1].replace("device.findMany", call), lat(w, 2010, 0.01))
            return None
        fleet_traffic(w, lambda t: 420, fail=fail,
                      slow=lambda t, p: 1 + 1.2 * ramp(t, r + 60 * S, r + 150 * S) if p.ver == "7.2.0" else 1.0)
        for p in w.pods["fleet-api"]:
            if p.ver == "7.2.0":
                nodelog(w, p, p.start + 2 * S, "INFO", "prisma:info Starting a postgresql pool with 3 connections.")
            else:
                nodelog(w, p, max(p.start, w.start) + 2 * S, "INFO", "prisma:info Starting a postgresql pool with 20 connections.")
    sp["build"] = build
    return sp


# R4 --------------------------------------------------------------------------------------------
def r4_prompt():
    sp = spec("kw10-prompt-v12-guardrail-diag-copilot",
              "diag-copilot 3.9.0 ships prompt diagnose-v12: the unsafe-advice guardrail blocks 35% of answers (3% before), HTTP 200 throughout",
              "diag-copilot", "14:30:00", "16:22:00", 3, {"root_cause": "prompt_regression", "verdict": "allow"}, "16:07",
              "3.9.0 rewrites the diagnosis prompt (diagnose-v12) to 'give the owner the fastest fix'; the model now tells owners to bridge the compressor's high-pressure lockout, which the unsafe-service-advice guardrail blocks and replaces with a canned reply. Every answer is HTTP 200; completion tokens grow. Rolling back to 3.8.2 restores v11.",
              ["node", "hono", "openai", "guardrail", "quality-attribute", "http-200", "probabilistic-1-in-3"],
              ("CopilotGuardrailBlocks", "support", "6.3", "16:14:00"),
              [rel("diag-copilot", ("3.8.2", "2026-12-09T11:12:40.500"), ("3.9.0", "16:07:31.207"))])

    def build(w):
        r = at("16:07:31.207")
        w.fleet("diag-copilot", [("3.8.2", 3, w.start - 5 * 1440 * MIN, r + 30 * S, None),
                                 ("3.9.0", 3, r, None, None)])
        w.marker("diag-copilot", "3.9.0", "3.8.2", r + 240 * MS, "v3.9.0")

        def one(t):
            out, tid = [], w.hex(32)
            pod = w.pod("diag-copilot", t)
            new = pod.ver == "3.9.0"
            blocked = w.rng.random() < (0.35 if new else 0.03)
            pt = int(lat(w, 1850 if new else 1620, 0.15))
            ct = int(lat(w, 410 if new else 240, 0.3))
            llm = ct * 9.5 + lat(w, 300)
            dur = llm + 60 + lat(w, 25)
            h = hono(w, out, tid, pod, t, "POST", "/v1/diagnose", "/v1/diagnose", 200, dur)
            out[-1][1]["attributes"].update({"copilot.prompt.template": "diagnose-v12" if new else "diagnose-v11",
                                             "copilot.answer.guardrail": "blocked" if blocked else "passed",
                                             "copilot.device.model": w.rng.choice(["hp-x3", "hp-x4", "ev-c2"])})
            w.span(out, tid, pod, "openai.chat", 3, t + 40 * MS, llm, parent=h, attrs={
                "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-2024-11-20", "llm.request.type": "chat",
                "gen_ai.response.model": "gpt-4o-2024-11-20", "gen_ai.usage.prompt_tokens": pt,
                "gen_ai.usage.completion_tokens": ct, "server.address": "api.openai.com"})
            w.span(out, tid, pod, "guardrail.evaluate", 1, t + int((llm + 45) * MS), lat(w, 12), parent=h, attrs={
                "guardrail.name": "unsafe-service-advice", "guardrail.result": "fail" if blocked else "pass"})
            if blocked:
                nodelog(w, pod, t + int(dur * MS), "WARN", "guardrail unsafe-service-advice blocked answer; sent fallback",
                        tid, h, template="diagnose-v12" if new else "diagnose-v11")
            w.keep(tid, out)
        w.each_request(lambda t: 34, one)
    sp["build"] = build
    return sp


# R5 --------------------------------------------------------------------------------------------
def r5_ota_keyid():
    sp = spec("kw10-manifest-key-id-ota-svc",
              "ota-svc 4.1.0 signs hp-x4 and ev-c2 manifests with a key id its keyring lacks: 500 on 40% of GET manifest, pod by pod over a 5-minute rolling update",
              "ota-svc", "08:40:00", "10:29:00", 10, {"root_cause": "bad_release", "verdict": "allow"}, "10:12",
              "4.1.0 moves manifest signing to key kw-2026b for the newer models but the keyring loader still reads only the 2025 keys file. Manifests of hp-x4 and ev-c2 fail on 4.1.0 pods; the status route is untouched. The rolling update replaces one pod in six every 50 s, so the failure grows pod by pod. Rolling back to 4.0.2 signs with kw-2025a again.",
              ["grpc-gateway", "rolling-update", "one-operation", "no-service-version", "probabilistic-1-in-10"],
              ("OtaManifest5xx", "fleet", "10.4", "10:19:00"),
              [rel("ota-svc", ("4.0.2", "2026-12-08T14:44:10.000"), ("4.1.0", "10:12:03.118"))])

    def build(w):
        r = at("10:12:03.118")
        pods = []
        for i in range(6):
            pods.append(Pod(w, "ota-svc", "4.0.2", w.start - 6 * 1440 * MIN, r + (i + 1) * 50 * S))
            pods.append(Pod(w, "ota-svc", "4.1.0", r + i * 50 * S))
        w.pods["ota-svc"] = pods
        w.marker("ota-svc", "4.1.0", "4.0.2", r + 402 * MS, "v4.1.0")

        def fail(t, p, model):
            if p.ver == "4.1.0" and model in ("hp-x4", "ev-c2"):
                return 'sign manifest: unknown key id "kw-2026b" in keyring (loaded: kw-2024a, kw-2025a)'
            return None
        ota_traffic(w, lambda t: 180, fail=fail)
    sp["build"] = build
    return sp


# T1 --------------------------------------------------------------------------------------------
def t1_failover(rel_t="14:19:40.512", fail_at="14:21:30", one_in=12, ident="kw10-trap-tsdb-failover-telemetry-writer",
                alert=("WriterBatchFailures", "pipeline", "16.5", "14:26:00"), now="14:30:00"):
    r, f = at(rel_t), at(fail_at)
    sp = spec(ident,
              "TimescaleDB's Patroni primary fails over at %s: COPY refused read-only, then connections refused, then a cold primary; telemetry-writer 5.0.3 rolled out %d s before" % (fail_at, (f - r) // S),
              "telemetry-writer", "12:50:00", now, one_in, {"root_cause": "dependency_outage", "verdict": "deny"},
              fail_at[:5],
              "The TimescaleDB primary's node loses its disk at %s; Patroni promotes the replica 50 s later. Meanwhile the writer's pooled connections land on the demoted node (SQLSTATE 25006, read-only transaction), then are refused, then the new primary is cold (slow COPY, timeouts). telemetry-writer 5.0.3 only bumped the NATS client; 5.0.2 would fail the same way." % fail_at,
              ["timescaledb", "patroni-failover", "nats-jetstream", "consumer-only", "no-service-version",
               "probabilistic-1-in-%d" % one_in],
              alert, [rel("telemetry-writer", ("5.0.2", "2026-12-07T16:05:12.771"), ("5.0.3", rel_t))])

    def build(w):
        w.fleet("telemetry-router", [("2.13.1", 4, w.start - 2 * 1440 * MIN, None, None)])
        w.fleet("telemetry-writer", [("5.0.2", 5, w.start - 6 * 1440 * MIN, r + 35 * S, None),
                                     ("5.0.3", 5, r, None, None)])
        w.marker("telemetry-writer", "5.0.3", "5.0.2", r + 288 * MS, "v5.0.3")

        def copy_err(t, p):
            if f <= t < f + 50 * S:
                return "ERROR: cannot execute COPY in a read-only transaction (SQLSTATE 25006)"
            if f + 50 * S <= t < f + 80 * S:
                return "failed to connect to `host=tsdb-rw.pipeline.svc user=writer database=telemetry`: dial error (dial tcp 10.43.18.7:5432: connect: connection refused)"
            if f + 80 * S <= t and w.rng.random() < 0.14 * (1 - ramp(t, f + 10 * MIN, f + 25 * MIN)):
                return "timeout: context deadline exceeded"
            return None
        writer_traffic(w, lambda t: 300, copy_err=copy_err,
                       slow=lambda t: 1 + 4 * (ramp(t, f + 80 * S, f + 90 * S) - ramp(t, f + 8 * MIN, f + 25 * MIN)))
        pat = {"service.name": "patroni", "k8s.namespace.name": "pipeline", "k8s.pod.name": "tsdb-1",
               "k8s.node.name": "hel1-db-02"}
        w.log(pat, f + 2 * S, "ERROR", "Error communicating with DCS / local disk: [Errno 5] Input/output error")
        w.log(pat, f + 50 * S, "INFO", "promoted self to leader by acquiring session lock",
              attrs={"patroni.member": "tsdb-2"})
    sp["build"] = build
    return sp


# T2 --------------------------------------------------------------------------------------------
def t2_purge(rel_t="10:40:15.330", purge="10:41:55", peak=7.0, one_in=15, ident="kw10-trap-cdn-purge-surge-ota-svc",
             alert=("OtaManifest5xx", "fleet", "11.9", "10:47:00"), now="10:52:00"):
    r, pu = at(rel_t), at(purge)
    sp = spec(ident,
              "a Fastly purge-all at %s sends every firmware-manifest request to origin (%.0fx): ota-svc sheds load with 503 until the HPA catches up; ota-svc 4.0.2 rolled out %d s before" % (purge, peak, (pu - r) // S),
              "ota-svc", "09:10:00", now, one_in, {"root_cause": "traffic_surge", "verdict": "deny"}, purge[:5],
              "The web team's catalogue deploy calls Fastly's purge_all, not a surrogate-key purge. Every device polling its manifest misses the edge; origin traffic on GET manifest rises %.0fx within a minute, the in-flight limiter sheds 503s, the HPA adds four pods two minutes later. ota-svc 4.0.2 (a dependency bump) served cleanly for %d s; 4.0.1 would shed the same." % (peak, (pu - r) // S),
              ["cdn", "fastly", "purge", "hpa", "grpc-gateway", "no-service-version", "probabilistic-1-in-%d" % one_in],
              alert, [rel("ota-svc", ("4.0.1", "2026-12-03T09:30:00.000"), ("4.0.2", rel_t))])

    def build(w):
        pods = [Pod(w, "ota-svc", "4.0.1", w.start - 11 * 1440 * MIN, r + 45 * S) for _ in range(4)]
        pods += [Pod(w, "ota-svc", "4.0.2", r + i * 10 * S) for i in range(4)]
        pods += [Pod(w, "ota-svc", "4.0.2", pu + (130 + i * 8) * S) for i in range(4)]
        w.pods["ota-svc"] = pods
        w.marker("ota-svc", "4.0.2", "4.0.1", r + 215 * MS, "v4.0.2")
        surge = lambda t: 1 + (peak - 1) * (ramp(t, pu, pu + 60 * S) - 0.6 * ramp(t, pu + 4 * MIN, pu + 16 * MIN))
        live = lambda t: len([p for p in w.pods["ota-svc"] if p.start <= t and (p.end is None or t < p.end)])

        def status(t, p):
            over = surge(t) * 4 / max(1, live(t)) / 2.2
            return 503 if over > 1 and w.rng.random() < min(0.45, (over - 1) * 0.5) else None

        def client(t):
            return {"client.address": "151.101.%d.%d" % (w.rng.randrange(0, 200), w.rng.randrange(1, 250)),
                    "http.request.header.fastly-ff": "cache-fra-etou8220%d-FRA" % w.rng.randrange(10, 99)}
        ota_traffic(w, lambda t: 160 * surge(t) if t >= pu else 160, status=status,
                    slow=lambda t, p: 1 + 2.5 * max(0, min(1, (surge(t) * 4 / max(1, live(t)) - 1))), client=client)
        for p in pods[8:]:
            golog(w, p, p.start + 3 * S, "INFO", "ota-svc listening", grpc_addr=":9090", http_addr=":8080")
        w.log({"service.name": "catalog-web", "k8s.namespace.name": "web"}, pu - 2 * S, "INFO",
              "deploy hook: fastly purge_all service=6Zx1kwFw status=ok")
    sp["build"] = build
    return sp


# T3 --------------------------------------------------------------------------------------------
def t3_compactor(rel_t="11:27:10.004", run="11:30:00", start="10:09:00", now="11:41:00", one_in=12,
                 ident="kw10-trap-cron-compactor-telemetry-writer", every=30,
                 alert=("WriterBatchFailures", "pipeline", "8.8", "11:37:00")):
    r, ru = at(rel_t), at(run)
    sp = spec(ident,
              "the rollup-compactor CronJob's month-end run at %s compresses 3x the chunks: the writer's pgxpool runs dry and COPY slows; telemetry-writer 5.0.4 rolled out %d s before" % (run, (ru - r) // S),
              "telemetry-writer", start, now, one_in, {"root_cause": "db_pool_exhaustion", "verdict": "deny"},
              run[:5],
              "rollup-compactor (a Kubernetes CronJob, */%d, its own image unchanged for weeks) compresses chunks and refreshes continuous aggregates; its run at %s holds the readings hypertable's chunk locks for minutes. COPY waits on the locks, the writer's pool of 8 stays checked out and new batches time out acquiring (pgxpool, no database span). Earlier runs in the history slowed the writer without failures. 5.0.4 changed a log field; 5.0.3 would wait the same." % (every, run),
              ["timescaledb", "cronjob", "pgxpool", "nats-jetstream", "no-service-version",
               "probabilistic-1-in-%d" % one_in],
              alert, [rel("telemetry-writer", ("5.0.3", "2026-12-11T14:19:40.512"), ("5.0.4", rel_t))])

    def build(w):
        w.fleet("telemetry-router", [("2.13.1", 4, w.start - 2 * 1440 * MIN, None, None)])
        w.fleet("telemetry-writer", [("5.0.3", 5, w.start - 3 * 1440 * MIN, r + 35 * S, None),
                                     ("5.0.4", 5, r, None, None)])
        w.fleet("rollup-compactor", [])
        w.marker("telemetry-writer", "5.0.4", "5.0.3", r + 301 * MS, "v5.0.4")
        runs = []
        t = ru
        while t - every * MIN >= w.start - 5 * MIN:
            t -= every * MIN
        while t <= ru:
            runs.append(t)
            t += every * MIN

        def heavy(t):
            k = 0.0
            for x in runs:
                big = 1.0 if x == ru else 0.3
                k = max(k, big * (ramp(t, x + 20 * S, x + 60 * S) - ramp(t, x + (13 if x == ru else 4) * MIN,
                                                                          x + (15 if x == ru else 5) * MIN)))
            return k

        def acquire(t, p):
            h = heavy(t)
            if h > 0.5 and w.rng.random() < 0.26 * h:
                return ("failed to acquire connection: context deadline exceeded (pgxpool: 8 of 8 in use)", 2000 + lat(w, 5))
            return None
        writer_traffic(w, lambda t: 300, slow=lambda t: 1 + 4.5 * heavy(t), acquire=acquire)
        for x in runs:
            job = "rollup-compactor-%d" % (29000000 + (x - at("00:00:00")) // MIN)
            pod = Pod(w, "rollup-compactor", "1.9.0", x, x + 12 * MIN)
            pod.name = pod.res["k8s.pod.name"] = job + "-" + pod.name[-5:]
            pod.res["k8s.cronjob.name"] = "rollup-compactor"
            pod.res["k8s.job.name"] = job
            w.pods["rollup-compactor"].append(pod)
            n = 14 if x == ru else 5
            tid = w.hex(32)
            out = []
            tot = ((13 if x == ru else 4) * 60 - 25) * 1000
            root = w.span(out, tid, pod, "compaction run", 1, x + 4 * S, tot, attrs={"compactor.chunks": n,
                                                                                      "compactor.job": job})
            for i in range(n):
                c0 = x + 6 * S + int(tot / n * i * MS)
                pgx(w, out, tid, pod, c0, tot / n - 200, "CALL", "compress_chunk",
                    "CALL compress_chunk('_timescaledb_internal._hyper_3_%d_chunk')" % (8800 + i), root)
            w.spans.extend(out)
            golog(w, pod, x + 3 * S, "INFO", "compaction starting", chunks=n, hypertable="readings")
            golog(w, pod, x + 4 * S + tot * MS, "INFO", "compaction finished", chunks=n)
    sp["build"] = build
    return sp


# T4 --------------------------------------------------------------------------------------------
def t4_noisy_node(rel_t="11:02:00.774", noisy="11:05:40", on_node=3, one_in=10,
                  ident="kw10-trap-noisy-node-fleet-api", alert=("FleetApi5xx", "fleet", "7.9", "11:11:00"),
                  now="11:16:00"):
    r, nz = at(rel_t), at(noisy)
    sp = spec(ident,
              "a retraining job lands on hel1-worker-07 at %s and starves its CPU: the %d fleet-api pods there stall (event-loop lag, 503), the other pods of the same version are clean; fleet-api 6.3.1 rolled out %d s before" % (noisy, on_node, (nz - r) // S),
              "fleet-api", "09:40:00", now, one_in, {"root_cause": "resource_saturation", "verdict": "deny"}, noisy[:5],
              "The data team's ml-retrain Job has no CPU limit and is scheduled onto hel1-worker-07; CPU steal on the node reaches 70%%. The %d fleet-api pods there (6.3.1, like every pod) block their event loops for seconds; Hono's timeout middleware answers 503. The same 6.3.1 serves cleanly on the other nodes. Rolling back would reschedule pods and hide it for a while at best." % on_node,
              ["node", "hono", "prisma", "noisy-neighbour", "k8s-node", "probabilistic-1-in-%d" % one_in],
              alert, [rel("fleet-api", ("6.3.0", "2026-12-10T10:10:10.100"), ("6.3.1", rel_t))])

    def build(w):
        others = [n for n in NODES if n != "hel1-worker-07"]
        pods = [Pod(w, "fleet-api", "6.3.0", w.start - 4 * 1440 * MIN, r + 80 * S, others[i % 8]) for i in range(8)]
        pods += [Pod(w, "fleet-api", "6.3.1", r + i * 10 * S,
                     node="hel1-worker-07" if i in (1, 4, 6)[:on_node] else others[(i + 3) % 8]) for i in range(8)]
        w.pods["fleet-api"] = pods
        w.marker("fleet-api", "6.3.1", "6.3.0", r + 198 * MS, "v6.3.1")
        hot = lambda t, p: p.node == "hel1-worker-07" and t >= nz
        steal = lambda t: ramp(t, nz, nz + 40 * S)

        def fail(t, p, route):
            if hot(t, p) and w.rng.random() < 0.3 * steal(t):
                return ("timeout", "Request timeout after 5000ms (event loop lag)", 5000 + lat(w, 5))
            return None
        fleet_traffic(w, lambda t: 400, fail=fail, slow=lambda t, p: 1 + 7 * steal(t) if hot(t, p) else 1.0)
        t = nz + 20 * S
        while t < w.now:
            for p in pods:
                if p.node == "hel1-worker-07" and p.ver == "6.3.1":
                    nodelog(w, p, t + w.rng.randrange(S), "WARN", "event loop blocked for %dms" % int(lat(w, 900)),
                            **{"eventLoop.utilization": round(0.97 + w.rng.random() * 0.03, 3)})
            t += 15 * S
        w.log({"service.name": "ml-retrain", "k8s.namespace.name": "data", "k8s.node.name": "hel1-worker-07",
               "k8s.pod.name": "ml-retrain-28893120-q8x2m"}, nz - 5 * S, "INFO", "epoch 1/40 starting, 32 dataloader workers")
    sp["build"] = build
    return sp


# T5 --------------------------------------------------------------------------------------------
def t5_payload_oom(rel_t="08:47:30.219", campaign="08:49:10", one_in=8, ident="kw10-trap-payload-oom-telemetry-router",
                   alert=("RouterProcessErrors", "pipeline", "10.2", "08:55:00"), now="09:00:00"):
    r, c = at(rel_t), at(campaign)
    sp = spec(ident,
              "an OTA campaign moves hp-x4 heat pumps to firmware 3.2, which sends 12x larger batches: telemetry-router pods hit their memory limit and are OOM-killed in turn; telemetry-router 2.13.2 rolled out %d s before" % ((c - r) // S),
              "telemetry-router", "07:20:00", now, one_in, {"root_cause": "resource_saturation", "verdict": "deny"},
              campaign[:5],
              "Firmware 3.2 for hp-x4 batches a minute of 1 Hz samples instead of ten aggregates: messages from those devices grow from ~3.9 KB to ~47 KB (messaging.message.body.size on ingest-gw's publish and the router's process spans). The router decodes whole batches in memory; its 2 GiB pods are OOM-killed every minute or two, JetStream redelivers, processing times out. 2.13.2 changed a log format; 2.13.1 would fall over the same way.",
              ["nats-jetstream", "oom", "crashloop", "payload-size", "ota-campaign", "no-service-version",
               "probabilistic-1-in-%d" % one_in],
              alert, [rel("telemetry-router", ("2.13.1", "2026-12-12T09:40:02.301"), ("2.13.2", rel_t))])

    def build(w):
        w.fleet("ingest-gw", [("3.7.4", 6, w.start - 4 * 1440 * MIN, None, None)])
        w.fleet("device-registry", [("6.2.1", 4, w.start - 9 * 1440 * MIN, None, None)])
        olds = w.fleet("telemetry-router", [("2.13.1", 4, w.start - 2 * 1440 * MIN, r + 45 * S, None)])
        news = [Pod(w, "telemetry-router", "2.13.2", r + i * 15 * S) for i in range(4)]
        w.pods["telemetry-router"] = olds + news
        w.marker("telemetry-router", "2.13.2", "2.13.1", r + 266 * MS, "v2.13.2")
        share = lambda t: 0.3 * ramp(t, c, c + 3 * MIN)
        oom = {p.name: c + (95 + 20 * i) * S for i, p in enumerate(news)}

        def size(t, m):
            return int(lat(w, 47000 if m == "hp-x4-3.2" else 3900, 0.1))

        def model(t):
            x = w.rng.random()
            return "hp-x4-3.2" if x < share(t) else ("hp-x4" if x < 0.3 else "hp-x3")

        def router(w, out, tid, t, sz, parent, m):
            pod = w.pod("telemetry-router", t)
            if pod.ver == "2.13.2":
                while t >= oom[pod.name]:
                    o = oom[pod.name]
                    pod.restarts += 1
                    golog(w, pod, o + 8 * S, "INFO", "telemetry-router starting", version="2.13.2", stream="TELEMETRY",
                          last_state="OOMKilled")
                    oom[pod.name] = o + (55 + w.rng.randrange(50)) * S
                left = (oom[pod.name] - t) / S
                if left < 20 and w.rng.random() < 0.3:
                    golog(w, pod, t, "WARN", "memory limit approaching", heap_inuse="1.86GiB", gomemlimit="2GiB")
            pressure = share(t) / 0.3
            big = m == "hp-x4-3.2"
            d = lat(w, 2.4 * (1 + 6 * pressure) * (4 if big else 1))
            err = None
            if pressure > 0.3 and w.rng.random() < (0.45 if big else 0.16) * pressure:
                err, d = "normalize: context deadline exceeded", 2000 + lat(w, 3)
            s = nats_process(w, out, tid, pod, t, d, "telemetry.raw", "router", sz, parent,
                             1 + (w.rng.random() < 0.4 * pressure), err, "hp-x4" if big else m)
            if big:
                out[-1][1]["attributes"]["kilnwatt.device.fw_version"] = "3.2.0"
            if not err:
                nats_pub(w, out, tid, pod, t + int(d * 0.8 * MS), "telemetry.normalized", int(sz * 0.7), s)
        ingest_traffic(w, lambda t: 240, size=size, model=model, router=router)
        w.log({"service.name": "ota-svc", "k8s.namespace.name": "fleet"}, c - 20 * S, "INFO",
              "campaign c-2291 wave 3 started: model=hp-x4 firmware=3.2.0 devices=41200")
    sp["build"] = build
    return sp


# T6 --------------------------------------------------------------------------------------------
def t6_quota(rel_t="18:59:10.045", q_at="19:02:30", one_in=6, ident="kw10-trap-gridprice-quota-tariff-svc"):
    r, q = at(rel_t), at(q_at)
    sp = spec(ident,
              "the day-ahead price API answers 429 (quota) from %s; tariff-svc's rolling update to 2.4.0 stalled at 3 of 6 pods, and both versions fail alike" % q_at,
              "tariff-svc", "17:30:00", "19:15:00", one_in, {"root_cause": "dependency_outage", "verdict": "deny"}, q_at[:5],
              "gridprice.eu's plan quota is recounted at its own 00:00 UTC; the shared key is over it from 19:02:30 local and every day-ahead call answers 429 with Retry-After 3600. tariff-svc's rolling update to 2.4.0 stalled (a pod Pending on capacity) with three pods of each version; both versions answer 502 on price lookups in the same proportion.",
              ["node", "hono", "undici", "external-api", "429", "stalled-rollout", "probabilistic-1-in-%d" % one_in],
              ("TariffPrices5xx", "energy", "9.1", "19:08:00"),
              [rel("tariff-svc", ("2.3.5", "2026-12-02T12:00:31.000"), ("2.4.0", rel_t))])

    def build(w):
        pods = [Pod(w, "tariff-svc", "2.3.5", w.start - 12 * 1440 * MIN, r + (i + 1) * 20 * S if i < 3 else None)
                for i in range(6)]
        pods += [Pod(w, "tariff-svc", "2.4.0", r + i * 20 * S) for i in range(3)]
        w.pods["tariff-svc"] = pods
        w.marker("tariff-svc", "2.4.0", "2.3.5", r + 150 * MS, "v2.4.0")

        def one(t):
            out, tid = [], w.hex(32)
            pod = w.pod("tariff-svc", t)
            zone = w.rng.choice(["DE-LU", "NL", "AT", "BE", "DK1"])
            quota = t >= q and w.rng.random() < 0.55 * ramp(t, q, q + 30 * S)
            cached = (not quota) and w.rng.random() < 0.45
            st = 502 if quota else 200
            dext = lat(w, 140)
            dur = (2 + lat(w, 3)) if cached else dext + lat(w, 6)
            h = hono(w, out, tid, pod, t, "GET", "/v1/tariffs/:zone/prices", "/v1/tariffs/%s/prices" % zone, st, dur)
            if not cached:
                w.span(out, tid, pod, "GET", 3, t + 2 * MS, dext, parent=h, err="HTTP 429" if quota else None, attrs={
                    "http.request.method": "GET", "url.full": "https://api.gridprice.eu/v2/day-ahead?zone=%s" % zone,
                    "server.address": "api.gridprice.eu", "server.port": 443,
                    "http.response.status_code": 429 if quota else 200})
            if quota:
                nodelog(w, pod, t + int(dur * MS), "ERROR", "gridprice day-ahead fetch failed: 429 Too Many Requests "
                        "(quota exceeded for plan pro-2; retry-after 3600)", tid, h, zone=zone)
            w.keep(tid, out)
        w.each_request(lambda t: 90, one)
    sp["build"] = build
    return sp


# ---------------------------------------------------------------- writing

# T7 (twins only) --------------------------------------------------------------------------------
def t7_sidecar_registry(rel_t="09:31:20.210", fail_at="09:33:40", share=0.45, slow=False, one_in=8,
                        ident="kw10-twin-sidecar-registry-ingest-gw", start="08:05:00", now="09:45:00",
                        alert=("IngestReadings5xx", "ingest", "12.2", "09:38:00")):
    """A mesh sidecar on loopback: ingest-gw's calls to device-registry go to 127.0.0.1:15001 (envoy's
    outbound listener), the same address its grpc-gateway calls itself on (127.0.0.1:9090); beneath the
    sidecar's call is device-registry's server span. device-registry's database fails it by itself
    (or slows it) minutes after a release of ingest-gw that changed nothing that matters."""
    sp = spec(ident,
              "device-registry fails ingest-gw's lookups through the mesh sidecar on 127.0.0.1 (%s) %s after ingest-gw 3.8.1"
              % ("slow: 504s" if slow else "UNAVAILABLE: 503s", fail_at),
              "ingest-gw", start, now, one_in, {"root_cause": "dependency_outage", "verdict": "deny"}, fail_at[:5],
              "ingest-gw 3.8.1 bumps its NATS client; its pods reach device-registry through the mesh sidecar on "
              "127.0.0.1:15001, the address its grpc-gateway calls itself on (127.0.0.1:9090). device-registry's "
              "database %s by itself; 3.8.0 would fail the same way." %
              ("slows it past ingest-gw's 800 ms deadline" if slow else "refuses it (the registry answers UNAVAILABLE)"),
              ["grpc-gateway", "mesh-sidecar-loopback", "no-service-version", "probabilistic-1-in-%d" % one_in],
              alert, [rel("ingest-gw", ("3.8.0", "2026-12-10T15:02:11.420"), ("3.8.1", rel_t))])

    def build(w):
        r, f = at(rel_t), at(fail_at)
        w.fleet("ingest-gw", [("3.8.0", 6, w.start - 4 * 1440 * MIN, r + 40 * S, None), ("3.8.1", 6, r, None, None)])
        w.fleet("device-registry", [("6.2.1", 4, w.start - 9 * 1440 * MIN, None, None)])
        w.fleet("telemetry-router", [("2.13.1", 4, w.start - 2 * 1440 * MIN, None, None)])
        w.marker("ingest-gw", "3.8.1", "3.8.0", r + 280 * MS, "v3.8.1")
        if slow:
            reg = lambda t: 60.0 + 900.0 * ramp(t, f, f + 90 * S)
            ingest_traffic(w, lambda t: 240, reg_ms=reg, reg_host="127.0.0.1", reg_port=15001)
        else:
            fail = lambda t: ("pg: connection refused (pg-registry.ingest.svc:5432)"
                              if t >= f and w.rng.random() < share else None)
            ingest_traffic(w, lambda t: 240, reg_host="127.0.0.1", reg_port=15001, reg_fail=fail)
    sp["build"] = build
    return sp


def q(s):
    return json.dumps(s)


def incident_yaml(sp):
    e = sp["expect"]
    lines = ["id: " + sp["id"], "title: " + q(sp["title"]), "service: " + sp["service"],
             "now: %sT%s.000-05:00" % (DAY, sp["now"]), "expect:", "  root_cause: " + e["root_cause"],
             "  verdict: " + e["verdict"], "tags: [heldout10, kilnwatt, %s]" % ", ".join(sp["tags"])]
    return "\n".join(lines) + "\n"


def releases_yaml(sp):
    out = ["project: kilnwatt", "services:"]
    for svc, entries in sp["releases"]:
        out.append("  %s:" % svc)
        for v, t in entries:
            out += ['    - version: "%s"' % v, "      image: %s/%s:%s" % (REG, svc, v),
                    "      deployed_at: %s-05:00" % t]
    return "\n".join(out) + "\n"


def alert_json(sp):
    name, team, burn, starts = sp["alert"]
    labels = {"alertname": name, "service.name": sp["service"], "severity": "critical", "team": team,
              "k8s.cluster.name": "hel1-prod", "deployment.environment.name": "production"}
    ann = {"summary": "%s: SLO burn %sx" % (sp["service"], burn), "burn_rate": burn,
           "description": "%s is burning its 28d error budget (1h window)" % sp["service"],
           "dashboard": "https://signoz.kilnwatt.io/services/%s" % sp["service"]}
    fp = hashlib.sha1((sp["id"] + name).encode()).hexdigest()[:16]
    a = {"status": "firing", "labels": labels, "annotations": ann,
         "startsAt": "%sT%s.000-05:00" % (DAY, starts), "endsAt": "0001-01-01T00:00:00Z",
         "generatorURL": "https://signoz.kilnwatt.io/alerts/history?ruleName=" + name, "fingerprint": fp}
    body = {"receiver": "kilnwatt-pagerduty", "status": "firing", "alerts": [a], "groupLabels": {"alertname": name},
            "commonLabels": labels, "commonAnnotations": ann, "externalURL": "https://signoz.kilnwatt.io",
            "version": "4", "groupKey": "{}:{alertname=\"%s\"}" % name, "truncatedAlerts": 0}
    return json.dumps(body, indent=2) + "\n"


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
    sp = make()
    w = World(sp)
    sp["build"](w)
    folder = os.path.join(root, sp["id"])
    os.makedirs(folder, exist_ok=True)
    w.spans.sort(key=lambda x: (x[0], x[1]["span_id"]))
    w.logs.sort(key=lambda x: (x[0], x[1]["span_id"], x[1]["body"]))
    for name, text in (("incident.yaml", incident_yaml(sp)), ("alert.json", alert_json(sp)),
                       ("releases.yaml", releases_yaml(sp))):
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    e = {"root_cause": sp["expect"]["root_cause"], "verdict": sp["expect"]["verdict"],
         "sampling": "the collector's probabilistic_sampler, 1 in %d by trace id (logs unsampled)" % sp["one_in"],
         "history_minutes": (w.now - w.start) // MIN, "onset": sp["onset"], "story": sp["story"]}
    with open(os.path.join(folder, "expect.json"), "w") as f:
        f.write(json.dumps(e, indent=2) + "\n")
    n = write_jsonl(folder, "spans.jsonl", [s for _, s in w.spans])
    write_jsonl(folder, "logs.jsonl", [x for _, x in w.logs])
    print("%-50s spans %6d (%4.1f MB) logs %6d" % (sp["id"], len(w.spans), n / 1e6, len(w.logs)))


CORPUS = [r1_retry_storm, r2_crashloop, r3_prisma_pool, r4_prompt, r5_ota_keyid,
          t1_failover, t2_purge, t3_compactor, t4_noisy_node, t5_payload_oom, t6_quota]
TWINS = {
    "noisy-node-fast": lambda: t4_noisy_node(rel_t="11:02:00.774", noisy="11:03:55", on_node=2, one_in=20,
                                             ident="kw10-twin-noisy-node-fast-fleet-api",
                                             alert=("FleetApi5xx", "fleet", "6.1", "11:09:00"), now="11:13:00"),
    "payload-oom-fast": lambda: t5_payload_oom(rel_t="08:47:30.219", campaign="08:48:05", one_in=16,
                                               ident="kw10-twin-payload-oom-fast-telemetry-router",
                                               alert=("RouterProcessErrors", "pipeline", "11.0", "08:53:00"),
                                               now="08:58:00"),
    "compactor-close": lambda: t3_compactor(rel_t="11:29:05.500", run="11:30:00", start="10:50:00", now="11:40:00",
                                            one_in=15, every=60, ident="kw10-twin-compactor-close-telemetry-writer",
                                            alert=("WriterBatchFailures", "pipeline", "9.4", "11:36:00")),
    "purge-small": lambda: t2_purge(rel_t="10:41:05.330", purge="10:41:55", peak=3.2, one_in=20,
                                    ident="kw10-twin-purge-small-ota-svc",
                                    alert=("OtaManifest5xx", "fleet", "5.2", "10:48:00"), now="10:53:00"),
    # h50self's twins of the loopback reading (facts.SelfCallPeers): the same loopback address as
    # grpc-gateway's self call, a mesh sidecar's, another service beneath.
    "sidecar-registry": lambda: t7_sidecar_registry(),
    "sidecar-registry-slow": lambda: t7_sidecar_registry(rel_t="14:02:11.870", fail_at="14:04:05", slow=True, one_in=10,
                                                         ident="kw10-twin-sidecar-registry-slow-ingest-gw",
                                                         start="12:40:00", now="14:15:00",
                                                         alert=("IngestReadings5xx", "ingest", "9.6", "14:09:00")),
}


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--twin":
        for name in sys.argv[3:]:
            generate(TWINS[name], sys.argv[2])
        return
    for make in CORPUS:
        generate(make, HERE)


if __name__ == "__main__":
    main()
