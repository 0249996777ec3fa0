#!/usr/bin/env python3
"""Generates e2e/incidents-heldout6: a parcel and freight carrier's platform ("Kestrel").

Run from this folder: `python3 gen.py`. Seeded (SEED below): every file comes out byte for
byte the same on every run, whatever PYTHONHASHSEED. Files over 3 MB are written gzip'd
with no name and mtime 0. `python3 gen.py --twin DIR NAME...` writes the adversarial twins
(README.md, "Twins") outside the corpus.

Style (README.md): .NET 8 services (ASP.NET Core, HttpClient with the standard resilience
handler, SqlClient / EF Core, StackExchange.Redis, Azure Service Bus) traced by OpenTelemetry
.NET with the current HTTP semconv (http.request.method, url.path, http.route,
http.response.status_code, error.type, server.address, http.request.resend_count), SqlClient
with db.system.name/db.namespace/db.response.status_code, EF Core and StackExchange.Redis with
the older db.system/db.name/net.peer.name; Python services (FastAPI, httpx, SQLAlchemy,
redis-py, Celery, the OpenAI v2 instrumentation with gen_ai.*) with opentelemetry-python's
default (old) semconv: http.method, http.target, http.status_code, http.url, no
server.address on httpx spans; a YARP gateway (itself ASP.NET Core) in front; exceptions as
span events; ILogger and Python logs in OTLP shape for every request whatever the sampler
kept; head sampling 1 in 3 to 1 in 25 (parent-based, trace-id ratio) and one collector tail
sampler that writes SampleRate on what it keeps; timestamps with .NET's seven fractional
digits and Z.

Every request is simulated (so the logs and the kept traces agree); only kept traces are
written.
"""
import gzip
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timezone

SEED = 604217
HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000
MS = 1_000_000
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024
DOMAIN = "kestrel-freight.example"


def ts(ns):
    """RFC 3339, UTC, .NET's seven fractional digits (100 ns ticks), Z."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%07dZ" % (frac // 100)


def at(s):
    """'2026-12-05T10:07:12.4801' (UTC) to ns."""
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(d.timestamp()) * S + int((frac + "000000000")[:9])


def hexid(rng, n):
    return "%0*x" % (n, rng.getrandbits(4 * n))


def lognormal(rng, median, sigma=0.3):
    return median * math.exp(rng.gauss(0, sigma))


def poisson(rng, lam):
    if lam > 40:
        return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))
    n, p, L = 0, 1.0, math.exp(-lam)
    while True:
        p *= rng.random()
        if p <= L:
            return n
        n += 1


def ramp(t, a, b):
    if t <= a:
        return 0.0
    if t >= b:
        return 1.0
    return (t - a) / (b - a)


# ---------------------------------------------------------------- services

DOTNET = {"telemetry.sdk.language": "dotnet", "telemetry.sdk.name": "opentelemetry",
          "telemetry.sdk.version": "1.10.0", "process.runtime.name": ".NET",
          "process.runtime.version": "8.0.11", "process.runtime.description": ".NET 8.0.11"}
PYTHON = {"telemetry.sdk.language": "python", "telemetry.sdk.name": "opentelemetry",
          "telemetry.sdk.version": "1.28.2", "telemetry.auto.version": "0.49b2",
          "process.runtime.name": "cpython", "process.runtime.version": "3.12.7"}

# service -> (runtime, namespace)
SERVICES = {
    "edge-gateway": ("dotnet", "edge"),
    "booking-api": ("dotnet", "booking"),
    "tracking-api": ("dotnet", "tracking"),
    "geo-eta": ("python", "tracking"),
    "labels-api": ("dotnet", "carriers"),
    "dispatch-api": ("dotnet", "dispatch"),
    "pricing-api": ("dotnet", "pricing"),
    "orders-api": ("dotnet", "orders"),
    "invoicing-api": ("dotnet", "finance"),
    "billing-api": ("dotnet", "finance"),
    "shipping-bff": ("dotnet", "web"),
    "rates-api": ("python", "pricing"),
    "warehouse-api": ("dotnet", "warehouse"),
    "parcel-lookup": ("dotnet", "tracking"),
    "dispatch-copilot": ("python", "dispatch"),
    "copilot-worker": ("python", "dispatch"),
}

SQL_HOST = "sql-kestrel-prod.database.windows.net"
REDIS_HOST = "kestrel-prod.redis.cache.windows.net"
SB_HOST = "kestrel-prod.servicebus.windows.net"
OAI_HOST = "kestrel-oai.openai.azure.com"


class World:
    """One incident's world: releases (rollouts), the sampler, spans, logs."""

    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, spec["id"]))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.sampling = spec["sampling"]  # ("head", n) or ("tail", n, slow_ms)
        self.spans, self.logs = [], []
        self.gateway_version = "2.4.7"

    def version(self, svc, t):
        """The version serving one request at t: a rolling update moves pods over its duration."""
        cur = None
        for v, begin, secs in self.spec["roll"].get(svc, []):
            if begin is None:
                cur = v
                continue
            b = at(begin)
            if t < b:
                break
            if secs <= 0 or self.rng.random() < ramp(t, b, b + secs * S):
                cur = v
        return cur

    def pod(self, svc, ver):
        h = random.Random("%s/%s/%s" % (self.id, svc, ver))
        rs = "".join(h.choice("56789bcdf") for _ in range(10))
        tail = "".join(h.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
        return "%s-%s-%s" % (svc, rs, tail)

    def resource(self, svc, ver, extra=None):
        rt, ns = SERVICES[svc]
        pod = self.pod(svc, ver)
        r = {"service.name": svc, "service.version": ver, "service.namespace": "kestrel",
             "deployment.environment.name": "production", "k8s.namespace.name": ns,
             "k8s.deployment.name": svc, "k8s.pod.name": pod, "service.instance.id": pod,
             "host.name": pod, "cloud.provider": "azure", "cloud.region": "westeurope"}
        r.update(DOTNET if rt == "dotnet" else PYTHON)
        r["container.image.name"] = "kestrelacr.azurecr.io/%s/%s" % (ns, svc)
        if extra:
            r.update(extra)
        return r


class Trace:
    def __init__(self, w, t):
        self.w = w
        self.id = hexid(w.rng, 32)
        self.spans = []
        self.logs = []
        self.error = False
        self.t0 = t

    def sid(self):
        return hexid(self.w.rng, 16)

    def span(self, sid, svc, ver, name, kind, start, dur, parent, attrs, err=None, events=None):
        s = {"timestamp": ts(start), "trace_id": self.id, "span_id": sid, "parent_span_id": parent or "",
             "name": name, "kind": kind, "duration_nano": int(dur), "has_error": err is not None,
             "status_code": 2 if err is not None else 0, "status_message": err or "",
             "resource": self.w.resource(svc, ver), "attributes": attrs}
        if events:
            s["events"] = events
        if err is not None:
            self.error = True
        self.spans.append((start, s))
        return s

    def log(self, svc, ver, t, sev, body, sid="", attrs=None):
        num = {"Debug": 5, "Information": 9, "Warning": 13, "Error": 17,
               "DEBUG": 5, "INFO": 9, "WARNING": 13, "ERROR": 17}[sev]
        self.logs.append((t, {"timestamp": ts(t), "observed_timestamp": ts(t + 180 * US),
                              "severity_text": sev, "severity_number": num, "body": body,
                              "trace_id": self.id, "span_id": sid, "flags": 1,
                              "resource": self.w.resource(svc, ver), "attributes": attrs or {}}))

    def finish(self, root_dur):
        """The sampler's decision on the whole trace; logs are kept whatever it decides."""
        w = self.w
        self.w.logs.extend(self.logs)
        mode = w.sampling[0]
        if mode == "head":
            if int(self.id[16:], 16) >= (1 << 64) // w.sampling[1]:
                return
            w.spans.extend(self.spans)
            return
        # collector tail sampling: errors and slow traces always, the rest 1 in n; SampleRate says which
        n, slow = w.sampling[1], w.sampling[2]
        rate = 1 if (self.error or root_dur >= slow) else n
        if rate > 1 and int(self.id[16:], 16) >= (1 << 64) // n:
            return
        for t, s in self.spans:
            s["attributes"]["SampleRate"] = rate
            w.spans.append((t, s))


def exc_event(t, typ, msg, frames, python=False):
    if python:
        st = "Traceback (most recent call last):\n" + "".join(
            '  File "%s", line %d, in %s\n' % f for f in frames) + "%s: %s\n" % (typ, msg)
        attrs = {"exception.type": typ, "exception.message": msg, "exception.stacktrace": st,
                 "exception.escaped": "False"}
    else:
        st = "%s: %s\n" % (typ, msg) + "".join("   at %s\n" % f for f in frames)
        attrs = {"exception.type": typ, "exception.message": msg, "exception.stacktrace": st}
    return [{"name": "exception", "timestamp": ts(t), "attributes": attrs}]


# ---------------------------------------------------------------- one request

class Ctx:
    """A server span being built: its children are written against its id and a cursor."""

    def __init__(self, tr, svc, ver, t, parent):
        self.tr, self.w, self.svc, self.ver = tr, tr.w, svc, ver
        self.t = t
        self.sid = tr.sid()
        self.parent = parent
        self.cur = t + int(lognormal(tr.w.rng, 0.6, 0.2) * MS)

    def advance(self, ms):
        self.cur += int(ms * MS)

    # .NET HttpClient (System.Net.Http instrumentation, current semconv); one span per attempt
    def http(self, host, method, path, ms, status, err_type=None, resend=0, port=8080, scheme="http",
             exc=None):
        sid = self.tr.sid()
        a = {"http.request.method": method, "server.address": host, "server.port": port,
             "url.full": "%s://%s%s%s" % (scheme, host, "" if port in (80, 443) else ":%d" % port, path),
             "network.protocol.version": "1.1"}
        if status:
            a["http.response.status_code"] = status
        if resend:
            a["http.request.resend_count"] = resend
        err = None
        if err_type or (status and status >= 500):
            a["error.type"] = err_type or str(status)
            err = "" if not exc else exc[1]
        ev = exc_event(self.cur + int(ms * MS), *exc) if exc else None
        self.tr.span(sid, self.svc, self.ver, method, 3, self.cur, ms * MS, self.sid, a, err, ev)
        self.cur += int(ms * MS)
        return sid

    # SqlClient (OpenTelemetry.Instrumentation.SqlClient with the database semconv)
    def sql(self, db, text, ms, err_no=None, exc=None):
        sid = self.tr.sid()
        a = {"db.system.name": "microsoft.sql_server", "db.namespace": db, "db.query.text": text,
             "server.address": SQL_HOST, "server.port": 1433}
        err = None
        if err_no is not None:
            a["db.response.status_code"] = str(err_no)
            a["error.type"] = str(err_no)
            err = exc[1] if exc else ""
        ev = exc_event(self.cur + int(ms * MS), *exc) if exc else None
        self.tr.span(sid, self.svc, self.ver, db, 3, self.cur, ms * MS, self.sid, a, err, ev)
        self.cur += int(ms * MS)
        return sid

    # EF Core (OpenTelemetry.Instrumentation.EntityFrameworkCore: older db.* keys)
    def efcore(self, db, text, ms, exc=None):
        sid = self.tr.sid()
        a = {"db.system": "mssql", "db.name": db, "db.statement": text, "server.address": SQL_HOST,
             "peer.service": SQL_HOST}
        ev = exc_event(self.cur + int(ms * MS), *exc) if exc else None
        self.tr.span(sid, self.svc, self.ver, db, 3, self.cur, ms * MS, self.sid, a,
                     exc[1] if exc else None, ev)
        self.cur += int(ms * MS)
        return sid

    # StackExchange.Redis instrumentation
    def seredis(self, cmd, ms, exc=None):
        sid = self.tr.sid()
        a = {"db.system": "redis", "db.redis.flags": "DemandMaster", "db.statement": cmd,
             "net.peer.name": REDIS_HOST, "net.peer.port": 6380, "db.redis.database_index": 0}
        ev = exc_event(self.cur + int(ms * MS), *exc) if exc else None
        self.tr.span(sid, self.svc, self.ver, cmd, 3, self.cur, ms * MS, self.sid, a,
                     exc[1] if exc else None, ev)
        self.cur += int(ms * MS)
        return sid

    # Azure.Messaging.ServiceBus (Azure SDK ActivitySource)
    def sb_send(self, entity, ms, exc=None):
        sid = self.tr.sid()
        a = {"az.namespace": "Microsoft.ServiceBus", "messaging.system": "servicebus",
             "messaging.destination.name": entity, "messaging.operation": "publish",
             "server.address": SB_HOST, "messaging.batch.message_count": 1}
        if exc:
            a["error.type"] = exc[0]
        ev = exc_event(self.cur + int(ms * MS), *exc) if exc else None
        self.tr.span(sid, self.svc, self.ver, "ServiceBusSender.Send", 3, self.cur, ms * MS, self.sid, a,
                     exc[1] if exc else None, ev)
        self.cur += int(ms * MS)
        return sid

    # Python: httpx (old semconv: http.url, no server.address)
    def httpx(self, url, method, ms, status):
        sid = self.tr.sid()
        a = {"http.method": method, "http.url": url, "http.status_code": status}
        self.tr.span(sid, self.svc, self.ver, method, 3, self.cur, ms * MS, self.sid, a,
                     "" if status >= 500 else None)
        self.cur += int(ms * MS)
        return sid

    # Python: SQLAlchemy
    def sqla(self, db, stmt, ms, host):
        sid = self.tr.sid()
        a = {"db.system": "postgresql", "db.name": db, "db.statement": stmt, "db.user": "svc_" + db,
             "net.peer.name": host, "net.peer.port": 5432}
        self.tr.span(sid, self.svc, self.ver, "%s %s" % (stmt.split()[0], db), 3, self.cur, ms * MS,
                     self.sid, a)
        self.cur += int(ms * MS)
        return sid

    # Python: redis-py
    def pyredis(self, cmd, ms, host):
        sid = self.tr.sid()
        a = {"db.system": "redis", "db.statement": cmd + " ?", "db.redis.database_index": 0,
             "db.redis.args_length": 2, "net.peer.name": host, "net.peer.port": 6379, "net.transport": "ip_tcp"}
        self.tr.span(sid, self.svc, self.ver, cmd, 3, self.cur, ms * MS, self.sid, a)
        self.cur += int(ms * MS)
        return sid

    def dlog(self, sev, template, args, t=None, exc=None, category=None):
        """An ILogger record through the OTel .NET logs bridge: the template and its arguments."""
        body = template
        for k, v in args.items():
            body = body.replace("{%s}" % k, str(v))
        a = dict(args)
        a["{OriginalFormat}"] = template
        if category:
            a["log.category"] = category
        if exc:
            a["exception.type"], a["exception.message"] = exc[0], exc[1]
        self.tr.log(self.svc, self.ver, t or self.cur, sev, body, self.sid, a)

    def plog(self, sev, msg, fn, line, t=None, exc=None):
        a = {"code.filepath": "/app/%s/%s.py" % (self.svc.replace("-", "_"), fn.split(".")[0]),
             "code.function": fn.split(".")[-1], "code.lineno": line,
             "otelServiceName": self.svc, "otelTraceSampled": True}
        if exc:
            a["exception.type"], a["exception.message"] = exc[0], exc[1]
        self.tr.log(self.svc, self.ver, t or self.cur, sev, msg, self.sid, a)


def dotnet_server(tr, svc, t, parent, op, handler, attrs=None):
    """An ASP.NET Core server span; handler(c) writes the children, returns (status, exc)."""
    ver = tr.w.version(svc, t)
    c = Ctx(tr, svc, ver, t, parent)
    status, exc = handler(c)
    c.advance(lognormal(tr.w.rng, 1.2, 0.3))
    dur = c.cur - t
    path = op["path"](tr.w.rng) if callable(op["path"]) else op["path"]
    a = {"http.request.method": op["method"], "url.scheme": "http", "url.path": path,
         "http.route": op["route"], "http.response.status_code": status, "network.protocol.version": "1.1",
         "server.address": svc, "server.port": 8080, "user_agent.original": "YARP/2.2.0"}
    if attrs:
        a.update(attrs)
    err = None
    if exc:
        a["error.type"] = exc[0]
        err = exc[1]
    elif status >= 500:
        a["error.type"] = str(status)
        err = ""
    ev = exc_event(c.cur, *exc) if exc else None
    tr.span(c.sid, svc, ver, "%s %s" % (op["method"], op["route"]), 2, t, dur, parent, a, err, ev)
    if status >= 500 or exc:
        c.dlog("Error", "Request {Method} {Path} failed with {StatusCode}",
               {"Method": op["method"], "Path": path, "StatusCode": status}, t=c.cur, exc=exc,
               category="Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware")
    return c, status, dur


def python_server(tr, svc, t, parent, op, handler, attrs=None):
    """A FastAPI server span (opentelemetry-instrumentation-fastapi, default old semconv)."""
    ver = tr.w.version(svc, t)
    c = Ctx(tr, svc, ver, t, parent)
    status, exc = handler(c)
    c.advance(lognormal(tr.w.rng, 0.9, 0.3))
    dur = c.cur - t
    path = op["path"](tr.w.rng) if callable(op["path"]) else op["path"]
    a = {"http.scheme": "http", "http.host": "%s:8000" % svc, "net.host.port": 8000, "http.flavor": "1.1",
         "http.target": path, "http.url": "http://%s:8000%s" % (svc, path), "http.method": op["method"],
         "http.server_name": svc, "http.user_agent": op.get("ua", "python-httpx/0.27.2"),
         "net.peer.ip": "10.42.%d.%d" % (tr.w.rng.randrange(1, 30), tr.w.rng.randrange(2, 250)),
         "http.route": op["route"], "http.status_code": status}
    if attrs:
        a.update(attrs)
    err = "" if status >= 500 else None
    ev = exc_event(c.cur, exc[0], exc[1], exc[2], python=True) if exc else None
    if exc:
        err = "%s: %s" % (exc[0], exc[1])
    tr.span(c.sid, svc, ver, "%s %s" % (op["method"], op["route"]), 2, t, dur, parent, a, err, ev)
    if status >= 500:
        c.plog("ERROR", "Exception in ASGI application", "uvicorn.protocols.http.httptools_impl.run_asgi", 409,
               t=c.cur, exc=exc)
    return c, status, dur


def via_gateway(tr, t, svc, op, inner):
    """The YARP gateway: its own ASP.NET Core server span and the forwarder's HttpClient span."""
    w = tr.w
    gsid, fsid = tr.sid(), tr.sid()
    t1 = t + int(lognormal(w.rng, 0.4, 0.2) * MS)
    c, status, dur = inner(tr, t1 + int(0.3 * MS), fsid)
    fdur = dur + int(0.6 * MS)
    path = c.tr.spans[-1][1]["attributes"].get("url.path") or c.tr.spans[-1][1]["attributes"].get("http.target")
    prefix = "/" + op["route"].strip("/").split("/")[0] + "/" + op["route"].strip("/").split("/")[1]
    groute = prefix + "/{**catch-all}"
    gres = w.resource("edge-gateway", w.gateway_version)
    fa = {"http.request.method": op["method"], "server.address": svc, "server.port": 8080,
          "url.full": "http://%s:8080%s" % (svc, path), "network.protocol.version": "1.1",
          "http.response.status_code": status}
    if status >= 500:
        fa["error.type"] = str(status)
    ga = {"http.request.method": op["method"], "url.scheme": "https", "url.path": path, "http.route": groute,
          "http.response.status_code": status, "network.protocol.version": "2", "server.address": "api." + DOMAIN,
          "server.port": 443, "user_agent.original": op.get("client", "KestrelApp/5.12 (iOS 18.1)")}
    if status >= 500:
        ga["error.type"] = str(status)
    g = {"timestamp": ts(t), "trace_id": tr.id, "span_id": gsid, "parent_span_id": "",
         "name": "%s %s" % (op["method"], groute), "kind": 2, "duration_nano": fdur + int(1.1 * MS),
         "has_error": status >= 500, "status_code": 2 if status >= 500 else 0, "status_message": "",
         "resource": gres, "attributes": ga}
    f = {"timestamp": ts(t1), "trace_id": tr.id, "span_id": fsid, "parent_span_id": gsid,
         "name": op["method"], "kind": 3, "duration_nano": fdur, "has_error": status >= 500,
         "status_code": 2 if status >= 500 else 0, "status_message": "", "resource": gres, "attributes": fa}
    tr.spans.append((t, g))
    tr.spans.append((t1, f))
    return fdur + int(1.1 * MS)


# ---------------------------------------------------------------- running a world

def run(w, spec):
    """Every request of every entry operation, minute by minute; markers last."""
    ops = spec["ops"]
    load = spec.get("load", lambda t: 1.0)
    t = w.start
    while t < w.now:
        for op in ops:
            lam = op["rate"] * load(t) * (1 + 0.08 * math.sin((t - w.start) / (23 * MIN)))
            n = poisson(w.rng, lam)
            times = sorted(t + int(w.rng.random() * MIN) for _ in range(n))
            for tt in times:
                if tt >= w.now:
                    continue
                tr = Trace(w, tt)
                dur = op["run"](w, tr, tt, op)
                tr.finish(dur / MS)
        t += MIN
    for m in spec["markers"]:
        svc, ver, prev, when, extra = m
        tm = at(when)
        tr = Trace(w, tm)
        a = {"deployment.version": ver, "deployment.previous_version": prev,
             "deployment.id": extra.pop("deployment.id", "%s-%s" % (svc, ver))}
        a.update(extra.pop("attrs", {}))
        s = {"timestamp": ts(tm), "trace_id": tr.id, "span_id": tr.sid(), "parent_span_id": "",
             "name": "deployment.marker", "kind": 1, "duration_nano": 0, "has_error": False, "status_code": 0,
             "status_message": "", "resource": w.resource(svc, ver, extra), "attributes": a}
        w.spans.append((tm, s))


def entry(svc, op_spec, handler, python=False, gateway=True):
    """An entry operation: through the gateway (or called from inside) into svc's handler."""
    server = python_server if python else dotnet_server

    def go(w, tr, t, op):
        def inner(tr2, t2, parent):
            return server(tr2, svc, t2, parent, op, handler)
        if gateway:
            return via_gateway(tr, t, svc, op, inner)
        _, _, dur = inner(tr, t, "")
        return dur
    d = dict(op_spec)
    d["run"] = go
    return d


def fixed(path):
    return lambda rng: path


def idpath(fmt, lo=100000, hi=999999):
    return lambda rng: fmt % rng.randrange(lo, hi)


def tracking_no(fmt):
    return lambda rng: fmt % ("KF%09dNL" % rng.randrange(10 ** 8, 10 ** 9))


# ---------------------------------------------------------------- the incidents
#
# Each returns a spec: id, title, service, start, now, sampling, roll (the rollouts: the first
# entry is what ran at start), ledger (releases.yaml), markers, ops, expect, alert, tags,
# onset, story.

ROLLING = 95  # a rolling update's duration, seconds, unless said


def fast_ok(c, *parts):
    for p in parts:
        p()
    return 200, None


def inc_copilot():
    """dispatch-copilot 1.9.0 ships prompt v12: answers ungrounded, tokens x3, HTTP 200 throughout."""
    rel = "2026-12-05T09:41:52.3361"

    def answer(c):
        new = c.ver == "1.9.0"
        c.pyredis("GET", lognormal(c.w.rng, 0.7), "copilot-cache.dispatch.svc.cluster.local")
        c.sqla("kestrel_dispatch", "SELECT shipments.id, shipments.status, legs.eta FROM shipments JOIN legs "
               "ON legs.shipment_id = shipments.id WHERE shipments.id = %(id_1)s", lognormal(c.w.rng, 4),
               "pg-dispatch.kestrel.internal")
        out = int(lognormal(c.w.rng, 720 if new else 240, 0.25))
        ms = lognormal(c.w.rng, 3600 if new else 1500, 0.25)
        sid = c.tr.sid()
        a = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o",
             "gen_ai.request.temperature": 0.2, "gen_ai.request.max_tokens": 1024,
             "gen_ai.response.model": "gpt-4o-2024-08-06", "gen_ai.response.id": "chatcmpl-" + hexid(c.w.rng, 20),
             "gen_ai.response.finish_reasons": ["stop"],
             "gen_ai.usage.input_tokens": int(lognormal(c.w.rng, 1900 if new else 1450, 0.1)),
             "gen_ai.usage.output_tokens": out, "server.address": OAI_HOST, "server.port": 443}
        c.tr.span(sid, c.svc, c.ver, "chat gpt-4o", 3, c.cur, ms * MS, c.sid, a)
        c.advance(ms)
        grounded = c.w.rng.random() >= (0.55 if new else 0.03)
        c.extra = {"copilot.prompt.version": "v12" if new else "v11", "copilot.answer.grounded": grounded,
                   "copilot.answer.citations": 0 if not grounded else c.w.rng.randrange(1, 4)}
        if not grounded:
            c.plog("WARNING", "answer failed grounding check: no cited leg matches the shipment", "copilot.api.answer",
                   118)
        # feedback audit as a Celery task
        psid = c.tr.sid()
        mid = "%s-%s-%s-%s-%s" % (hexid(c.w.rng, 8), hexid(c.w.rng, 4), hexid(c.w.rng, 4), hexid(c.w.rng, 4),
                                  hexid(c.w.rng, 12))
        pa = {"celery.action": "apply_async", "celery.task_name": "copilot.tasks.audit_answer",
              "messaging.message.id": mid, "messaging.destination_kind": "queue", "messaging.destination": "celery"}
        c.tr.span(psid, c.svc, c.ver, "apply_async/copilot.tasks.audit_answer", 4, c.cur, 1.8 * MS, c.sid, pa)
        wt = c.cur + int(lognormal(c.w.rng, 40) * MS)
        wa = {"celery.action": "run", "celery.state": "SUCCESS", "celery.task_name": "copilot.tasks.audit_answer",
              "celery.hostname": "celery@copilot-worker-7d9f8", "messaging.message.id": mid,
              "messaging.destination": "celery", "celery.delivery_info": "{'exchange': '', 'routing_key': 'celery', "
              "'priority': 0, 'redelivered': False}"}
        c.tr.span(c.tr.sid(), "copilot-worker", "1.9.0" if new else "1.8.3", "run/copilot.tasks.audit_answer", 5, wt,
                  lognormal(c.w.rng, 30) * MS, psid, wa)
        c.advance(2)
        return 200, None

    def answer_op(w, tr, t, op):
        def inner(tr2, t2, parent):
            holder = {}

            def h(c):
                r = answer(c)
                holder["extra"] = c.extra
                return r
            c, st, dur = python_server(tr2, "dispatch-copilot", t2, parent, op, h)
            tr2.spans[-1][1]["attributes"].update(holder["extra"])
            return c, st, dur
        return via_gateway(tr, t, "dispatch-copilot", op, inner)

    def history(c):
        c.sqla("kestrel_dispatch", "SELECT conversations.id, conversations.created_at FROM conversations WHERE "
               "conversations.dispatcher_id = %(dispatcher_id_1)s ORDER BY conversations.created_at DESC LIMIT "
               "%(param_1)s", lognormal(c.w.rng, 3), "pg-dispatch.kestrel.internal")
        return 200, None

    ops = [dict(method="POST", route="/v1/copilot/answer", path=fixed("/v1/copilot/answer"), rate=14,
                client="KestrelDispatch/3.2 (Windows NT 10.0)", run=answer_op),
           entry("dispatch-copilot", dict(method="GET", route="/v1/copilot/conversations",
                                          path=fixed("/v1/copilot/conversations"), rate=9,
                                          client="KestrelDispatch/3.2 (Windows NT 10.0)"), history, python=True)]
    return {
        "id": "kf6-prompt-v12-ungrounded-dispatch-copilot",
        "title": "dispatch-copilot 1.9.0 ships prompt v12: 55% of answers fail the grounding check, output tokens "
                 "x3, HTTP 200 throughout",
        "service": "dispatch-copilot", "start": "2026-12-05T08:20:00.0000", "now": "2026-12-05T10:03:30.0000",
        "sampling": ("head", 4),
        "roll": {"dispatch-copilot": [("1.8.3", None, 0), ("1.9.0", rel, 70)],
                 "copilot-worker": [("1.8.3", None, 0)]},
        "ledger": {"dispatch-copilot": [("1.8.3", "2026-11-27T13:02:11.0071"), ("1.9.0", rel)],
                   "copilot-worker": [("1.8.3", "2026-11-27T13:02:40.5520")]},
        "markers": [("dispatch-copilot", "1.9.0", "1.8.3", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "prompt_regression", "verdict": "allow"},
        "alert": {"name": "DispatchCopilotGroundedAnswerRatio", "starts": "2026-12-05T09:55:00Z",
                  "burn_annotation": "6.8", "team": "dispatch"},
        "tags": ["python", "fastapi", "gen_ai", "celery", "quality-only", "rolling-update", "head-1-in-4"],
        "onset": "09:42, with the first 1.9.0 pods",
        "story": "Prompt template v12 drops the instruction to cite only legs of the shipment asked about: "
                 "copilot.answer.grounded is false on 55% of answers (3% before), output tokens 240 -> 720, the "
                 "chat call 1.5 s -> 3.6 s. Every answer is HTTP 200.",
    }


def geo_eta_handler(w, load_fn):
    """geo-eta (FastAPI): a redis-py lookup and a PostGIS query whose time grows with its load."""
    def h(c):
        slow = load_fn(c.t)
        c.pyredis("GET", lognormal(c.w.rng, 0.6), "eta-cache.tracking.svc.cluster.local")
        c.sqla("kestrel_geo", "SELECT legs.id, ST_Distance(legs.geom, hubs.geom) AS d FROM legs JOIN hubs ON "
               "hubs.id = legs.next_hub WHERE legs.shipment_id = %(shipment_id_1)s", lognormal(c.w.rng, 95 * slow,
                                                                                                 0.45),
               "pg-geo.kestrel.internal")
        return 200, None
    return h


def inc_retry():
    """tracking-api 3.8.0: attempt timeout 150 ms, 5 retries without delay on geo-eta (p50 ~110 ms)."""
    rel = "2026-12-05T17:06:14.8812"
    relns = at(rel)
    state = {"pressure": 1.0}

    def geo_load(t):
        return state["pressure"]

    def track(c):
        w = c.w
        new = c.ver == "3.8.0"
        c.seredis("GET", lognormal(w.rng, 0.5))
        c.sql("KestrelTracking", "SELECT [e].[Id], [e].[Code], [e].[OccurredAt] FROM [TrackingEvents] AS [e] "
              "WHERE [e].[TrackingNumber] = @p0 ORDER BY [e].[OccurredAt] DESC", lognormal(w.rng, 3.5))
        # the retry storm: how many new pods run, how much extra load geo-eta takes
        frac = ramp(c.t, relns, relns + 100 * S)
        state["pressure"] = 1.0 + 1.6 * frac
        timeout = 150 if new else 2000
        retries = 5 if new else 1
        path = "/v1/eta/%d" % w.rng.randrange(10 ** 7, 10 ** 8)
        for attempt in range(retries + 1):
            ms = lognormal(w.rng, 110 * state["pressure"], 0.45)
            gsid_parent = c.sid
            start = c.cur
            if ms > timeout:
                c.http("geo-eta", "GET", path, timeout, None, err_type="System.Threading.Tasks.TaskCanceledException",
                       resend=attempt)
                # geo-eta keeps working on the abandoned request
                geo_server(c.tr, start + int(0.4 * MS), c.tr.spans[-1][1]["span_id"], path, geo_load)
                c.dlog("Warning", "Execution attempt. Source: '{PipelineName}/{PipelineInstance}/{StrategyName}', "
                       "Operation Key: '{OperationKey}', Result: '{Result}', Handled: '{Handled}', Attempt: "
                       "'{Attempt}', Execution Time: {ExecutionTimeMs}ms",
                       {"PipelineName": "geo-eta-standard", "PipelineInstance": "", "StrategyName": "Standard-Retry",
                        "OperationKey": "", "Result": "The operation didn't complete within the allowed timeout of "
                        "'00:00:00.1500000'.", "Handled": True, "Attempt": attempt, "ExecutionTimeMs": "%.4f" %
                        (timeout + 0.31)}, category="Polly")
                if attempt == retries or not new:
                    if not new and attempt < retries:
                        continue
                    exc = ("Polly.Timeout.TimeoutRejectedException", "The operation didn't complete within the "
                           "allowed timeout of '00:00:00.1500000'.",
                           ["Polly.Utils.ExceptionUtilities.TrySetStackTrace[T](T exception)",
                            "Polly.Timeout.TimeoutResilienceStrategy.ExecuteCore[TResult,TState](...)",
                            "Microsoft.Extensions.Http.Resilience.ResilienceHandler.SendAsync(HttpRequestMessage "
                            "request, CancellationToken cancellationToken)",
                            "Kestrel.Tracking.Eta.GeoEtaClient.GetEtaAsync(Int64 shipmentId, CancellationToken ct) "
                            "in /src/Kestrel.Tracking/Eta/GeoEtaClient.cs:line 41"])
                    return 504, exc
                continue
            sid = c.http("geo-eta", "GET", path, ms, 200, resend=attempt)
            geo_server(c.tr, start + int(0.4 * MS), sid, path, geo_load, ms - 0.8)
            break
        return 200, None

    def geo_server(tr, t, parent, path, load_fn, dur_ms=None):
        op = {"method": "GET", "route": "/v1/eta/{shipment_id}", "path": path, "ua": "python-httpx/0.27.2"}
        python_server(tr, "geo-eta", t, parent, op, geo_eta_handler(tr.w, load_fn))

    def summary(c):
        c.seredis("GET", lognormal(c.w.rng, 0.5))
        c.sql("KestrelTracking", "SELECT COUNT(*) FROM [TrackingEvents] AS [e] WHERE [e].[AccountId] = @p0 AND "
              "[e].[OccurredAt] >= @p1", lognormal(c.w.rng, 6))
        return 200, None

    ops = [entry("tracking-api", dict(method="GET", route="/api/tracking/{trackingNumber}",
                                      path=tracking_no("/api/tracking/%s"), rate=46), track),
           entry("tracking-api", dict(method="GET", route="/api/tracking/accounts/{accountId}/summary",
                                      path=idpath("/api/tracking/accounts/%d/summary"), rate=12), summary)]
    return {
        "id": "kf6-polly-retry-storm-tracking-api",
        "title": "tracking-api 3.8.0 sets geo-eta's attempt timeout to 150 ms with 5 retries and no delay: geo-eta's "
                 "calls triple, its latency x2.6, a fifth of lookups 504",
        "service": "tracking-api", "start": "2026-12-05T15:00:00.0000", "now": "2026-12-05T17:24:00.0000",
        "sampling": ("head", 10),
        "roll": {"tracking-api": [("3.7.2", None, 0), ("3.8.0", rel, 100)], "geo-eta": [("2026.48.2", None, 0)]},
        "ledger": {"tracking-api": [("3.7.2", "2026-11-24T10:13:09.4410"), ("3.8.0", rel)],
                   "geo-eta": [("2026.48.2", "2026-11-28T08:30:52.1177")]},
        "markers": [("tracking-api", "3.8.0", "3.7.2", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "retry_storm", "verdict": "allow"},
        "alert": {"name": "TrackingApiLookupSLO", "starts": "2026-12-05T17:14:00Z", "burn_label": "17.4",
                  "team": "tracking"},
        "tags": ["dotnet", "httpclient", "polly", "resend_count", "downstream-callee", "python", "head-1-in-10"],
        "onset": "17:06-17:07, with the first 3.8.0 pods",
        "story": "3.8.0 moves geo-eta's client to AddStandardResilienceHandler with AttemptTimeout 150 ms, "
                 "MaxRetryAttempts 5 and no delay (was one attempt at 2 s). geo-eta's p50 is ~110 ms; every "
                 "timed-out attempt leaves geo-eta working, its PostGIS query slows with the load, and a fifth of "
                 "lookups exhaust their attempts (504 TimeoutRejectedException). Each attempt is an HttpClient "
                 "span with http.request.resend_count; Polly logs every attempt.",
    }


def inc_booking():
    """booking-api 5.2.0: NullReferenceException on POST /api/bookings/{bookingId}/amend only."""
    rel = "2026-12-05T14:07:23.4810"

    def amend(c):
        w = c.w
        c.efcore("KestrelBooking", "SELECT TOP(1) [b].[Id], [b].[Status], [b].[CustomsProfileId] FROM [Bookings] AS "
                 "[b] WHERE [b].[Id] = @__bookingId_0", lognormal(w.rng, 3))
        if c.ver == "5.2.0" and w.rng.random() < 0.45:
            return 500, ("System.NullReferenceException", "Object reference not set to an instance of an object.",
                         ["Kestrel.Booking.Amendments.AmendBookingHandler.ApplyCustoms(Booking booking, "
                          "AmendRequest request) in /src/Kestrel.Booking/Amendments/AmendBookingHandler.cs:line 88",
                          "Kestrel.Booking.Amendments.AmendBookingHandler.Handle(AmendBookingCommand command, "
                          "CancellationToken ct) in /src/Kestrel.Booking/Amendments/AmendBookingHandler.cs:line 52",
                          "Microsoft.AspNetCore.Http.RequestDelegateFactory.ExecuteTaskResult[T](Task`1 task, "
                          "HttpContext httpContext)"])
        c.efcore("KestrelBooking", "UPDATE [Bookings] SET [Status] = @p0, [RowVersion] = @p1 WHERE [Id] = @p2 AND "
                 "[RowVersion] = @p3", lognormal(w.rng, 5))
        return 200, None

    def get(c):
        c.seredis("GET", lognormal(c.w.rng, 0.5))
        c.efcore("KestrelBooking", "SELECT [b].[Id], [b].[Status] FROM [Bookings] AS [b] WHERE [b].[Id] = "
                 "@__bookingId_0", lognormal(c.w.rng, 2.5))
        return 200, None

    def create(c):
        c.efcore("KestrelBooking", "INSERT INTO [Bookings] ([Id], [AccountId], [Status]) VALUES (@p0, @p1, @p2)",
                 lognormal(c.w.rng, 6))
        c.sb_send("booking-events", lognormal(c.w.rng, 9))
        return 201, None

    def search(c):
        c.efcore("KestrelBooking", "SELECT TOP(@__p_1) [b].[Id] FROM [Bookings] AS [b] WHERE [b].[AccountId] = "
                 "@__accountId_0 ORDER BY [b].[CreatedAt] DESC", lognormal(c.w.rng, 14))
        return 200, None

    ops = [entry("booking-api", dict(method="POST", route="/api/bookings/{bookingId}/amend",
                                     path=idpath("/api/bookings/%d/amend"), rate=6), amend),
           entry("booking-api", dict(method="GET", route="/api/bookings/{bookingId}",
                                     path=idpath("/api/bookings/%d"), rate=58), get),
           entry("booking-api", dict(method="POST", route="/api/bookings", path=fixed("/api/bookings"), rate=21),
                 create),
           entry("booking-api", dict(method="GET", route="/api/bookings/search", path=fixed("/api/bookings/search"),
                                     rate=25), search)]
    return {
        "id": "kf6-amend-nullref-booking-api",
        "title": "booking-api 5.2.0 throws NullReferenceException on 45% of POST /api/bookings/{bookingId}/amend, "
                 "one route of four (6 of 110 requests a minute)",
        "service": "booking-api", "start": "2026-12-05T12:58:00.0000", "now": "2026-12-05T14:26:00.0000",
        "sampling": ("head", 20),
        "roll": {"booking-api": [("5.1.6", None, 0), ("5.2.0", rel, 120)]},
        "ledger": {"booking-api": [("5.1.6", "2026-11-30T09:11:48.6003"), ("5.2.0", rel)]},
        "markers": [("booking-api", "5.2.0", "5.1.6", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "alert": {"name": "BookingApiErrorBudget", "starts": "2026-12-05T14:19:00Z", "burn_label": "9.2",
                  "team": "booking"},
        "tags": ["dotnet", "efcore", "one-operation", "rolling-update", "head-1-in-20"],
        "onset": "14:07-14:09, as 5.2.0 pods take traffic",
        "story": "5.2.0 reads the customs profile of an amended booking without a null check: bookings without one "
                 "(45% of amendments) throw NullReferenceException. Only the amend route (6 of ~110 requests a "
                 "minute) fails; at 1 in 20 about one failing trace is kept every 4 minutes.",
    }


def inc_rates_cfg():
    """rates-api 2.7.1+cfg.112 (a feature-flag config build, blue-green switch): KeyError on Nordic zones."""
    rel = "2026-12-05T10:33:17.9020"

    def quote(c):
        w = c.w
        c.pyredis("GET", lognormal(w.rng, 0.6), "rates-cache.pricing.svc.cluster.local")
        c.sqla("kestrel_rates", "SELECT tariffs.id, tariffs.zone, tariffs.base_eur FROM tariffs WHERE tariffs.lane = "
               "%(lane_1)s AND tariffs.valid_to > now()", lognormal(w.rng, 5), "pg-rates.kestrel.internal")
        if c.ver == "2.7.1+cfg.112" and w.rng.random() < 0.24:
            zone = w.rng.choice(["ZONE_NO_3", "ZONE_NO_4", "ZONE_IS_1", "ZONE_FO_1"])
            return 500, ("KeyError", "'%s'" % zone,
                         [("/app/rates_api/surcharges.py", 61, "fuel_surcharge"),
                          ("/app/rates_api/quote.py", 144, "price_lane"),
                          ("/app/rates_api/routes/quote.py", 38, "post_quote")])
        return 200, None

    def zones(c):
        c.pyredis("GET", lognormal(c.w.rng, 0.5), "rates-cache.pricing.svc.cluster.local")
        return 200, None

    ops = [entry("rates-api", dict(method="POST", route="/v1/rates/quote", path=fixed("/v1/rates/quote"), rate=40,
                                   client="KestrelWeb/2026.12 (browser)"), quote, python=True),
           entry("rates-api", dict(method="GET", route="/v1/rates/zones", path=fixed("/v1/rates/zones"), rate=15),
                 zones, python=True)]
    return {
        "id": "kf6-flag-config-surcharge-rates-api",
        "title": "rates-api config build 2.7.1+cfg.112 (feature-flag surcharges, blue-green switch) lacks four "
                 "Nordic zones: 24% of quotes answer 500 KeyError",
        "service": "rates-api", "start": "2026-12-05T09:10:00.0000", "now": "2026-12-05T10:48:00.0000",
        "sampling": ("head", 8),
        "roll": {"rates-api": [("2.7.1+cfg.111", None, 0), ("2.7.1+cfg.112", rel, 0)]},
        "ledger": {"rates-api": [("2.7.1+cfg.111", "2026-12-04T16:20:03.1190"), ("2.7.1+cfg.112", rel)]},
        "markers": [("rates-api", "2.7.1+cfg.112", "2.7.1+cfg.111", rel,
                     {"deployment.id": "bg-switch-4471", "attrs": {"deployment.strategy": "blue-green"}})],
        "ops": ops,
        "expect": {"root_cause": "config_regression", "verdict": "allow"},
        "alert": {"name": "RatesApiQuoteErrors", "starts": "2026-12-05T10:40:00Z", "burn_annotation": "11.5",
                  "team": "pricing"},
        "tags": ["python", "fastapi", "config-build", "blue-green", "head-1-in-8"],
        "onset": "10:33:18, the switch to the green slot",
        "story": "The config build cfg.112 moves fuel surcharges behind a feature flag whose table omits "
                 "ZONE_NO_3, ZONE_NO_4, ZONE_IS_1 and ZONE_FO_1; quotes for lanes into them raise KeyError "
                 "(24% of quotes). The image is unchanged; the blue-green switch at 10:33:17.902 is the release.",
    }


SQL_UNAVAILABLE = ("Microsoft.Data.SqlClient.SqlException", "Database 'KestrelWarehouse' on server "
                   "'sql-kestrel-prod' is not currently available. Please retry the connection later.",
                   ["Microsoft.Data.SqlClient.SqlConnection.OnError(SqlException exception, Boolean "
                    "breakConnection, Action`1 wrapCloseInAction)"])


def inc_warehouse(outage=None, ident="kf6-back-to-back-slots-warehouse-api"):
    """Back to back: 4.0.0 broke, was rolled back to 3.9.6; 4.0.1 an hour later breaks slot reservation. With
    outage (a time), the database also answers 40613 (not currently available) to 35% of every statement from
    then on, the old ones included: an outage coinciding with the release (the twin)."""
    rel0 = "2026-12-05T07:48:10.3170"
    rb = "2026-12-05T08:05:02.6640"
    rel1 = "2026-12-05T09:38:44.0530"
    down = at(outage) if outage else None

    def old_sql(c, text, ms):
        """An old statement (every version sends it): fails 40613 during the twin's outage."""
        if down is not None and c.t >= down and c.w.rng.random() < 0.35:
            c.sql("KestrelWarehouse", text, ms, err_no=40613, exc=SQL_UNAVAILABLE)
            return 500, (SQL_UNAVAILABLE[0], SQL_UNAVAILABLE[1], ["Kestrel.Warehouse.Slots.SlotRepository."
                                                                  "QueryAsync(CancellationToken ct)"])
        c.sql("KestrelWarehouse", text, ms)
        return None

    def reserve(c):
        w = c.w
        failed = old_sql(c, "SELECT [s].[Id], [s].[Capacity], [s].[Reserved] FROM [DockSlots] AS [s] WITH "
                         "(UPDLOCK) WHERE [s].[DcCode] = @dc AND [s].[StartsAt] = @at", lognormal(w.rng, 4))
        if failed:
            return failed
        if c.ver == "4.0.0" and w.rng.random() < 0.3:
            return 500, ("System.InvalidOperationException", "Sequence contains no elements",
                         ["System.Linq.ThrowHelper.ThrowNoElementsException()",
                          "Kestrel.Warehouse.Slots.SlotAllocator.Pick(IReadOnlyList`1 slots) in "
                          "/src/Kestrel.Warehouse/Slots/SlotAllocator.cs:line 57"])
        if c.ver == "4.0.1" and w.rng.random() < 0.38:
            c.sql("KestrelWarehouse", "INSERT INTO [SlotReservations] ([SlotId], [OrderId], [CutoffUtc]) VALUES "
                  "(@p0, @p1, @p2)", lognormal(w.rng, 3), err_no=207,
                  exc=("Microsoft.Data.SqlClient.SqlException", "Invalid column name 'CutoffUtc'.",
                       ["Microsoft.Data.SqlClient.SqlConnection.OnError(SqlException exception, Boolean "
                        "breakConnection, Action`1 wrapCloseInAction)"]))
            return 500, ("Microsoft.EntityFrameworkCore.DbUpdateException", "An error occurred while saving the "
                         "entity changes. See the inner exception for details.",
                         ["Microsoft.EntityFrameworkCore.Update.ReaderModificationCommandBatch.ExecuteAsync("
                          "IRelationalConnection connection, CancellationToken cancellationToken)",
                          "Kestrel.Warehouse.Slots.ReserveSlotHandler.Handle(ReserveSlot command, CancellationToken "
                          "ct) in /src/Kestrel.Warehouse/Slots/ReserveSlotHandler.cs:line 73"])
        c.sql("KestrelWarehouse", "INSERT INTO [SlotReservations] ([SlotId], [OrderId]) VALUES (@p0, @p1)",
              lognormal(w.rng, 3))
        return 201, None

    def slots(c):
        c.seredis("HGETALL", lognormal(c.w.rng, 0.6))
        return old_sql(c, "SELECT [s].[Id], [s].[StartsAt], [s].[Capacity] - [s].[Reserved] FROM "
                       "[DockSlots] AS [s] WHERE [s].[DcCode] = @dc AND [s].[StartsAt] >= @from",
                       lognormal(c.w.rng, 7)) or (200, None)

    ops = [entry("warehouse-api", dict(method="POST", route="/api/slots/reserve", path=fixed("/api/slots/reserve"),
                                       rate=22, client="Kestrel.Orders/9.3 (+dotnet)"), reserve),
           entry("warehouse-api", dict(method="GET", route="/api/slots/{dcCode}",
                                       path=lambda rng: "/api/slots/" + rng.choice(["NL-TLB", "DE-DUI", "BE-ANR"]),
                                       rate=35), slots)]
    return {
        "id": ident,
        "title": "warehouse-api, back to back: 4.0.0 failed slot picks and was rolled back at 08:05; 4.0.1 at "
                 "09:38 writes a column the database does not have, 38% of reservations fail",
        "service": "warehouse-api", "start": "2026-12-05T07:25:00.0000", "now": "2026-12-05T09:56:30.0000",
        "sampling": ("head", 5),
        "roll": {"warehouse-api": [("3.9.6", None, 0), ("4.0.0", rel0, 90), ("3.9.6", rb, 60), ("4.0.1", rel1, 90)]},
        "ledger": {"warehouse-api": [("3.9.6", "2026-11-26T11:00:31.2281"), ("4.0.0", rel0), ("3.9.6", rb),
                                     ("4.0.1", rel1)]},
        "markers": [("warehouse-api", "4.0.0", "3.9.6", rel0, {}),
                    ("warehouse-api", "3.9.6", "4.0.0", rb, {"deployment.id": "rollback-agentk-0412"}),
                    ("warehouse-api", "4.0.1", "3.9.6", rel1, {})],
        "prior_actions": [("warehouse-api", "2026-12-05T08:05:02Z")],
        "ops": ops,
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "alert": {"name": "WarehouseApiReservations", "starts": "2026-12-05T09:47:00Z", "burn_label": "13.9",
                  "team": "warehouse"},
        "tags": ["dotnet", "sqlclient", "back-to-back", "prior-rollback", "rolling-update", "head-1-in-5"],
        "onset": "09:38:5x, with the first 4.0.1 pods",
        "story": "The first episode (4.0.0, 07:48, 30% of reservations 'Sequence contains no elements') was rolled "
                 "back to 3.9.6 at 08:05 and the errors stopped. 4.0.1 (09:38:44) fixes the allocator but writes "
                 "SlotReservations.CutoffUtc, a column whose migration has not run: SqlException 207 and "
                 "DbUpdateException on 38% of reservations. The rollback target is 3.9.6.",
    }


# ---------------------------------------------------------------- traps

def carrier_exc():
    return ("Kestrel.Labels.Carriers.CarrierUnavailableException", "Nordpost label API answered 503 after 3 attempts",
            ["Kestrel.Labels.Carriers.NordpostClient.CreateLabelAsync(LabelRequest request, CancellationToken ct) "
             "in /src/Kestrel.Labels/Carriers/NordpostClient.cs:line 64",
             "Kestrel.Labels.Endpoints.CreateLabel.Handle(LabelRequest request, CancellationToken ct) in "
             "/src/Kestrel.Labels/Endpoints/CreateLabel.cs:line 29"])


def inc_carrier(out="2026-12-05T10:01:10.0000", rel="2026-12-05T10:02:05.7330", now="2026-12-05T10:13:00.0000",
                starts="2026-12-05T10:07:00Z", ident="kf6-trap-carrier-outage-labels-api"):
    """The Nordpost carrier API answers 503 to 60% of label requests; labels-api 2.14.0 rolls out meanwhile."""
    outns = at(out)

    def label(c):
        w = c.w
        c.sql("KestrelLabels", "SELECT [p].[Id], [p].[WeightGrams], [p].[Dimensions] FROM [Parcels] AS [p] WHERE "
              "[p].[Id] = @p0", lognormal(w.rng, 2.5))
        p = 0.6 * ramp(c.t, outns, outns + 50 * S)
        path = "/v2/shipments/labels"
        for attempt in range(3):
            if w.rng.random() < p:
                c.http("api.nordpost-carrier.example", "POST", path, lognormal(w.rng, 35), 503, resend=attempt,
                       port=443, scheme="https")
                c.dlog("Warning", "Resilience event occurred. EventName: '{EventName}', Source: '{PipelineName}/"
                       "{PipelineInstance}/{StrategyName}', Operation Key: '{OperationKey}', Result: '{Result}'",
                       {"EventName": "OnRetry", "PipelineName": "nordpost-standard", "PipelineInstance": "",
                        "StrategyName": "Standard-Retry", "OperationKey": "", "Result": 503}, category="Polly")
                c.advance(lognormal(w.rng, 40 * (2 ** attempt), 0.2))
                continue
            c.http("api.nordpost-carrier.example", "POST", path, lognormal(w.rng, 240), 201, resend=attempt,
                   port=443, scheme="https")
            c.sql("KestrelLabels", "INSERT INTO [Labels] ([ParcelId], [Carrier], [Zpl]) VALUES (@p0, @p1, @p2)",
                  lognormal(w.rng, 4))
            return 201, None
        return 502, carrier_exc()

    def get(c):
        c.sql("KestrelLabels", "SELECT [l].[Zpl] FROM [Labels] AS [l] WHERE [l].[ParcelId] = @p0",
              lognormal(c.w.rng, 2))
        return 200, None

    ops = [entry("labels-api", dict(method="POST", route="/api/labels", path=fixed("/api/labels"), rate=38,
                                    client="Kestrel.Dispatch/6.0 (+dotnet)"), label),
           entry("labels-api", dict(method="GET", route="/api/labels/{parcelId}", path=idpath("/api/labels/%d"),
                                    rate=30), get)]
    return {
        "id": ident,
        "title": "the Nordpost carrier API answers 503 to 60%% of label requests from %s; labels-api 2.14.0 (ZPL "
                 "font change) rolls out at %s" % (out[11:19], rel[11:19]),
        "service": "labels-api", "start": "2026-12-05T08:45:00.0000", "now": now,
        "sampling": ("head", 6),
        "roll": {"labels-api": [("2.13.4", None, 0), ("2.14.0", rel, 90)]},
        "ledger": {"labels-api": [("2.13.4", "2026-11-29T07:44:30.9036"), ("2.14.0", rel)]},
        "markers": [("labels-api", "2.14.0", "2.13.4", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "alert": {"name": "LabelsApiCreateLabelErrors", "starts": starts, "burn_label": "22.7", "team": "carriers"},
        "tags": ["dotnet", "httpclient", "polly", "resend_count", "external-carrier", "trap", "head-1-in-6"],
        "onset": out[11:19],
        "story": "Nordpost's label API (an outside carrier, api.nordpost-carrier.example) answers 503 to 60% of "
                 "requests; the standard resilience handler retries twice (HttpClient spans with "
                 "http.request.resend_count, Polly OnRetry logs) and labels-api answers 502 "
                 "CarrierUnavailableException. Both versions fail alike; 2.14.0 only changes a ZPL font.",
    }


def inc_sql(batch="2026-12-05T02:17:45.0000", rel="2026-12-05T02:16:58.2093", now="2026-12-05T02:31:00.0000",
            starts="2026-12-05T02:24:00Z", ident="kf6-trap-index-rebuild-sql-pool-dispatch-api", roll=180,
            deadlocks=True):
    """A SQL Agent index rebuild holds schema locks on Assignments: timeouts, deadlocks, the pool runs dry."""
    bns = at(batch)

    def assign(c):
        w = c.w
        p = ramp(c.t, bns, bns + 40 * S) * (0.0 if c.t > bns + 16 * MIN else 1.0)
        c.seredis("GET", lognormal(w.rng, 0.5))
        if p and w.rng.random() < 0.42 * p:
            # the pool: every connection waits on a lock
            c.advance(15000)
            return 503, ("System.InvalidOperationException", "Timeout expired.  The timeout period elapsed prior to "
                         "obtaining a connection from the pool.  This may have occurred because all pooled "
                         "connections were in use and max pool size was reached.",
                         ["Microsoft.Data.ProviderBase.DbConnectionFactory.TryGetConnection(DbConnection "
                          "owningConnection, TaskCompletionSource`1 retry, DbConnectionOptions userOptions, "
                          "DbConnectionInternal oldConnection, DbConnectionInternal& connection)",
                          "Kestrel.Dispatch.Assignments.AssignDriverHandler.Handle(AssignDriver command, "
                          "CancellationToken ct) in /src/Kestrel.Dispatch/Assignments/AssignDriverHandler.cs:line 44"])
        if deadlocks and p and w.rng.random() < 0.25 * p:
            if w.rng.random() < 0.5:
                c.sql("KestrelDispatch", "UPDATE [Assignments] SET [DriverId] = @p0 WHERE [Id] = @p1",
                      lognormal(w.rng, 2400, 0.4), err_no=1205,
                      exc=("Microsoft.Data.SqlClient.SqlException", "Transaction (Process ID 87) was deadlocked on "
                           "lock resources with another process and has been chosen as the deadlock victim. Rerun "
                           "the transaction.", ["Microsoft.Data.SqlClient.SqlCommand.EndExecuteNonQuery"
                                                "(IAsyncResult asyncResult)"]))
            else:
                c.sql("KestrelDispatch", "UPDATE [Assignments] SET [DriverId] = @p0 WHERE [Id] = @p1", 30000,
                      err_no=-2, exc=("Microsoft.Data.SqlClient.SqlException", "Execution Timeout Expired.  The "
                                      "timeout period elapsed prior to completion of the operation or the server is "
                                      "not responding.", ["Microsoft.Data.SqlClient.SqlCommand.EndExecuteNonQuery"
                                                          "(IAsyncResult asyncResult)"]))
            return 500, ("Microsoft.Data.SqlClient.SqlException", c.tr.spans[-1][1]["status_message"],
                         ["Kestrel.Dispatch.Assignments.AssignDriverHandler.Handle(AssignDriver command, "
                          "CancellationToken ct) in /src/Kestrel.Dispatch/Assignments/AssignDriverHandler.cs:line 51"])
        c.sql("KestrelDispatch", "UPDATE [Assignments] SET [DriverId] = @p0 WHERE [Id] = @p1",
              lognormal(w.rng, 4 + 900 * p, 0.5))
        return 200, None

    def board(c):
        w = c.w
        p = ramp(c.t, bns, bns + 40 * S) * (0.0 if c.t > bns + 16 * MIN else 1.0)
        c.sql("KestrelDispatch", "SELECT [a].[Id], [a].[DriverId], [a].[Status] FROM [Assignments] AS [a] WHERE "
              "[a].[DepotId] = @p0", lognormal(w.rng, 9 + 1500 * p, 0.5))
        return 200, None

    ops = [entry("dispatch-api", dict(method="POST", route="/api/assignments", path=fixed("/api/assignments"),
                                      rate=30, client="KestrelDriver/4.8 (Android 15)"), assign),
           entry("dispatch-api", dict(method="GET", route="/api/depots/{depotId}/board",
                                      path=idpath("/api/depots/%d/board", 10, 99), rate=26), board)]
    return {
        "id": ident,
        "title": "a SQL Agent index rebuild on Assignments from %s holds locks: deadlocks (1205), command timeouts "
                 "and an empty connection pool; dispatch-api 6.1.0 rolled out at %s" % (batch[11:19], rel[11:19]),
        "service": "dispatch-api", "start": "2026-12-05T01:00:00.0000", "now": now,
        "sampling": ("head", 3),
        "roll": {"dispatch-api": [("6.0.9", None, 0), ("6.1.0", rel, roll)]},
        "ledger": {"dispatch-api": [("6.0.9", "2026-12-01T10:02:27.5550"), ("6.1.0", rel)]},
        "markers": [("dispatch-api", "6.1.0", "6.0.9", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "db_pool_exhaustion", "verdict": "deny"},
        "alert": {"name": "DispatchApiAvailability", "starts": starts, "burn_label": "31.0", "team": "dispatch"},
        "tags": ["dotnet", "sqlclient", "db.response.status_code", "deadlock", "pool", "night-batch", "trap",
                 "head-1-in-3"],
        "onset": batch[11:19],
        "story": "The weekly IndexOptimize job (SQL Agent, no spans) rebuilds IX_Assignments_DepotId offline from "
                 "02:17:45: updates wait on its locks (queries x100+), some are chosen as deadlock victims (SqlClient "
                 "db.response.status_code 1205) or time out (-2), and the ADO.NET pool of 100 runs dry "
                 "(InvalidOperationException 'obtaining a connection from the pool'). dispatch-api 6.1.0 (driver "
                 "app copy) rolled out over 3 min from 02:16:58; both versions fail alike.",
    }


def redis_timeout(c):
    return ("StackExchange.Redis.RedisTimeoutException", "Timeout performing GET (5000ms), next: GET "
            "quote:lane:%d, inst: 0, qu: 0, qs: %d, aw: False, bw: SpinningDown, rs: ReadAsync, ws: Idle, in: 0, "
            "last-in: 0, cur-in: 0, sync-ops: 0, async-ops: 118294, serverEndpoint: %s:6380, conn-sec: 0.31, "
            "aoc: 1, mc: 1/1/0, mgr: 10 of 10 available, clientName: pricing-api, IOCP: (Busy=0,Free=1000,"
            "Min=8,Max=1000), WORKER: (Busy=3,Free=32764,Min=8,Max=32767), POOL: (Threads=11,QueuedItems=0,"
            "CompletedItems=993188), v: 2.8.16.12844" % (c.w.rng.randrange(1000, 9999), c.w.rng.randrange(20, 180),
                                                      REDIS_HOST),
            ["StackExchange.Redis.ConnectionMultiplexer.ExecuteAsyncImpl[T](Message message, ResultProcessor`1 "
             "processor, Object state, ServerEndPoint server)",
             "Kestrel.Pricing.Quotes.QuoteCache.GetAsync(String lane) in /src/Kestrel.Pricing/Quotes/QuoteCache.cs:"
             "line 33"])


def inc_redis():
    """Azure Cache for Redis patches its primary: GETs time out at 5 s; pricing-api 7.0.2 rolled out 3 min before."""
    rel = "2026-12-05T13:20:11.0620"
    fo = at("2026-12-05T13:23:40.0000")

    def quote(c):
        w = c.w
        p = ramp(c.t, fo, fo + 30 * S)
        if w.rng.random() < 0.5 * p:
            exc = redis_timeout(c)
            c.seredis("GET", 5000 + lognormal(w.rng, 3), exc=exc)
            return 503, exc
        c.seredis("GET", lognormal(w.rng, 0.8 + 40 * p, 0.6))
        if w.rng.random() < 0.3:
            c.sql("KestrelPricing", "SELECT [t].[BaseEur], [t].[PerKg] FROM [Tariffs] AS [t] WHERE [t].[Lane] = @p0",
                  lognormal(w.rng, 4))
            c.seredis("SET", lognormal(w.rng, 0.9 + 30 * p, 0.6))
        return 200, None

    def lanes(c):
        c.sql("KestrelPricing", "SELECT [l].[Code] FROM [Lanes] AS [l] WHERE [l].[Active] = 1", lognormal(c.w.rng, 3))
        return 200, None

    ops = [entry("pricing-api", dict(method="POST", route="/api/quotes", path=fixed("/api/quotes"), rate=70), quote),
           entry("pricing-api", dict(method="GET", route="/api/lanes", path=fixed("/api/lanes"), rate=14), lanes)]
    return {
        "id": "kf6-trap-redis-patching-timeouts-pricing-api",
        "title": "Azure Cache for Redis patches its primary from 13:23:40: half of the quote cache's GETs time out "
                 "after 5 s; pricing-api 7.0.2 finished rolling out at 13:21:46",
        "service": "pricing-api", "start": "2026-12-05T12:05:00.0000", "now": "2026-12-05T13:33:00.0000",
        "sampling": ("tail", 25, 1000),
        "roll": {"pricing-api": [("7.0.1", None, 0), ("7.0.2", rel, 95)]},
        "ledger": {"pricing-api": [("7.0.1", "2026-12-02T15:52:20.3418"), ("7.0.2", rel)]},
        "markers": [("pricing-api", "7.0.2", "7.0.1", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "alert": {"name": "PricingApiQuoteSLO", "starts": "2026-12-05T13:28:00Z", "burn_label": "19.6",
                  "team": "pricing"},
        "tags": ["dotnet", "stackexchange-redis", "tail-sampled", "SampleRate", "trap", "release-then-dependency"],
        "onset": "13:23:40",
        "story": "Azure's planned patching of the cache's primary node: StackExchange.Redis GETs time out after "
                 "5 s (RedisTimeoutException, net.peer.name the cache) on half of the quotes and the rest slow down. "
                 "pricing-api 7.0.2 (a logging package bump) had finished rolling out 2 minutes before, so every "
                 "failing request is 7.0.2's. The collector's tail sampler keeps every error and every trace over "
                 "1 s (SampleRate 1) and 1 in 25 of the rest (SampleRate 25).",
    }


def sb_throttle_exc():
    return ("Azure.Messaging.ServiceBus.ServiceBusException", "The request was terminated because the entity is being "
            "throttled. Error code : 50009. Please wait 2 seconds and try again. (ServerBusy)",
            ["Azure.Messaging.ServiceBus.Amqp.AmqpSender.SendBatchInternalAsync(AmqpMessage batchMessage, TimeSpan "
             "timeout, CancellationToken cancellationToken)",
             "Azure.Messaging.ServiceBus.ServiceBusSender.SendMessagesAsync(IEnumerable`1 messages, "
             "CancellationToken cancellationToken)"])


def inc_servicebus(sibling=True, ident="kf6-trap-servicebus-throttled-orders-api"):
    """The Service Bus namespace is throttled (another team's replay); orders-api 9.4.0 rolled out 2 min before."""
    rel = "2026-12-05T16:10:47.5190"
    th = at("2026-12-05T16:12:30.0000")

    def publish(c, entity):
        w = c.w
        p = ramp(c.t, th, th + 40 * S)
        for attempt in range(3):
            if w.rng.random() < 0.55 * p:
                c.sb_send(entity, lognormal(w.rng, 60), exc=sb_throttle_exc())
                c.advance(lognormal(w.rng, 800 * (attempt + 1), 0.1))
                continue
            c.sb_send(entity, lognormal(w.rng, 12 + 200 * p, 0.4))
            return True
        return False

    def create(c):
        c.sql("KestrelOrders", "INSERT INTO [Orders] ([Id], [AccountId], [Lines]) VALUES (@p0, @p1, @p2)",
              lognormal(c.w.rng, 5))
        if not publish(c, "order-events"):
            return 503, sb_throttle_exc()
        return 201, None

    def get(c):
        c.sql("KestrelOrders", "SELECT [o].[Id], [o].[Status] FROM [Orders] AS [o] WHERE [o].[Id] = @p0",
              lognormal(c.w.rng, 2.2))
        return 200, None

    def invoice(c):
        c.sql("KestrelFinance", "INSERT INTO [Invoices] ([Id], [OrderId]) VALUES (@p0, @p1)", lognormal(c.w.rng, 4))
        if not publish(c, "invoice-events"):
            return 503, sb_throttle_exc()
        return 201, None

    ops = [entry("orders-api", dict(method="POST", route="/api/orders", path=fixed("/api/orders"), rate=34), create),
           entry("orders-api", dict(method="GET", route="/api/orders/{orderId}", path=idpath("/api/orders/%d"),
                                    rate=40), get)]
    ledger = {"orders-api": [("9.3.8", "2026-11-28T12:40:16.0046"), ("9.4.0", rel)]}
    roll = {"orders-api": [("9.3.8", None, 0), ("9.4.0", rel, 80)]}
    if sibling:
        ops.append(entry("invoicing-api", dict(method="POST", route="/api/invoices", path=fixed("/api/invoices"),
                                               rate=16, client="Kestrel.Orders/9.4 (+dotnet)"), invoice))
        ledger["invoicing-api"] = [("3.1.0", "2026-11-20T08:15:55.7000")]
        roll["invoicing-api"] = [("3.1.0", None, 0)]
    return {
        "id": ident,
        "title": "the Service Bus namespace is throttled from 16:12:30 (another team's 2M-message replay): "
                 "ServerBusy on 55% of sends; orders-api 9.4.0 had finished rolling out at 16:12:08",
        "service": "orders-api", "start": "2026-12-05T15:05:00.0000", "now": "2026-12-05T16:23:30.0000",
        "sampling": ("head", 12),
        "roll": roll, "ledger": ledger,
        "markers": [("orders-api", "9.4.0", "9.3.8", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "alert": {"name": "OrdersApiCreateErrors", "starts": "2026-12-05T16:17:00Z", "burn_label": "14.1",
                  "team": "orders"},
        "tags": ["dotnet", "servicebus", "throttling", "trap", "head-1-in-12"] + (["sibling-publisher"] if sibling
                                                                               else ["twin"]),
        "onset": "16:12:30",
        "story": "A replay of 2M messages by the analytics team exhausts the Standard namespace's credits: "
                 "ServiceBusSender.Send spans fail with ServiceBusException (ServerBusy, error 50009), the SDK's "
                 "retry waits 0.8-2.4 s, and after three failures POST /api/orders answers 503. orders-api 9.4.0 "
                 "(an order-lines validation message) had finished rolling out 22 s before."
                 + (" invoicing-api (no release since 20 Nov) publishes to the same namespace and fails alike."
                    if sibling else ""),
    }


def inc_surge():
    """A retailer's SMS campaign at 12:00: parcel lookups x5 on every route, 2 min after parcel-lookup 2.3.1."""
    rel = "2026-12-05T11:58:02.2140"
    s0 = at("2026-12-05T12:00:05.0000")

    def load(t):
        return 1.0 + 4.0 * ramp(t, s0, s0 + 150 * S)

    def lookup(c):
        w = c.w
        lv = load(c.t)
        q = max(0.0, lv - 2.5)
        c.seredis("GET", lognormal(w.rng, 0.6 + 2 * q))
        if q and w.rng.random() < 0.04 * q:
            c.advance(15000)
            return 503, ("System.InvalidOperationException", "Timeout expired.  The timeout period elapsed prior to "
                         "obtaining a connection from the pool.  This may have occurred because all pooled "
                         "connections were in use and max pool size was reached.",
                         ["Microsoft.Data.ProviderBase.DbConnectionFactory.TryGetConnection(...)"])
        c.sql("KestrelTracking", "SELECT [p].[Status], [p].[LastScanAt] FROM [Parcels] AS [p] WHERE [p].[Barcode] = "
              "@p0", lognormal(w.rng, 3 + 140 * q, 0.5))
        return 200, None

    def pod(c):
        w = c.w
        q = max(0.0, load(c.t) - 2.5)
        c.sql("KestrelTracking", "SELECT [d].[PhotoUrl] FROM [Deliveries] AS [d] WHERE [d].[Barcode] = @p0",
              lognormal(w.rng, 4 + 120 * q, 0.5))
        return 200, None

    ops = [entry("parcel-lookup", dict(method="GET", route="/api/parcels/{barcode}", path=tracking_no("/api/parcels/%s"),
                                       rate=60, client="Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)"),
                 lookup),
           entry("parcel-lookup", dict(method="GET", route="/api/parcels/{barcode}/proof",
                                       path=tracking_no("/api/parcels/%s/proof"), rate=14), pod)]
    return {
        "id": "kf6-trap-sms-campaign-surge-parcel-lookup",
        "title": "a retailer's SMS campaign at 12:00 sends 5x the parcel lookups on every route; parcel-lookup 2.3.1 "
                 "(a translation) rolled out at 11:58:02",
        "service": "parcel-lookup", "start": "2026-12-05T10:40:00.0000", "now": "2026-12-05T12:10:00.0000",
        "sampling": ("head", 25),
        "roll": {"parcel-lookup": [("2.3.0", None, 0), ("2.3.1", rel, 60)]},
        "ledger": {"parcel-lookup": [("2.3.0", "2026-11-25T14:31:07.8852"), ("2.3.1", rel)]},
        "markers": [("parcel-lookup", "2.3.1", "2.3.0", rel, {})],
        "ops": ops, "load": load,
        "expect": {"root_cause": "traffic_surge", "verdict": "deny"},
        "alert": {"name": "ParcelLookupLatency", "starts": "2026-12-05T12:05:00Z", "burn_label": "8.3",
                  "team": "tracking"},
        "tags": ["dotnet", "surge", "trap", "head-1-in-25"],
        "onset": "12:01-12:02, as the requests pass 3.5x",
        "story": "A retailer texts 1.8M customers their tracking links at 12:00:05; lookups rise 5x over 2.5 "
                 "minutes on both routes, the SQL connection pool queues (queries x40) and ~10% of lookups at the "
                 "peak answer 503 'obtaining a connection from the pool'. 2.3.1 only changes a Polish translation.",
    }


def inc_green():
    """A blue-green 'green' slot of billing-api 4.2.0 was deployed and marked but never switched to."""
    mk = "2026-12-05T15:31:08.4070"
    leak = at("2026-12-05T15:36:00.0000")

    def render(c):
        w = c.w
        p = ramp(c.t, leak, leak + 9 * MIN)
        c.sql("KestrelFinance", "SELECT [i].[Id], [i].[Lines] FROM [Invoices] AS [i] WHERE [i].[Id] = @p0",
              lognormal(w.rng, 3))
        c.advance(lognormal(w.rng, 45 + 900 * p, 0.5))
        if w.rng.random() < 0.02 * p:
            return 500, ("System.OutOfMemoryException", "Exception of type 'System.OutOfMemoryException' was thrown.",
                         ["QuestPDF.Drawing.DocumentGenerator.RenderDocument[TCanvas](TCanvas canvas, IDocument "
                          "document, DocumentSettings settings)",
                          "Kestrel.Billing.Pdf.InvoicePdf.Render(Invoice invoice) in /src/Kestrel.Billing/Pdf/"
                          "InvoicePdf.cs:line 22"])
        if p > 0.3 and w.rng.random() < 0.05:
            c.dlog("Warning", "Heartbeat took longer than \"{interval}\" at \"{now}\". This could be caused by thread "
                   "pool starvation.", {"interval": "00:00:01", "now": ts(c.cur)[:-2] + " +00:00"},
                   category="Microsoft.AspNetCore.Server.Kestrel")
        return 200, None

    def get(c):
        w = c.w
        p = ramp(c.t, leak, leak + 9 * MIN)
        c.sql("KestrelFinance", "SELECT [i].[Id], [i].[Status] FROM [Invoices] AS [i] WHERE [i].[AccountId] = @p0",
              lognormal(w.rng, 3))
        c.advance(lognormal(w.rng, 2 + 300 * p, 0.6))
        return 200, None

    ops = [entry("billing-api", dict(method="GET", route="/api/invoices/{invoiceId}/pdf",
                                     path=idpath("/api/invoices/%d/pdf"), rate=18), render),
           entry("billing-api", dict(method="GET", route="/api/accounts/{accountId}/invoices",
                                     path=idpath("/api/accounts/%d/invoices"), rate=32), get)]
    return {
        "id": "kf6-trap-unswitched-green-marker-billing-api",
        "title": "billing-api 4.2.0's green slot was deployed and marked at 15:31 but never switched to; from 15:36 "
                 "the blue 4.1.3 pods leak PDF buffers: Gen2 GCs, thread-pool starvation, every route slower",
        "service": "billing-api", "start": "2026-12-05T14:20:00.0000", "now": "2026-12-05T15:52:00.0000",
        "sampling": ("head", 7),
        "roll": {"billing-api": [("4.1.3", None, 0)]},
        "ledger": {"billing-api": [("4.1.0", "2026-11-18T09:30:40.1200"), ("4.1.3", "2026-12-02T11:04:19.6634")]},
        "markers": [("billing-api", "4.2.0", "4.1.3", mk,
                     {"deployment.id": "bg-green-billing-api-4.2.0", "k8s.deployment.name": "billing-api-green",
                      "attrs": {"deployment.strategy": "blue-green", "deployment.slot": "green"}})],
        "ops": ops,
        "expect": {"root_cause": "resource_saturation", "verdict": "deny"},
        "alert": {"name": "BillingApiLatency", "starts": "2026-12-05T15:45:00Z", "burn_label": "7.7",
                  "team": "finance"},
        "tags": ["dotnet", "blue-green", "never-served", "marker-without-ledger", "gc", "trap", "head-1-in-7"],
        "onset": "15:36-15:38",
        "story": "The green slot (billing-api-green, 4.2.0) passed its smoke test and wrote a deployment marker, "
                 "but the switch was held for the finance freeze; every request is served by blue 4.1.3 (the "
                 "ledger's last entry, 2 Dec). From 15:36 an invoice batch makes 4.1.3's PDF renderer keep large "
                 "buffers: Gen2 GCs, Kestrel heartbeat warnings, every route slower, a few OutOfMemoryException.",
    }


def inc_callee():
    """rates-api 2.8.0 raises ValidationError on 40% of quotes; shipping-bff (unchanged) answers 502."""
    rel = "2026-12-05T12:41:29.7750"

    def rates_quote(c):
        w = c.w
        c.pyredis("GET", lognormal(w.rng, 0.6), "rates-cache.pricing.svc.cluster.local")
        c.sqla("kestrel_rates", "SELECT tariffs.id, tariffs.zone, tariffs.base_eur FROM tariffs WHERE tariffs.lane = "
               "%(lane_1)s AND tariffs.valid_to > now()", lognormal(w.rng, 5), "pg-rates.kestrel.internal")
        if c.ver == "2.8.0" and w.rng.random() < 0.4:
            return 500, ("pydantic_core._pydantic_core.ValidationError", "1 validation error for QuoteResponse\n"
                         "transit_days\n  Input should be a valid integer, got a number with a fractional part "
                         "[type=int_from_float, input_value=2.5, input_type=float]",
                         [("/app/rates_api/routes/quote.py", 52, "post_quote"),
                          ("/usr/local/lib/python3.12/site-packages/pydantic/main.py", 212, "__init__")])
        return 200, None

    def checkout(c):
        w = c.w
        c.seredis("GET", lognormal(w.rng, 0.5))
        start = c.cur
        holder = {}
        op = {"method": "POST", "route": "/v1/rates/quote", "path": "/v1/rates/quote", "ua": "dotnet-httpclient"}
        sid = c.tr.sid()
        rc, st, dur = python_server(c.tr, "rates-api", start + int(0.5 * MS), sid, op, rates_quote)
        ms = dur / MS + 1.1
        a = {"http.request.method": "POST", "server.address": "rates-api", "server.port": 8000,
             "url.full": "http://rates-api:8000/v1/rates/quote", "network.protocol.version": "1.1",
             "http.response.status_code": st}
        if st >= 500:
            a["error.type"] = str(st)
        c.tr.span(sid, c.svc, c.ver, "POST", 3, start, ms * MS, c.sid, a, "" if st >= 500 else None)
        c.advance(ms)
        holder["st"] = st
        if st >= 500:
            return 502, ("Kestrel.Web.Rates.RatesUnavailableException", "rates-api answered 500 Internal Server Error",
                         ["Kestrel.Web.Rates.RatesClient.QuoteAsync(QuoteRequest request, CancellationToken ct) in "
                          "/src/Kestrel.Web/Rates/RatesClient.cs:line 47"])
        return 200, None

    def track(c):
        c.http("tracking-api", "GET", "/api/tracking/KF%09dNL" % c.w.rng.randrange(10 ** 8, 10 ** 9),
               lognormal(c.w.rng, 18), 200)
        return 200, None

    ops = [entry("shipping-bff", dict(method="POST", route="/bff/checkout/quote", path=fixed("/bff/checkout/quote"),
                                      rate=36, client="KestrelWeb/2026.12 (browser)"), checkout),
           entry("shipping-bff", dict(method="GET", route="/bff/shipments/{trackingNumber}",
                                      path=tracking_no("/bff/shipments/%s"), rate=44), track)]
    return {
        "id": "kf6-trap-rates-280-breaks-shipping-bff",
        "title": "rates-api 2.8.0 (12:41:29) raises ValidationError on 40% of quotes; shipping-bff, unchanged since "
                 "1 Dec, answers 502 on its checkout quotes",
        "service": "shipping-bff", "start": "2026-12-05T11:30:00.0000", "now": "2026-12-05T12:57:00.0000",
        "sampling": ("head", 9),
        "roll": {"shipping-bff": [("11.2.0", None, 0)], "rates-api": [("2.7.1+cfg.112", None, 0),
                                                                      ("2.8.0", rel, 75)]},
        "ledger": {"shipping-bff": [("11.1.4", "2026-11-21T10:00:12.5000"), ("11.2.0", "2026-12-01T09:14:33.0098")],
                   "rates-api": [("2.7.1+cfg.112", "2026-12-05T10:33:17.9020"), ("2.8.0", rel)]},
        "markers": [("rates-api", "2.8.0", "2.7.1+cfg.112", rel, {})],
        "ops": ops,
        "expect": {"root_cause": "bad_release", "verdict": "deny", "culprit": {"service": "rates-api",
                                                                               "verdict": "allow"}},
        "alert": {"name": "ShippingBffCheckoutErrors", "starts": "2026-12-05T12:49:00Z", "burn_label": "12.4",
                  "team": "web"},
        "tags": ["dotnet", "python", "callee-release", "culprit", "trap", "head-1-in-9"],
        "onset": "12:41:3x, with the first rates-api 2.8.0 pods",
        "story": "rates-api 2.8.0 returns fractional transit_days for ferry lanes; its pydantic response model "
                 "wants an int and 40% of quotes raise ValidationError (500). shipping-bff calls POST "
                 "/v1/rates/quote (HttpClient, server.address rates-api) on every checkout quote and answers 502. "
                 "shipping-bff has not changed: rolling it back fixes nothing; rates-api's release is the culprit.",
    }


INCIDENTS = [inc_copilot, inc_retry, inc_booking, inc_rates_cfg, inc_warehouse, inc_carrier, inc_sql, inc_redis,
             inc_servicebus, inc_surge, inc_green, inc_callee]


# ---------------------------------------------------------------- files

def q(s):
    return json.dumps(s)


def alert_json(spec):
    a = spec["alert"]
    rule = hexid(random.Random("%d/rule/%s" % (SEED, spec["id"])), 32)
    fp = hexid(random.Random("%d/fp/%s" % (SEED, spec["id"])), 16)
    labels = {"alertname": a["name"], "service.name": spec["service"], "severity": "critical", "team": a["team"],
              "deployment.environment": "production", "ruleId": rule}
    ann = {"summary": "%s: %s" % (spec["service"], a["name"]),
           "description": "SLO burn over the 1h window is above threshold for %s" % spec["service"]}
    if "burn_label" in a:
        labels["burn_rate"] = a["burn_label"]
    else:
        ann["slo_burn_rate"] = a["burn_annotation"]
    body = {
        "receiver": "kestrel-%s-pager" % a["team"], "status": "firing",
        "alerts": [{"status": "firing", "labels": labels, "annotations": ann, "startsAt": a["starts"],
                    "endsAt": "0001-01-01T00:00:00Z",
                    "generatorURL": "https://signoz.%s/alerts/edit?ruleId=%s" % (DOMAIN, rule), "fingerprint": fp}],
        "groupLabels": {"alertname": a["name"], "service.name": spec["service"]},
        "commonLabels": labels, "commonAnnotations": ann, "externalURL": "https://signoz." + DOMAIN, "version": "4",
        "groupKey": '{}/{severity="critical"}:{alertname="%s", service.name="%s"}' % (a["name"], spec["service"]),
        "truncatedAlerts": 0,
    }
    return json.dumps(body, indent=2) + "\n"


def incident_yaml(spec):
    e = spec["expect"]
    lines = ["id: %s" % spec["id"], "title: %s" % q(spec["title"]), "service: %s" % spec["service"],
             "now: %s" % ts(at(spec["now"])), "expect:", "  root_cause: %s" % e["root_cause"],
             "  verdict: %s" % e["verdict"]]
    if "culprit" in e:
        lines += ["  culprit:", "    service: %s" % e["culprit"]["service"],
                  "    verdict: %s" % e["culprit"]["verdict"]]
    lines.append("tags: [%s]" % ", ".join(["heldout6", "kestrel"] + spec["tags"]))
    if spec.get("prior_actions"):
        lines.append("prior_actions:")
        for svc, when in spec["prior_actions"]:
            lines += ["  - service: %s" % svc, "    at: %s" % when]
    return "\n".join(lines) + "\n"


def releases_yaml(spec):
    lines = ["project: kestrel", "services:"]
    for svc, rel in spec["ledger"].items():
        ns = SERVICES[svc][1]
        lines.append("  %s:" % svc)
        for v, d in rel:
            lines += ["    - version: %s" % q(v), "      image: kestrelacr.azurecr.io/%s/%s:%s" % (
                ns, svc, v.replace("+", "-")), "      deployed_at: %s" % ts(at(d))]
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


def sampling_text(s):
    if s[0] == "head":
        return "head, parent-based trace-id ratio, 1 in %d" % s[1]
    return "collector tail sampling: errors and traces over %d ms kept (SampleRate 1), 1 in %d of the rest " \
           "(SampleRate %d)" % (s[2], s[1], s[1])


def generate(make, root):
    spec = make()
    w = World(spec)
    run(w, spec)
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    w.spans.sort(key=lambda x: (x[0], x[1]["span_id"]))
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
        f.write(json.dumps(dict(spec["expect"], sampling=sampling_text(spec["sampling"]), history_minutes=hist,
                                onset=spec["onset"], story=spec["story"]), indent=2) + "\n")
    n1 = write_jsonl(folder, "spans.jsonl", spans)
    n2 = write_jsonl(folder, "logs.jsonl", [r for _, r in w.logs])
    print("%-48s spans %6d (%5.1f MB)  logs %6d (%4.1f MB)" % (spec["id"], len(spans), n1 / 1e6, len(w.logs),
                                                             n2 / 1e6))


# ---------------------------------------------------------------- twins (README.md, "Twins")

def twin_carrier_after():
    """The carrier trap with Nordpost's outage 2.5 min after labels-api 2.14.0 finished rolling out: every failing
    request is 2.14.0's, the outage seen only in HttpClient's server.address and http.response.status_code."""
    spec = inc_carrier(out="2026-12-05T10:06:05.0000", now="2026-12-05T10:17:00.0000",
                       starts="2026-12-05T10:11:00Z", ident="kf6-twin-carrier-outage-after-rollout-labels-api")
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "10:06:05, 2.5 minutes after the rollout finished (10:03:35)"
    return spec


def twin_sql_rolling():
    """The index-rebuild trap with a 40 s rolling update finished 7 s before the rebuild's locks: no 6.0.9 pod
    serves a failing request."""
    spec = inc_sql(rel="2026-12-05T02:16:58.2093", batch="2026-12-05T02:17:45.0000", roll=40,
                   ident="kf6-twin-index-rebuild-after-rollout-dispatch-api")
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "02:17:45, 7 s after the rollout finished"
    return spec


def twin_sql_slow_only():
    """The index-rebuild twin without a failed SqlClient span: the updates only wait on the locks (no deadlock
    victim, no command timeout) and the pool that runs dry fails on the ASP.NET Core server span alone."""
    spec = inc_sql(rel="2026-12-05T02:16:58.2093", batch="2026-12-05T02:17:45.0000", roll=40, deadlocks=False,
                   ident="kf6-twin-index-rebuild-pool-only-dispatch-api")
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "02:17:45, 7 s after the rollout finished"
    return spec


def twin_servicebus_alone():
    """The Service Bus trap without invoicing-api: orders-api is the namespace's only publisher recorded, so no
    other service co-regresses; the throttling is seen only in the Azure SDK's ServiceBusSender.Send spans."""
    spec = inc_servicebus(sibling=False, ident="kf6-twin-servicebus-throttled-alone-orders-api")
    return spec


def twin_redis_head():
    """The Redis trap head-sampled 1 in 25 (no tail sampler, no SampleRate): the kept traces no longer
    over-count the failing ones, so inbound traffic reads as it is."""
    spec = inc_redis()
    spec["id"] = "kf6-twin-redis-patching-head-sampled-pricing-api"
    spec["sampling"] = ("head", 25)
    spec["tags"] = [t for t in spec["tags"] if t not in ("tail-sampled", "SampleRate")] + ["head-1-in-25", "twin"]
    return spec


def twin_warehouse_outage():
    """The back-to-back release with the database also failing the statements every version sends (40613, not
    currently available, 35% of them) from 09:39:00, 16 s after 4.0.1's rollout began: the new statement's
    failures are 4.0.1's, but the old ones fail too, and a rollback to 3.9.6 would still fail them."""
    spec = inc_warehouse(outage="2026-12-05T09:39:00.0000", ident="kf6-twin-back-to-back-sql-outage-warehouse-api")
    spec["title"] = ("warehouse-api 4.0.1 writes a column the database does not have while the database itself "
                     "answers 40613 to 35% of every statement from 09:39:00")
    spec["expect"] = {"root_cause": "dependency_outage", "verdict": "deny"}
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "09:38:5x-09:39:00, the first 4.0.1 pods and the database's outage"
    spec["story"] = ("As kf6-back-to-back-slots-warehouse-api, but from 09:39:00 Azure SQL answers 40613 'not "
                     "currently available' to 35% of every statement, the reads 3.9.6 sends included: the "
                     "database fails on calls the release did not change, and a rollback fixes only part.")
    return spec


TWINS = {"warehouse-outage": twin_warehouse_outage, "carrier-after": twin_carrier_after, "sql-rolling": twin_sql_rolling, "sql-slow-only": twin_sql_slow_only,
         "servicebus-alone": twin_servicebus_alone, "redis-head": twin_redis_head}


def main():
    if sys.argv[1:2] == ["--twin"]:
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
