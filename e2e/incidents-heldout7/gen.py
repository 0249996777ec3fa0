#!/usr/bin/env python3
"""Generates e2e/incidents-heldout7: a media/streaming company's platform ("Lumen").

Run from this folder: `python3 gen.py`. Seeded (SEED below): every file comes out
byte for byte the same on every run, whatever PYTHONHASHSEED. Files over 3 MB are
written gzip'd with no name and mtime 0. `python3 gen.py --twin DIR NAME...` writes
the adversarial twins (README.md, "Twins") into DIR.

Style (README.md): Node.js services (Express, Fastify, NestJS) traced by
@opentelemetry/auto-instrumentations-node with its default OLD HTTP semantic
conventions (http.method, http.target, http.route, http.status_code,
net.peer.name, net.peer.port), undici/fetch client spans (current semconv, as that
instrumentation emits), pg (db.system postgresql, db.statement), ioredis, graphql
(graphql.operation.name, resolver errors inside HTTP 200 bodies), @grpc/grpc-js and
the AWS SDK v3 instrumentation (rpc.system aws-api, rpc.service DynamoDB|S3|SQS,
rpc.method, aws.region, aws.request.id, aws.dynamodb.table_names; the SDK's retries
inside one span); Go services with otelhttp (old semconv), otelgrpc
(rpc.grpc.status_code), redisotel, otelpgx and otelaws (aws.request_id); Lambda
functions (faas.*). Exceptions as span events; pino JSON log bodies for Node, slog
JSON for Go. Head sampling 1 in 2 to 1 in 50 per incident; one incident through the
collector's probabilistic sampler (spans and logs kept by trace id hash).
"""
import gzip
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timezone

SEED = 7707
HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1_000_000
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024
REGION = "eu-west-1"


def ts(ns):
    """RFC 3339, UTC, microseconds, Z (the OTLP JSON exporter's nanoseconds, cut)."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % (frac // 1000)


def at(s):
    """'2026-12-07T10:07:12.480' (UTC) to ns."""
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return int(d.timestamp()) * S + int((frac + "000")[:3]) * MS


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


# ---------------------------------------------------------------- services

NODE_RT = {"telemetry.sdk.language": "nodejs", "telemetry.sdk.name": "opentelemetry",
           "telemetry.sdk.version": "1.26.0", "process.runtime.name": "nodejs", "process.runtime.version": "20.18.0",
           "process.runtime.description": "Node.js", "process.executable.name": "node"}
GO_RT = {"telemetry.sdk.language": "go", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.28.0",
         "process.runtime.name": "go", "process.runtime.version": "go1.22.9",
         "process.runtime.description": "go version go1.22.9 linux/amd64"}
LAMBDA_RT = {"telemetry.sdk.language": "nodejs", "telemetry.sdk.name": "opentelemetry",
             "telemetry.sdk.version": "1.26.0", "cloud.provider": "aws", "cloud.platform": "aws_lambda",
             "cloud.region": REGION, "process.runtime.name": "nodejs", "process.runtime.version": "20.18.0"}

# service -> (runtime, framework, platform)
SERVICES = {
    "gateway-gql": ("node", "nestjs", "eks"),
    "recs-api": ("node", "fastify", "eks"),
    "playback-api": ("node", "fastify", "ecs"),
    "entitlements-api": ("node", "express", "ecs"),
    "billing-api": ("node", "nestjs", "ecs"),
    "downloads-api": ("node", "fastify", "ecs"),
    "search-api": ("node", "express", "eks"),
    "profile-api": ("node", "express", "eks"),
    "manifest-svc": ("go", "otelhttp", "eks"),
    "drm-license": ("go", "otelhttp", "eks"),
    "ratings-svc": ("go", "otelgrpc", "eks"),
    "ledger-svc": ("go", "otelgrpc", "ecs"),
    "origin-shield": ("go", "otelhttp", "ecs"),
    "transcode-api": ("go", "otelhttp", "ecs"),
    "rights-audit": ("lambda", "lambda", "lambda"),
    "offline-repackager": ("lambda", "lambda", "lambda"),
}
ACCOUNT = "381492650117"


class World:
    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, spec["id"]))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.one_in = spec["one_in"]
        self.fault = spec["fault"]
        self.ops = spec["ops"]
        self.spans, self.logs = [], []
        self.serving = spec["serving"]  # svc -> [(version, begin ns or None, rollout seconds)]

    def version(self, svc, t):
        cur = None
        for v, begin, secs in self.serving.get(svc, []):
            if begin is None or cur is None:
                cur = v
                continue
            if t < begin:
                break
            if t >= begin + secs * S or self.rng.random() < (t - begin) / (secs * S):
                cur = v
        return cur or "unknown"

    def task(self, svc, ver):
        h = random.Random("%s/%s/%s" % (self.id, svc, ver))
        if SERVICES[svc][2] == "ecs":
            return hexid(h, 32)
        rs = hexid(h, 10)[:9].replace("0", "5")
        return "%s-%s-%s" % (svc, rs, "".join(h.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5)))

    def resource(self, svc, ver):
        rt, _, plat = SERVICES[svc]
        r = {"service.name": svc, "service.version": ver, "service.namespace": "lumen",
             "deployment.environment": "prod"}
        if rt == "lambda":
            r.update(LAMBDA_RT)
            r.update({"faas.name": svc, "faas.version": "$LATEST", "faas.max_memory": 1024,
                      "cloud.account.id": ACCOUNT})
            return r
        r.update(NODE_RT if rt == "node" else GO_RT)
        r["host.name"] = self.task(svc, ver)[:12] if plat == "ecs" else self.task(svc, ver)
        r["cloud.provider"] = "aws"
        r["cloud.region"] = REGION
        if plat == "ecs":
            r.update({"cloud.platform": "aws_ecs", "aws.ecs.launchtype": "fargate",
                      "aws.ecs.cluster.arn": "arn:aws:ecs:%s:%s:cluster/lumen-prod" % (REGION, ACCOUNT),
                      "aws.ecs.task.arn": "arn:aws:ecs:%s:%s:task/lumen-prod/%s" % (REGION, ACCOUNT,
                                                                                    self.task(svc, ver)),
                      "aws.ecs.task.family": svc, "aws.ecs.task.revision": "%d" % (
                          40 + sum(map(ord, ver)) % 50)})
        else:
            r.update({"cloud.platform": "aws_eks", "k8s.cluster.name": "lumen-prod-euw1",
                      "k8s.namespace.name": "streaming", "k8s.deployment.name": svc,
                      "k8s.pod.name": self.task(svc, ver)})
        r["container.image.name"] = "%s.dkr.ecr.%s.amazonaws.com/lumen/%s" % (ACCOUNT, REGION, svc)
        r["container.image.tag"] = ver.replace("+", "_")
        return r


class Trace:
    def __init__(self, w, t):
        self.w = w
        self.id = hexid(w.rng, 32)
        self.kept = int(self.id[16:], 16) < (1 << 64) // w.one_in
        self.spans = []
        self.logs = []
        self.error = False

    def sid(self):
        return hexid(self.w.rng, 16)

    def span(self, sid, svc, ver, name, kind, start, dur, parent, attrs, err=None, events=None):
        s = {"timestamp": ts(start), "trace_id": self.id, "span_id": sid, "parent_span_id": parent or "",
             "name": name, "kind": kind, "duration_nano": int(dur), "has_error": bool(err),
             "status_code": 2 if err else 0, "status_message": err or "",
             "resource": self.w.resource(svc, ver), "attributes": attrs}
        if events:
            s["events"] = events
        self.spans.append((start, s))
        return s

    def log(self, svc, ver, t, sev, body, sid="", attrs=None):
        self.logs.append((t, {"timestamp": ts(t), "severity_text": sev,
                              "severity_number": {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17}[sev],
                              "body": body, "trace_id": self.id, "span_id": sid,
                              "resource": self.w.resource(svc, ver), "attributes": attrs or {}}))


def exc_event(t, typ, msg, frames):
    st = "%s: %s\n" % (typ, msg) + "".join("    at %s\n" % f for f in frames)
    return [{"name": "exception", "timestamp": ts(t),
             "attributes": {"exception.type": typ, "exception.message": msg, "exception.stacktrace": st}}]


PINO = {"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50}


def pino(w, svc, ver, t, sev, msg, **fields):
    """A pino JSON line as the pino instrumentation exports it (the body is the whole line)."""
    host = w.task(svc, ver)
    if SERVICES[svc][2] == "ecs":
        host = "ip-10-%d-%d-%d.%s.compute.internal" % (40 + int(host[:2], 16) % 20, int(host[2:4], 16) % 16,
                                                       2 + int(host[4:6], 16) % 240, REGION)
    d = {"level": PINO[sev], "time": t // MS, "pid": 1, "hostname": host}
    d.update(fields)
    d["msg"] = msg
    return json.dumps(d, separators=(",", ":"))


def slog(t, sev, msg, **fields):
    d = {"time": ts(t).replace("Z", "+00:00"), "level": sev if sev != "WARN" else "WARN", "msg": msg}
    d.update(fields)
    return json.dumps(d, separators=(",", ":"))


def applog(tr, svc, ver, t, sev, msg, sid="", **fields):
    if SERVICES[svc][0] == "go":
        body = slog(t, sev, msg, **fields)
    else:
        body = pino(tr.w, svc, ver, t, sev, msg, **fields)
    tr.log(svc, ver, t, sev, body, sid)


# ---------------------------------------------------------------- span shapes

STATUS_TEXT = {200: "OK", 201: "Created", 204: "No Content", 401: "Unauthorized", 500: "Internal Server Error",
               502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}


def host_of(svc):
    if SERVICES[svc][2] == "ecs":
        return "%s.lumen.internal" % svc
    return "%s.streaming.svc.cluster.local" % svc


def server_span_attrs(w, svc, op, status):
    rt = SERVICES[svc][0]
    target = op.get("target", op["route"])
    ip = "10.%d.%d.%d" % (40 + sum(map(ord, svc)) % 20, w.rng.randint(0, 15), w.rng.randint(2, 250))
    if rt == "node":
        a = {"http.url": "http://%s:8080%s" % (host_of(svc), target), "http.host": "%s:8080" % host_of(svc),
             "net.host.name": host_of(svc), "http.method": op["method"], "http.scheme": "http",
             "http.target": target, "http.user_agent": op.get("ua", "okhttp/4.12.0"), "http.flavor": "1.1",
             "net.transport": "ip_tcp", "net.host.ip": "::ffff:" + ip, "net.host.port": 8080,
             "net.peer.ip": "::ffff:10.%d.%d.%d" % (w.rng.randint(40, 60), w.rng.randint(0, 15),
                                                     w.rng.randint(2, 250)),
             "net.peer.port": w.rng.randint(32768, 60999), "http.status_code": status,
             "http.status_text": STATUS_TEXT.get(status, "OK").upper(), "http.route": op["route"]}
        return a
    return {"http.method": op["method"], "http.scheme": "http", "net.host.name": host_of(svc),
            "net.host.port": 8080, "net.sock.peer.addr": "10.%d.%d.%d" % (w.rng.randint(40, 60),
                                                                           w.rng.randint(0, 15),
                                                                           w.rng.randint(2, 250)),
            "net.sock.peer.port": w.rng.randint(32768, 60999), "user_agent.original": op.get("ua", "Go-http-client/1.1"),
            "http.target": target, "net.protocol.version": "1.1", "http.route": op["route"],
            "http.status_code": status, "http.response_content_length": w.rng.randint(180, 9000)}


def grpc_code(status):
    return {200: 0, 400: 3, 404: 5, 500: 13, 502: 14, 503: 14, 504: 4}.get(status, 13 if status >= 500 else 0)


GRPC_NAMES = {0: "OK", 3: "InvalidArgument", 4: "DeadlineExceeded", 13: "Internal", 14: "Unavailable"}


# ---------------------------------------------------------------- the request engine

def serve(tr, svc, opname, t, parent, ctx):
    """Runs svc's operation at t under parent; returns (duration ns, status, (exc, msg))."""
    w, rng = tr.w, tr.w.rng
    op = w.ops[svc][opname]
    rt, fw, _ = SERVICES[svc]
    ver = w.version(svc, t)
    eff = w.fault(w, svc, opname, t, ver, "server", ctx) or {}
    sid = tr.sid()
    start = t
    cur = start + int(lognormal(rng, op.get("pre_ms", 0.8)) * MS)
    hsid = sid
    if rt == "node":
        hsid = tr.sid()
    failed = None
    if op.get("gql"):
        d, failed = graphql(tr, svc, ver, op, cur, hsid, ctx)
        cur += d
    else:
        for ch in ([] if eff.get("skip_calls") else op.get("calls", [])):
            if ch[0] == "maybe":
                if rng.random() >= ch[1]:
                    continue
                ch = ch[2]
            d, fail = child(tr, svc, ver, ch, cur, hsid, ctx)
            cur += d + int(rng.uniform(0.05, 0.4) * MS)
            if fail:
                failed = fail
                break
    own = lognormal(rng, op["ms"], op.get("sigma", 0.35)) * eff.get("slow", 1.0) + eff.get("add_ms", 0)
    end = cur + int(own * MS)
    status, exc, msg = op.get("ok", 200), None, None
    if failed:
        status, exc, msg = failed
    elif eff.get("fail"):
        status, exc, msg = eff["fail"]
    dur = end - start
    events = None
    err = None
    if status >= 500:
        tr.error = True
        events = exc_event(end - int(0.2 * MS), exc, msg, op.get("frames", ["%s (/app/dist/main.js:1:1)" % svc]))
    if op.get("grpc"):
        code = grpc_code(status)
        attrs = {"rpc.system": "grpc", "rpc.service": op["grpc"][0], "rpc.method": op["grpc"][1],
                 "rpc.grpc.status_code": code, "net.sock.peer.addr": "10.%d.%d.%d" % (
                     rng.randint(40, 60), rng.randint(0, 15), rng.randint(2, 250)),
                 "net.sock.peer.port": rng.randint(32768, 60999)}
        if code in (2, 4, 12, 13, 14, 15):
            err = msg
        tr.span(sid, svc, ver, "%s/%s" % op["grpc"], 2, start, dur, parent, attrs, err=err,
                events=[{"name": "message", "timestamp": ts(start + 20000), "attributes": {
                    "message.type": "RECEIVED", "message.id": 1, "message.uncompressed_size": rng.randint(40, 400)}}]
                + (events or []))
    else:
        attrs = server_span_attrs(w, svc, op, status)
        attrs.update(eff.get("attrs", {}))
        if status >= 500:
            err = msg if rt == "go" else None  # the Node http instrumentation sets ERROR without a message
            if rt == "node":
                err = "%d" % status
        name = "%s %s" % (op["method"], op["route"])
        tr.span(sid, svc, ver, name, 2, start, dur, parent, attrs, err=err, events=events if rt == "go" else None)
        if rt == "node":
            framework_span(tr, svc, ver, fw, op, hsid, sid, start + int(0.3 * MS), dur - int(0.5 * MS),
                           events if status >= 500 else None, msg if status >= 500 else None)
    if status >= 500 and eff.get("log", True):
        applog(tr, svc, ver, end - int(0.1 * MS), "ERROR", eff.get("logmsg", "request failed"), sid,
               **log_err(rt, svc, op, status, exc, msg))
    for extra in eff.get("logs", []):
        applog(tr, svc, ver, end - int(0.1 * MS), extra[0], extra[1], sid, **(extra[2] if len(extra) > 2 else {}))
    return dur, status, (exc, msg)


def log_err(rt, svc, op, status, exc, msg):
    if rt == "go":
        return {"route": op["route"], "status": status, "err": msg}
    return {"req": {"method": op["method"], "url": op.get("target", op["route"])}, "res": {"statusCode": status},
            "err": {"type": exc.rsplit(".", 1)[-1] if exc else "Error", "message": msg}}


def framework_span(tr, svc, ver, fw, op, sid, parent, start, dur, events, err):
    if fw == "express":
        name, a = "request handler - %s" % op["route"], {"http.route": op["route"], "express.name": op["route"],
                                                         "express.type": "request_handler"}
    elif fw == "fastify":
        name, a = "request handler - fastify", {"fastify.type": "request_handler", "plugin.name": "fastify",
                                                "http.route": op["route"]}
    else:
        ctl = op.get("nest", ("AppController", "handle"))
        name, a = "%s.%s" % ctl, {"nestjs.version": "10.4.7", "nestjs.type": "handler",
                                 "nestjs.controller": ctl[0], "nestjs.callback": ctl[1], "http.route": op["route"],
                                 "http.method": op["method"], "component": "@nestjs/core"}
    tr.span(sid, svc, ver, name, 1, start, dur, parent, a, err=err, events=events)


def child(tr, svc, ver, ch, t, parent, ctx):
    w, rng = tr.w, tr.w.rng
    kind = ch[0]
    rt = SERVICES[svc][0]
    if kind == "pg":
        _, table, stmt, med = ch
        eff = w.fault(w, svc, table, t, ver, "pg", ctx) or {}
        d = (lognormal(rng, med) * eff.get("slow", 1.0) + eff.get("add_ms", 0)) * MS
        hostn = "lumen-%s.cluster-c9xk2rw1lq0e.%s.rds.amazonaws.com" % (ctx.get("db", "core"), REGION)
        if rt == "node":
            a = {"db.system": "postgresql", "db.name": "lumen", "db.user": svc.replace("-", "_"),
                 "db.connection_string": "postgresql://%s:5432/lumen" % hostn, "net.peer.name": hostn,
                 "net.peer.port": 5432, "db.statement": stmt}
            name = "pg.query:%s lumen" % stmt.split()[0].upper()
        else:
            a = {"db.system": "postgresql", "db.statement": stmt, "db.operation": stmt.split()[0].upper(),
                 "db.sql.table": table, "net.peer.name": hostn, "net.peer.port": 5432}
            name = "query %s" % stmt.split()[0].upper()
        err, ev = None, None
        if eff.get("fail"):
            etype, emsg = eff["fail"]
            d = eff.get("fail_ms", lognormal(rng, 3)) * MS
            err = emsg
            ev = exc_event(t + int(d), etype, emsg, ["github.com/jackc/pgx/v5.(*Conn).Query(conn.go:771)"]
                           if rt == "go" else ["Connection.parseE (/app/node_modules/pg/lib/connection.js:113:11)"])
        tr.span(tr.sid(), svc, ver, name, 3, t, d, parent, a, err=err, events=ev)
        if err:
            return int(d), (eff.get("status", 503), etype, emsg)
        return int(d), None
    if kind == "redis":
        _, cmd, key, med = ch
        eff = w.fault(w, svc, key, t, ver, "redis", ctx) or {}
        d = lognormal(rng, med) * eff.get("slow", 1.0) * MS
        hostn = "lumen-%s.x7kq2m.ng.0001.euw1.cache.amazonaws.com" % ctx.get("cache", "sessions")
        a = {"db.system": "redis", "db.statement": "%s %s" % (cmd.lower(), key), "net.peer.name": hostn,
             "net.peer.port": 6379}
        if rt == "node":
            a["db.connection_string"] = "redis://%s:6379" % hostn
        err, ev = None, None
        if eff.get("fail"):
            etype, emsg = eff["fail"]
            d = eff.get("fail_ms", lognormal(rng, 2)) * MS
            err = emsg
            ev = exc_event(t + int(d), etype, emsg, ["Socket.<anonymous> (/app/node_modules/ioredis/built/"
                                                     "redis/event_handler.js:182:37)"])
        tr.span(tr.sid(), svc, ver, cmd.lower(), 3, t, d, parent, a, err=err, events=ev)
        if err:
            return int(d), (eff.get("status", 500), etype, emsg)
        return int(d), None
    if kind in ("ddb", "s3", "sqs"):
        return aws(tr, svc, ver, ch, t, parent, ctx)
    if kind == "http":
        return http_call(tr, svc, ver, ch, t, parent, ctx)
    if kind == "grpc":
        return grpc_call(tr, svc, ver, ch, t, parent, ctx)
    if kind == "ext":
        return ext_call(tr, svc, ver, ch, t, parent, ctx)
    if kind == "llm":
        return llm(tr, svc, ver, ch, t, parent, ctx)
    raise ValueError(kind)


AWS_ERR = {
    "ProvisionedThroughputExceededException": (400, "The level of configured provisioned throughput for the table "
                                                    "was exceeded. Consider increasing your provisioning level with "
                                                    "the UpdateTable API."),
    "ThrottlingException": (400, "Rate of requests exceeds the allowed throughput."),
    "SlowDown": (503, "Please reduce your request rate."),
}


def aws(tr, svc, ver, ch, t, parent, ctx):
    """One AWS SDK command: a single client span around every attempt the SDK's retry strategy makes."""
    w, rng = tr.w, tr.w.rng
    kind, method, res, med = ch
    rt = SERVICES[svc][0]
    eff = w.fault(w, svc, res, t, ver, kind, ctx) or {}
    service = {"ddb": "DynamoDB", "s3": "S3", "sqs": "SQS"}[kind]
    attempts, d = 1, 0.0
    code = None
    max_attempts = eff.get("max_attempts", 3)
    kids = []
    while True:
        one = lognormal(rng, med) * eff.get("slow", 1.0)
        err = eff.get("error") if rng.random() < eff.get("error_p", 0.0) else None
        kids.append((d, one, err))
        d += one
        if not err:
            code = None
            break
        code = err
        if attempts >= max_attempts:
            break
        # the SDK's standard retry strategy: full-jitter exponential backoff (base 100 ms; 500 ms for throttles)
        d += rng.uniform(0, min(20000, (500 if err != "SlowDown" else 100) * 2 ** (attempts - 1)))
        attempts += 1
    reqid = hexid(rng, 32).upper()[:20] if kind == "s3" else "%s%s" % (hexid(rng, 8).upper(), "NPOU1PLH7GT"
                                                                       "UVBJCQSTLG8K5VV4KQNSO5AEMVJF66Q9ASUAAJG")[:52]
    if rt == "go":
        a = {"rpc.system": "aws-api", "rpc.service": service, "rpc.method": method, "aws.region": REGION,
             "aws.request_id": reqid}
    else:
        a = {"rpc.system": "aws-api", "rpc.method": method, "rpc.service": service, "aws.region": REGION,
             "aws.request.id": reqid}
    if kind == "ddb":
        a["db.system"] = "dynamodb"
        a["aws.dynamodb.table_names"] = [res]
        if method in ("Query", "Scan"):
            a["aws.dynamodb.consistent_read"] = False
    if kind == "sqs":
        a.update({"messaging.system": "aws_sqs", "messaging.destination.kind": "queue",
                  "messaging.destination": res, "messaging.url": "https://sqs.%s.amazonaws.com/%s/%s" % (
                      REGION, ACCOUNT, res)})
    status = AWS_ERR[code][0] if code else 200
    a["http.status_code"] = status
    name = "%s.%s" % (service, method) if kind != "sqs" else "%s send" % res
    events, errmsg = None, None
    if code:
        errmsg = AWS_ERR[code][1]
        events = exc_event(t + int(d * MS), code, errmsg, [
            "throwDefaultError (/app/node_modules/@smithy/smithy-client/dist-cjs/index.js:867:20)",
            "de_CommandError (/app/node_modules/@aws-sdk/client-%s/dist-cjs/index.js:2210:14)" % service.lower()]
            if rt != "go" else ["github.com/aws/smithy-go/transport/http.(*ClientHandler).Handle(client.go:57)"])
    sid = tr.sid()
    tr.span(sid, svc, ver, name, 3 if kind != "sqs" else 4, t, d * MS, parent, a, err=errmsg, events=events)
    if w.spec.get("aws_http_children") and rt == "node":
        aws_http_children(tr, svc, ver, kind, res, t, sid, kids)
    if attempts > 1 and rt != "go":
        applog(tr, svc, ver, t + int(d * MS), "WARN" if not code else "ERROR",
               "aws-sdk %s.%s %s after %d attempts" % (service, method, "failed" if code else "succeeded", attempts),
               sid, **{"$metadata": {"httpStatusCode": status, "requestId": reqid, "attempts": attempts,
                                     "totalRetryDelay": int(d - med)}, "errorCode": code or eff.get("error")})
    if code:
        return int(d * MS), (eff.get("status", 503), code, "%s.%s: %s" % (service, method, errmsg))
    return int(d * MS), None


def aws_http_children(tr, svc, ver, kind, res, t, parent, kids):
    """The node http instrumentation's span for each attempt the SDK sends, under the AWS SDK span: what
    auto-instrumentations-node writes unless the aws-sdk instrumentation's suppressInternalInstrumentation
    is set (the corpus's services set it; the '-http' twins do not)."""
    hostn = {"ddb": "dynamodb.%s.amazonaws.com" % REGION, "s3": "%s.s3.%s.amazonaws.com" % (res, REGION),
             "sqs": "sqs.%s.amazonaws.com" % REGION}[kind]
    for off, one, err in kids:
        status = AWS_ERR[err][0] if err else 200
        path = "/" if kind != "s3" else "/pkg/t_77aa/v3/package.tar"
        method = "POST" if kind != "s3" else "GET"
        a = {"http.url": "https://%s%s" % (hostn, path), "http.method": method, "http.target": path,
             "net.peer.name": hostn, "net.peer.ip": "52.%d.%d.%d" % (tr.w.rng.randint(16, 95), tr.w.rng.randint(0, 255),
                                                                      tr.w.rng.randint(1, 254)),
             "net.peer.port": 443, "http.host": "%s:443" % hostn, "http.flavor": "1.1", "http.status_code": status,
             "http.status_text": STATUS_TEXT.get(status, "BAD REQUEST").upper()}
        tr.span(tr.sid(), svc, ver, method, 3, t + int((off + 0.05) * MS), int(one * MS), parent, a,
                err="%d" % status if status >= 400 else None)


def http_call(tr, svc, ver, ch, t, parent, ctx):
    """A call to another Lumen service: the node http instrumentation (old semconv), undici (new semconv) or
    otelhttp's transport (old semconv); the fault hook gives a timeout and retries (one client span each)."""
    w, rng = tr.w, tr.w.rng
    _, callee, cop = ch[:3]
    style = ch[3] if len(ch) > 3 else ("nodehttp" if SERVICES[svc][0] == "node" else "otelhttp")
    spec = w.ops[callee][cop]
    pol = w.fault(w, svc, callee, t, ver, "call", ctx) or {}
    attempts, timeout = pol.get("attempts", 1), pol.get("timeout_ms")
    cur = t
    target = spec.get("target", spec["route"])
    hostn = host_of(callee)
    status, exc, msg, timed_out = 200, None, None, False
    for i in range(attempts):
        cs = tr.sid()
        start = cur
        d, status, (exc, msg) = serve(tr, callee, cop, start + int(0.4 * MS), cs, ctx)
        timed_out = timeout is not None and d + MS > timeout * MS
        total = timeout * MS if timed_out else d + int(rng.uniform(0.5, 1.2) * MS)
        if style == "undici":
            a = {"http.request.method": spec["method"], "url.full": "http://%s:8080%s" % (hostn, target),
                 "url.path": target, "url.scheme": "http", "server.address": hostn, "server.port": 8080,
                 "user_agent.original": "node"}
            if not timed_out:
                a["http.response.status_code"] = status
            if timed_out:
                a["error.type"] = "UND_ERR_HEADERS_TIMEOUT"
            elif status >= 500:
                a["error.type"] = str(status)
        else:
            a = {"http.url": "http://%s:8080%s" % (hostn, target), "http.method": spec["method"],
                 "http.target": target, "net.peer.name": hostn, "net.peer.port": 8080,
                 "http.host": "%s:8080" % hostn}
            if style == "nodehttp":
                a["http.flavor"] = "1.1"
            if not timed_out:
                a["http.status_code"] = status
        cerr = ("Headers Timeout Error" if style == "undici" else "context deadline exceeded") if timed_out \
            else ("%d" % status if status >= 500 else None)
        ev = exc_event(start + total, "HeadersTimeoutError", "Headers Timeout Error",
                       ["Timeout.onParserTimeout [as callback] (node:internal/deps/undici/undici:9162:32)"]) \
            if timed_out and style == "undici" else None
        tr.span(cs, svc, ver, spec["method"] if style != "otelhttp" else "HTTP %s" % spec["method"], 3, start, total,
                parent, a, err=cerr, events=ev)
        cur = start + total + int(pol.get("backoff_ms", 0) * MS)
        if not timed_out and status < 500:
            return cur - t, None
        if i + 1 < attempts and pol.get("retry_log"):
            applog(tr, svc, ver, cur, "WARN", pol["retry_log"], cs, attempt=i + 2, upstream=callee,
                   reason="timeout" if timed_out else status)
    if timed_out:
        return cur - t, pol.get("exhausted", (504, "HeadersTimeoutError", "Headers Timeout Error"))
    return cur - t, (502, pol.get("propagate_exc", "UpstreamError"), "%s answered %d: %s" % (callee, status, msg))


def grpc_call(tr, svc, ver, ch, t, parent, ctx):
    w, rng = tr.w, tr.w.rng
    _, callee, cop = ch[:3]
    spec = w.ops[callee][cop]
    cs = tr.sid()
    d, status, (exc, msg) = serve(tr, callee, cop, t + int(0.3 * MS), cs, ctx)
    code = grpc_code(status)
    total = d + int(rng.uniform(0.4, 1.0) * MS)
    a = {"rpc.system": "grpc", "rpc.service": spec["grpc"][0], "rpc.method": spec["grpc"][1],
         "rpc.grpc.status_code": code, "net.peer.name": host_of(callee), "net.peer.port": 9090}
    err = "%d %s: %s" % (code, GRPC_NAMES.get(code, "Unknown").upper(), msg) if code else None
    tr.span(cs, svc, ver, "grpc.%s/%s" % spec["grpc"] if SERVICES[svc][0] == "node" else "%s/%s" % spec["grpc"],
            3, t, total, parent, a, err=err)
    if code:
        return total, (502, "Error", "%d %s: %s" % (code, GRPC_NAMES.get(code, "Unknown").upper(), msg))
    return total, None


def ext_call(tr, svc, ver, ch, t, parent, ctx):
    """A call outside Lumen (node http instrumentation, old semconv)."""
    w, rng = tr.w, tr.w.rng
    _, hostn, method, path, med = ch
    eff = w.fault(w, svc, hostn, t, ver, "ext", ctx) or {}
    d = lognormal(rng, med) * eff.get("slow", 1.0) * MS
    status = eff.get("status", 200)
    a = {"http.url": "https://%s%s" % (hostn, path), "http.method": method, "http.target": path,
         "net.peer.name": hostn, "net.peer.ip": "18.%d.%d.%d" % (sum(map(ord, hostn)) % 200, 21, 9),
         "net.peer.port": 443, "http.host": "%s:443" % hostn, "http.flavor": "1.1", "http.status_code": status,
         "http.status_text": STATUS_TEXT.get(status, "OK").upper()}
    err = "%d" % status if status >= 400 else None
    tr.span(tr.sid(), svc, ver, method, 3, t, d, parent, a, err=err)
    if status >= 400:
        return int(d), eff["propagate"]
    return int(d), None


def llm(tr, svc, ver, ch, t, parent, ctx):
    w, rng = tr.w, tr.w.rng
    _, model = ch[:2]
    eff = w.fault(w, svc, model, t, ver, "llm", ctx) or {}
    out_tokens = int(lognormal(rng, eff.get("out_tokens", 180), 0.25))
    in_tokens = int(lognormal(rng, eff.get("in_tokens", 1500), 0.15))
    d = (260 + out_tokens * 5.2 * math.exp(rng.gauss(0, 0.15))) * MS
    a = {"gen_ai.system": "openai", "gen_ai.operation.name": "chat", "gen_ai.request.model": model,
         "gen_ai.response.model": model + "-2024-07-18", "gen_ai.request.temperature": 0.4,
         "gen_ai.request.max_tokens": 900, "gen_ai.usage.input_tokens": in_tokens,
         "gen_ai.usage.output_tokens": out_tokens, "gen_ai.response.finish_reasons": ["stop"],
         "gen_ai.response.id": "chatcmpl-" + hexid(rng, 24), "server.address": "api.openai.com", "server.port": 443}
    a.update(eff.get("attrs", {}))
    tr.span(tr.sid(), svc, ver, "chat %s" % model, 3, t, d, parent, a)
    return int(d), None


def graphql(tr, svc, ver, op, t, parent, ctx):
    """@opentelemetry/instrumentation-graphql: parse, validate, the execute span named '<type> <name>' and one
    graphql.resolve span per non-trivial field; a resolver's error is recorded on its span and returned in the
    body's errors[] (HTTP 200)."""
    w, rng = tr.w, tr.w.rng
    names = [g[0] for g in op["gql"]]
    weights = [g[1] for g in op["gql"]]
    gname = rng.choices(names, weights)[0]
    fields = dict((g[0], g[2]) for g in op["gql"])[gname]
    ctx["gql"] = gname
    src = "query %s($id: ID!) { %s }" % (gname, " ".join(f[0] for f in fields))
    p = tr.sid()
    dp = lognormal(rng, 0.3) * MS
    tr.span(p, svc, ver, "graphql.parse", 1, t, dp, parent, {"graphql.source": src})
    dv = lognormal(rng, 0.4) * MS
    tr.span(tr.sid(), svc, ver, "graphql.validate", 1, t + dp, dv, parent, {"graphql.source": src})
    ex = tr.sid()
    cur = t + int(dp + dv + 0.1 * MS)
    start = cur
    errors = []
    for field, ftype, calls in fields:
        rs = tr.sid()
        fstart = cur
        ferr = None
        for c in calls:
            d, fail = child(tr, svc, ver, c, cur, rs, ctx)
            cur += d + int(0.1 * MS)
            if fail:
                ferr = fail
                break
        eff = w.fault(w, svc, field, cur, ver, "resolve", ctx) or {}
        if eff.get("fail") and not ferr:
            ferr = eff["fail"]
        cur += int(lognormal(rng, 0.4) * MS)
        a = {"graphql.field.name": field, "graphql.field.path": field, "graphql.field.type": ftype,
             "graphql.source": field}
        ev = None
        if ferr:
            ev = exc_event(cur, ferr[1], ferr[2], ferr[3] if len(ferr) > 3 else
                           ["resolve (/app/dist/resolvers/%s.resolver.js:41:23)" % field])
            errors.append((field, ferr))
        tr.span(rs, svc, ver, "graphql.resolve %s" % field, 1, fstart, cur - fstart, ex, a,
                err=ferr[2] if ferr else None, events=ev)
    tr.span(ex, svc, ver, "query %s" % gname, 1, start, cur - start, parent,
            {"graphql.operation.name": gname, "graphql.operation.type": "query", "graphql.source": src})
    for field, ferr in errors:
        applog(tr, svc, ver, cur, "ERROR", "graphql resolver error", ex, operationName=gname,
               err={"type": ferr[1], "message": ferr[2], "path": [field]},
               extensions={"code": "INTERNAL_SERVER_ERROR"})
    return cur - t, None


# ---------------------------------------------------------------- traffic, markers, writing

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
            serve(tr, svc, opname, t, "", {"entry": opname})
            if tr.kept:
                w.spans.extend(tr.spans)
            if tr.kept or not w.spec.get("logs_sampled"):
                w.logs.extend(tr.logs)
    for extra in w.spec.get("extra", []):
        extra(w)
    for m in w.spec["markers"]:
        marker(w, *m)


def marker(w, svc, ver, prev, t, dep_id):
    tr = Trace(w, t)
    a = {"deployment.version": ver, "deployment.id": dep_id, "deployment.environment": "prod"}
    if prev:
        a["deployment.previous_version"] = prev
    s = {"timestamp": ts(t), "trace_id": tr.id, "span_id": tr.sid(), "parent_span_id": "",
         "name": "deployment.marker", "kind": 1, "duration_nano": 0, "has_error": False, "status_code": 0,
         "status_message": "", "resource": w.resource(svc, ver), "attributes": a}
    w.spans.append((t, s))


def periodic_logs(w, svc, every_s, fn):
    t = w.start + w.rng.randint(0, every_s) * S
    while t < w.now:
        ver = w.version(svc, t)
        r = fn(t, ver)
        if r:
            tr = Trace(w, t)
            body = slog(t, r[0], r[1], **r[2]) if SERVICES[svc][0] == "go" else pino(w, svc, ver, t, r[0], r[1],
                                                                                        **r[2])
            w.logs.append((t, {"timestamp": ts(t), "severity_text": r[0], "severity_number":
                               {"INFO": 9, "WARN": 13, "ERROR": 17}[r[0]], "body": body, "trace_id": "",
                               "span_id": "", "resource": w.resource(svc, ver), "attributes": {}}))
            del tr
        t += every_s * S


def op(method, route, ms, calls=(), target=None, grpc=None, frames=None, sigma=0.35, nest=None, gql=None):
    o = {"method": method, "route": route, "ms": ms, "calls": list(calls), "sigma": sigma}
    for k, v in (("target", target), ("grpc", grpc), ("frames", frames), ("nest", nest), ("gql", gql)):
        if v:
            o[k] = v
    return o


NODE_UA = "Lumen/7.42.1 (Android 14; SM-S918B) ExoPlayer/1.4.1"
TV_UA = "LumenTV/5.9.0 (tvOS 18.1; AppleTV11,1)"


# ---------------------------------------------------------------- the incidents: rollbacks

def inc_gql():
    rel = "2026-12-07T10:14:07.331"
    progress = [("pg", "watch_progress", "SELECT title_id, position_ms, duration_ms FROM watch_progress WHERE "
                 "profile_id = $1 ORDER BY updated_at DESC LIMIT 20", 2.4)]

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "resolve" and svc == "gateway-gql" and name == "continueWatching" and ver == "4.12.0" \
                and w.rng.random() < 0.7:
            return {"fail": (500, "TypeError", "Cannot read properties of undefined (reading 'positionMs')",
                             ["ContinueWatchingResolver.toRail (/app/dist/rails/continue-watching.resolver.js:58:41)",
                              "Array.map (<anonymous>)",
                              "ContinueWatchingResolver.continueWatching (/app/dist/rails/continue-watching"
                              ".resolver.js:33:22)"])}
        return None
    gql = [("HomeRails", 40, [("rails", "[Rail!]!", [("redis", "GET", "rails:home:{profileId}", 0.5),
                                                     ("http", "profile-api", "get")])]),
           ("ContinueWatching", 20, [("continueWatching", "Rail!", progress)]),
           ("TitleDetails", 25, [("title", "Title", [("pg", "titles", "SELECT * FROM titles WHERE id = $1", 1.6)]),
                                 ("ratings", "Ratings", [("redis", "HGETALL", "ratings:{titleId}", 0.4)])]),
           ("SearchTitles", 15, [("search", "[Title!]!", [("pg", "titles", "SELECT id, name FROM titles WHERE "
                                                           "search_vector @@ plainto_tsquery($1) LIMIT 25", 6.5)])])]
    return {
        "id": "lm7-gql-continuewatching-gateway-gql",
        "title": "gateway-gql 4.12.0 answers GraphQL errors (HTTP 200) on 70% of ContinueWatching queries: a "
                 "TypeError in the rail's resolver; the other three operations are fine",
        "service": "gateway-gql", "start": "2026-12-07T09:02:00.000", "now": "2026-12-07T10:31:00.000",
        "one_in": 5,
        "ledger": {"gateway-gql": [("4.11.2", "2026-12-02T15:40:12.009"), ("4.12.0", rel)],
                   "profile-api": [("3.3.0", "2026-12-05T11:20:41.553")]},
        "rollout": {"gateway-gql": 70},
        "ops": {"gateway-gql": {"graphql": op("POST", "/graphql", 1.2, gql=gql, nest=("GraphQLController", "post"))},
                "profile-api": {"get": op("GET", "/v1/profiles/:id", 1.5, [
                    ("redis", "GET", "profile:{id}", 0.4)], target="/v1/profiles/p_81c2")}},
        "entries": [("gateway-gql", "graphql", 140)],
        "fault": fault,
        "alert": {"name": "GatewayGraphQLErrorRatio", "starts": "2026-12-07T10:24:00.000",
                  "burn": ("label", "burn_rate", "11.2"), "team": "apps-platform"},
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["nodejs", "nestjs", "graphql", "errors-in-200", "one-operation", "kubernetes-rolling"],
        "story": "4.12.0 maps the progress rows through a new DTO whose positionMs lives under a nested "
                 "'playhead' object that rows written before last week do not have: the continueWatching "
                 "resolver throws a TypeError on 70% of ContinueWatching queries (one GraphQL operation of four). "
                 "GraphQL answers HTTP 200 with errors[]; only the graphql.resolve span carries the error and "
                 "its exception event, and pino logs 'graphql resolver error'.",
        "onset": "10:14:1x, the first 4.12.0 pods (rolling over 70 s)",
    }


def inc_recap():
    rel = "2026-12-07T18:05:44.917"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "llm" and svc == "recs-api" and ctx.get("entry") == "recap":
            new = ver == "2.8.0"
            flagged = w.rng.random() < (0.38 if new else 0.02)
            return {"out_tokens": 640 if new else 180, "attrs": {
                "lumen.prompt.template": "recap-v14" if new else "recap-v13",
                "lumen.recap.spoiler_flagged": flagged, "lumen.recap.grounded": not flagged}}
        return None
    return {
        "id": "lm7-prompt-recap-recs-api",
        "title": "recs-api 2.8.0 ships recap prompt v14: 38% of episode recaps are flagged as spoilers (2% before), "
                 "three times the output tokens; HTTP 200 throughout",
        "service": "recs-api", "start": "2026-12-07T17:00:00.000", "now": "2026-12-07T18:24:30.000",
        "one_in": 4,
        "ledger": {"recs-api": [("2.7.3", "2026-12-01T09:12:57.330"), ("2.8.0", rel)]},
        "rollout": {"recs-api": 95},
        "ops": {"recs-api": {
            "recap": op("GET", "/v1/titles/:titleId/recap", 4, [
                ("redis", "GET", "recap:{titleId}:{episode}", 0.5),
                ("pg", "episodes", "SELECT synopsis, cast_list FROM episodes WHERE title_id = $1 AND number <= $2",
                 3.1), ("llm", "gpt-4o-mini")], target="/v1/titles/t_77aa/recap"),
            "rails": op("GET", "/v1/recommendations", 9, [
                ("redis", "GET", "recs:{profileId}", 0.6),
                ("ddb", "Query", "recs-candidates", 7.5)]),
        }},
        "entries": [("recs-api", "recap", 30), ("recs-api", "rails", 120)],
        "fault": fault,
        "alert": {"name": "RecapSpoilerRate", "starts": "2026-12-07T18:17:00.000",
                  "burn": ("annotation", "slo_burn_rate", "6.8"), "team": "discovery"},
        "expect": {"root_cause": "prompt_regression", "verdict": "allow"},
        "tags": ["nodejs", "fastify", "gen_ai", "quality-only", "kubernetes-rolling"],
        "story": "2.8.0 asks the model for 'a complete recap of everything so far' (template recap-v14): the "
                 "spoiler classifier flags 38% of recaps (lumen.recap.spoiler_flagged, 2% before), output tokens "
                 "rise from ~180 to ~640 and the chat span from ~1.2 s to ~3.6 s. Every response is HTTP 200; "
                 "the recommendations rails are unchanged.",
        "onset": "18:05:4x, the first 2.8.0 pods",
    }


def inc_retry():
    rel = "2026-12-07T21:36:18.604"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "call" and svc == "playback-api" and name == "drm-license":
            if ver == "3.4.0":
                return {"attempts": 4, "timeout_ms": 120, "retry_log": "license request failed, retrying"}
            return {"attempts": 2, "timeout_ms": 1500, "retry_log": "license request failed, retrying"}
        if what == "server" and svc == "drm-license":
            return {"slow": 1 + 1.6 * ramp(t, at(rel), at(rel) + 150 * S)}
        return None
    return {
        "id": "lm7-retry-storm-playback-api",
        "title": "playback-api 3.4.0 cuts the DRM licence timeout to 120 ms with 4 attempts: licence calls x3, "
                 "drm-license slows under them, a third of session starts answer 504",
        "service": "playback-api", "start": "2026-12-07T20:10:00.000", "now": "2026-12-07T21:52:00.000",
        "one_in": 10,
        "ledger": {"playback-api": [("3.3.2", "2026-12-03T10:05:33.180"), ("3.4.0", rel)],
                   "drm-license": [("1.22.0", "2026-11-28T16:44:02.000")]},
        "rollout": {"playback-api": 150},
        "ops": {"playback-api": {
            "start": op("POST", "/v1/sessions", 3, [("ddb", "GetItem", "playback-entitlements-cache", 3.2),
                                            ("http", "drm-license", "license", "undici"),
                                            ("redis", "SET", "session:{sessionId}", 0.5)]),
            "heartbeat": op("POST", "/v1/sessions/:id/heartbeat", 1.2, [
                ("redis", "SET", "session:{sessionId}", 0.5)], target="/v1/sessions/s_4f21/heartbeat"),
        },
            "drm-license": {"license": op("POST", "/v1/widevine/license", 90, [
                ("pg", "keys", "SELECT kid, key FROM content_keys WHERE kid = ANY($1)", 2.2)], sigma=0.45)}},
        "entries": [("playback-api", "start", 60), ("playback-api", "heartbeat", 300)],
        "fault": fault,
        "alert": {"name": "PlaybackSessionStartErrors", "starts": "2026-12-07T21:44:00.000",
                  "burn": ("label", "burn_rate", "15.5"), "team": "playback"},
        "expect": {"root_cause": "retry_storm", "verdict": "allow"},
        "tags": ["nodejs", "fastify", "undici", "go", "otelhttp", "retries", "ecs-rolling"],
        "story": "3.4.0 replaces the licence client's 1.5 s timeout and 2 attempts with 120 ms and 4 attempts "
                 "without backoff; drm-license (Go, p50 ~90 ms) is called 2-4 times per session start, each "
                 "attempt an undici client span (Headers Timeout Error) and a pino 'retrying' line; the extra "
                 "load slows drm-license further; sessions whose four attempts all time out answer 504.",
        "onset": "21:36:2x, the first 3.4.0 tasks (ECS rolling over 150 s)",
    }


def inc_flag():
    rel = "2026-12-07T16:42:53.908"
    ver_new = "7.3.1+flags.212"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "manifest-svc" and name == "live" and ver == ver_new \
                and w.rng.random() < 0.35:
            msg = "ll-hls: part duration 0.334s exceeds PART-TARGET 0.300s for rendition 1080p60"
            return {"skip_calls": True, "fail": (500, "*hls.PartTargetError", msg), "logmsg": "manifest render failed"}
        return None
    return {
        "id": "lm7-flag-llhls-manifest-svc",
        "title": "the flag build 7.3.1+flags.212 turns on ll-hls partial segments: 35% of live manifests "
                 "answer 500 (part duration over PART-TARGET); VOD manifests fine",
        "service": "manifest-svc", "start": "2026-12-07T15:30:00.000", "now": "2026-12-07T16:58:00.000",
        "one_in": 20,
        "ledger": {"manifest-svc": [("7.3.1", "2026-12-04T08:21:17.442"), ("7.3.1+flags.211",
                                                                          "2026-12-06T13:02:40.007"),
                                    (ver_new, rel)]},
        "rollout": {"manifest-svc": 40},
        "ops": {"manifest-svc": {
            "live": op("GET", "/v1/live/{channel}/index.m3u8", 4, [
                ("redis", "GET", "live:{channel}:window", 0.6)], target="/v1/live/ch_sport1/index.m3u8"),
            "vod": op("GET", "/v1/vod/{titleId}/master.m3u8", 6, [
                ("pg", "renditions", "SELECT rendition, codecs, bandwidth FROM renditions WHERE title_id = $1", 2.1)],
                target="/v1/vod/t_91b3/master.m3u8"),
            "vtt": op("GET", "/v1/vod/{titleId}/subs/{lang}.m3u8", 3, [
                ("pg", "subtitles", "SELECT lang, uri FROM subtitles WHERE title_id = $1", 1.4)],
                target="/v1/vod/t_91b3/subs/en.m3u8")}},
        "entries": [("manifest-svc", "live", 260), ("manifest-svc", "vod", 380), ("manifest-svc", "vtt", 90)],
        "fault": fault,
        "alert": {"name": "ManifestErrorBudget", "starts": "2026-12-07T16:50:00.000",
                  "burn": ("label", "burn_rate", "18.0"), "team": "video-delivery"},
        "expect": {"root_cause": "config_regression", "verdict": "allow"},
        "tags": ["go", "otelhttp", "feature-flag", "config-build", "kubernetes-rolling"],
        "story": "Flag changes are published as config builds (image 7.3.1_flags.212, the flag snapshot baked "
                 "in). flags.212 turns on 'll-hls-partial-segments' for live channels: the packager's 1080p60 "
                 "parts are 0.334 s against a 0.300 s PART-TARGET, so 35% of live playlist renders fail with "
                 "500. VOD and subtitle manifests are untouched.",
        "onset": "16:42:5x, the first pods of the config build (40 s rolling)",
    }


def inc_b2b():
    r1, r2 = "2026-12-07T09:58:21.770", "2026-12-07T10:29:44.102"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "billing-api" and name == "renew":
            ctx["bad_amount"] = ver == "6.1.1" and w.rng.random() < 0.55
        if what == "server" and svc == "ledger-svc" and name == "post" and ctx.get("bad_amount"):
            return {"skip_calls": True, "fail": (500, "runtime.Error", "panic recovered: strconv.ParseInt: "
                                                 "parsing \"12.99\": invalid syntax"),
                    "logmsg": "grpc: panic recovered in PostEntry"}
        return None
    return {
        "id": "lm7-back-to-back-billing-api",
        "title": "billing-api 6.1.1 (31 min after a healthy 6.1.0) sends renewal amounts as decimal strings: "
                 "ledger-svc panics on 55% of renewals and billing-api answers 502",
        "service": "billing-api", "start": "2026-12-07T08:40:00.000", "now": "2026-12-07T10:44:00.000",
        "one_in": 5,
        "ledger": {"billing-api": [("6.0.9", "2026-11-30T14:08:09.511"), ("6.1.0", r1), ("6.1.1", r2)],
                   "ledger-svc": [("2.14.3", "2026-11-26T10:00:31.000")]},
        "rollout": {"billing-api": 110},
        "ops": {"billing-api": {
            "renew": op("POST", "/v1/subscriptions/:id/renew", 6, [
                ("pg", "subscriptions", "SELECT id, plan_id, status, renews_at FROM subscriptions WHERE id = $1 FOR "
                 "UPDATE", 1.9), ("grpc", "ledger-svc", "post"),
                ("pg", "subscriptions", "UPDATE subscriptions SET renews_at = $2, status = $3 WHERE id = $1", 1.7)],
                target="/v1/subscriptions/sub_5521/renew", nest=("SubscriptionsController", "renew")),
            "get": op("GET", "/v1/subscriptions/:id", 2, [
                ("pg", "subscriptions", "SELECT * FROM subscriptions WHERE id = $1", 1.2)],
                target="/v1/subscriptions/sub_5521", nest=("SubscriptionsController", "findOne")),
            "plans": op("GET", "/v1/plans", 1.5, [("redis", "GET", "plans:eu", 0.4)],
                        nest=("PlansController", "list"))},
            "ledger-svc": {"post": op("POST", "/lumen.ledger.v1.Ledger/PostEntry", 3, [
                ("pg", "entries", "INSERT INTO entries (account_id, amount_minor, currency, ref) VALUES ($1, $2, $3, "
                 "$4)", 1.8)], grpc=("lumen.ledger.v1.Ledger", "PostEntry"))}},
        "entries": [("billing-api", "renew", 45), ("billing-api", "get", 110), ("billing-api", "plans", 60)],
        "fault": fault,
        "alert": {"name": "BillingRenewErrors", "starts": "2026-12-07T10:37:00.000",
                  "burn": ("annotation", "slo_burn_rate", "12.9"), "team": "commerce"},
        "expect": {"root_cause": "bad_release", "verdict": "allow"},
        "tags": ["nodejs", "nestjs", "grpc", "go", "otelgrpc", "back-to-back", "callee-effect", "ecs-rolling"],
        "story": "6.1.0 (09:58) added a plan-change preview and was healthy for 31 minutes. 6.1.1 (10:29) "
                 "formats renewal amounts with toFixed(2) for a new invoice template and passes the string on "
                 "to ledger-svc's PostEntry, which parses amount_minor as an integer and panics (recovered, gRPC "
                 "INTERNAL) on non-integral amounts (55%). billing-api answers 502. ledger-svc's errors are a "
                 "downstream effect of billing-api's release (ledger-svc is unchanged since 26 Nov); the rollback "
                 "target is 6.1.0.",
        "onset": "10:29:4x, the first 6.1.1 tasks",
    }


# ---------------------------------------------------------------- the incidents: traps

def scan_lambda(w, fn, table, begin, end, every_s, method="Scan"):
    """A Lambda's invocations (faas.* server spans) each issuing long DynamoDB scans on table."""
    t = begin
    ver = "$LATEST"
    while t < min(end, w.now - 30 * S):
        tr = Trace(w, t)
        root = tr.sid()
        d = int(w.rng.uniform(40, 55) * S)
        cur = t + 80 * MS
        while cur < t + d - 2 * S:
            sd = int(w.rng.uniform(0.6, 1.4) * S)
            tr.span(tr.sid(), fn, ver, "DynamoDB.%s" % method, 3, cur, sd, root, {
                "rpc.system": "aws-api", "rpc.method": method, "rpc.service": "DynamoDB", "aws.region": REGION,
                "db.system": "dynamodb", "aws.dynamodb.table_names": [table], "aws.dynamodb.segment":
                w.rng.randint(0, 15), "aws.dynamodb.total_segments": 16, "aws.dynamodb.limit": 1000,
                "aws.dynamodb.consumed_capacity": [json.dumps({"TableName": table, "CapacityUnits":
                                                               round(w.rng.uniform(480, 520), 1)})],
                "aws.request.id": hexid(w.rng, 20).upper(), "http.status_code": 200})
            cur += sd + int(w.rng.uniform(5, 40) * MS)
        tr.span(root, fn, ver, fn, 2, t, d, "", {
            "faas.trigger": "timer", "faas.invocation_id": "%s-%s-%s-%s-%s" % (
                hexid(w.rng, 8), hexid(w.rng, 4), hexid(w.rng, 4), hexid(w.rng, 4), hexid(w.rng, 12)),
            "faas.coldstart": t == begin, "cloud.resource_id": "arn:aws:lambda:%s:%s:function:%s" % (
                REGION, ACCOUNT, fn), "cloud.account.id": ACCOUNT})
        w.spans.extend(tr.spans)
        t += int(every_s * S)


def inc_ddb():
    rel = "2026-12-07T14:03:12.416"
    scan = at("2026-12-07T14:05:31.250")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "ddb" and name == "entitlements":
            r = ramp(t, scan, scan + 40 * S)
            if r:
                return {"error": "ProvisionedThroughputExceededException", "error_p": 0.62 * r, "slow": 1 + r,
                        "status": 503}
        return None

    def extra(w):
        scan_lambda(w, "rights-audit", "entitlements", scan, w.now, 50)
    return {
        "id": "lm7-trap-ddb-throttle-entitlements-api",
        "title": "entitlements-api 5.2.0 rolls out over 4 min from 14:03; at 14:05:31 the rights-audit Lambda "
                 "scans the provisioned entitlements table and DynamoDB throttles reads on both versions",
        "service": "entitlements-api", "start": "2026-12-07T12:50:00.000", "now": "2026-12-07T14:19:00.000",
        "one_in": 10,
        "ledger": {"entitlements-api": [("5.1.4", "2026-12-01T12:33:40.870"), ("5.2.0", rel)]},
        "rollout": {"entitlements-api": 240},
        "ops": {"entitlements-api": {
            "check": op("GET", "/v1/entitlements/:profileId/titles/:titleId", 2, [
                ("ddb", "GetItem", "entitlements", 4.2)], target="/v1/entitlements/p_81c2/titles/t_77aa"),
            "list": op("GET", "/v1/entitlements/:profileId", 3, [("ddb", "Query", "entitlements", 6.5)],
                       target="/v1/entitlements/p_81c2"),
            "plans": op("GET", "/v1/packages", 1.5, [("redis", "GET", "packages:eu", 0.4)])}},
        "entries": [("entitlements-api", "check", 240), ("entitlements-api", "list", 60),
                    ("entitlements-api", "plans", 30)],
        "fault": fault,
        "extra": [extra],
        "alert": {"name": "EntitlementsErrorBudget", "starts": "2026-12-07T14:12:00.000",
                  "burn": ("label", "burn_rate", "14.0"), "team": "identity"},
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["nodejs", "express", "aws-sdk", "dynamodb", "throttling", "lambda", "ecs-rolling", "trap"],
        "story": "5.2.0 (new package names in the response) rolls out over 4 minutes (ECS, minimum healthy "
                 "100%). At 14:05:31 the nightly-in-Asia rights-audit Lambda starts a 16-segment parallel Scan "
                 "of the provisioned 'entitlements' table and takes most of its read capacity; GetItem and "
                 "Query from entitlements-api get ProvisionedThroughputExceededException, the SDK retries three "
                 "times inside one span, and 503s follow on 5.1.4 and 5.2.0 tasks alike. Rolling back changes "
                 "nothing.",
        "onset": "14:05:3x, 2.3 min after the rollout began, during it",
    }


def inc_surge():
    rel = "2026-12-07T19:58:40.522"
    kick = at("2026-12-07T20:00:00.000")

    def load(t):
        return 320 * (1 + 5.2 * ramp(t, kick, kick + 110 * S))

    def fault(w, svc, name, t, ver, what, ctx):
        r = ramp(t, kick, kick + 110 * S)
        if what == "server" and svc == "origin-shield":
            return {"slow": 1 + 1.5 * r}
        if what == "s3" and svc == "origin-shield" and r > 0.6:
            return {"error": "SlowDown", "error_p": 0.07 * r, "slow": 1 + 1.8 * r, "max_attempts": 3,
                    "status": 503}
        if what == "s3":
            return {"slow": 1 + 1.8 * r}
        return None

    def cdn_logs(w):
        periodic_logs(w, "origin-shield", 60, lambda t, v: ("INFO", "origin stats", {
            "rps": int(load(t) / 60 * w.rng.uniform(0.9, 1.1)), "cache_status_miss_ratio": round(
                0.04 + 0.5 * ramp(t, kick, kick + 110 * S), 3), "inflight": int(3 + 40 * ramp(t, kick, kick + 110 * S))}))
    return {
        "id": "lm7-trap-cdn-purge-origin-shield",
        "title": "origin-shield 2.19.0 at 19:58:40; at 20:00 a live match kicks off after a CDN purge: origin "
                 "requests x6 on every route, S3 answers some SlowDown, everything slows",
        "service": "origin-shield", "start": "2026-12-07T18:45:00.000", "now": "2026-12-07T20:13:00.000",
        "one_in": 50,
        "ledger": {"origin-shield": [("2.18.6", "2026-12-02T07:45:12.301"), ("2.19.0", rel)]},
        "rollout": {"origin-shield": 60},
        "ops": {"origin-shield": {
            "segment": op("GET", "/seg/{rendition}/{n}.m4s", 6, [("s3", "GetObject", "lumen-live-segments", 11)],
                          target="/seg/1080p60/182211.m4s"),
            "init": op("GET", "/seg/{rendition}/init.mp4", 3, [("s3", "GetObject", "lumen-live-segments", 8)],
                       target="/seg/1080p60/init.mp4"),
            "thumb": op("GET", "/thumbs/{titleId}/{n}.jpg", 4, [("s3", "GetObject", "lumen-thumbnails", 9)],
                        target="/thumbs/t_77aa/12.jpg")}},
        "entries": [("origin-shield", "segment", lambda t: load(t) * 0.8),
                    ("origin-shield", "init", lambda t: load(t) * 0.05),
                    ("origin-shield", "thumb", lambda t: load(t) * 0.15)],
        "fault": fault,
        "extra": [cdn_logs],
        "alert": {"name": "OriginShieldLatencyP95", "starts": "2026-12-07T20:06:00.000",
                  "burn": ("label", "burn_rate", "9.1"), "team": "video-delivery"},
        "expect": {"root_cause": "traffic_surge", "verdict": "deny"},
        "tags": ["go", "otelhttp", "otelaws", "s3", "slowdown", "cdn", "surge", "ecs-rolling", "trap"],
        "story": "2.19.0 (log field renames) rolls out at 19:58:40 over 60 s. At 20:00 the derby kicks off and "
                 "a CDN purge of the live playlists sends every edge back to origin: origin requests rise 6.2x "
                 "over two minutes on all three routes, S3 GetObject slows and answers SlowDown (503) to a few "
                 "percent of requests once the prefix's request rate passes its partition's limit. Latency "
                 "rises everywhere; a rollback changes nothing.",
        "onset": "20:00:xx, 80 s after the rollout finished",
    }


def inc_token():
    rel = "2026-12-06T23:57:12.903"
    expiry = at("2026-12-07T00:00:00.000")
    host = "api.metaflix-partner.example"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "ext" and name == host and t >= expiry:
            return {"status": 401, "slow": 0.3, "propagate": (502, "HTTPError", "Response code 401 (Unauthorized)")}
        if what == "server" and svc == "search-api" and t >= expiry and ctx.get("entry") == "search":
            return {"logmsg": "partner enrichment failed"}
        return None
    return {
        "id": "lm7-trap-expired-token-search-api",
        "title": "search-api 8.4.2 rolled out at 23:57; at midnight the metadata partner's 30-day OAuth token "
                 "expires and every enrichment call answers 401",
        "service": "search-api", "start": "2026-12-06T22:50:00.000", "now": "2026-12-07T00:11:00.000",
        "one_in": 8,
        "ledger": {"search-api": [("8.4.1", "2026-12-02T10:10:10.441"), ("8.4.2", rel)]},
        "rollout": {"search-api": 75},
        "ops": {"search-api": {
            "search": op("GET", "/v1/search", 8, [
                ("pg", "titles", "SELECT id, name, year FROM titles WHERE search_vector @@ websearch_to_tsquery($1) "
                 "LIMIT 30", 9.5), ("maybe", 0.6, ("ext", host, "GET", "/v3/enrich?ids=t_77aa,t_91b3", 45))]),
            "suggest": op("GET", "/v1/suggest", 2, [("redis", "ZRANGEBYSCORE", "suggest:{prefix}", 0.5)])}},
        "entries": [("search-api", "search", 90), ("search-api", "suggest", 160)],
        "fault": fault,
        "alert": {"name": "SearchErrorBudget", "starts": "2026-12-07T00:05:00.000",
                  "burn": ("label", "burn_rate", "13.3"), "team": "discovery"},
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["nodejs", "express", "third-party", "expired-token", "kubernetes-rolling", "trap"],
        "story": "8.4.2 (a typo fix in the suggest ranking) finishes rolling out at 23:58:28. The partner "
                 "token, issued 30 days earlier by a manual script, expires at 00:00:00; from then every "
                 "enrichment call answers 401 invalid_token and the search handler, which treats enrichment as "
                 "mandatory, answers 502 for the 60% of searches that need it. Every failing request is 8.4.2's "
                 "because 8.4.2 is all that runs; rolling back to 8.4.1 keeps the same expired token.",
        "onset": "00:00:00, 1.5 min after the rollout finished",
    }


def inc_stale():
    failover = at("2026-12-07T09:14:02.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "redis" and svc == "profile-api":
            r = t - failover
            if 0 <= r < 95 * S:
                if w.rng.random() < 0.55:
                    return {"fail": ("ReplyError", "READONLY You can't write against a read only replica.")
                            if name.startswith("settings") else ("Error", "read ECONNRESET"), "status": 500}
            elif 95 * S <= r < 400 * S and w.rng.random() < 0.2:
                return {"fail": ("MaxRetriesPerRequestError", "Reached the max retries per request limit (which "
                                 "is 3). Refer to \"maxRetriesPerRequest\" option for details."),
                        "fail_ms": lognormal(w.rng, 300), "status": 503}
        return None
    return {
        "id": "lm7-trap-stale-marker-profile-api",
        "title": "a pod restart re-emits profile-api's 3.3.0 marker (running since 5 Dec) at 09:12; at 09:14 the "
                 "ElastiCache primary fails over and ioredis writes fail READONLY, then reconnects",
        "service": "profile-api", "start": "2026-12-07T08:00:00.000", "now": "2026-12-07T09:27:00.000",
        "one_in": 4, "logs_sampled": True,
        "ledger": {"profile-api": [("3.2.8", "2026-11-29T16:02:51.020"), ("3.3.0", "2026-12-05T11:20:41.553")]},
        "rollout": {},
        "markers": [("profile-api", "3.3.0", "3.2.8", at("2026-12-07T09:12:05.771"), "helm:profile-api:r118")],
        "ops": {"profile-api": {
            "get": op("GET", "/v1/profiles/:id", 1.5, [("redis", "GET", "profile:{id}", 0.4)],
                      target="/v1/profiles/p_81c2"),
            "settings": op("PUT", "/v1/profiles/:id/settings", 2.5, [
                ("redis", "SET", "settings:{id}", 0.5), ("pg", "profile_settings", "UPDATE profile_settings SET "
                 "subtitles = $2, autoplay = $3 WHERE profile_id = $1", 2.0)], target="/v1/profiles/p_81c2/settings"),
            "avatars": op("GET", "/v1/avatars", 1.0, [("redis", "GET", "avatars:v2", 0.3)])}},
        "entries": [("profile-api", "get", 200), ("profile-api", "settings", 40), ("profile-api", "avatars", 50)],
        "fault": fault,
        "alert": {"name": "ProfileApiErrors", "starts": "2026-12-07T09:19:00.000",
                  "burn": ("annotation", "slo_burn_rate", "10.4"), "team": "identity"},
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["nodejs", "express", "ioredis", "elasticache", "failover", "stale-marker",
                 "collector-probabilistic-sampler", "trap"],
        "story": "profile-api 3.3.0 has run since 5 Dec. At 09:12:05 a node drain restarts a pod and the "
                 "deploy hook, run again by the pod's init container, re-emits a deployment marker for 3.3.0 "
                 "(previous 3.2.8). At 09:14:02 the ElastiCache primary fails over: for 95 s ioredis sees "
                 "READONLY on writes and ECONNRESET on reads, then 'max retries per request' while clients "
                 "reconnect. Spans and logs pass the collector's probabilistic sampler (25%, by trace id).",
        "onset": "09:14:02, two minutes after the stale marker",
    }


def inc_ratings():
    rel = "2026-12-07T13:22:10.604"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "server" and svc == "ratings-svc" and name == "get" and ver == "1.9.0" and w.rng.random() < 0.45:
            return {"skip_calls": True, "fail": (500, "runtime.Error", "panic recovered: assignment to entry in nil "
                                                 "map"), "logmsg": "grpc: panic recovered in GetRatings"}
        return None
    gql = [("HomeRails", 45, [("rails", "[Rail!]!", [("redis", "GET", "rails:home:{profileId}", 0.5)])]),
           ("TitleDetails", 40, [("title", "Title", [("pg", "titles", "SELECT * FROM titles WHERE id = $1", 1.6)]),
                                 ("ratings", "Ratings", [("grpc", "ratings-svc", "get")])]),
           ("SearchTitles", 15, [("search", "[Title!]!", [("pg", "titles", "SELECT id, name FROM titles WHERE "
                                                           "search_vector @@ plainto_tsquery($1) LIMIT 25", 6.5)])])]
    return {
        "id": "lm7-trap-ratings-release-breaks-gateway-gql",
        "title": "ratings-svc 1.9.0 (13:22) panics on 45% of GetRatings; gateway-gql, unchanged since 2 Dec, "
                 "answers TitleDetails with GraphQL errors",
        "service": "gateway-gql", "start": "2026-12-07T12:10:00.000", "now": "2026-12-07T13:37:00.000",
        "one_in": 10,
        "ledger": {"gateway-gql": [("4.11.1", "2026-11-27T09:01:45.000"), ("4.11.2", "2026-12-02T15:40:12.009")],
                   "ratings-svc": [("1.8.4", "2026-11-30T12:12:12.120"), ("1.9.0", rel)]},
        "rollout": {"ratings-svc": 50},
        "ops": {"gateway-gql": {"graphql": op("POST", "/graphql", 1.2, gql=gql, nest=("GraphQLController", "post"))},
                "ratings-svc": {"get": op("POST", "/lumen.ratings.v1.Ratings/GetRatings", 2, [
                    ("redis", "HGETALL", "ratings:{titleId}", 0.4)], grpc=("lumen.ratings.v1.Ratings", "GetRatings"))}},
        "entries": [("gateway-gql", "graphql", 150)],
        "fault": fault,
        "alert": {"name": "GatewayGraphQLErrorRatio", "starts": "2026-12-07T13:30:00.000",
                  "burn": ("label", "burn_rate", "8.7"), "team": "apps-platform"},
        "expect": {"root_cause": "bad_release", "verdict": "deny", "culprit": {"service": "ratings-svc",
                                                                               "verdict": "allow"}},
        "tags": ["nodejs", "nestjs", "graphql", "grpc", "go", "otelgrpc", "callee-release", "culprit", "trap"],
        "story": "ratings-svc 1.9.0 adds per-region rating buckets and writes into a map it never makes for "
                 "titles without regional ratings: 45% of GetRatings panic (recovered, gRPC INTERNAL). "
                 "gateway-gql's TitleDetails resolves ratings through it and returns GraphQL errors (HTTP 200). "
                 "Rolling gateway-gql back changes nothing; rolling ratings-svc back does.",
        "onset": "13:22:1x, the first 1.9.0 pods of ratings-svc",
    }


def inc_stuck():
    rel = "2026-12-07T11:02:33.090"
    fo = at("2026-12-07T11:09:12.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "pg" and svc == "transcode-api":
            r = t - fo
            if 0 <= r < 35 * S and w.rng.random() < 0.8:
                return {"fail": ("*pgconn.PgError", "FATAL: the database system is shutting down (SQLSTATE 57P03)")}
            if 35 * S <= r < 150 * S and w.rng.random() < 0.5:
                return {"fail": ("*net.OpError", "failed to connect to `host=lumen-media.cluster-c9xk2rw1lq0e."
                                 "eu-west-1.rds.amazonaws.com user=transcode database=lumen`: dial error (dial tcp "
                                 "10.0.3.14:5432: connect: connection refused)"), "fail_ms": lognormal(w.rng, 8)}
            if 150 * S <= r < 420 * S:
                return {"slow": 3.0}
        return None

    def ecs_events(w):
        for i, (t, msg) in enumerate([
                (at(rel), "(service transcode-api) has started 2 tasks: (task 9f2c1e...) (task 41aa07...)."),
                (at(rel) + 95 * S, "(service transcode-api) (task 9f2c1e...) failed container health checks."),
                (at(rel) + 190 * S, "(service transcode-api) has started 2 tasks: (task c7d410...) (task 0e93b2...)."),
                (at(rel) + 290 * S, "(service transcode-api) (task c7d410...) failed container health checks."),
                (at(rel) + 420 * S, "(service transcode-api) has started 2 tasks: (task 5b8e6a...) (task d1f7c9...)."),
                (at(rel) + 520 * S, "(service transcode-api) (task 5b8e6a...) failed container health checks.")]):
            if t < w.now:
                w.logs.append((t, {"timestamp": ts(t), "severity_text": "WARN" if "failed" in msg else "INFO",
                                   "severity_number": 13 if "failed" in msg else 9, "body": msg, "trace_id": "",
                                   "span_id": "", "resource": {"service.name": "transcode-api", "cloud.provider": "aws",
                                                               "cloud.platform": "aws_ecs", "aws.log.group.names":
                                                               ["/aws/ecs/events/lumen-prod"]},
                                   "attributes": {"aws.ecs.event": "SERVICE_EVENT"}}))
    return {
        "id": "lm7-trap-stuck-rollout-transcode-api",
        "title": "transcode-api 4.0.0's ECS deployment (11:02) never gets a healthy task; at 11:09 the media "
                 "database fails over and 3.9.4, the only version serving, fails",
        "service": "transcode-api", "start": "2026-12-07T09:50:00.000", "now": "2026-12-07T11:21:00.000",
        "one_in": 15,
        "ledger": {"transcode-api": [("3.9.4", "2026-12-01T15:15:55.000"), ("4.0.0", rel)]},
        "rollout": {},
        "serving": {"transcode-api": [("3.9.4", None, 0)]},
        "markers": [("transcode-api", "4.0.0", "3.9.4", at(rel), "ecs-svc/4811029375530127713")],
        "ops": {"transcode-api": {
            "submit": op("POST", "/v1/jobs", 4, [
                ("pg", "jobs", "INSERT INTO jobs (id, asset_id, ladder, state) VALUES ($1, $2, $3, 'queued')", 2.2),
                ("sqs", "SendMessage", "transcode-jobs", 9)]),
            "status": op("GET", "/v1/jobs/{id}", 1.5, [("pg", "jobs", "SELECT state, progress FROM jobs WHERE id = "
                                                        "$1", 1.3)], target="/v1/jobs/j_2291c")}},
        "entries": [("transcode-api", "submit", 25), ("transcode-api", "status", 150)],
        "fault": fault,
        "extra": [ecs_events],
        "alert": {"name": "TranscodeApiErrors", "starts": "2026-12-07T11:14:00.000",
                  "burn": ("label", "burn_rate", "12.2"), "team": "media-pipeline"},
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["go", "otelhttp", "otelpgx", "otelaws", "sqs", "rds-failover", "unfinished-rollout",
                 "ecs-deployment-circuit", "trap"],
        "story": "ECS starts 4.0.0 tasks at 11:02:33 (the deploy pipeline's marker and the ledger agree), but "
                 "each fails its container health check (a missing secret) and ECS keeps replacing them: no "
                 "4.0.0 task ever serves a request. At 11:09:12 the Aurora cluster fails over: 35 s of 'the "
                 "database system is shutting down', then connection refused, then slow queries while the "
                 "new writer warms. Every failing request is 3.9.4's, which is also the rollback target.",
        "onset": "11:09:12, 6.6 min after the marker",
    }


def inc_s3():
    rel = "2026-12-07T15:31:08.262"
    burst = at("2026-12-07T15:33:20.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "s3" and svc == "downloads-api" and name == "lumen-offline-packages":
            r = ramp(t, burst, burst + 45 * S)
            if r:
                return {"error": "SlowDown", "error_p": 0.5 * r, "slow": 1 + 0.8 * r, "status": 503}
        return None

    def extra(w):
        t = burst - 10 * S
        while t < w.now - 20 * S:
            tr = Trace(w, t)
            root = tr.sid()
            d = int(w.rng.uniform(8, 14) * S)
            cur = t + 50 * MS
            for _ in range(w.rng.randint(60, 90)):
                sd = int(lognormal(w.rng, 60) * MS)
                tr.span(tr.sid(), "offline-repackager", "$LATEST", "S3.PutObject", 3, cur, sd, root, {
                    "rpc.system": "aws-api", "rpc.method": "PutObject", "rpc.service": "S3", "aws.region": REGION,
                    "aws.request.id": hexid(w.rng, 16).upper(), "http.status_code": 200})
                cur += int(sd * w.rng.uniform(0.05, 0.2))
            tr.span(root, "offline-repackager", "$LATEST", "offline-repackager", 2, t, d, "", {
                "faas.trigger": "pubsub", "faas.invocation_id": hexid(w.rng, 32), "faas.coldstart": False,
                "messaging.system": "aws_sqs", "messaging.destination": "repackage-requests",
                "cloud.resource_id": "arn:aws:lambda:%s:%s:function:offline-repackager" % (REGION, ACCOUNT)})
            w.spans.extend(tr.spans)
            t += int(w.rng.uniform(1.5, 4) * S)
    return {
        "id": "lm7-trap-s3-slowdown-downloads-api",
        "title": "downloads-api 2.3.0 rolled out by 15:32; at 15:33:20 the offline repackager's PUT burst on the "
                 "same S3 prefix makes GetObject answer SlowDown; one package download in eight fails after three attempts",
        "service": "downloads-api", "start": "2026-12-07T14:20:00.000", "now": "2026-12-07T15:44:00.000",
        "one_in": 20,
        "ledger": {"downloads-api": [("2.2.9", "2026-12-03T12:00:42.000"), ("2.3.0", rel)]},
        "rollout": {"downloads-api": 50},
        "ops": {"downloads-api": {
            "package": op("GET", "/v1/downloads/:titleId/package", 3, [
                ("ddb", "GetItem", "download-licenses", 3.5), ("s3", "GetObject", "lumen-offline-packages", 24)],
                target="/v1/downloads/t_77aa/package"),
            "list": op("GET", "/v1/downloads", 2, [("ddb", "Query", "download-licenses", 5.0)])}},
        "entries": [("downloads-api", "package", 70), ("downloads-api", "list", 90)],
        "fault": fault,
        "extra": [extra],
        "alert": {"name": "DownloadsErrorBudget", "starts": "2026-12-07T15:38:00.000",
                  "burn": ("label", "burn_rate", "16.6"), "team": "playback"},
        "expect": {"root_cause": "dependency_outage", "verdict": "deny"},
        "tags": ["nodejs", "fastify", "aws-sdk", "s3", "slowdown", "lambda", "ecs-rolling", "trap"],
        "story": "2.3.0 (a new field in the downloads list) finishes rolling out at 15:31:58. At 15:33:20 the "
                 "offline-repackager Lambda, fed by a re-encode campaign, writes thousands of objects under the "
                 "prefix downloads-api reads; S3 answers 503 SlowDown to GetObject until it repartitions. The "
                 "SDK retries each GetObject up to three times inside one span (pino logs $metadata.attempts): "
                 "half the attempts fail at the peak, one package download in eight fails all three and answers 503 "
                 "(about 5% of downloads-api's requests). Every failing request is 2.3.0's; a rollback "
                 "changes nothing.",
        "onset": "15:33:2x, 82 s after the rollout finished",
    }


INCIDENTS = [inc_gql, inc_recap, inc_retry, inc_flag, inc_b2b, inc_ddb, inc_surge, inc_token, inc_stale,
             inc_ratings, inc_stuck, inc_s3]


# ---------------------------------------------------------------- writing

def serving(spec):
    if "serving" in spec:
        out = dict((k, [(v, None if b is None else at(b) if isinstance(b, str) else b, s) for v, b, s in vv])
                   for k, vv in spec["serving"].items())
    else:
        out = {}
    start = at(spec["start"])
    for svc, rel in spec["ledger"].items():
        if svc in out:
            continue
        out[svc] = [(v, at(d) if at(d) >= start else None, spec["rollout"].get(svc, 60)) for v, d in rel]
    return out


def markers(spec):
    out = list(spec.get("markers", []))
    if "serving" in spec or spec.get("markers"):
        return out
    start = at(spec["start"])
    for svc, rel in spec["ledger"].items():
        prev = None
        for v, d in rel:
            if at(d) >= start:
                dep = ("ecs-svc/%d" % (4811029375530000000 + sum(map(ord, svc + v)) * 7919)
                       if SERVICES[svc][2] == "ecs" else "argocd:%s:%s" % (svc, v))
                out.append((svc, v, prev, at(d), dep))
            prev = v
    return out


def alert_json(spec):
    a = spec["alert"]
    labels = {"alertname": a["name"], "service.name": spec["service"], "severity": "critical",
              "team": a["team"], "deployment.environment": "prod",
              "ruleId": "%s" % hexid(random.Random(spec["id"]), 8)[:4] + "-" + hexid(random.Random(spec["id"]), 12)}
    annotations = {"summary": "%s: %s" % (spec["service"], a["name"]),
                   "description": "The SLO burn rate over 1h is above 6 for %s" % spec["service"]}
    kind, key, val = a["burn"]
    (labels if kind == "label" else annotations)[key] = val
    fp = hexid(random.Random(spec["id"] + "/fp"), 16)
    body = {
        "receiver": "signoz-%s" % a["team"], "status": "firing",
        "alerts": [{"status": "firing", "labels": labels, "annotations": annotations,
                    "startsAt": ts(at(a["starts"])).replace(".000000Z", "Z"), "endsAt": "0001-01-01T00:00:00Z",
                    "generatorURL": "https://signoz.lumen.tv/alerts/edit?ruleId=%s" % labels["ruleId"],
                    "fingerprint": fp}],
        "groupLabels": {"alertname": a["name"]},
        "commonLabels": labels, "commonAnnotations": annotations,
        "externalURL": "https://signoz.lumen.tv", "version": "4",
        "groupKey": '{}:{alertname="%s"}' % a["name"], "truncatedAlerts": 0,
    }
    return json.dumps(body, indent=2) + "\n"


def q(s):
    return json.dumps(s)


def incident_yaml(spec):
    e = spec["expect"]
    lines = ["id: %s" % spec["id"], "title: %s" % q(spec["title"]), "service: %s" % spec["service"],
             "now: %s" % ts(at(spec["now"])).replace(".000000Z", "Z"), "expect:",
             "  root_cause: %s" % e["root_cause"], "  verdict: %s" % e["verdict"]]
    if "culprit" in e:
        lines += ["  culprit:", "    service: %s" % e["culprit"]["service"],
                  "    verdict: %s" % e["culprit"]["verdict"]]
    lines.append("tags: [%s]" % ", ".join(["heldout7", "lumen"] + spec["tags"]))
    return "\n".join(lines) + "\n"


def releases_yaml(spec):
    lines = ["project: lumen", "services:"]
    for svc, rel in spec["ledger"].items():
        lines.append("  %s:" % svc)
        for v, d in rel:
            lines += ["    - version: %s" % q(v), "      image: %s.dkr.ecr.%s.amazonaws.com/lumen/%s:%s" % (
                ACCOUNT, REGION, svc, v.replace("+", "_")), "      deployed_at: %s" % ts(at(d))]
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
    spec["serving"] = serving(spec)
    spec["markers"] = markers(make())
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
    sampling = ("the collector's probabilistic sampler, 1 in %d by trace id (spans and logs)" % spec["one_in"]
                if spec.get("logs_sampled") else "head, parent-based trace-id ratio, 1 in %d" % spec["one_in"])
    with open(os.path.join(folder, "expect.json"), "w") as f:
        f.write(json.dumps(dict(spec["expect"], sampling=sampling, history_minutes=hist, onset=spec["onset"],
                                story=spec["story"]), indent=2) + "\n")
    n1 = write_jsonl(folder, "spans.jsonl", spans)
    n2 = write_jsonl(folder, "logs.jsonl", [r for _, r in w.logs])
    print("%-46s spans %6d (%5.1f MB)  logs %6d (%4.1f MB)" % (spec["id"], len(spans), n1 / 1e6, len(w.logs),
                                                             n2 / 1e6))


def twin_ddb_after():
    """The DynamoDB trap with a 60 s rolling update: 5.2.0 serves alone from 14:04:12, the scan begins at
    14:05:31, so every failing request is 5.2.0's. Not part of the corpus."""
    spec = inc_ddb()
    spec["id"] = "lm7-twin-ddb-throttle-after-rollout-entitlements-api"
    spec["title"] = spec["title"].replace("rolls out over 4 min from 14:03", "rolls out over 60 s at 14:03")
    spec["rollout"] = {"entitlements-api": 60}
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "14:05:3x, 80 s after the rollout finished"
    return spec


def twin_s3_heavier():
    """The S3 SlowDown trap with SlowDown on 80% of attempts at its peak (about 45% of package downloads fail
    after three attempts, ~20% of all requests), not 50% (one in eight, 4.9% of requests, under the gate's 5%
    share by one request). Not part of the corpus."""
    spec = inc_s3()
    burst = at("2026-12-07T15:33:20.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "s3" and svc == "downloads-api" and name == "lumen-offline-packages":
            r = ramp(t, burst, burst + 45 * S)
            if r:
                return {"error": "SlowDown", "error_p": 0.8 * r, "slow": 1 + 0.8 * r, "status": 503}
        return None
    spec["fault"] = fault
    spec["id"] = "lm7-twin-s3-slowdown-heavier-downloads-api"
    spec["title"] = "downloads-api 2.3.0 rolled out by 15:32; at 15:33:20 the offline repackager's PUT burst makes " \
                    "S3 answer SlowDown to 80% of GetObject attempts and ~45% of package downloads fail"
    spec["tags"] = spec["tags"] + ["twin"]
    return spec


def twin_stuck_longer():
    """The unfinished-rollout trap with the database down from 11:09:12 to the alert (connection refused
    throughout), so the onset is measured. Not part of the corpus."""
    spec = inc_stuck()
    fo = at("2026-12-07T11:09:12.000")

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "pg" and svc == "transcode-api" and t >= fo and w.rng.random() < 0.7:
            return {"fail": ("*net.OpError", "failed to connect to `host=lumen-media.cluster-c9xk2rw1lq0e."
                             "eu-west-1.rds.amazonaws.com user=transcode database=lumen`: dial error (dial tcp "
                             "10.0.3.14:5432: connect: connection refused)"), "fail_ms": lognormal(w.rng, 8)}
        return None
    spec["fault"] = fault
    spec["id"] = "lm7-twin-stuck-rollout-longer-outage-transcode-api"
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "11:09:12, 6.6 min after the marker; the outage lasts to the alert"
    return spec


def twin_token_config():
    """The expired-token trap's counterpart: 8.4.2's configuration names a wrong client credential, so every
    enrichment call 8.4.2 sends answers 401 from its first, while 8.4.1's pods, until the rollout replaces
    them, still succeed. A configuration release, rightly rolled back. Not part of the corpus."""
    spec = inc_token()
    host = "api.metaflix-partner.example"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "ext" and name == host and ver == "8.4.2":
            return {"status": 401, "slow": 0.3, "propagate": (502, "HTTPError", "Response code 401 (Unauthorized)")}
        if what == "server" and svc == "search-api" and ver == "8.4.2" and ctx.get("entry") == "search":
            return {"logmsg": "partner enrichment failed"}
        return None
    spec["fault"] = fault
    spec["id"] = "lm7-twin-token-config-search-api"
    spec["title"] = "search-api 8.4.2 rolled out at 23:57 with a wrong partner client credential: every " \
                    "enrichment call of 8.4.2 answers 401"
    spec["expect"] = {"root_cause": "config_regression", "verdict": "allow"}
    spec["tags"] = [t for t in spec["tags"] if t != "trap"] + ["twin"]
    spec["story"] = "8.4.2 ships a partner client credential from the wrong secret: from its first pod on, " \
                    "every enrichment call it sends answers 401 invalid_client and the search handler answers " \
                    "502 for the 60% of searches that need it; 8.4.1's pods succeed until replaced. Rolling " \
                    "back to 8.4.1 restores the right credential."
    spec["onset"] = "23:57:xx, with the rollout's first pod"
    return spec


def twin_token_config_slow():
    """token-config with a 10-minute rolling update (23:57:12 to 00:07): for minutes 8.4.1's pods still call
    the partner cleanly beside 8.4.2's failing calls. Not part of the corpus."""
    spec = twin_token_config()
    spec["id"] = "lm7-twin-token-config-slow-rollout-search-api"
    spec["rollout"] = {"search-api": 600}
    spec["onset"] = "23:57:xx, with the rollout's first pod; the rollout lasts 10 min"
    return spec


def twin_token_cached():
    """The expired-token trap's fault and timing (its own draw of traffic), with the other story (branch h47token): 8.4.2's
    configuration replaces the partner client secret with a revoked one, but the access token obtained with
    the old secret stays in the shared cache until it expires at 00:00:00; 8.4.2's refresh with the revoked
    secret is refused and every call answers 401. A configuration release, rightly rolled back, that the
    telemetry cannot tell from the trap. Not part of the corpus."""
    spec = inc_token()
    spec["id"] = "lm7-twin-token-cached-search-api"
    spec["title"] = "search-api 8.4.2 rolled out at 23:57 with a revoked partner client secret; the cached " \
                    "access token expires at midnight and every enrichment call answers 401"
    spec["expect"] = {"root_cause": "config_regression", "verdict": "allow"}
    spec["tags"] = [t for t in spec["tags"] if t != "trap"] + ["twin"]
    spec["story"] = "8.4.2 ships the partner client secret the partner revoked last week. The access token " \
                    "obtained with the old secret is cached (shared) until 00:00:00; 8.4.2's refresh is then " \
                    "refused and every enrichment call answers 401. Rolling back to 8.4.1 restores the valid secret."
    return spec


def twin_token_late():
    """The expired-token trap with the token expiring at 00:09:00, 11 min 48 s after the release began, beyond
    the gate's credential window (branch h47token): a dependency outage the check does not read. Not part
    of the corpus."""
    spec = inc_token()
    expiry = at("2026-12-07T00:09:00.000")
    host = "api.metaflix-partner.example"

    def fault(w, svc, name, t, ver, what, ctx):
        if what == "ext" and name == host and t >= expiry:
            return {"status": 401, "slow": 0.3, "propagate": (502, "HTTPError", "Response code 401 (Unauthorized)")}
        if what == "server" and svc == "search-api" and t >= expiry and ctx.get("entry") == "search":
            return {"logmsg": "partner enrichment failed"}
        return None
    spec["fault"] = fault
    spec["id"] = "lm7-twin-token-late-search-api"
    spec["now"] = "2026-12-07T00:20:00.000"
    spec["alert"] = dict(spec["alert"], starts="2026-12-07T00:14:00.000")
    spec["tags"] = spec["tags"] + ["twin"]
    spec["onset"] = "00:09:00, 10.5 min after the rollout finished"
    return spec


def with_http_children(make, suffix):
    def twin():
        spec = make()
        spec["id"] = spec["id"].replace("-twin-", "-twin-%s-" % suffix)
        spec["aws_http_children"] = True
        return spec
    return twin


TWINS = {"ddb-after-http": with_http_children(twin_ddb_after, "http"),
         "s3-heavier-http": with_http_children(twin_s3_heavier, "http"), "ddb-after": twin_ddb_after, "s3-heavier": twin_s3_heavier, "stuck-longer": twin_stuck_longer,
         "token-config": twin_token_config, "token-config-slow": twin_token_config_slow,
         "token-cached": twin_token_cached, "token-late": twin_token_late}


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
