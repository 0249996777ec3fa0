#!/usr/bin/env python3
"""Generates e2e/incidents-heldout12: an online learning and exam platform ("Proctorly") on Azure.

Run from this folder: `python3 gen.py`. Seeded (SEED below): every file comes out byte for byte
the same on every run, whatever PYTHONHASHSEED (no set or dict-order randomness is used; every
random draw comes from a random.Random seeded with a string). Files over 3 MB are written gzip'd
with no name and mtime 0. `python3 gen.py --twins DIR` writes the harsher twins of the traps into
DIR (../incidents-heldout12-twins).

Style (README.md): AKS in Central India (three availability zones), Helm releases deployed by
Azure DevOps pipelines whose last task writes the deployment marker (deployment.environment,
vcs.repository.ref.revision, cicd.pipeline.*, the build number 20261204.N as the version);
Elixir/Phoenix services (opentelemetry_phoenix server spans, opentelemetry_ecto query spans named
`proctorly.repo.query:<table>` with queue/query/decode times, opentelemetry_redix, Oban jobs as
`<Worker> process` consumer spans, Finch client spans named `HTTP <METHOD>`); PHP Laravel through
opentelemetry-php auto-instrumentation (PDO spans, Horizon jobs); Spring Boot 3 through the
Micrometer Tracing bridge (span names `http get /api/exams/{id}`, the low-cardinality keys
`outcome`, `status`, `exception`, `uri`, `method` and no http.response.status_code); Azure SDK for
Java spans (az.namespace Microsoft.DocumentDB with db.cosmosdb.status_code, sub_status_code and
request_charge; Microsoft.ServiceBus; Microsoft.CognitiveServices for Azure OpenAI with gen_ai.*
and content filter results). Parent-based TraceIdRatio sampling at the entry service (1 in 4 to
1 in 8, per incident), logs unsampled. Millisecond timestamps with a +05:30 offset everywhere.
"""
import gzip
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone

SEED = 121204
HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000
MS = 1000 * US
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024
IST = timezone(timedelta(hours=5, minutes=30))
DAY = "2026-12-04T"
ACR = "proctorlyprod.azurecr.io"
ZONES = ["centralindia-1", "centralindia-2", "centralindia-3"]


def ts(ns):
    """RFC 3339 with milliseconds and a +05:30 offset."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, IST).strftime("%Y-%m-%dT%H:%M:%S") + ".%03d+05:30" % (frac // MS)


def at(s):
    """'HH:MM:SS[.fff]' on DAY (or a full date) in IST -> ns since the epoch."""
    if "T" not in s:
        s = DAY + s
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=IST)
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
    "phoenix": {"telemetry.sdk.language": "erlang", "telemetry.sdk.name": "opentelemetry",
                "telemetry.sdk.version": "1.5.0", "process.runtime.name": "BEAM",
                "process.runtime.version": "15.2", "process.runtime.description": "Erlang/OTP 27 erts-15.2",
                "process.executable.name": "beam.smp"},
    "laravel": {"telemetry.sdk.language": "php", "telemetry.sdk.name": "opentelemetry",
                "telemetry.sdk.version": "1.1.2", "telemetry.distro.name": "opentelemetry-php-instrumentation",
                "process.runtime.name": "fpm-fcgi", "process.runtime.version": "8.3.14"},
    "spring": {"telemetry.sdk.language": "java", "telemetry.sdk.name": "io.micrometer",
               "telemetry.sdk.version": "1.4.1", "process.runtime.name": "OpenJDK Runtime Environment",
               "process.runtime.version": "21.0.5+11-LTS", "spring.boot.version": "3.4.0"},
}
SERVICES = {
    "exam-session": ("phoenix", "exams"), "question-bank": ("phoenix", "exams"),
    "notify-worker": ("phoenix", "comms"),
    "course-portal": ("laravel", "portal"),
    "grading-svc": ("spring", "exams"), "tutor-ai": ("spring", "learning"),
    "proctor-events": ("spring", "proctoring"), "regrade-batch": ("spring", "exams"),
    "video-analyzer": ("spring", "proctoring"),
}
NODEPOOL = {"phoenix": "beampool", "laravel": "webpool", "spring": "jvmpool"}


class Pod:
    def __init__(self, w, svc, version, idx, up, down, zone):
        self.svc, self.version, self.up, self.down, self.zone = svc, version, up, down, zone
        rng = w.rng
        rs = hexid(rng, 10)
        self.name = "%s-%s-%s" % (svc, rs, "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5)))
        runtime, ns = SERVICES[svc]
        zi = ZONES.index(zone)
        self.node = "aks-%s-31977524-vmss%06d" % (NODEPOOL[runtime], zi * 4 + (idx % 4))
        self.ip = "10.244.%d.%d" % (zi * 8 + idx % 8, 10 + rng.randrange(200))
        self.resource = {
            "service.name": svc, "service.namespace": "proctorly", "service.version": version,
            "service.instance.id": self.name, "deployment.environment.name": "production",
            "cloud.provider": "azure", "cloud.platform": "azure_aks", "cloud.region": "centralindia",
            "cloud.availability_zone": zone, "k8s.cluster.name": "aks-proctorly-prod-cin",
            "k8s.namespace.name": ns, "k8s.deployment.name": svc, "k8s.pod.name": self.name,
            "k8s.node.name": self.node, "host.name": self.name,
            "container.image.name": "%s/%s" % (ACR, svc), "container.image.tag": version,
        }
        self.resource.update(RT[runtime])

    def alive(self, t):
        return self.up <= t and (self.down is None or t < self.down)


class World:
    """One incident: pods per version, traffic, and the effects that make it an incident."""

    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, spec["id"]))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.ratio = 1.0 / spec["one_in"]
        self.spans, self.logs = [], []
        self.pods = {}
        self.markers = []
        self.fx = spec.get("fx", lambda w, t, svc, op, pod: {})
        for svc, versions in spec["serving"].items():
            n = spec.get("pods", {}).get(svc, 3)
            pods = []
            prev = None
            for vi, (version, begin, secs) in enumerate(versions):
                if begin is None:
                    up0 = self.start - 3 * 3600 * S
                    for i in range(n):
                        pods.append(Pod(self, svc, version, i, up0, None, ZONES[i % 3]))
                else:
                    b = at(begin)
                    old = [p for p in pods if p.version == prev and p.down is None]
                    for i in range(n):
                        tt = b + int(i * secs * S / max(1, n))
                        pods.append(Pod(self, svc, version, i, tt, None, ZONES[i % 3]))
                        if i < len(old):
                            old[i].down = tt + 4 * S
                    self.markers.append((svc, version, prev, b))
                prev = version
            self.pods[svc] = pods

    # -- helpers

    def pod(self, svc, t):
        alive = [p for p in self.pods[svc] if p.alive(t)]
        return alive[self.rng.randrange(len(alive))]

    def fxof(self, t, svc, op, pod):
        return self.fx(self, t, svc, op, pod) or {}

    def span(self, tr, parent, name, kind, start, dur, pod, attrs, err=False, msg="", events=None, sid=None):
        sid = sid or hexid(self.rng, 16)
        if tr["keep"]:
            row = {"timestamp": ts(start), "trace_id": tr["id"], "span_id": sid, "parent_span_id": parent,
                   "name": name, "kind": kind, "duration_nano": int(dur), "has_error": bool(err),
                   "status_code": 2 if err else 0, "status_message": msg if err else "",
                   "resource": pod.resource, "attributes": attrs}
            if events:
                row["events"] = events
            self.spans.append(row)
        return sid

    def log(self, t, pod, sev, body, tr=None, sid="", attrs=None):
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "WARNING": 13, "ERROR": 17, "error": 17, "info": 9,
               "warning": 13}[sev]
        self.logs.append({"timestamp": ts(t), "observed_timestamp": ts(t + 2 * MS), "severity_text": sev,
                          "severity_number": num, "body": body, "trace_id": tr["id"] if tr else "",
                          "span_id": sid, "trace_flags": (1 if tr and tr["keep"] else 0) if tr else 0,
                          "resource": pod.resource, "attributes": attrs or {}})

    def trace(self):
        tid = hexid(self.rng, 32)
        keep = int(tid[16:], 16) < self.ratio * 2 ** 64
        return {"id": tid, "keep": keep}

    def run(self):
        rng = self.rng
        for m0 in range(self.start, self.now, MIN):
            for svc, op, rate in self.spec["traffic"]:
                lam = rate(self, m0) if callable(rate) else rate
                n = poisson(rng, lam)
                for _ in range(n):
                    t = m0 + rng.randrange(MIN)
                    if t >= self.now:
                        continue
                    HANDLERS[svc](self, t, svc, op, self.trace(), "")
            for hook in self.spec.get("minute_hooks", []):
                hook(self, m0)
        for svc, version, prev, b in self.markers:
            pod = [p for p in self.pods[svc] if p.version == version][0]
            tr = {"id": hexid(rng, 32), "keep": True}
            attrs = {"deployment.version": version, "deployment.previous_version": prev,
                     "deployment.id": "adoproj-proctorly/%s-cd/%d" % (svc, 4000 + rng.randrange(999)),
                     "deployment.environment": "production",
                     "vcs.repository.url.full": "https://dev.azure.com/proctorly/platform/_git/%s" % svc,
                     "vcs.repository.ref.revision": hexid(rng, 40),
                     "cicd.pipeline.name": "%s-cd" % svc, "cicd.pipeline.task.name": "HelmDeploy@1 upgrade",
                     "cicd.pipeline.run.id": version, "helm.release.name": svc,
                     "helm.chart.version": "4.%d.%d" % (rng.randrange(9), rng.randrange(20))}
            if b < self.now:
                self.span(tr, "", "deployment.marker", 1, b, 30 * MS, pod, attrs)
        self.spans.sort(key=lambda r: (r["timestamp"], r["trace_id"], r["span_id"]))
        self.logs.sort(key=lambda r: (r["timestamp"], r["body"]))


# ---------------------------------------------------------------- Elixir / Phoenix

def phx_server(w, tr, parent, t, pod, route, method, path, status, dur, sid):
    return w.span(tr, parent, "%s %s" % (method, route), 2, t, dur, pod, {
        "http.request.method": method, "http.route": route, "url.path": path, "url.scheme": "http",
        "http.response.status_code": status, "server.address": "%s.%s.svc.cluster.local" % (pod.svc, pod.resource["k8s.namespace.name"]),
        "network.protocol.version": "1.1", "user_agent.original": "Mozilla/5.0 (Proctorly exam client 6.2)",
        "phoenix.plug": "ProctorlyWeb.%sController" % route.split("/")[2].capitalize().rstrip("s"),
        "phoenix.action": {"GET": "show", "POST": "create", "PUT": "update"}[method],
    }, err=status >= 500, msg="", sid=sid)


def ecto(w, tr, parent, t, pod, table, op, query_ms, queue_ms=0.2, err=None, repo="proctorly"):
    q = lognormal(w.rng, query_ms, 0.3)
    dur = int((q + queue_ms + 0.15) * MS)
    attrs = {"db.system": "postgresql", "db.name": "%s_prod" % repo, "db.instance": "%s_prod" % repo,
             "db.type": "sql", "db.sql.table": table, "source": table,
             "db.statement": {"select": 'SELECT s0."id", s0."inserted_at" FROM "%s" AS s0 WHERE (s0."id" = $1)' % table,
                              "insert": 'INSERT INTO "%s" ("body","inserted_at") VALUES ($1,$2) RETURNING "id"' % table,
                              "where": 'SELECT s0."id", s0."body" FROM "%s" AS s0 WHERE (s0."question_id" = $1)' % table}[op],
             "total_time_microseconds": int(dur / US), "query_time_microseconds": int(q * 1000),
             "queue_time_microseconds": int(queue_ms * 1000), "decode_time_microseconds": 60,
             "idle_time_microseconds": w.rng.randrange(1000, 900000),
             "server.address": "proctorly-pg.postgres.database.azure.com"}
    if err:
        attrs["error.type"] = "DBConnection.ConnectionError"
    w.span(tr, parent, "%s.repo.query:%s" % (repo, table), 3, t, dur, pod, attrs, err=bool(err), msg=err or "")
    return dur


def redix(w, tr, parent, t, pod, cmd, ms=0.8, err=None, host="proctorly-cache.redis.cache.windows.net"):
    dur = int(lognormal(w.rng, ms, 0.3) * MS)
    attrs = {"db.system": "redis", "db.operation": cmd, "db.statement": "%s session:<id>" % cmd,
             "net.peer.name": host, "net.peer.port": 6380}
    if err:
        attrs["error.type"] = "Redix.ConnectionError"
    w.span(tr, parent, cmd, 3, t, dur, pod, attrs, err=bool(err), msg=err or "")
    return dur


def finch(w, tr, parent, t, pod, method, host, path, status, dur, resend=0, err=None):
    attrs = {"http.request.method": method, "url.full": "http://%s%s" % (host, path), "server.address": host,
             "server.port": 8080 if "svc.cluster" in host else 443}
    if status:
        attrs["http.response.status_code"] = status
    if resend:
        attrs["http.request.resend_count"] = resend
    if err:
        attrs["error.type"] = err
    return w.span(tr, parent, "HTTP %s" % method, 3, t, dur, pod, attrs, err=bool(err) or (status or 0) >= 500,
                  msg=err or "")


def exam_session(w, t, svc, op, tr, parent):
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    sid = "S-%06d" % rng.randrange(10 ** 6)
    method, _, route = op.partition(" ")
    path = route.replace(":id", sid)
    server_id = hexid(rng, 16)  # reserved below
    children = []
    cur = t + int(0.3 * MS)
    status, msg = 200, None
    slow = f.get("slow", 1.0)
    queue = f.get("queue_ms", 0.2)
    # zone-local connectivity failure: the pod's own calls to Redis and Postgres time out
    if f.get("zone_down") and rng.random() < f["zone_down"]:
        children.append(("redis", cur, "GET", 5000.0, "%Redix.ConnectionError{reason: :timeout}"))
        cur += 5000 * MS
        status, msg = 500, "Redix.ConnectionError"
    elif f.get("pool_err") and rng.random() < f["pool_err"]:
        children.append(("ecto", cur, "exam_sessions", "select", 2.0, 2000.0,
                         "connection not available and request was dropped from queue after 2000ms"))
        cur += 2001 * MS
        status, msg = 500, "DBConnection.ConnectionError"
    else:
        if op == "GET /api/sessions/:id":
            d = ecto(w, tr, server_id, cur, pod, "exam_sessions", "select", 1.6 * slow, queue)
            cur += d + 100 * US
            cur += redix(w, tr, server_id, cur, pod, "GET")
            if f.get("genserver") and rng.random() < f["genserver"] * 0.3:
                cur += 5000 * MS
                status, msg = 500, "exit"
        elif op == "POST /api/sessions/:id/heartbeat":
            cur += redix(w, tr, server_id, cur, pod, "SET")
            if f.get("genserver") and rng.random() < f["genserver"]:
                cur += 5000 * MS
                status, msg = 500, "exit"
            elif f.get("genserver"):
                cur += int(lognormal(rng, 40 + 900 * f["genserver"], 0.6) * MS)
        elif op == "POST /api/sessions/:id/start":
            d = ecto(w, tr, server_id, cur, pod, "exam_sessions", "insert", 3.0 * slow, queue)
            cur += d
            d = ecto(w, tr, server_id, cur, pod, "answers", "insert", 2.0 * slow, queue)
            cur += d + redix(w, tr, server_id, cur + d, pod, "SET")
        elif op == "POST /api/sessions/:id/answers":
            d = ecto(w, tr, server_id, cur, pod, "answers", "insert", 2.2 * slow, queue)
            cur += d + 200 * US
            if rng.random() < 0.5:
                exam = "E-%04d" % rng.randrange(3000)
                retry = f.get("retry")
                timeout = retry["timeout_ms"] if retry else 1500
                attempts = retry["max"] + 1 if retry else 1
                ok = False
                for a in range(attempts):
                    fid = hexid(rng, 16)
                    gd = grading_latency(w, cur, exam)
                    if gd > timeout * MS:
                        # the callee keeps working; the client gives up
                        call_grading(w, cur, tr, fid, exam, gd)
                        finch_span(w, tr, server_id, fid, cur, pod, "POST", "/api/grades/%s" % exam, None,
                                   timeout * MS, a, "timeout")
                        cur += timeout * MS + (20 * MS if retry else 0)
                    else:
                        call_grading(w, cur, tr, fid, exam, gd)
                        finch_span(w, tr, server_id, fid, cur, pod, "POST", "/api/grades/%s" % exam, 201,
                                   gd + int(1.2 * MS), a, None)
                        cur += gd + int(1.2 * MS)
                        ok = True
                        break
                if not ok:
                    status, msg = 504, "Mint.TransportError"
    for c in children:
        if c[0] == "redis":
            redix(w, tr, server_id, c[1], pod, c[2], c[3], c[4])
        else:
            ecto(w, tr, server_id, c[1], pod, c[2], c[3], c[4], c[5], c[6])
    dur = cur - t + int(lognormal(rng, 0.6) * MS)
    keep_id = server_id
    phx_server(w, tr, parent, t, pod, route, method, path, status, dur, server_id)
    if status >= 500:
        body = {
            "exit": "** (exit) exited in: GenServer.call(Proctorly.Sessions.Clock, {:tick, \"%s\"}, 5000)\n"
                    "    ** (EXIT) time out" % sid,
            "Redix.ConnectionError": "** (Redix.ConnectionError) the connection to Redis is unavailable: timeout "
                                     "(proctorly-cache.redis.cache.windows.net:6380)",
            "DBConnection.ConnectionError": "** (DBConnection.ConnectionError) connection not available and request "
                                            "was dropped from queue after 2000ms. This means requests are coming in "
                                            "and your connection pool cannot serve them fast enough.",
            "Mint.TransportError": "Finch request to grading-svc failed after %d attempts: "
                                   "%%Mint.TransportError{reason: :timeout}" % ((f.get("retry") or {"max": 0})["max"] + 1),
        }[msg]
        w.log(t + dur, pod, "ERROR", body, tr, keep_id,
              {"request_id": "F" + hexid(rng, 19), "mfa": "ProctorlyWeb.SessionController.%s/2" % ("show" if method == "GET" else "create")})


def call_grading(w, cur, tr, fid, exam, gd):
    """grading-svc's server span under the Finch attempt, when grading-svc is part of the incident."""
    if "grading-svc" in w.pods:
        grading_svc(w, cur + int(0.6 * MS), "grading-svc", "http post /api/grades/{examId}", tr, fid, exam=exam, fixed=gd)


def finch_span(w, tr, parent, sid, start, pod, method, path, status, dur, resend, err):
    host = "grading-svc.exams.svc.cluster.local"
    attrs = {"http.request.method": method, "url.full": "http://%s:8080%s" % (host, path), "server.address": host,
             "server.port": 8080}
    if status:
        attrs["http.response.status_code"] = status
    if resend:
        attrs["http.request.resend_count"] = resend
    if err:
        attrs["error.type"] = err
    if tr["keep"]:
        w.spans.append({"timestamp": ts(start), "trace_id": tr["id"], "span_id": sid, "parent_span_id": parent,
                        "name": "HTTP %s" % method, "kind": 3, "duration_nano": int(dur), "has_error": bool(err),
                        "status_code": 2 if err else 0, "status_message": err or "", "resource": pod.resource,
                        "attributes": attrs})


def grading_latency(w, t, exam):
    """ms of a grade upsert in grading-svc at t, with the load the incident adds."""
    load = w.spec.get("grading_load", lambda w, t: 1.0)(w, t)
    return int(lognormal(w.rng, 210 * load ** 1.6, 0.45) * MS)


def question_bank(w, t, svc, op, tr, parent):
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    method, _, route = op.partition(" ")
    qid = "%d" % rng.randrange(10 ** 5)
    server_id = hexid(rng, 16)
    cur = t + int(0.25 * MS)
    status, err = 200, None
    queue = 0.2
    if op == "GET /api/papers/:id":
        cur += ecto(w, tr, server_id, cur, pod, "papers", "select", 1.2)
        nq = rng.randint(30, 60)
        cur += ecto(w, tr, server_id, cur, pod, "questions", "where", 2.5)
        if f.get("n_plus_one"):
            queue = f.get("queue_ms", 3.0)
            for i in range(nq):
                if f.get("drop") and rng.random() < f["drop"] / nq:
                    ecto(w, tr, server_id, cur, pod, "question_options", "where", 0.1, 2000.0,
                         "connection not available and request was dropped from queue after 2000ms")
                    cur += 2001 * MS
                    status, err = 500, "DBConnection.ConnectionError"
                    break
                cur += ecto(w, tr, server_id, cur, pod, "question_options", "where", 0.9,
                            lognormal(rng, queue, 0.6)) + 40 * US
        else:
            cur += ecto(w, tr, server_id, cur, pod, "question_options", "where", 4.0)
    elif op == "GET /api/questions/:id":
        cur += ecto(w, tr, server_id, cur, pod, "questions", "select", 1.1, f.get("queue_ms", 0.2) if f.get("n_plus_one") else 0.2)
        cur += ecto(w, tr, server_id, cur, pod, "question_options", "where", 1.0)
    else:
        cur += ecto(w, tr, server_id, cur, pod, "questions", "insert", 2.4)
    dur = cur - t + int(lognormal(rng, 0.8) * MS)
    phx_server(w, tr, parent, t, pod, route, method, route.replace(":id", qid), status, dur, server_id)
    if err:
        w.log(t + dur, pod, "ERROR", "** (DBConnection.ConnectionError) connection not available and request was "
              "dropped from queue after 2000ms. This means requests are coming in and your connection pool cannot "
              "serve them fast enough.", tr, server_id, {"mfa": "ProctorlyWeb.PaperController.show/2"})


def notify_worker(w, t, svc, op, tr, parent):
    """Oban jobs (consumer spans) sending mail through Finch to SendGrid, and the bulk insert endpoint."""
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    if op == "POST /api/notifications/bulk":
        sid = hexid(rng, 16)
        n = f.get("bulk_jobs", 500)
        cur = t + int(0.4 * MS)
        w.span(tr, sid, "Proctorly.Workers.ExamReminder send", 4, cur, int((20 + n * 0.02) * MS), pod, {
            "messaging.system": "oban", "messaging.destination.name": "mailers",
            "messaging.oban.worker": "Proctorly.Workers.ExamReminder", "messaging.batch.message_count": n})
        dur = int((24 + n * 0.02) * MS)
        phx_server(w, tr, parent, t, pod, "/api/notifications/bulk", "POST", "/api/notifications/bulk", 201, dur, sid)
        return
    worker = op
    wait_s = f.get("queue_wait_s", lognormal(rng, 0.8, 0.5))
    attempt = 1
    sid = hexid(rng, 16)
    cur = t + int(1.1 * MS)
    status = 202
    err = None
    if f.get("sendgrid_429") and rng.random() < f["sendgrid_429"]:
        status, err = 429, "too many requests"
        attempt = rng.randint(1, 4)
    sg_ms = lognormal(rng, f.get("sendgrid_ms", 140), 0.4)
    finch(w, tr, sid, cur, pod, "POST", "api.sendgrid.com", "/v3/mail/send", status, int(sg_ms * MS))
    dur = int((sg_ms + lognormal(rng, 6, 0.4)) * MS)
    attrs = {"messaging.system": "oban", "messaging.operation": "process", "messaging.destination.name": "mailers",
             "messaging.oban.worker": worker, "messaging.oban.job_id": rng.randrange(10 ** 7, 10 ** 8),
             "messaging.oban.attempt": attempt, "messaging.oban.max_attempts": 20, "messaging.oban.priority": 0,
             "messaging.oban.inserted_at": ts(t - int(wait_s * S)),
             "messaging.oban.scheduled_at": ts(t - int(wait_s * S)),
             "oban.job.queue_time_ms": int(wait_s * 1000)}
    if err:
        attrs["error.type"] = "Proctorly.Mailer.RateLimited"
    w.span(tr, parent, "%s process" % worker, 5, t, dur, pod, attrs, err=bool(err),
           msg="{:error, %%{status: 429, body: \"too many requests\"}}" if err else "", sid=sid)
    if err:
        w.log(t + dur, pod, "WARN", "[Oban] %s job %d attempt %d failed: {:error, %%{status: 429}} (SendGrid: too "
              "many requests); retrying with backoff" % (worker, attrs["messaging.oban.job_id"], attempt), tr, sid,
              {"oban.queue": "mailers"})


# ---------------------------------------------------------------- Spring Boot 3 / Micrometer

def micrometer_server(w, tr, parent, sid, t, pod, method, uri, url, status, dur, exception="none"):
    outcome = "SUCCESS" if status < 400 else ("CLIENT_ERROR" if status < 500 else "SERVER_ERROR")
    attrs = {"method": method, "uri": uri, "status": str(status), "outcome": outcome, "exception": exception,
             "http.url": url}
    if exception != "none":
        attrs["error"] = exception
    if tr["keep"]:
        w.spans.append({"timestamp": ts(t), "trace_id": tr["id"], "span_id": sid, "parent_span_id": parent,
                        "name": "http %s %s" % (method.lower(), uri), "kind": 2, "duration_nano": int(dur),
                        "has_error": status >= 500, "status_code": 2 if status >= 500 else 0,
                        "status_message": exception if status >= 500 else "", "resource": pod.resource,
                        "attributes": attrs})


def cosmos(w, tr, parent, t, pod, op, container, ms, status=200, sub=0, charge=None, retries=0):
    attrs = {"az.namespace": "Microsoft.DocumentDB", "db.system": "cosmosdb", "db.name": "proctorly",
             "db.cosmosdb.container": container, "db.operation": op, "db.cosmosdb.operation_type": op,
             "db.cosmosdb.status_code": status, "db.cosmosdb.sub_status_code": sub,
             "db.cosmosdb.request_charge": charge if charge is not None else round(lognormal(w.rng, 6.2, 0.2), 2),
             "db.cosmosdb.connection_mode": "direct", "db.cosmosdb.client_id": "cosmos-client-" + pod.name[-5:],
             "net.peer.name": "proctorly-cosmos-centralindia.documents.azure.com",
             "db.cosmosdb.regions_contacted": "Central India"}
    if retries:
        attrs["db.cosmosdb.retry_count"] = retries
    err = status >= 400
    w.span(tr, parent, "%s.%s" % (op, container), 3, t, int(ms * MS), pod, attrs, err=err,
           msg="Request rate is large. More Request Units may be needed, so no changes were made. Please retry "
               "this request later." if status == 429 else "")
    return int(ms * MS)


def servicebus_send(w, tr, parent, t, pod, entity, ms, busy=False):
    attrs = {"az.namespace": "Microsoft.ServiceBus", "messaging.system": "servicebus",
             "messaging.operation": "publish", "messaging.destination.name": entity,
             "server.address": "proctorly-sb.servicebus.windows.net", "messaging.batch.message_count": 1}
    if busy:
        attrs["error.type"] = "com.azure.messaging.servicebus.ServiceBusException"
        attrs["servicebus.failure_reason"] = "SERVICE_BUSY"
    w.span(tr, parent, "ServiceBus.send", 4, t, int(ms * MS), pod, attrs, err=busy,
           msg="The request was terminated because the namespace proctorly-sb is being throttled. Error code : "
               "50009. Please wait 2 seconds and try again." if busy else "")
    return int(ms * MS)


def grading_svc(w, t, svc, op, tr, parent, exam=None, fixed=None):
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    exam = exam or "E-%04d" % rng.randrange(3000)
    sid = hexid(rng, 16)
    cur = t + int(0.5 * MS)
    status, exc = 200, "none"
    method = op.split()[1].upper()
    uri = op.split()[2]
    url = uri.replace("{id}", exam).replace("{examId}", exam)
    throttled = f.get("cosmos_429") and rng.random() < f["cosmos_429"]
    sdk_retries = 0 if f.get("no_sdk_retry") else 9
    t429 = (lambda m: lognormal(rng, 12, 0.3)) if f.get("no_sdk_retry") else (lambda m: lognormal(rng, m, 0.4))
    if op == "http get /api/exams/{id}":
        if throttled:
            cur += cosmos(w, tr, sid, cur, pod, "readItem", "exams", t429(2400), 429, 3200, 0.0, sdk_retries)
            status, exc = 500, "CosmosException"
        else:
            retr = 0
            extra = 0
            if f.get("cosmos_429") and not f.get("no_sdk_retry") and rng.random() < f["cosmos_429"] * 1.5:
                retr = rng.randint(1, 4)
                extra = retr * lognormal(rng, 180, 0.4)
            cur += cosmos(w, tr, sid, cur, pod, "readItem", "exams", lognormal(rng, 7, 0.3) + extra, 200, 0, None, retr)
    elif op == "http get /api/exams/{id}/rubric":
        cur += cosmos(w, tr, sid, cur, pod, "queryItems", "rubrics", lognormal(rng, 14, 0.3))
        if f.get("rubric_bug"):
            status, exc = 500, "HttpMessageNotWritableException"
            cur += int(lognormal(rng, 3, 0.3) * MS)
    elif op == "http post /api/grades/{examId}":
        if throttled:
            cur += cosmos(w, tr, sid, cur, pod, "upsertItem", "grades", t429(2600), 429, 3200, 0.0, sdk_retries)
            status, exc = 500, "CosmosException"
        else:
            base = (fixed / MS - 12) if fixed else lognormal(rng, 28, 0.35)
            cur += cosmos(w, tr, sid, cur, pod, "upsertItem", "grades", max(8.0, base * 0.8))
            busy = f.get("sb_busy") and rng.random() < f["sb_busy"]
            cur += servicebus_send(w, tr, sid, cur, pod, "grade-events", lognormal(rng, 9, 0.3) if not busy else 2100, busy)
            if busy:
                status, exc = 500, "ServiceBusException"
            else:
                status = 201
    dur = cur - t + int(lognormal(rng, 1.2) * MS)
    micrometer_server(w, tr, parent, sid, t, pod, method, uri, url, status, dur, exc)
    if status >= 500:
        msg = {"CosmosException": "Servlet.service() for servlet [dispatcherServlet] threw exception "
                                  "com.azure.cosmos.CosmosException: {\"statusCode\":429,\"subStatusCode\":3200,"
                                  "\"message\":\"Request rate is large. More Request Units may be needed\"} "
                                  "(retries exhausted after %d attempts)" % sdk_retries,
               "HttpMessageNotWritableException": "Servlet.service() threw exception org.springframework.http."
                                                  "converter.HttpMessageNotWritableException: Could not write JSON: "
                                                  "failed to lazily initialize a collection of role: "
                                                  "com.proctorly.grading.Rubric.criteria: could not initialize proxy "
                                                  "- no Session",
               "ServiceBusException": "Failed to publish grade event: com.azure.messaging.servicebus."
                                      "ServiceBusException: The request was terminated because the namespace "
                                      "proctorly-sb is being throttled. Error code : 50009."}[exc]
        w.log(t + dur, pod, "ERROR", msg, tr, sid, {"logger.name": "org.apache.catalina.core.ContainerBase",
                                                    "thread.name": "http-nio-8080-exec-%d" % rng.randint(1, 200)})
    return dur


def regrade_batch(w, t, svc, op, tr, parent):
    """Spring Batch job re-grading a whole cohort: Cosmos writes with a large request charge."""
    rng = w.rng
    pod = w.pod(svc, t)
    sid = hexid(rng, 16)
    cur = t + MS
    for _ in range(8):
        cur += cosmos(w, tr, sid, cur, pod, "upsertItem", "grades", lognormal(rng, 22, 0.3), 200, 0,
                      round(lognormal(rng, 410, 0.2), 2))
    if tr["keep"]:
        w.spans.append({"timestamp": ts(t), "trace_id": tr["id"], "span_id": sid, "parent_span_id": parent,
                        "name": "regradeStep", "kind": 1, "duration_nano": cur - t, "has_error": False,
                        "status_code": 0, "status_message": "", "resource": pod.resource,
                        "attributes": {"spring.batch.job.name": "cohortRegradeJob", "spring.batch.step.name":
                                       "regradeStep", "spring.batch.item.count": 8}})


def proctor_events(w, t, svc, op, tr, parent):
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    sid = hexid(rng, 16)
    cur = t + int(0.4 * MS)
    status, exc = 202, "none"
    method, uri = op.split()[1].upper(), op.split()[2]
    if uri == "/api/proctor/events":
        busy = f.get("sb_busy") and rng.random() < f["sb_busy"]
        if busy:
            cur += servicebus_send(w, tr, sid, cur, pod, "proctor-events", lognormal(rng, 2100, 0.2), True)
            status, exc = 503, "ServiceBusException"
        else:
            cur += servicebus_send(w, tr, sid, cur, pod, "proctor-events", lognormal(rng, 8, 0.3) * f.get("sb_slow", 1.0))
    else:
        attrs = {"az.namespace": "Microsoft.Storage", "http.request.method": "PUT",
                 "server.address": "proctorlysnaps.blob.core.windows.net", "http.response.status_code": 201}
        d = int(lognormal(rng, 35, 0.3) * MS)
        w.span(tr, sid, "BlockBlobClient.upload", 3, cur, d, pod, attrs)
        cur += d
        status = 201
    dur = cur - t + int(lognormal(rng, 1.0) * MS)
    micrometer_server(w, tr, parent, sid, t, pod, method, uri, uri, status, dur, exc)
    if status >= 500:
        w.log(t + dur, pod, "ERROR", "Failed to publish proctoring event: com.azure.messaging.servicebus."
              "ServiceBusException: The request was terminated because the namespace proctorly-sb is being "
              "throttled. Error code : 50009. Sub error: 103. Please wait 2 seconds and try again.", tr, sid,
              {"logger.name": "com.proctorly.events.EventPublisher"})


def video_analyzer(w, t, svc, op, tr, parent):
    """Another team's frame-analysis fan-out: it publishes to the same Service Bus namespace."""
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    sid = hexid(rng, 16)
    cur = t + MS
    n = 10
    failed = False
    for _ in range(n):
        busy = f.get("sb_busy") and rng.random() < f["sb_busy"]
        cur += servicebus_send(w, tr, sid, cur, pod, "frame-analysis", lognormal(rng, 7, 0.3) if not busy else 2050, busy)
        failed = failed or busy
    if tr["keep"]:
        w.spans.append({"timestamp": ts(t), "trace_id": tr["id"], "span_id": sid, "parent_span_id": parent,
                        "name": "frames process", "kind": 5, "duration_nano": cur - t, "has_error": bool(failed),
                        "status_code": 2 if failed else 0, "status_message": "", "resource": pod.resource,
                        "attributes": {"messaging.system": "servicebus", "az.namespace": "Microsoft.ServiceBus",
                                       "messaging.destination.name": "video-frames", "messaging.operation": "process"}})


def tutor_ai(w, t, svc, op, tr, parent):
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    sid = hexid(rng, 16)
    cur = t + int(0.6 * MS)
    method, uri = op.split()[1].upper(), op.split()[2]
    pv = f.get("prompt", "hint-v6")
    new = pv != "hint-v6"
    p_filter = f.get("filter", 0.01)
    inp = int(lognormal(rng, 1460 if new else 820, 0.15))
    filtered = rng.random() < p_filter
    prompt_side = filtered and rng.random() < 0.4
    if prompt_side:
        outp, finish, st = 0, "content_filter", 400
        gms = lognormal(rng, 260, 0.3)
        cf = {"prompt": {"jailbreak": {"filtered": True, "detected": True}, "violence": {"filtered": False,
                                                                                         "severity": "safe"}}}
    elif filtered:
        outp, finish, st = int(lognormal(rng, 60, 0.5)), "content_filter", 200
        gms = lognormal(rng, 900, 0.3)
        cf = {"completion": {"self_harm": {"filtered": False, "severity": "safe"},
                             "protected_material_text": {"filtered": True, "detected": True}}}
    else:
        outp, finish, st = int(lognormal(rng, 180 if new else 310, 0.25)), "stop", 200
        gms = 250 + outp * 11 * lognormal(rng, 1, 0.15)
        cf = {"completion": {"hate": {"filtered": False, "severity": "safe"}}}
    attrs = {"az.namespace": "Microsoft.CognitiveServices", "gen_ai.system": "az.ai.openai",
             "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
             "gen_ai.response.model": "gpt-4o-2024-08-06", "gen_ai.request.max_tokens": 600,
             "gen_ai.request.temperature": 0.3, "gen_ai.usage.input_tokens": inp,
             "gen_ai.usage.output_tokens": outp, "gen_ai.response.finish_reasons": [finish],
             "server.address": "proctorly-aoai-cin.openai.azure.com", "http.response.status_code": st,
             "az.ai.openai.content_filter_results": json.dumps(cf, sort_keys=True, separators=(",", ":"))}
    if st == 400:
        attrs["error.type"] = "content_filter"
    w.span(tr, sid, "chat gpt-4o", 3, cur, int(gms * MS), pod, attrs, err=st == 400,
           msg="The response was filtered due to the prompt triggering Azure OpenAI's content management policy."
           if st == 400 else "")
    cur += int(gms * MS)
    dur = cur - t + int(lognormal(rng, 2.0) * MS)
    result = "filtered_fallback" if filtered else "ok"
    micrometer_server(w, tr, parent, sid, t, pod, method, uri, uri, 200, dur)
    if tr["keep"]:
        w.spans[-1]["attributes"].update({"tutor.prompt.version": pv, "tutor.hint.result": result,
                                          "tutor.hint.kind": "stepwise" if uri.endswith("hints") else "explain"})
    if filtered:
        w.log(t + dur, pod, "WARN", "Azure OpenAI content filter tripped (%s side, finish_reason=content_filter); "
              "served the fallback hint" % ("prompt" if prompt_side else "completion"), tr, sid,
              {"logger.name": "com.proctorly.tutor.HintService", "tutor.prompt.version": pv})


# ---------------------------------------------------------------- PHP Laravel

def laravel(w, t, svc, op, tr, parent):
    rng = w.rng
    pod = w.pod(svc, t)
    f = w.fxof(t, svc, op, pod)
    sid = hexid(rng, 16)
    cur = t + int(2.0 * MS)
    status, err = 200, None
    method, _, route = op.partition(" ")
    if method == "JOB":
        # a Horizon job: consumer span with PDO children
        job = route
        n = 1 if "Sync" in job else 25
        for _ in range(n):
            d = int(lognormal(rng, 3.5, 0.3) * MS)
            w.span(tr, sid, "PDOStatement::execute", 3, cur, d, pod, {
                "db.system": "mysql", "db.name": "portal", "db.statement": "insert into `enrolments` "
                "(`student_id`, `course_id`, `created_at`) values (?, ?, ?)",
                "server.address": "proctorly-mysql.mysql.database.azure.com"})
            cur += d
        dur = cur - t
        if tr["keep"]:
            w.spans.append({"timestamp": ts(t), "trace_id": tr["id"], "span_id": sid, "parent_span_id": parent,
                            "name": "%s process" % job, "kind": 5, "duration_nano": dur, "has_error": False,
                            "status_code": 0, "status_message": "", "resource": pod.resource,
                            "attributes": {"messaging.system": "redis", "messaging.operation": "process",
                                           "messaging.destination.name": "default", "laravel.job.class": job,
                                           "horizon.supervisor": "supervisor-1"}})
        return
    cache_host = f.get("cache_host", "proctorly-cache.redis.cache.windows.net")
    uses_cache = route in ("/courses/{course}", "/dashboard")
    if uses_cache:
        d = int(lognormal(rng, 1.1, 0.3) * MS)
        refused = cache_host == "127.0.0.1"
        wrongpass = not refused and f.get("redis_auth") and rng.random() < f["redis_auth"]
        attrs = {"db.system": "redis", "db.operation": "GET", "server.address": cache_host,
                 "server.port": 6379 if refused else 6380}
        if refused or wrongpass:
            attrs["error.type"] = "RedisException"
            d = int(lognormal(rng, 0.3 if refused else 2.2, 0.2) * MS)
        w.span(tr, sid, "Redis::get", 3, cur, d, pod, attrs, err=bool(refused or wrongpass),
               msg="Connection refused" if refused else ("WRONGPASS invalid username-password pair or user is disabled."
                                                         if wrongpass else ""))
        cur += d
        if refused:
            status, err = 500, "redis"
        elif wrongpass:
            status, err = 500, "wrongpass"
    if not err:
        if f.get("db_auth") and rng.random() < f["db_auth"]:
            d = int(lognormal(rng, 18, 0.3) * MS)
            w.span(tr, sid, "PDO::__construct", 3, cur, d, pod, {
                "db.system": "mysql", "db.name": "portal", "db.user": "portal_app",
                "server.address": "proctorly-mysql.mysql.database.azure.com", "error.type": "PDOException"},
                err=True, msg="SQLSTATE[HY000] [1045] Access denied for user 'portal_app'@'%s' (using password: YES)" % pod.ip)
            cur += d
            status, err = 500, "auth"
        else:
            if w.spec.get("pdo_connect"):
                # opentelemetry-php's PDO instrumentation writes a span for every connection a
                # PHP-FPM request opens (the twins only; the scored corpus has none)
                d = int(lognormal(rng, 6.5, 0.3) * MS)
                w.span(tr, sid, "PDO::__construct", 3, cur, d, pod, {
                    "db.system": "mysql", "db.name": "portal", "db.user": "portal_app",
                    "server.address": "proctorly-mysql.mysql.database.azure.com"})
                cur += d
            nq = {"/courses/{course}": 2, "/dashboard": 3, "/enrolments": 2}[route]
            for i in range(nq):
                d = int(lognormal(rng, 2.8 * f.get("db_slow", 1.0), 0.35) * MS)
                w.span(tr, sid, "PDOStatement::execute", 3, cur, d, pod, {
                    "db.system": "mysql", "db.name": "portal",
                    "db.statement": "select * from `courses` where `courses`.`id` = ? limit 1" if i == 0 else
                    "select `modules`.* from `modules` where `modules`.`course_id` = ?",
                    "server.address": "proctorly-mysql.mysql.database.azure.com"})
                cur += d + int(0.2 * MS)
            if route == "/enrolments":
                d = int(lognormal(rng, 0.9, 0.3) * MS)
                w.span(tr, sid, "App\\Jobs\\SyncGradebook send", 4, cur, d, pod, {
                    "messaging.system": "redis", "messaging.operation": "publish",
                    "messaging.destination.name": "default", "laravel.job.class": "App\\Jobs\\SyncGradebook"})
                cur += d
                status = 201
    dur = cur - t + int(lognormal(rng, 6.0, 0.3) * MS)
    attrs = {"http.request.method": method, "http.route": route, "url.full": "https://learn.proctorly.in%s" %
             route.replace("{course}", "cs-%d" % rng.randrange(400)), "http.response.status_code": status,
             "code.function": {"/courses/{course}": "show", "/dashboard": "index", "/enrolments": "store"}[route],
             "code.namespace": {"/courses/{course}": "App\\Http\\Controllers\\CourseController",
                                "/dashboard": "App\\Http\\Controllers\\DashboardController",
                                "/enrolments": "App\\Http\\Controllers\\EnrolmentController"}[route]}
    if tr["keep"]:
        w.spans.append({"timestamp": ts(t), "trace_id": tr["id"], "span_id": sid, "parent_span_id": parent,
                        "name": "%s %s" % (method, route), "kind": 2, "duration_nano": dur,
                        "has_error": status >= 500, "status_code": 2 if status >= 500 else 0,
                        "status_message": "", "resource": pod.resource, "attributes": attrs})
    if err == "redis":
        w.log(t + dur, pod, "ERROR", "Connection refused {\"exception\":\"[object] (RedisException(code: 0): "
              "Connection refused at /var/www/html/vendor/laravel/framework/src/Illuminate/Redis/Connectors/"
              "PhpRedisConnector.php:196)\"}", tr, sid, {"channel": "production", "laravel.route": route})
    elif err == "wrongpass":
        w.log(t + dur, pod, "ERROR", "WRONGPASS invalid username-password pair or user is disabled. {\"exception\":\"[object] "
              "(RedisException(code: 0): WRONGPASS invalid username-password pair or user is disabled. at /var/www/html/"
              "vendor/laravel/framework/src/Illuminate/Redis/Connectors/PhpRedisConnector.php:159)\"}", tr, sid,
              {"channel": "production", "laravel.route": route})
    elif err == "auth":
        w.log(t + dur, pod, "ERROR", "SQLSTATE[HY000] [1045] Access denied for user 'portal_app'@'%s' (using "
              "password: YES) (Connection: mysql, SQL: select * from `courses` where `courses`.`id` = ? limit 1)"
              % pod.ip, tr, sid, {"channel": "production", "laravel.route": route})


HANDLERS = {"exam-session": exam_session, "question-bank": question_bank, "notify-worker": notify_worker,
            "grading-svc": grading_svc, "regrade-batch": regrade_batch, "proctor-events": proctor_events,
            "video-analyzer": video_analyzer, "tutor-ai": tutor_ai, "course-portal": laravel}


# ---------------------------------------------------------------- helpers for the specs

def newer(w, pod, version):
    return pod.version == version


def on_hour_surge(base, starts, mult):
    """traffic multiplied from each scheduled exam start (ns) on, for 20 minutes, with a 2-minute climb."""
    def rate(w, m0):
        r = base
        for s, k in zip(starts, mult):
            if s <= m0 < s + 20 * MIN:
                r = base * (1 + (k - 1) * min(1.0, (m0 - s) / (2 * MIN) + 0.5))
        return r
    return rate


def hourly(w, m0, starts, mult):
    for s, k in zip(starts, mult):
        if s <= m0 < s + 20 * MIN:
            return k
    return 1.0


# ---------------------------------------------------------------- the incidents

def specs():
    out = []

    # 1. question-bank: an Ecto N+1 on GET /api/papers/:id shipped in 20261204.3
    def fx1(w, t, svc, op, pod):
        if pod.version == "20261204.3":
            return {"n_plus_one": True, "queue_ms": 2.0 + 6.0 * ramp(t, at("09:41:00"), at("09:47:00")),
                    "drop": 0.10}
        return {}
    out.append(dict(
        id="pr12-ecto-n-plus-one-question-bank", service="question-bank", one_in=5,
        start="08:40:00", now="09:54:00", alert_at="09:50:00", alertname="QuestionBankLatencyP95", burn=9.4,
        title="question-bank 20261204.3 drops the options preload: one Ecto query per question on GET /api/papers/:id (N+1)",
        serving={"question-bank": [("20261203.6", None, 0), ("20261204.3", "09:40:12", 90)]},
        pods={"question-bank": 4},
        traffic=[("question-bank", "GET /api/papers/:id", 70), ("question-bank", "GET /api/questions/:id", 110),
                 ("question-bank", "PUT /api/questions/:id", 8)],
        fx=fx1, expect=("bad_release", "allow"), onset="09:40",
        tags=["phoenix", "ecto", "n-plus-one", "one-operation"],
        story="20261204.3 replaced `Repo.preload(questions, :options)` with a per-question `Repo.all(assoc(q, :options))` "
              "inside the paper view: 30 to 60 `proctorly.repo.query:question_options` spans per paper instead of one; "
              "the pool's queue time climbs and one paper request in ten is dropped from the queue after 2 s (500). "
              "20261203.6 served the same route with one query. Rolling back restores the preload."))

    # 2. course-portal: config:cache at build time bakes REDIS_HOST=127.0.0.1 into 20261204.7
    def fx2(w, t, svc, op, pod):
        if pod.version == "20261204.7":
            return {"cache_host": "127.0.0.1"}
        return {}
    out.append(dict(
        id="pr12-config-cache-redis-course-portal", service="course-portal", one_in=6,
        start="10:10:00", now="11:19:00", alert_at="11:15:00", alertname="CoursePortal5xxRatio", burn=22.0,
        title="course-portal 20261204.7 runs `php artisan config:cache` in the image build: the cached config points Redis at 127.0.0.1",
        serving={"course-portal": [("20261203.12", None, 0), ("20261204.7", "11:05:40", 150)]},
        pods={"course-portal": 5},
        traffic=[("course-portal", "GET /courses/{course}", 160), ("course-portal", "GET /dashboard", 90),
                 ("course-portal", "POST /enrolments", 25), ("course-portal", "JOB App\\Jobs\\SyncGradebook", 25)],
        fx=fx2, expect=("config_regression", "allow"), onset="11:05",
        tags=["laravel", "config-in-release", "config-cache", "rolling-update"],
        story="The pipeline moved `php artisan config:cache` from the container's entrypoint into the Dockerfile; "
              "at build time REDIS_HOST was unset, so the cached config says 127.0.0.1. Every 20261204.7 pod refuses "
              "its cache reads (`Redis::get` to 127.0.0.1:6379, Connection refused) and answers 500 on the two cached "
              "routes; enrolments (no cache) still succeed; pods still on 20261203.12 reach the Azure Cache. "
              "Rolling back restores the runtime config."))

    # 3. tutor-ai: prompt hint-v7 trips Azure OpenAI's content filter
    def fx3(w, t, svc, op, pod):
        if pod.version == "20261204.4":
            return {"prompt": "hint-v7", "filter": 0.34}
        return {"prompt": "hint-v6", "filter": 0.012}
    out.append(dict(
        id="pr12-prompt-hint-v7-filter-tutor-ai", service="tutor-ai", one_in=3,
        start="12:00:00", now="13:12:00", alert_at="13:08:00", alertname="TutorFallbackHintRatio", burn=6.2,
        title="tutor-ai 20261204.4 ships hint prompt v7 (\"give the full worked solution\"): Azure OpenAI's content filter trips on a third of hints, HTTP 200 with a fallback",
        serving={"tutor-ai": [("20261202.9", None, 0), ("20261204.4", "12:55:20", 60)]},
        pods={"tutor-ai": 3},
        traffic=[("tutor-ai", "http post /api/tutor/hints", 48), ("tutor-ai", "http post /api/tutor/explain", 22)],
        fx=fx3, expect=("prompt_regression", "allow"), onset="12:55",
        tags=["spring-boot", "micrometer", "azure-openai", "gen-ai", "content-filter", "http-200"],
        story="Hint prompt v7 asks the model to quote the full worked solution of past papers: Azure OpenAI's filters "
              "block the prompt (jailbreak, HTTP 400 on the client span) or the completion (protected material, "
              "finish_reason content_filter) on 34% of calls (1% before); tutor-ai answers 200 with a canned fallback "
              "(`tutor.hint.result` filtered_fallback), input tokens 820 to 1460, output 310 to 180. Rolling back "
              "restores hint-v6."))

    # 4. exam-session: a GenServer.call timeout introduced in 20261204.9
    def fx4(w, t, svc, op, pod):
        if pod.version == "20261204.9":
            return {"genserver": 0.05 + 0.30 * ramp(t, at("14:23:00"), at("14:27:00"))}
        return {}
    out.append(dict(
        id="pr12-genserver-clock-timeout-exam-session", service="exam-session", one_in=6,
        start="13:20:00", now="14:34:00", alert_at="14:30:00", alertname="ExamSession5xx", burn=14.8,
        title="exam-session 20261204.9 serialises every heartbeat through one Clock GenServer that calls Redis in handle_call: GenServer.call time out after 5 s",
        serving={"exam-session": [("20261204.2", None, 0), ("20261204.9", "14:21:30", 100)]},
        pods={"exam-session": 6},
        traffic=[("exam-session", "GET /api/sessions/:id", 140), ("exam-session", "POST /api/sessions/:id/heartbeat", 220),
                 ("exam-session", "POST /api/sessions/:id/answers", 60)],
        fx=fx4, expect=("bad_release", "allow"), onset="14:22",
        tags=["phoenix", "genserver", "timeout", "elixir"],
        story="20261204.9 moved the remaining-time bookkeeping into one named `Proctorly.Sessions.Clock` GenServer per "
              "node whose handle_call does a Redis round trip; its mailbox grows with the heartbeats and "
              "`GenServer.call/3` exits after 5000 ms: heartbeats 500 after 5 s (5% at once, 35% four minutes later), "
              "session reads time out a tenth as often. 20261204.2 kept the clock in ETS. Rolling back removes the "
              "bottleneck."))

    # 5. grading-svc: one route of three fails after 20261204.12
    def fx5(w, t, svc, op, pod):
        if pod.version == "20261204.12" and op == "http get /api/exams/{id}/rubric":
            return {"rubric_bug": True}
        return {}
    out.append(dict(
        id="pr12-rubric-lazy-init-grading-svc", service="grading-svc", one_in=4,
        start="15:00:00", now="16:18:00", alert_at="16:14:00", alertname="GradingSvcErrorBudget", burn=4.1,
        title="grading-svc 20261204.12 returns the Rubric entity directly: Jackson hits a lazy collection, every GET /api/exams/{id}/rubric fails (one route of three)",
        serving={"grading-svc": [("20261203.4", None, 0), ("20261204.12", "16:04:50", 120)]},
        pods={"grading-svc": 4},
        traffic=[("grading-svc", "http get /api/exams/{id}", 150), ("grading-svc", "http post /api/grades/{examId}", 90),
                 ("grading-svc", "http get /api/exams/{id}/rubric", 14)],
        fx=fx5, expect=("bad_release", "allow"), onset="16:05",
        tags=["spring-boot", "micrometer", "one-operation", "jackson"],
        story="20261204.12 removed the RubricDto mapping and returns the JPA-backed Rubric: serialising it touches "
              "`criteria` outside the session (HttpMessageNotWritableException). Every rubric request fails (14 a minute "
              "of ~250, 1 in 4 sampled: 3 to 4 failing traces a minute); the other two routes are untouched. Micrometer "
              "spans carry `status: \"500\"` and `outcome: SERVER_ERROR`, no http.response.status_code."))

    # 6. exam-session: Finch receive_timeout 400 ms with five retries against grading-svc
    def fx6(w, t, svc, op, pod):
        if svc == "exam-session" and pod.version == "20261204.11":
            return {"retry": {"timeout_ms": 400, "max": 5}}
        return {}

    def load6(w, t):
        share = sum(1 for p in w.pods["exam-session"] if p.alive(t) and p.version == "20261204.11") / 4.0
        return 1.0 + 1.4 * min(1.0, share)
    out.append(dict(
        id="pr12-finch-retry-timeout-exam-session", service="exam-session", one_in=5,
        start="16:30:00", now="17:42:00", alert_at="17:38:00", alertname="ExamSessionAnswerSaveErrors", burn=11.5,
        title="exam-session 20261204.11 sets Finch receive_timeout 400 ms and Req retry: 5 on the grade upsert: every attempt past 400 ms is retried, grading-svc slows under the attempts",
        serving={"exam-session": [("20261204.2", None, 0), ("20261204.11", "17:27:40", 90)],
                 "grading-svc": [("20261203.4", None, 0)]},
        pods={"exam-session": 4, "grading-svc": 4},
        traffic=[("exam-session", "GET /api/sessions/:id", 90), ("exam-session", "POST /api/sessions/:id/answers", 120),
                 ("exam-session", "POST /api/sessions/:id/heartbeat", 60),
                 ("grading-svc", "http get /api/exams/{id}", 80)],
        fx=fx6, grading_load=load6, expect=("retry_storm", "allow"), onset="17:28",
        tags=["phoenix", "finch", "retry", "resend-count", "spring-boot"],
        story="20261204.11 passes `receive_timeout: 400, retry: :transient, max_retries: 5` to Req for the grade upsert "
              "(1500 ms, no retry before). grading-svc's upserts take 210 ms at the median and 600 ms at p90: every "
              "slow one is abandoned and sent again (one Finch client span per attempt, "
              "`http.request.resend_count` 1..5), the callee's load more than doubles and it slows further; answers "
              "that exhaust the retries return 504. Rolling back restores one attempt at 1500 ms."))

    # 7. trap: Cosmos DB RU exhaustion by another team's regrade job after a grading-svc release
    def fx7(w, t, svc, op, pod):
        p = 0.32 * ramp(t, at("13:07:40"), at("13:09:30"))
        return {"cosmos_429": p} if svc == "grading-svc" else {}
    out.append(dict(
        id="pr12-trap-cosmos-ru-regrade-grading-svc", service="grading-svc", one_in=4,
        start="12:00:00", now="13:16:00", alert_at="13:12:00", alertname="GradingSvc5xx", burn=18.3,
        title="Cosmos DB 429s (RU exhaustion, sub-status 3200) four minutes after grading-svc 20261204.14: the cohort regrade job of another team eats the container's RUs",
        serving={"grading-svc": [("20261203.4", None, 0), ("20261204.14", "13:02:10", 120)],
                 "regrade-batch": [("20261201.2", None, 0)]},
        pods={"grading-svc": 4, "regrade-batch": 2},
        sandbox=["grading-svc"],
        traffic=[("grading-svc", "http get /api/exams/{id}", 160), ("grading-svc", "http post /api/grades/{examId}", 90),
                 ("grading-svc", "http get /api/exams/{id}/rubric", 14),
                 ("regrade-batch", "job", lambda w, m0: 90 if m0 >= at("13:07:00") else 0)],
        fx=fx7, expect=("dependency_outage", "deny"), onset="13:08",
        tags=["trap", "spring-boot", "cosmosdb", "ru-exhaustion", "429"],
        story="grading-svc 20261204.14 (a logback encoder change) finished rolling out at 13:04:10 and served cleanly. "
              "At 13:07 the data team's cohortRegradeJob (regrade-batch, its own release from three days ago) starts "
              "upserting 720 grades a minute at ~410 RU each into the shared `grades`/`exams` account: the "
              "provisioned 40k RU/s are gone, Cosmos answers 429/3200, the SDK retries 9 times and gives up: 32% of "
              "grading-svc's requests fail, the rest slow with retries. Rolling back grading-svc changes nothing."))

    # 8. trap: Service Bus namespace throttled by the video analyser, two minutes after proctor-events
    def fx8(w, t, svc, op, pod):
        p = 0.42 * ramp(t, at("11:34:20"), at("11:35:30"))
        if svc in ("proctor-events", "video-analyzer"):
            return {"sb_busy": p, "sb_slow": 1 + 3 * p}
        return {}
    out.append(dict(
        id="pr12-trap-servicebus-throttle-proctor-events", service="proctor-events", one_in=5,
        start="10:20:00", now="11:42:00", alert_at="11:38:00", alertname="ProctorEvents5xx", burn=25.0,
        title="the Standard Service Bus namespace is throttled (50009) after video-analyzer's frame fan-out doubles: proctor-events 20261204.6 rolled out two minutes before",
        serving={"proctor-events": [("20261203.3", None, 0), ("20261204.6", "11:31:05", 75)],
                 "video-analyzer": [("20261130.8", None, 0)]},
        pods={"proctor-events": 4, "video-analyzer": 3},
        sandbox=["proctor-events"],
        traffic=[("proctor-events", "http post /api/proctor/events", 260), ("proctor-events", "http post /api/proctor/snapshots", 40),
                 ("video-analyzer", "frames", lambda w, m0: 30 if m0 < at("11:33:00") else 75)],
        fx=fx8, expect=("dependency_outage", "deny"), onset="11:34",
        tags=["trap", "spring-boot", "servicebus", "throttling", "50009"],
        story="proctor-events 20261204.6 (a Micrometer upgrade) rolled out at 11:31:05 and served cleanly for three "
              "minutes. At 11:33 video-analyzer (another team's service, released four days ago) begins fanning out "
              "every frame of a 9,000-candidate exam to the same Standard-tier namespace; from 11:34:20 Service Bus "
              "throttles every sender on it (ServerBusy, error code 50009): 42% of proctoring events fail 503 and "
              "video-analyzer's own sends fail alike. Rolling back proctor-events would not unthrottle the namespace."))

    # 9. trap: zone centralindia-2 loses its path to Redis and Postgres, four minutes after exam-session's release
    def fx9(w, t, svc, op, pod):
        if pod.zone == "centralindia-2":
            return {"zone_down": 0.7 * ramp(t, at("15:17:10"), at("15:18:00"))}
        return {}
    out.append(dict(
        id="pr12-trap-zone2-network-exam-session", service="exam-session", one_in=6,
        start="14:05:00", now="15:25:00", alert_at="15:21:00", alertname="ExamSession5xx", burn=16.0,
        title="an Azure zonal networking incident in centralindia-2 cuts that zone's pods off Redis and Postgres: exam-session 20261204.16 rolled out four minutes before, in every zone",
        serving={"exam-session": [("20261204.9", None, 0), ("20261204.16", "15:10:10", 150)]},
        pods={"exam-session": 6},
        traffic=[("exam-session", "GET /api/sessions/:id", 150), ("exam-session", "POST /api/sessions/:id/heartbeat", 180),
                 ("exam-session", "POST /api/sessions/:id/answers", 40)],
        fx=fx9, expect=("dependency_outage", "deny"), onset="15:17",
        tags=["trap", "phoenix", "availability-zone", "azure-incident"],
        story="exam-session 20261204.16 rolled out over 2.5 minutes from 15:10:10 into all three zones (two pods each) "
              "and served cleanly. At 15:17:10 Azure's zonal networking incident in centralindia-2 drops that zone's "
              "traffic to the Azure Cache and the flexible Postgres server: the two pods there time out on Redix after "
              "5 s (70% of their requests), the four pods in zones 1 and 3, on the same version, stay clean. Rolling "
              "back would schedule new pods into the same zone."))

    # 10. trap: a scheduled exam starts at 16:00; exam-session released at 15:54
    starts10 = [at("15:00:00"), at("16:00:00")]

    def surge(base, k1, k2):
        return on_hour_surge(base, starts10, [k1, k2])

    def fx10(w, t, svc, op, pod):
        k = hourly(w, t - (t % MIN), starts10, [2.0, 6.5])
        if k > 3:
            return {"queue_ms": 40.0, "slow": 2.5, "pool_err": 0.09}
        if k > 1:
            return {"queue_ms": 2.0, "slow": 1.2}
        return {}
    out.append(dict(
        id="pr12-trap-exam-start-surge-exam-session", service="exam-session", one_in=8,
        start="14:45:00", now="16:09:00", alert_at="16:05:00", alertname="ExamSessionLatencyP95", burn=12.7,
        title="the 16:00 semester final (5,200 candidates) starts: exam-session traffic x6.5 on the hour, the Ecto pool queues and drops; 20261204.18 rolled out at 15:54",
        serving={"exam-session": [("20261204.16", None, 0), ("20261204.18", "15:54:20", 120)]},
        pods={"exam-session": 6},
        traffic=[("exam-session", "GET /api/sessions/:id", surge(110, 2.0, 6.5)),
                 ("exam-session", "POST /api/sessions/:id/heartbeat", surge(140, 2.0, 6.5)),
                 ("exam-session", "POST /api/sessions/:id/start", surge(2, 25.0, 90.0)),
                 ("exam-session", "POST /api/sessions/:id/answers", surge(40, 1.5, 4.0))],
        fx=fx10, expect=("traffic_surge", "deny"), onset="16:00",
        tags=["trap", "phoenix", "ecto", "exam-start", "on-the-hour"],
        story="Exams start on the hour. The 15:00 quiz (1,100 candidates) doubled the traffic for twenty minutes "
              "without errors; the 16:00 Data Structures final multiplies it by 6.5 within two minutes: session "
              "starts, reads and heartbeats queue on the 10-connection Ecto pools (queue time 40 ms), 9% are dropped "
              "after 2 s (DBConnection.ConnectionError). 20261204.18 (a copy change on the lobby page) rolled out at "
              "15:54:20 and served the quiet minutes cleanly. A rollback is a restart under the same load."))

    # 11. trap: Oban mailers backlog from a bulk roster import, four minutes after notify-worker's release
    def fx11(w, t, svc, op, pod):
        b = ramp(t, at("09:20:30"), at("09:24:00"))
        return {"queue_wait_s": lognormal(w.rng, 0.8 + 400 * b, 0.3), "sendgrid_429": 0.28 * b,
                "sendgrid_ms": 140 * (1 + 2 * b), "bulk_jobs": 4000}
    out.append(dict(
        id="pr12-trap-oban-roster-import-notify-worker", service="notify-worker", one_in=5,
        start="08:05:00", now="09:31:00", alert_at="09:27:00", alertname="NotifyWorkerJobFailures", burn=8.8,
        title="a 180,000-student roster import enqueues exam reminders in bulk: Oban's mailers queue backs up and SendGrid rate-limits (429); notify-worker 20261204.5 rolled out at 09:16",
        serving={"notify-worker": [("20261202.1", None, 0), ("20261204.5", "09:16:00", 60)]},
        pods={"notify-worker": 3},
        traffic=[("notify-worker", "Proctorly.Workers.ExamReminder",
                  lambda w, m0: 120 if m0 < at("09:20:00") else 120 + 480 * ramp(m0, at("09:20:00"), at("09:23:00"))),
                 ("notify-worker", "Proctorly.Workers.ResultEmail", 40),
                 ("notify-worker", "POST /api/notifications/bulk",
                  lambda w, m0: 0.4 if m0 < at("09:20:00") else (45 if m0 < at("09:26:00") else 10))],
        fx=fx11, expect=("traffic_surge", "deny"), onset="09:21",
        tags=["trap", "phoenix", "oban", "bulk-import", "sendgrid-429"],
        story="notify-worker 20261204.5 (an Oban Web upgrade) rolled out at 09:16 and ran cleanly. At 09:20 the "
              "registrar's roster import posts 45 bulk requests a minute of 4,000 reminders each "
              "(`POST /api/notifications/bulk`, Oban.insert_all): jobs wait minutes in the mailers queue "
              "(`oban.job.queue_time_ms`), the job rate quintuples and SendGrid answers 429 to 28% of sends (jobs "
              "fail and retry with backoff). Rolling back would not shrink the queue."))

    # 12. trap: Key Vault rotates the MySQL password; course-portal released four minutes before
    def fx12(w, t, svc, op, pod):
        return {"db_auth": 0.85 * ramp(t, at("10:42:10"), at("10:43:00"))}

    def kv_logs(w, m0):
        if m0 == at("10:42:00"):
            p = w.pods["course-portal"][0]
            res = dict(p.resource)
            w.logs.append({"timestamp": ts(at("10:42:08.412")), "observed_timestamp": ts(at("10:42:08.500")),
                           "severity_text": "INFO", "severity_number": 9,
                           "body": "SecretNearExpiry handled: rotated secret 'mysql-portal-app-password' in key vault "
                                   "kv-proctorly-cin to version 7e1c0a9f4b2d4f0c9a1b3c5d7e9f1a2b and set it on "
                                   "proctorly-mysql (user portal_app)",
                           "trace_id": "", "span_id": "", "trace_flags": 0,
                           "resource": {"service.name": "kv-rotator", "service.namespace": "proctorly",
                                        "cloud.provider": "azure", "cloud.platform": "azure_functions",
                                        "cloud.region": "centralindia", "faas.name": "RotateMySqlPassword"},
                           "attributes": {"event_grid.event_type": "Microsoft.KeyVault.SecretNearExpiry"}})
    out.append(dict(
        id="pr12-trap-keyvault-rotation-course-portal", service="course-portal", one_in=6,
        start="09:30:00", now="10:50:00", alert_at="10:46:00", alertname="CoursePortal5xxRatio", burn=40.0,
        title="Key Vault's near-expiry rotation sets a new MySQL password at 10:42:08: every course-portal pod still holds the old one (1045 Access denied); 20261204.10 rolled out at 10:38",
        serving={"course-portal": [("20261203.12", None, 0), ("20261204.10", "10:38:00", 100)]},
        pods={"course-portal": 5},
        sandbox=["course-portal"],
        traffic=[("course-portal", "GET /courses/{course}", 150), ("course-portal", "GET /dashboard", 80),
                 ("course-portal", "POST /enrolments", 25)],
        fx=fx12, minute_hooks=[kv_logs], expect=("config_regression", "deny"), onset="10:42",
        tags=["trap", "laravel", "key-vault", "secret-rotation", "pdo"],
        story="course-portal 20261204.10 (a Blade template fix) rolled out from 10:38:00 and served cleanly. At "
              "10:42:08 the kv-rotator function handles Key Vault's SecretNearExpiry event: it rotates "
              "mysql-portal-app-password and sets it on the MySQL server at once. Every pod, old or new, reads "
              "DB_PASSWORD from its environment at start: 85% of requests (new PHP-FPM connections) fail with "
              "SQLSTATE[HY000] [1045]. The release did not change the secret; a restart on any version fixes it, "
              "which is why a rollback would look like a fix."))
    return out


# ---------------------------------------------------------------- the twins (written after the score)

def twin_specs():
    """Harsher twins of the two traps main rolled back (README.md, "Twins")."""
    out = []

    def fx_t1(w, t, svc, op, pod):
        p = 0.22 * ramp(t, at("13:04:00"), at("13:04:40"))
        return {"cosmos_429": p} if svc == "grading-svc" else {}
    out.append(dict(
        id="pr12-twin-cosmos-ru-fast-grading-svc", service="grading-svc", one_in=8,
        start="12:05:00", now="13:12:00", alert_at="13:08:00", alertname="GradingSvc5xx", burn=9.0,
        title="twin: the regrade job's RU burn throttles Cosmos DB 50 s after grading-svc 20261204.14 finished rolling out, 1 in 8 sampled, 22% failing",
        serving={"grading-svc": [("20261203.4", None, 0), ("20261204.14", "13:02:10", 80)],
                 "regrade-batch": [("20261201.2", None, 0)]},
        pods={"grading-svc": 4, "regrade-batch": 2}, sandbox=["grading-svc"],
        traffic=[("grading-svc", "http get /api/exams/{id}", 160), ("grading-svc", "http post /api/grades/{examId}", 90),
                 ("grading-svc", "http get /api/exams/{id}/rubric", 14),
                 ("regrade-batch", "job", lambda w, m0: 90 if m0 >= at("13:03:00") else 0)],
        fx=fx_t1, expect=("dependency_outage", "deny"), onset="13:04",
        tags=["trap", "twin", "spring-boot", "cosmosdb", "ru-exhaustion", "429"],
        story="As pr12-trap-cosmos-ru-regrade-grading-svc, harsher: the last 20261204.14 pod was up at 13:03:10, the "
              "regrade job's writes begin at 13:03 and Cosmos throttles from 13:04:00 (50 s after the rollout), 1 in 8 "
              "sampled, 22% of requests failing after the SDK's 9 throttle retries."))

    def fx_t2(w, t, svc, op, pod):
        p = 0.30 * ramp(t, at("13:05:00"), at("13:05:30"))
        return {"cosmos_429": p, "no_sdk_retry": True} if svc == "grading-svc" else {}
    out.append(dict(
        id="pr12-twin-cosmos-no-sdk-retry-grading-svc", service="grading-svc", one_in=6,
        start="12:10:00", now="13:13:00", alert_at="13:09:00", alertname="GradingSvc5xx", burn=13.0,
        title="twin: Cosmos DB 429s answered at once (the SDK's throttle retries are off: maxRetryAttemptsOnThrottledRequests=0 since months) two minutes after grading-svc 20261204.14",
        serving={"grading-svc": [("20261203.4", None, 0), ("20261204.14", "13:02:10", 80)],
                 "regrade-batch": [("20261201.2", None, 0)]},
        pods={"grading-svc": 4, "regrade-batch": 2}, sandbox=["grading-svc"],
        traffic=[("grading-svc", "http get /api/exams/{id}", 160), ("grading-svc", "http post /api/grades/{examId}", 90),
                 ("grading-svc", "http get /api/exams/{id}/rubric", 14),
                 ("regrade-batch", "job", lambda w, m0: 90 if m0 >= at("13:04:00") else 0)],
        fx=fx_t2, expect=("dependency_outage", "deny"), onset="13:05",
        tags=["trap", "twin", "spring-boot", "cosmosdb", "ru-exhaustion", "429", "no-retry"],
        story="The same RU exhaustion with the Cosmos client's throttle retries switched off long ago: each throttled "
              "call fails at once with 429/3200 and no retry count, at the usual call rate (a failing dependency, not a "
              "retried one); 30% of requests fail from 13:05."))

    def fx_t3(w, t, svc, op, pod):
        return {"redis_auth": 0.9 * ramp(t, at("10:41:20"), at("10:41:50"))}
    out.append(dict(
        id="pr12-twin-redis-key-rotation-course-portal", service="course-portal", one_in=10,
        start="09:35:00", now="10:49:00", alert_at="10:45:00", alertname="CoursePortal5xxRatio", burn=30.0,
        title="twin: Key Vault rotates the Azure Cache for Redis access key two minutes after course-portal 20261204.10 finished rolling out: WRONGPASS on the cached routes, 1 in 10 sampled",
        serving={"course-portal": [("20261203.12", None, 0), ("20261204.10", "10:38:00", 100)]},
        pods={"course-portal": 5}, sandbox=["course-portal"], pdo_connect=True,
        traffic=[("course-portal", "GET /courses/{course}", 150), ("course-portal", "GET /dashboard", 80),
                 ("course-portal", "POST /enrolments", 25)],
        fx=fx_t3, expect=("config_regression", "deny"), onset="10:41",
        tags=["trap", "twin", "laravel", "key-vault", "secret-rotation", "redis", "wrongpass"],
        story="The rotation function regenerates the cache's primary access key at 10:41:20; every PHP-FPM worker "
              "connects per request with the key it read at start: 90% of cache reads answer WRONGPASS and the two "
              "cached routes 500. The release (10:38:00 to 10:39:20) did not touch the key."))

    def fx_t4(w, t, svc, op, pod):
        return {"db_auth": 0.6 * ramp(t, at("10:41:05"), at("10:41:30"))}
    out.append(dict(
        id="pr12-twin-mysql-rotation-sparse-course-portal", service="course-portal", one_in=12,
        start="09:40:00", now="10:49:00", alert_at="10:45:00", alertname="CoursePortal5xxRatio", burn=21.0,
        title="twin: the MySQL password rotated 105 s after course-portal 20261204.10 finished rolling out, 1 in 12 sampled, 60% of new connections refused (1045)",
        serving={"course-portal": [("20261203.12", None, 0), ("20261204.10", "10:38:00", 100)]},
        pods={"course-portal": 5}, sandbox=["course-portal"], pdo_connect=True,
        traffic=[("course-portal", "GET /courses/{course}", 150), ("course-portal", "GET /dashboard", 80),
                 ("course-portal", "POST /enrolments", 25)],
        fx=fx_t4, expect=("config_regression", "deny"), onset="10:41",
        tags=["trap", "twin", "laravel", "key-vault", "secret-rotation", "pdo", "sparse"],
        story="As pr12-trap-keyvault-rotation-course-portal, harsher: the rotation lands 105 s after the last new pod, "
              "1 in 12 sampled, and only 60% of requests fail (workers with a persistent connection from before keep "
              "working)."))
    return out


# ---------------------------------------------------------------- files

def write_jsonl(folder, name, rows):
    data = "".join(json.dumps(r, separators=(",", ":"), sort_keys=False) + "\n" for r in rows).encode()
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


def write_text(folder, name, text):
    with open(os.path.join(folder, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def q(s):
    return json.dumps(s, ensure_ascii=False)


def alert(spec):
    svc = spec["service"]
    labels = {"alertname": spec["alertname"], "service.name": svc, "severity": "critical",
              "deployment.environment.name": "production", "k8s.cluster.name": "aks-proctorly-prod-cin",
              "team": {"exam-session": "exams", "question-bank": "exams", "grading-svc": "exams",
                       "course-portal": "portal", "tutor-ai": "learning", "proctor-events": "proctoring",
                       "notify-worker": "comms"}[svc]}
    ann = {"summary": "%s: %s" % (svc, spec["alertname"]), "slo_burn_rate": "%.1f" % spec["burn"],
           "description": "%s burns its 30-day SLO budget %.1fx over the last hour" % (svc, spec["burn"]),
           "runbook_url": "https://dev.azure.com/proctorly/platform/_wiki/wikis/runbooks/%s" % svc}
    body = {"receiver": "proctorly-teams-oncall", "status": "firing",
            "alerts": [{"status": "firing", "labels": labels, "annotations": ann,
                        "startsAt": ts(at(spec["alert_at"])), "endsAt": "0001-01-01T00:00:00Z",
                        "generatorURL": "https://signoz.proctorly.in/alerts/edit?ruleId=%d" % (4100 + len(spec["id"])),
                        "fingerprint": hexid(random.Random("fp/" + spec["id"]), 16)}],
            "groupLabels": {"alertname": spec["alertname"]}, "commonLabels": labels, "commonAnnotations": ann,
            "externalURL": "https://signoz.proctorly.in", "version": "4",
            "groupKey": "{}/{severity=\"critical\"}:{alertname=\"%s\"}" % spec["alertname"], "truncatedAlerts": 0}
    return json.dumps(body, indent=2) + "\n"


def write_incident(root, spec, corpus_tag):
    w = World(spec)
    w.run()
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    root_cause, verdict = spec["expect"]
    lines = ["id: %s" % spec["id"], "title: %s" % q(spec["title"]), "service: %s" % spec["service"],
             "now: %s" % ts(at(spec["now"])), "expect:", "  root_cause: %s" % root_cause, "  verdict: %s" % verdict]
    lines.append("tags: [%s]" % ", ".join([corpus_tag, "proctorly", "azure", "aks", "azure-devops"] + spec["tags"] +
                                          ["parent-ratio-1-in-%d" % spec["one_in"]]))
    if spec.get("sandbox"):
        lines.append("sandbox_services: [%s]" % ", ".join(spec["sandbox"]))
    write_text(folder, "incident.yaml", "\n".join(lines) + "\n")
    write_text(folder, "alert.json", alert(spec))
    rel = ["project: proctorly", "services:"]
    for svc, versions in spec["serving"].items():
        rel.append("  %s:" % svc)
        for v, begin, _ in versions:
            when = ts(at(begin)) if begin else ts(w.start - (26 + len(v) % 5) * 3600 * S - 17 * MIN)
            rel += ["    - version: \"%s\"" % v, "      image: %s/%s:%s" % (ACR, svc, v), "      deployed_at: %s" % when]
    write_text(folder, "releases.yaml", "\n".join(rel) + "\n")
    exp = {"root_cause": root_cause, "verdict": verdict,
           "sampling": "parent-based TraceIdRatioBased at the entry service, 1 in %d (children follow the parent; "
                       "logs unsampled)" % spec["one_in"],
           "history_minutes": (w.now - w.start) // MIN, "onset": spec["onset"], "story": spec["story"]}
    write_text(folder, "expect.json", json.dumps(exp, indent=2) + "\n")
    ns = write_jsonl(folder, "spans.jsonl", w.spans)
    nl = write_jsonl(folder, "logs.jsonl", w.logs)
    print("%-50s spans %6d (%5.1f MB) logs %5d (%4.1f MB)" % (spec["id"], len(w.spans), ns / 1e6, len(w.logs), nl / 1e6))


def main(argv):
    if len(argv) > 1 and argv[1] == "--twins":
        root = argv[2] if len(argv) > 2 else os.path.join(HERE, "..", "incidents-heldout12-twins")
        for spec in twin_specs():
            write_incident(root, spec, "heldout12")
        return
    only = set(argv[1:])
    for spec in specs():
        if only and spec["id"] not in only:
            continue
        write_incident(HERE, spec, "heldout12")


if __name__ == "__main__":
    main(sys.argv)
