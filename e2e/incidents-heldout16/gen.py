#!/usr/bin/env python3
"""Generates e2e/incidents-heldout16: a regional hospital's logistics system (Riverside Valley Health).

Run from this folder: `python3 gen.py` (writes every incident here). Seeded (SEED below): byte for
byte the same on every run, whatever PYTHONHASHSEED (every draw comes from a random.Random seeded
with a string). Files over 3 MB are written gzip'd with no name and mtime 0.

Style (README.md): Linux VMs (RHEL 9) under systemd, one service process per VM (host.name), deployed
by Ansible (AWX job templates) in a rolling `serial: 2` fashion: two hosts at a time, each batch
restarted and health-checked before the next, so a release is served by some hosts while the others
still serve the previous version. Versions are semver with build metadata (4.12.0+build.871). Java 21
Spring Boot services under the OpenTelemetry Java agent 2.10 (controller, Hibernate and Spring Kafka
INTERNAL spans, JDBC client spans named "SELECT PHARM.DISPENSE_ORDERS" with db.system oracle or
postgresql and db.statement, HTTP client spans named by the method alone, Kafka producer spans and
consumer "process" spans that start a NEW trace and LINK to the producer's span); parent-based head
sampling 1 in 20 at the roots of the Java services. .NET 8 services (ASP.NET Core's http.route is the
route template without its leading slash, HttpClient spans named by the method, Polly v8 retries seen
as repeated client spans carrying http.request.resend_count, Npgsql spans named by the database),
always-on sampling. Peers: an HL7/FHIR interface engine, Keycloak in front of the hospital's Active
Directory over LDAPS, an OSRM routing engine, Kafka, Oracle and PostgreSQL, a hospital-hosted LLM
gateway (OpenAI-compatible, vLLM behind a router) for the discharge-summary drafter's gen_ai spans.
Timestamps with microseconds and the hospital's local offset (-05:00, EST). Span metrics come from
the collector's spanmetrics connector in production; the format carries no metrics, so none here.
"""
import gzip
import hashlib
import io
import json
import math
import os
import random
import sys
import uuid
from datetime import datetime, timedelta, timezone

SEED = 160817
HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000
MS = 1000 * US
S = 1000 * MS
MIN = 60 * S
EST = timezone(timedelta(hours=-5))
DAY = "2026-12-08T"
NEXUS = "nexus.rvh.local:8443/repository/rvh-releases"


def ts(ns):
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, EST).strftime("%Y-%m-%dT%H:%M:%S") + ".%06d-05:00" % (frac // US)


def at(s):
    if "T" not in s:
        s = DAY + s
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=EST)
    return int(d.timestamp()) * S + int((frac + "000000")[:6]) * US


def hexid(rng, n):
    return "%0*x" % (n, rng.getrandbits(4 * n))


def lognormal(rng, median, sigma=0.3):
    return median * math.exp(rng.gauss(0, sigma))


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


# ---------------------------------------------------------------- services

JAVA = {"telemetry.sdk.language": "java", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.44.1",
        "telemetry.distro.name": "opentelemetry-java-instrumentation", "telemetry.distro.version": "2.10.0",
        "process.runtime.name": "OpenJDK Runtime Environment", "process.runtime.version": "21.0.5+11-LTS",
        "process.runtime.description": "Red Hat, Inc. OpenJDK 64-Bit Server VM 21.0.5+11-LTS"}
DOTNET = {"telemetry.sdk.language": "dotnet", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.10.0",
          "process.runtime.name": ".NET", "process.runtime.version": "8.0.11",
          "process.runtime.description": ".NET 8.0.11"}
SERVICES = {  # service -> runtime, hosts, head-sampling ratio at the root, namespace
    "pharmacy-dispense": ("java", ["rvh-pharm-app-%02d" % i for i in range(1, 7)], 0.05, "pharmacy"),
    "bed-manager": ("java", ["rvh-bed-app-%02d" % i for i in range(1, 7)], 0.05, "patient-flow"),
    "lab-results": ("java", ["rvh-lab-app-%02d" % i for i in range(1, 5)], 0.05, "laboratory"),
    "courier-router": ("dotnet", ["rvh-cour-app-%02d" % i for i in range(1, 5)], 1.0, "laboratory"),
    "discharge-drafter": ("dotnet", ["rvh-dsd-app-%02d" % i for i in range(1, 3)], 1.0, "patient-flow"),
}
DEFAULT_VER = {"pharmacy-dispense": "4.12.3+build.888", "bed-manager": "7.4.2+build.2281",
               "lab-results": "5.1.9+build.322", "courier-router": "3.4.1+build.519", "discharge-drafter": "2.8.3+build.79"}
ORA = "rvh-ora-scan.rvh.local"
PG = {"bed-manager": "pg-bed.rvh.local", "lab-results": "pg-lab.rvh.local", "courier-router": "pg-courier.rvh.local"}
FHIR = "fhir-engine.rvh.local"
SSO = "sso.rvh.local"
OSRM = "osrm.rvh.local"
LLMGW = "llm-gw.rvh.local"
KAFKA = "kafka-01.rvh.local:9093,kafka-02.rvh.local:9093,kafka-03.rvh.local:9093"

# op -> (kind, method, route, path, controller, children, rate per minute before sampling)
# children: ("jdbc", table, op) | ("http", peer key, method, url) | ("pub", topic) | ("call", service, op)
#           | ("llm",) | ("sso",)
OPS = {
    "pharmacy-dispense": {
        "dispense": ("http", "POST", "/api/v1/dispense/{orderId}", "/api/v1/dispense/%d", "DispenseController.dispense",
                     [("sso",), ("jdbc", "DISPENSE_ORDERS", "SELECT"), ("jdbc", "CABINET_STOCK", "UPDATE"),
                      ("jdbc", "DISPENSE_ORDERS", "UPDATE"), ("http", "fhir", "POST", "https://%s/fhir/R4/MedicationDispense" % FHIR),
                      ("pub", "pharmacy.dispense.events")], 160),
        "formulary": ("http", "GET", "/api/v1/formulary/{ndc}", "/api/v1/formulary/%d", "FormularyController.lookup",
                      [("sso",), ("jdbc", "FORMULARY_ITEMS", "SELECT")], 240),
        "stock": ("http", "GET", "/api/v1/cabinets/{cabinetId}/stock", "/api/v1/cabinets/%d/stock", "CabinetController.stock",
                  [("sso",), ("jdbc", "CABINET_STOCK", "SELECT")], 120),
    },
    "bed-manager": {
        "availability": ("http", "GET", "/api/beds/availability", "/api/beds/availability", "BedController.availability",
                         [("sso",), ("jdbc", "bed_status", "SELECT")], 300),
        "assign": ("http", "POST", "/api/beds/{bedId}/assign", "/api/beds/%d/assign", "BedController.assign",
                   [("sso",), ("jdbc", "bed_status", "SELECT"), ("jdbc", "bed_assignment", "INSERT"),
                    ("pub", "bed.assignment.events")], 80),
        "a01": ("kafka", None, "adt.a01.admit", None, "AdtAdmitListener.onMessage",
                [("jdbc", "encounter", "INSERT"), ("jdbc", "bed_request", "INSERT")], 120),
        "a03": ("kafka", None, "adt.a03.discharge", None, "AdtDischargeListener.onMessage",
                [("jdbc", "encounter", "UPDATE"), ("jdbc", "bed_status", "UPDATE"), ("pub", "bed.cleaning.requests")], 100),
        "a02": ("kafka", None, "adt.a02.transfer", None, "AdtTransferListener.onMessage",
                [("jdbc", "encounter", "UPDATE"), ("jdbc", "bed_status", "UPDATE")], 60),
    },
    "lab-results": {
        "specimen": ("http", "GET", "/api/v2/specimens/{specimenId}", "/api/v2/specimens/%d", "SpecimenController.get",
                     [("jdbc", "specimen", "SELECT"), ("jdbc", "specimen_event", "SELECT")], 200),
        "result": ("http", "POST", "/api/v2/results", "/api/v2/results", "ResultController.post",
                   [("jdbc", "lab_result", "INSERT"), ("http", "fhir", "POST", "https://%s/fhir/R4/Observation" % FHIR)], 90),
        "collected": ("kafka", None, "lab.specimen.collected", None, "SpecimenCollectedListener.onMessage",
                      [("jdbc", "specimen", "INSERT"), ("pub", "lab.courier.pickups")], 150),
    },
    "courier-router": {
        "plan": ("http", "POST", "api/routes/plan", "/api/routes/plan", None,
                 [("npg", "courier_route", "SELECT"), ("http", "osrm", "GET", "http://%s:5000/route/v1/driving/" % OSRM),
                  ("npg", "courier_route", "INSERT")], 40),
        "route": ("http", "GET", "api/routes/{routeId}", "/api/routes/%d", None, [("npg", "courier_route", "SELECT")], 90),
        "scan": ("http", "POST", "api/pickups/{specimenId}/scan", "/api/pickups/%d/scan", None,
                 [("call", "lab-results", "specimen"), ("npg", "pickup_scan", "INSERT")], 70),
    },
    "discharge-drafter": {
        "draft": ("http", "POST", "api/drafts", "/api/drafts", None,
                  [("http", "fhir", "GET", "https://%s/fhir/R4/Encounter/" % FHIR), ("llm",), ("npg", "draft", "INSERT")], 14),
        "get": ("http", "GET", "api/drafts/{id}", "/api/drafts/%d", None, [("npg", "draft", "SELECT")], 30),
    },
}
BASE_MS = {"jdbc": 2.2, "npg": 1.8, "fhir": 38.0, "osrm": 380.0, "sso": 6.5, "pub": 1.4, "llm": 9000.0, "call": 0.0}
STMT = {
    "SELECT": "select t1_0.ID,t1_0.STATUS,t1_0.UPDATED_AT from %s t1_0 where t1_0.ID=?",
    "UPDATE": "update %s set STATUS=?,UPDATED_AT=?,VERSION=? where ID=? and VERSION=?",
    "INSERT": "insert into %s (CREATED_AT,STATUS,VERSION,ID) values (?,?,?,?)",
}


def host_resource(svc, ver, host, inst):
    rt, _, _, ns = SERVICES[svc]
    r = {"service.name": svc, "service.version": ver, "service.namespace": ns, "service.instance.id": inst,
         "deployment.environment.name": "production", "host.name": host, "host.arch": "amd64", "os.type": "linux",
         "os.description": "Red Hat Enterprise Linux 9.4 (Plow)",
         "process.pid": str(1000 + int(hashlib.sha1(inst.encode()).hexdigest()[:4], 16) % 60000)}
    r.update(JAVA if rt == "java" else DOTNET)
    return r


def other(name, host=None, extra=None):
    r = {"service.name": name, "deployment.environment.name": "production"}
    if host:
        r["host.name"] = host
    r.update(extra or {})
    return r


class World:
    """One incident: releases rolled by Ansible two hosts at a time, traffic, effects."""

    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, self.id))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.spans, self.logs = [], []
        self.fx = spec.get("fx", lambda w, t, svc, ver, host, op: None)
        self.rel = {}  # svc -> [(version, start ns or None, gap seconds, batches done or None)]
        for svc, rows in spec["releases"].items():
            out = []
            for row in rows:
                ver, when = row[0], row[1]
                gap = row[2] if len(row) > 2 else 180
                stop = row[3] if len(row) > 3 else None
                out.append((ver, at(when) if when else None, gap, stop))
            self.rel[svc] = out

    def host_switch(self, svc, host, b, gap, stop):
        hosts = SERVICES[svc][1]
        batch = hosts.index(host) // 2
        if stop is not None and batch >= stop:
            return None
        return b + batch * gap * S

    def version(self, svc, host, t):
        """The version the host serves at t, and whether it is restarting (no traffic)."""
        rows = self.rel.get(svc)
        if not rows:
            return DEFAULT_VER[svc], False
        cur, restarting = rows[0][0], False
        for ver, b, gap, stop in rows[1:]:
            if b is None:
                continue
            sw = self.host_switch(svc, host, b, gap, stop)
            if sw is None:
                continue
            if t >= sw:
                cur = ver
            elif t >= sw - 45 * S:
                restarting = True
        return cur, restarting

    def inst(self, svc, ver, host):
        return str(uuid.UUID(int=random.Random("inst/%s/%s/%s" % (self.id, ver, host)).getrandbits(128), version=4))

    def log(self, t, res, sev, body, trace="", span="", attrs=None):
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17, "FATAL": 21}[sev]
        self.logs.append({"timestamp": ts(t), "observed_timestamp": ts(t + 212 * US), "severity_text": sev,
                          "severity_number": num, "body": body, "trace_id": trace, "span_id": span,
                          "resource": res, "attributes": attrs or {}})

    def run(self):
        rng = self.rng
        for m0 in range(self.start, self.now, MIN):
            for svc, ops in OPS.items():
                if svc not in self.spec["services"]:
                    continue
                for op, row in ops.items():
                    lam = row[6] * self.spec.get("scale", {}).get(svc, 1.0)
                    if "rate" in self.spec:
                        lam *= self.spec["rate"](self, m0, svc, op)
                    for _ in range(poisson(rng, lam)):
                        t = m0 + rng.randrange(MIN)
                        if t < self.now:
                            Request(self, t, svc, op, None).run()
        for t, res, sev, body in self.spec.get("extra_logs", lambda w: [])(self):
            if t < self.now:
                self.log(t, res, sev, body)
        for svc, rows in self.rel.items():
            prev = rows[0][0]
            for ver, b, gap, stop in rows[1:]:
                if b is not None and self.start <= b < self.now:
                    ansible(self, svc, ver, prev, b, gap, stop)
                prev = ver
        for extra in self.spec.get("extra_spans", lambda w: [])(self):
            self.spans.append(extra)
        self.spans.sort(key=lambda r: (r["timestamp"], r["trace_id"], r["span_id"]))
        self.logs.sort(key=lambda r: (r["timestamp"], r["body"]))


def awx_job(svc, b):
    return 18000 + int(hashlib.sha1(("%s/%d" % (svc, b)).encode()).hexdigest()[:4], 16) % 2000


def marker_span(w, svc, ver, prev, b, extra=None, env="production"):
    rng = w.rng
    attrs = {"deployment.version": ver, "deployment.previous_version": prev, "deployment.id": "awx-job-%d" % awx_job(svc, b),
             "deployment.environment.name": env, "deployment.strategy": "rolling serial=2",
             "ansible.playbook": "deploy-%s.yml" % svc, "ansible.inventory": "rvh-%s" % env,
             "vcs.ref.head.revision": hashlib.sha1(("%s/%s" % (svc, ver)).encode()).hexdigest()[:10]}
    attrs.update(extra or {})
    res = {"service.name": svc, "service.version": ver, "service.namespace": SERVICES[svc][3],
           "deployment.environment.name": env, "telemetry.sdk.name": "ansible-otel-marker", "host.name": "rvh-awx-01"}
    return {"timestamp": ts(b), "trace_id": hexid(rng, 32), "span_id": hexid(rng, 16), "parent_span_id": "",
            "name": "deployment.marker", "kind": 1, "duration_nano": 310 * MS, "has_error": False,
            "status_code": 0, "status_message": "", "resource": res, "attributes": attrs}


def ansible(w, svc, ver, prev, b, gap, stop):
    """The marker (one, run_once, when the first batch serves) and AWX's task spans for each batch."""
    w.spans.append(marker_span(w, svc, ver, prev, b))
    rng = w.rng
    hosts = SERVICES[svc][1]
    res = other("ansible", "rvh-awx-01", {"telemetry.sdk.name": "community.general.opentelemetry",
                                          "service.version": "2.16.3"})
    tid = hexid(rng, 32)
    root = hexid(rng, 16)
    nb = (len(hosts) + 1) // 2 if stop is None else stop
    for i in range(nb):
        t0 = b + i * gap * S - 40 * S
        if t0 >= w.now:
            break
        for h in hosts[2 * i:2 * i + 2]:
            for name, off, dur in (("ansible.builtin.get_url: fetch %s-%s.jar" % (svc, ver), 0, 18),
                                   ("ansible.builtin.systemd: restart %s" % svc, 19, 21),
                                   ("ansible.builtin.uri: wait for /actuator/health" if SERVICES[svc][0] == "java"
                                    else "ansible.builtin.uri: wait for /healthz", 40, 12)):
                w.spans.append({"timestamp": ts(t0 + off * S), "trace_id": tid, "span_id": hexid(rng, 16),
                                "parent_span_id": root, "name": name, "kind": 1, "duration_nano": dur * S,
                                "has_error": False, "status_code": 1, "status_message": "", "resource": res,
                                "attributes": {"ansible.task.host.name": h, "ansible.task.host.status": "changed",
                                               "ansible.task.module": name.split(":")[0]}})
        w.log(t0 + 60 * S, res, "INFO", "PLAY [deploy %s %s] batch %d/%d: hosts %s ok" % (
            svc, ver, i + 1, (len(hosts) + 1) // 2, ",".join(hosts[2 * i:2 * i + 2])))
    w.spans.append({"timestamp": ts(b - 40 * S), "trace_id": tid, "span_id": root, "parent_span_id": "",
                    "name": "deploy-%s.yml" % svc, "kind": 1, "duration_nano": (nb * gap + 30) * S,
                    "has_error": False, "status_code": 1, "status_message": "", "resource": res,
                    "attributes": {"ansible.playbook": "deploy-%s.yml" % svc, "awx.job.id": awx_job(svc, b),
                                   "ansible.serial": 2, "deployment.version": ver}})


# ---------------------------------------------------------------- one request: a tree of spans

class Request:
    def __init__(self, w, t, svc, op, parent):
        self.w, self.t, self.svc, self.op, self.parent = w, t, svc, op, parent
        rng = w.rng
        hosts = SERVICES[svc][1]
        for _ in range(4):
            self.host = hosts[rng.randrange(len(hosts))]
            self.ver, restarting = w.version(svc, self.host, t)
            if not restarting:
                break
        self.res = host_resource(svc, self.ver, self.host, w.inst(svc, self.ver, self.host))
        if parent is None:
            self.trace = hexid(rng, 32)
            self.sampled = rng.random() < SERVICES[svc][2]
        else:
            self.trace, self.sampled = parent.trace, parent.sampled
        self.rows, self.logs = [], []
        self.fx = w.fx(w, t, svc, self.ver, self.host, op) or {}

    def span(self, parent, name, kind, start, dur, attrs, err=False, msg="", sid=None, events=None, links=None):
        sid = sid or hexid(self.w.rng, 16)
        row = {"timestamp": ts(start), "trace_id": self.trace, "span_id": sid, "parent_span_id": parent,
               "name": name, "kind": kind, "duration_nano": int(dur), "has_error": bool(err),
               "status_code": 2 if err else 0, "status_message": msg if err else "", "resource": self.res,
               "attributes": attrs}
        if events:
            row["events"] = events
        if links:
            row["links"] = links
        self.rows.append(row)
        return sid

    def run(self, parent_sid=""):
        w, rng, f = self.w, self.w.rng, self.fx
        kind, method, route, path, ctrl, children, _ = OPS[self.svc][self.op]
        rt = SERVICES[self.svc][0]
        root = hexid(rng, 16)
        inner = hexid(rng, 16) if rt == "java" else root
        cur = self.t + int(lognormal(rng, 0.6) * MS)
        if f.get("queue_ms"):
            cur += int(lognormal(rng, f["queue_ms"], 0.5) * MS)
        fail = None  # (status, exception type, message)
        for ci, ch in enumerate(children):
            cur, fail = self.child(ch, ci, inner, cur)
            if fail:
                break
        if not fail and f.get("fail_self") and rng.random() < f["fail_self"][0]:
            fail = f["fail_self"][1:]
        if not fail and rng.random() < 0.0015:
            fail = (500, "java.net.SocketTimeoutException" if rt == "java" else "System.IO.IOException", "Read timed out")
        cur += int(lognormal(rng, f.get("self_ms", 2.5)) * MS)
        dur = cur - self.t
        status = fail[0] if fail else (201 if method == "POST" and self.op in ("dispense", "assign", "draft") else 200)
        err = fail is not None and (kind == "kafka" or status >= 500)
        msg = "%s: %s" % (fail[1], fail[2]) if fail else ""
        ev = [{"name": "exception", "timestamp": ts(cur), "attributes": {"exception.type": fail[1],
                                                                           "exception.message": fail[2]}}] if err else None
        attrs = self.root_attrs(kind, method, route, path, status, fail)
        attrs.update(f.get("root_attrs", {}))
        if "root_fn" in f:
            attrs.update(f["root_fn"](rng, self))
        links = None
        if kind == "kafka":
            name = "%s process" % route
            links = [{"trace_id": hexid(rng, 32), "span_id": hexid(rng, 16), "attributes": {}}]
        else:
            name = "%s %s" % (method, route)
        self.span(parent_sid, name, 5 if kind == "kafka" else 2, self.t, dur, attrs, err=err,
                  msg=msg if rt == "dotnet" else "", sid=root, events=ev, links=links)
        if rt == "java":
            cls = ctrl.split(".")[0]
            pkg = {"pharmacy-dispense": "org.rvh.pharmacy", "bed-manager": "org.rvh.patientflow.beds",
                   "lab-results": "org.rvh.lab"}[self.svc]
            self.span(root, ctrl, 1, self.t + 300 * US, dur - 600 * US,
                      {"code.namespace": "%s.%s.%s" % (pkg, "kafka" if kind == "kafka" else "web", cls),
                       "code.function": ctrl.split(".")[1], "thread.name": "http-nio-8080-exec-%d" % rng.randrange(1, 200)
                       if kind == "http" else "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1"},
                      err=fail is not None and kind == "kafka", sid=inner)
        if fail and (status >= 500 or kind == "kafka"):
            body = f.get("log_fn", lambda rng, r, fail: "%s %s failed: %s: %s" % (method or "consume", route, fail[1], fail[2]))(rng, self, fail)
            self.logs.append((cur, "ERROR", body, root))
        for lt, sev, b, sid in self.logs:
            w.log(lt, self.res, sev, b, self.trace, sid if self.sampled else "", {"thread.name": "main"} if rt == "java" else {})
        if self.sampled:
            w.spans.extend(self.rows)
        return status, fail, cur

    def root_attrs(self, kind, method, route, path, status, fail):
        rng = self.w.rng
        n = rng.randrange(100000, 999999)
        if kind == "kafka":
            return {"messaging.system": "kafka", "messaging.destination.name": route, "messaging.operation": "process",
                    "messaging.kafka.consumer.group": self.svc, "messaging.client_id": "consumer-%s-1" % self.svc,
                    "messaging.kafka.destination.partition": rng.randrange(12),
                    "messaging.kafka.message.offset": rng.randrange(10 ** 7, 10 ** 8),
                    "messaging.kafka.message.key": "MRN%07d" % n, "messaging.message.body.size": rng.randrange(900, 4200)}
        a = {"http.request.method": method, "http.route": route, "url.path": path % n if "%d" in path else path,
             "url.scheme": "https" if SERVICES[self.svc][0] == "dotnet" else "http",
             "server.address": "%s.rvh.local" % self.svc, "server.port": 8443 if SERVICES[self.svc][0] == "dotnet" else 8080,
             "network.protocol.version": "1.1", "http.response.status_code": status,
             "client.address": "10.40.%d.%d" % (rng.randrange(1, 30), rng.randrange(2, 250)),
             "user_agent.original": "Java-http-client/21.0.5" if self.parent else
             rng.choice(["Mozilla/5.0 (Windows NT 10.0; Win64; x64) Edg/131.0", "Zebra-TC52/11 RVHCourier/3.2",
                         "Omnicell-XT/9.1"])}
        if fail and status >= 500 and SERVICES[self.svc][0] == "dotnet":
            a["error.type"] = fail[1]
        return a

    def child(self, ch, ci, parent, cur):
        """One child (and its retries); returns the new cursor and a failure or None."""
        w, rng, f = self.w, self.w.rng, self.fx
        k = ch[0]
        key = ch[1] if k == "http" else k
        if k == "call":
            sub = Request(w, cur + 600 * US, ch[1], ch[2], self)
            cs = hexid(rng, 16)
            status, sfail, end = sub.run(cs)
            end += 500 * US
            a = {"http.request.method": "GET", "url.full": "http://%s.rvh.local:8080%s" % (ch[1], "/api/v2/specimens/%d" % rng.randrange(10 ** 6)),
                 "server.address": "%s.rvh.local" % ch[1], "server.port": 8080, "network.protocol.version": "1.1",
                 "http.response.status_code": status}
            if status >= 500:
                a["error.type"] = str(status)
            self.span(parent, "GET", 3, cur, end - cur, a, err=status >= 500, sid=cs)
            if status >= 500:
                return end, (502, "System.Net.Http.HttpRequestException",
                             "Response status code does not indicate success: %d (Internal Server Error)." % status)
            return end, None
        spec = f.get("child", {}).get(key, {})
        attempts = 1 + spec.get("retries", 0)
        fail = None
        for a in range(attempts):
            base = BASE_MS[key if key in BASE_MS else k] * spec.get("slow", 1.0)
            if "slow_fn" in spec:
                base *= spec["slow_fn"](rng, self)
            dur = lognormal(rng, base, spec.get("sigma", 0.35)) * MS
            failed, exc = False, None
            if spec.get("timeout_ms") and dur > spec["timeout_ms"] * MS:
                dur, failed = spec["timeout_ms"] * MS * rng.uniform(1.0, 1.003), True
                exc = spec.get("timeout_exc")
            elif rng.random() < spec.get("err", 0.0):
                failed, exc = True, spec.get("exc")
                if spec.get("err_ms"):
                    dur = lognormal(rng, spec["err_ms"], 0.03) * MS
            name, kind, attrs = self.child_span(ch, failed, spec)
            if a > 0:
                attrs["http.request.resend_count"] = a
            if failed and "error.type" not in attrs and SERVICES[self.svc][0] == "dotnet":
                attrs["error.type"] = exc[0] if exc else "500"
            ev = [{"name": "exception", "timestamp": ts(cur + int(dur)),
                   "attributes": {"exception.type": exc[0], "exception.message": exc[1]}}] if failed and exc else None
            sp = parent
            if k == "jdbc":  # Hibernate's session span over the statement
                sp = self.span(parent, "Session.%s org.rvh.domain.%s" % (
                    {"SELECT": "find", "UPDATE": "merge", "INSERT": "persist"}[ch[2]], camel(ch[1])), 1,
                    cur, dur + 150 * US, {}, err=failed)
                cur += 70 * US
            self.span(sp, name, kind, cur, dur, attrs, err=failed, msg=exc[1] if failed and exc else "", events=ev)
            cur += int(dur) + int(0.25 * MS)
            if failed and spec.get("retry_log"):
                self.logs.append((cur, "WARN", spec["retry_log"](rng, self, a, dur), ""))
            if not failed:
                break
            if spec.get("backoff_ms"):
                cur += int(lognormal(rng, spec["backoff_ms"] * (2 ** a), 0.2) * MS)
        if failed and spec.get("fatal", True):
            fail = (spec.get("status", 500),) + tuple(spec.get("root_exc", exc or ("Exception", "failed")))
        return cur, fail

    def child_span(self, ch, failed, spec):
        rng = self.w.rng
        k = ch[0]
        if k == "jdbc":
            table, op = ch[1], ch[2]
            if self.svc == "pharmacy-dispense":
                a = {"db.system": "oracle", "db.name": "PHARMP", "db.user": "PHARM_APP",
                     "db.connection_string": "oracle:thin://%s:1521" % ORA, "db.statement": STMT[op] % ("PHARM." + table),
                     "db.operation": op, "db.sql.table": table, "server.address": ORA, "server.port": 1521}
                name = "%s PHARMP.%s" % (op, table)
            else:
                db = {"bed-manager": "bedmgmt", "lab-results": "lis"}[self.svc]
                a = {"db.system": "postgresql", "db.name": db, "db.user": "%s_app" % db,
                     "db.connection_string": "postgresql://%s:5432" % PG[self.svc], "db.statement": STMT[op] % table,
                     "db.operation": op, "db.sql.table": table, "server.address": PG[self.svc], "server.port": 5432}
                name = "%s %s.%s" % (op, db, table)
            a.update(spec.get("attrs", {}))
            return name, 3, a
        if k == "npg":
            db = {"courier-router": "courier", "discharge-drafter": "drafter"}[self.svc]
            a = {"db.system": "postgresql", "db.name": db, "db.statement": STMT[ch[2]].replace("?", "@p") % ch[1],
                 "server.address": PG.get(self.svc, "pg-drafter.rvh.local"), "server.port": 5432}
            return db, 3, a
        if k == "pub":
            a = {"messaging.system": "kafka", "messaging.destination.name": ch[1], "messaging.operation": "publish",
                 "messaging.client_id": "producer-1", "messaging.kafka.destination.partition": rng.randrange(12),
                 "messaging.kafka.message.key": "MRN%07d" % rng.randrange(10 ** 7), "server.address": KAFKA.split(",")[0].split(":")[0]}
            return "%s publish" % ch[1], 4, a
        if k == "sso":
            a = {"http.request.method": "POST",
                 "url.full": "https://%s/realms/rvh-clinical/protocol/openid-connect/token/introspect" % SSO,
                 "server.address": SSO, "server.port": 443, "network.protocol.version": "1.1",
                 "http.response.status_code": spec.get("code", 503) if failed else 200}
            return "POST", 3, a
        if k == "llm":
            return self.llm_span(failed, spec)
        _, peer, method, url = ch
        if peer == "osrm":
            url += "-75.%04d,40.%04d;-75.%04d,40.%04d?overview=false" % tuple(rng.randrange(10000) for _ in range(4))
        elif url.endswith("/"):
            url += "E%07d" % rng.randrange(10 ** 7)
        host = url.split("/")[2].split(":")[0]
        a = {"http.request.method": method, "url.full": url, "server.address": host,
             "server.port": 5000 if peer == "osrm" else 443, "network.protocol.version": "1.1"}
        if not (failed and spec.get("timeout_ms")):
            a["http.response.status_code"] = spec.get("code", 503) if failed else (201 if method == "POST" else 200)
        return method, 3, a

    def llm_span(self, failed, spec):
        rng = self.w.rng
        q = self.fx.get("llm_fn", llm_ok)(rng, self)
        model = q.pop("_model", "llama-3.1-70b-instruct")
        a = {"gen_ai.system": "openai", "gen_ai.operation.name": "chat", "gen_ai.request.model": "discharge-summary",
             "gen_ai.request.max_tokens": q.pop("_max", 1024), "gen_ai.request.temperature": 0.2,
             "server.address": LLMGW, "server.port": 443, "http.response.status_code": spec.get("code", 504) if failed else 200}
        if not failed:
            a["gen_ai.response.model"] = model
            a.update(q)
        return "chat discharge-summary", 3, a


def camel(s):
    return "".join(p.capitalize() for p in s.lower().split("_"))


def llm_ok(rng, r):
    out = int(lognormal(rng, 690, 0.18))
    return {"gen_ai.usage.input_tokens": int(lognormal(rng, 5200, 0.25)), "gen_ai.usage.output_tokens": out,
            "gen_ai.response.finish_reasons": ["stop"], "gen_ai.response.id": "chatcmpl-%s" % hexid(rng, 24)}


def drafter_quality(score=0.91, missing=0.05, template="discharge-v12"):
    def fn(rng, r):
        if r.op != "draft":
            return {}
        s = min(1.0, max(0.0, rng.gauss(score, 0.04)))
        return {"drafter.prompt.template": template, "drafter.summary.completeness_score": round(s, 3),
                "drafter.summary.sections_missing": sum(1 for _ in range(6) if rng.random() < missing)}
    return fn


# ---------------------------------------------------------------- the right rollbacks

def A_dispense_ora(w, t, svc, ver, host, op):
    if svc == "pharmacy-dispense" and ver == "4.12.0+build.871" and op == "dispense" and w.rng.random() < 0.44:
        return {"child": {"jdbc": {"err": 1.0, "exc": ("java.sql.SQLSyntaxErrorException",
                                                       'ORA-00904: "CS_WITNESS_ID": invalid identifier'),
                                   "status": 500}}}
    return None


def A_a03_npe(w, t, svc, ver, host, op):
    if svc == "bed-manager" and ver == "7.3.0+build.2214" and op == "a03" and w.rng.random() < 0.62:
        return {"fail_self": (1.0, 500, "java.lang.NullPointerException",
                              'Cannot invoke "java.time.OffsetDateTime.toInstant()" because the return value of '
                              '"org.rvh.patientflow.adt.DischargeEvent.getDischargedAt()" is null')}
    return None


def A_prompt(w, t, svc, ver, host, op):
    if svc != "discharge-drafter" or op != "draft":
        return None
    if ver == "2.8.0+build.77":
        def llm(rng, r):
            q = llm_ok(rng, r)
            q["gen_ai.usage.output_tokens"] = int(lognormal(rng, 230, 0.12))
            q["gen_ai.response.finish_reasons"] = ["length"] if rng.random() < 0.7 else ["stop"]
            q["_max"] = 256
            return q
        return {"llm_fn": llm, "root_fn": drafter_quality(0.55, 0.45, "discharge-v13")}
    return {"root_fn": drafter_quality()}


def polly_log(rng, r, a, dur):
    return ("Execution attempt. Source: 'osrm-client-standard//Standard-Retry', Operation Key: '', Result: "
            "'The operation didn't complete within the allowed timeout of '00:00:00.8000000'.', Handled: 'True', "
            "Attempt: '%d', Execution Time: %.4fms" % (a, dur / MS))


def A_polly(w, t, svc, ver, host, op):
    if svc == "courier-router" and ver == "3.4.0+build.512" and op == "plan":
        return {"child": {"osrm": {"slow": 1.55, "sigma": 0.5, "timeout_ms": 800, "retries": 3, "backoff_ms": 200,
                                   "timeout_exc": ("Polly.Timeout.TimeoutRejectedException",
                                                   "The operation didn't complete within the allowed timeout of '00:00:00.8000000'."),
                                   "status": 504, "retry_log": polly_log}}}
    if svc == "courier-router" and op == "plan":
        return {"child": {"osrm": {"sigma": 0.5}}}
    return None


def A_lab_b2b(w, t, svc, ver, host, op):
    rng = w.rng
    if svc != "lab-results":
        return None
    if op == "result" and at("12:30:20") <= t < at("12:38:40"):
        return {"child": {"fhir": {"slow": 4.5}}}
    if op == "result" and ver == "5.2.0+build.330" and rng.random() < 0.41:
        return {"child": {"fhir": {"err": 1.0, "code": 400, "exc": (
            "com.fasterxml.jackson.databind.exc.InvalidDefinitionException",
            'Java 8 date/time type `java.time.OffsetDateTime` not supported by default: add Module '
            '"com.fasterxml.jackson.datatype:jackson-datatype-jsr310" (through reference chain: '
            'org.rvh.lab.fhir.ObservationDto["effectiveDateTime"])'), "status": 500}}}
    return None


def lab_b2b_logs(w):
    res = other("fhir-engine", "rvh-fhir-01", {"service.version": "Rhapsody 7.2.1"})
    return [(at("12:30:05"), res, "WARN", "Communication point 'LIS-Observation-In' queue depth 1840 above threshold 500; "
             "route 'LIS to EHR Observation' is throttled"),
            (at("12:38:55"), res, "INFO", "Communication point 'LIS-Observation-In' queue depth back to 12")]


# ---------------------------------------------------------------- the traps

def T_disk(w, t, svc, ver, host, op):
    if svc == "pharmacy-dispense" and host == "rvh-pharm-app-05" and t >= at("15:14:10") and op == "dispense":
        if w.rng.random() < 0.93:
            return {"fail_self": (1.0, 500, "java.io.IOException", "No space left on device"),
                    "log_fn": lambda rng, r, fail: "Failed to write dispense label /var/spool/rvh-labels/%d.pdf: "
                    "java.io.IOException: No space left on device" % rng.randrange(10 ** 7)}
    return None


def T_disk_logs(w):
    out = []
    res = other("systemd-journald", "rvh-pharm-app-05")
    for i in range(0, 14):
        out.append((at("15:13:40") + i * 47 * S, res, "WARN",
                    "logrotate: error: error writing /var/log/rvh/pharmacy-dispense/app.log.1: No space left on device"))
    out.append((at("15:14:02"), other("node-exporter-alerts", "rvh-pharm-app-05"), "ERROR",
                "FILESYSTEM /var on rvh-pharm-app-05 is 100% full (avail 0 B of 40 GiB)"))
    out.append((at("15:16:40"), other("ansible", "rvh-awx-01"), "WARN",
                "AWX workflow 'deploy pharmacy-dispense 4.13.0+build.902' paused at approval node 'batch 3 of 3' (waiting for pharmacy informatics sign-off)"))
    return out


def T_ldaps(w, t, svc, ver, host, op):
    if svc == "bed-manager" and t >= at("08:36:20") and OPS[svc][op][0] == "http":
        p = 0.55 * min(1.0, (t - at("08:36:20")) / (90 * S))
        if w.rng.random() < p:
            return {"child": {"sso": {"err": 1.0, "code": 500, "exc": (
                "org.springframework.security.oauth2.server.resource.introspection.OAuth2IntrospectionException",
                "500 Internal Server Error: \"{\\\"error\\\":\\\"unknown_error\\\"}\""), "status": 503}}}
    return None


def T_ldaps_logs(w):
    out = []
    res = other("keycloak", "rvh-sso-01", {"service.version": "25.0.6"})
    rng = random.Random("ldaps")
    t = at("08:36:15")
    while t < w.now:
        out.append((t, res, "ERROR", "org.keycloak.storage.ldap.idm.store.ldap.LDAPOperationManager: LDAP Query failed: "
                    "ldaps://ad-dc01.rvh.local:636: javax.naming.CommunicationException: simple bind failed: "
                    "ad-dc01.rvh.local:636 [Root exception is javax.net.ssl.SSLHandshakeException: PKIX path validation "
                    "failed: java.security.cert.CertPathValidatorException: Path does not chain with any of the trust anchors]"))
        t += int(rng.uniform(4, 11) * S)
    out.append((at("08:35:58"), other("certmonger", "ad-dc01.rvh.local"), "INFO",
                "Certificate 'LDAPS-DC01' renewed by RVH-Issuing-CA-G3 (new intermediate); restarting NTDS LDAPS listener"))
    return out


def T_etl(w, t, svc, ver, host, op):
    if svc != "pharmacy-dispense":
        return None
    if not (at("02:00:04") <= t < at("02:11:30")):
        return None
    rng = w.rng
    frac = min(1.0, (t - at("02:00:04")) / (80 * S))
    if op == "dispense" and rng.random() < frac:
        return {"child": {"jdbc": {"slow": 1800.0, "err": 0.7, "status": 500, "err_ms": 30000,
                                   "exc": ("java.sql.SQLTransientConnectionException",
                                           "HikariPool-1 - Connection is not available, request timed out after 30000ms (total=20, active=20, idle=0, waiting=41)")},
                          "sso": {}}, "queue_ms": 8000}
    if rng.random() < 0.45 * frac:
        return {"child": {"jdbc": {"err": 1.0, "status": 500, "err_ms": 30000, "exc": (
            "java.sql.SQLTransientConnectionException",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms (total=20, active=20, idle=0, waiting=%d)" % rng.randrange(30, 60))}},
            "queue_ms": 12000 * frac}
    return {"queue_ms": 900 * frac}


def T_etl_logs(w):
    res = other("pharm-dw-extract", "rvh-etl-01", {"service.version": "2024.3"})
    ora = other("oracle-alert-log", "rvh-ora-01")
    out = [(at("02:00:00"), res, "INFO", "nightly job pharm_dw_extract started (cron 0 2 * * *)"),
           (at("02:00:01"), res, "INFO", "LOCK TABLE PHARM.DISPENSE_ORDERS IN EXCLUSIVE MODE NOWAIT: ok (sid 412)"),
           (at("02:11:27"), res, "INFO", "extract committed 418 221 rows; lock released"),
           (at("02:11:28"), res, "INFO", "nightly job pharm_dw_extract finished in 11m28s")]
    for i in range(10):
        out.append((at("02:01:00") + i * 60 * S, ora, "WARN",
                    "Blocking session sid=412 (PHARM_ETL) holds TM lock on PHARM.DISPENSE_ORDERS; %d sessions waiting on 'enq: TM - contention'" % (18 + i)))
    return out


def T_rebalance(w, t, svc, ver, host, op):
    if svc not in ("lab-results", "bed-manager") or OPS[svc][op][0] != "kafka":
        return None
    if not (at("16:09:30") <= t):
        return None
    rng = w.rng
    if rng.random() < 0.24:
        return {"fail_self": (1.0, 500, "org.apache.kafka.clients.consumer.CommitFailedException",
                              "Offset commit cannot be completed since the consumer is not part of an active group for auto "
                              "partition assignment; it is likely that the consumer was kicked out of the group."),
                "self_ms": 12.0}
    return {"self_ms": lognormal(rng, 40.0, 0.8)}


def T_rebalance_logs(w):
    out = []
    rng = random.Random("rebalance")
    kres = other("kafka", "kafka-03.rvh.local", {"service.version": "3.7.1"})
    out.append((at("16:09:05"), kres, "INFO", "[KafkaServer id=3] shutting down (controlled shutdown for kernel patching, change CHG0041877)"))
    out.append((at("16:11:40"), kres, "INFO", "[KafkaServer id=3] started"))
    for svc, group in (("lab-results", "lab-results"), ("bed-manager", "bed-manager")):
        for h in SERVICES[svc][1]:
            t = at("16:09:28") + int(rng.uniform(0, 20) * S)
            res = other(svc, h)
            while t < w.now:
                out.append((t, res, "INFO", "[Consumer clientId=consumer-%s-1, groupId=%s] Request joining group due to: "
                            "group is already rebalancing" % (svc, group)))
                out.append((t + int(rng.uniform(0.5, 3) * S), res, "WARN",
                            "[Consumer clientId=consumer-%s-1, groupId=%s] Revoke previously assigned partitions "
                            "lab.specimen.collected-%d" % (svc, group, rng.randrange(12)) if svc == "lab-results" else
                            "[Consumer clientId=consumer-%s-1, groupId=%s] Revoke previously assigned partitions "
                            "adt.a01.admit-%d" % (svc, group, rng.randrange(12))))
                t += int(rng.uniform(25, 70) * S)
    return out


def T_callee(w, t, svc, ver, host, op):
    if svc == "lab-results" and ver == "5.3.0+build.341" and op == "specimen" and w.rng.random() < 0.5:
        return {"fail_self": (1.0, 500, "org.hibernate.LazyInitializationException",
                              "could not initialize proxy [org.rvh.lab.domain.Specimen#%d] - no Session" % w.rng.randrange(10 ** 6))}
    return None


def T_patroni(w, t, svc, ver, host, op):
    if svc != "bed-manager":
        return None
    rng = w.rng
    if at("19:23:10") <= t < at("19:26:40"):
        if rng.random() < 0.8:
            return {"child": {"jdbc": {"err": 1.0, "status": 503 if OPS[svc][op][0] == "http" else 500, "exc": (
                "org.postgresql.util.PSQLException",
                rng.choice(["FATAL: the database system is shutting down",
                            "Connection to pg-bed.rvh.local:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.",
                            "This connection has been closed."]))}}}
    elif at("19:26:40") <= t < at("19:31:00"):
        return {"child": {"jdbc": {"slow": 3.0}}}
    return None


def T_patroni_logs(w):
    res = other("patroni", "pg-bed-02.rvh.local", {"service.version": "3.3.2"})
    return [(at("19:23:04"), other("patroni", "pg-bed-01.rvh.local", {"service.version": "3.3.2"}), "ERROR",
             "pg-bed-01: failed to update leader lock in etcd: timeout; demoting self"),
            (at("19:23:41"), res, "INFO", "promoted self to leader by acquiring session lock"),
            (at("19:26:35"), res, "INFO", "no action. I am (pg-bed-02), the leader with the lock")]


def T_check_mode_marker(w):
    return [marker_span(w, "bed-manager", "7.5.0+build.2301", "7.4.2+build.2281", at("19:20:03.114482"),
                        {"ansible.check_mode": True, "awx.job.type": "check"})]


def T_gateway(w, t, svc, ver, host, op):
    if svc != "discharge-drafter" or op != "draft":
        return None
    rng = w.rng
    tmpl = "discharge-v14" if ver == "2.9.0+build.81" else "discharge-v13"
    if t < at("13:21:30"):
        return {"root_fn": drafter_quality(0.91, 0.05, tmpl)}
    if rng.random() < 0.16:
        return {"child": {"llm": {"err": 1.0, "code": 504, "slow": 3.3, "exc": (
            "System.Net.Http.HttpRequestException", "Response status code does not indicate success: 504 (Gateway Timeout)."),
            "status": 502}}, "root_fn": drafter_quality(0.91, 0.05, tmpl)}
    if rng.random() < 0.6:
        def llm(rng, r):
            q = llm_ok(rng, r)
            q["_model"] = "llama-3.1-8b-instruct"
            q["gen_ai.usage.output_tokens"] = int(lognormal(rng, 480, 0.25))
            return q
        return {"llm_fn": llm, "child": {"llm": {"slow": 0.7}}, "root_fn": drafter_quality(0.71, 0.22, tmpl)}
    return {"child": {"llm": {"slow": 2.6}}, "root_fn": drafter_quality(0.9, 0.05, tmpl)}


def T_gateway_logs(w):
    gw = other("llm-gateway", "rvh-gpu-03", {"service.version": "litellm 1.52.9"})
    return [(at("13:21:12"), other("kernel", "rvh-gpu-03"), "ERROR",
             "NVRM: Xid (PCI:0000:c1:00): 79, pid=88412, GPU has fallen off the bus."),
            (at("13:21:20"), gw, "WARN", "Router: deployment vllm-70b-gpu03 marked unhealthy (3 consecutive failures); cooldown 300s"),
            (at("13:21:21"), gw, "WARN", "Router: model group 'discharge-summary' has 1 of 2 70b deployments healthy; "
             "fallbacks enabled: routing overflow to 'llama-3.1-8b-instruct'")]


def surge(w, m0, svc, op):
    if svc != "bed-manager":
        return 1.0
    x = ramp(m0, at("17:24:00"), at("17:30:00"))
    mult = {"a01": 5.0, "availability": 4.0, "assign": 4.0, "a02": 2.2, "a03": 1.3}[op]
    return 1.0 + (mult - 1.0) * x


def T_surge(w, t, svc, ver, host, op):
    if svc != "bed-manager" or t < at("17:24:00"):
        return None
    x = ramp(t, at("17:24:00"), at("17:30:00"))
    f = {"child": {"jdbc": {"slow": 1.0 + 2.4 * x}, "sso": {"slow": 1.0 + 0.8 * x}}, "queue_ms": 1 + 140 * x}
    if OPS[svc][op][0] == "http" and w.rng.random() < 0.035 * x:
        f["fail_self"] = (1.0, 503, "org.apache.tomcat.util.threads.TaskRejectedException",
                          "Executor [http-nio-8080] rejected task: maxThreads (200) reached")
    return f


def T_surge_logs(w):
    res = other("hl7-adt-feed", "rvh-fhir-01", {"service.version": "Rhapsody 7.2.1"})
    return [(at("17:23:30"), other("ed-tracking-board", "rvh-edtb-01"), "WARN",
             "Code Orange declared 17:23 (mass casualty incident, I-81 northbound, est. 40+ patients)"),
            (at("17:26:00"), res, "INFO", "ADT A04/A01 message rate 612/min (24h median 118/min)")]


# ---------------------------------------------------------------- the incidents

ALL = list(SERVICES)
SPECS = [
    {"id": "rv16-pharmacy-dispense-4-12-ora-00904", "service": "pharmacy-dispense", "expect": ("bad_release", "allow"),
     "title": "pharmacy-dispense 4.12.0+build.871 (rolling, 10:02) selects a column its migration never added: 44% of POST /api/v1/dispense/{orderId} fail with ORA-00904, formulary and cabinet reads unaffected",
     "start": "08:55:00", "now": "10:19:00", "alert_at": "10:09:00", "burn": 9.2, "onset": "10:02",
     "services": ["pharmacy-dispense"], "releases": {"pharmacy-dispense": [("4.11.3+build.846", None), ("4.12.0+build.871", "10:02:13.417209", 150)]},
     "fx": A_dispense_ora,
     "story": "Ansible rolls 4.12.0+build.871 two hosts at a time from 10:02:13 (150 s a batch). Its Hibernate mapping selects CS_WITNESS_ID, a column of a migration the DBA has not run: ORA-00904 on the JDBC span of 44% of dispenses (the controlled-substance ones), HTTP 500 on that one route of three, spreading as the batches land."},
    {"id": "rv16-bed-manager-7-3-a03-discharge-npe", "service": "bed-manager", "expect": ("bad_release", "allow"),
     "title": "bed-manager 7.3.0+build.2214 (14:21) throws NullPointerException in the adt.a03.discharge handler: 62% of discharge events fail, admits, transfers and the REST routes unaffected",
     "start": "13:15:00", "now": "14:37:00", "alert_at": "14:28:00", "burn": 6.1, "onset": "14:21",
     "services": ["bed-manager"], "releases": {"bed-manager": [("7.2.4+build.2190", None), ("7.3.0+build.2214", "14:21:40.902113", 120)]},
     "fx": A_a03_npe,
     "story": "7.3.0 reads the discharge time through a new DischargeEvent mapper that returns null when the HL7 PV1-45 field is empty (62% of the engine's A03 messages): the Spring Kafka listener of one topic of three throws; its consumer spans start new traces that only LINK to the engine's producer span. Head sampling keeps 1 in 20."},
    {"id": "rv16-discharge-drafter-2-8-prompt-truncates", "service": "discharge-drafter", "expect": ("prompt_regression", "allow"),
     "title": "discharge-drafter 2.8.0+build.77 (09:40) ships prompt discharge-v13 with max_tokens 256: summaries cut off (finish reason length), completeness 0.91 to 0.55, every answer HTTP 201",
     "start": "08:30:00", "now": "10:04:00", "alert_at": "09:52:00", "burn": 3.4, "onset": "09:40",
     "services": ["discharge-drafter"], "releases": {"discharge-drafter": [("2.7.2+build.70", None), ("2.8.0+build.77", "09:40:06.550921", 120)]},
     "fx": A_prompt, "alert_name": "DischargeDrafterSummaryCompleteness",
     "story": "The prompt release cuts gen_ai.request.max_tokens to 256 with a longer template: output tokens fall from ~690 to ~230, 70% finish by length, drafter.summary.completeness_score falls from 0.91 to 0.55 and sections go missing. No error, no latency change; the alert is the team's quality rule."},
    {"id": "rv16-courier-router-3-4-polly-800ms", "service": "courier-router", "expect": ("retry_storm", "allow"),
     "title": "courier-router 3.4.0+build.512 (11:05) sets a Polly attempt timeout of 800 ms on OSRM: route plans retry up to 3 times (http.request.resend_count), OSRM calls double and slow, some plans 504",
     "start": "10:05:00", "now": "11:21:00", "alert_at": "11:12:00", "burn": 4.8, "onset": "11:05",
     "services": ["courier-router", "lab-results"], "releases": {"courier-router": [("3.3.5+build.497", None), ("3.4.0+build.512", "11:05:31.008734", 140)]},
     "fx": A_polly,
     "story": "The standard resilience handler's attempt timeout drops from 10 s to 800 ms; OSRM's route computation (median ~600 ms, long tail) exceeds it often, Polly retries up to three times (each attempt a client span with http.request.resend_count), the extra load slows OSRM further; ~5% of plans exhaust retries and answer 504. Polly's 'Execution attempt' warnings are in the logs."},
    {"id": "rv16-lab-results-5-2-after-fhir-stall", "service": "lab-results", "expect": ("bad_release", "allow"),
     "title": "lab-results 5.2.0+build.330 (12:58) serialises Observation dates without the JSR-310 module: 41% of POST /api/v2/results 500; a FHIR-engine stall 12:30-12:38 already slowed that route in the baseline",
     "start": "11:50:00", "now": "13:13:00", "alert_at": "13:05:00", "burn": 7.7, "onset": "12:58",
     "services": ["lab-results"], "releases": {"lab-results": [("5.1.9+build.322", None), ("5.2.0+build.330", "12:58:05.276113", 160)]},
     "fx": A_lab_b2b, "extra_logs": lab_b2b_logs,
     "story": "An earlier episode sits in the baseline: the interface engine throttled its Observation route 12:30-12:38 (POST /api/v2/results 4.5x slower, no errors, recovered). At 12:58 the release's new ObjectMapper lacks the JavaTimeModule: the FHIR client call fails to serialise, 41% of result posts answer 500."},
    {"id": "rv16-trap-pharm-app-05-disk-full-before-its-batch", "service": "pharmacy-dispense", "expect": ("resource_saturation", "deny"),
     "title": "pharmacy-dispense 4.13.0+build.902 rolled to four of six hosts (15:10, 15:12:30); rvh-pharm-app-05, still on 4.12.3, fills /var at 15:14 and fails its dispenses",
     "start": "14:05:00", "now": "15:27:00", "alert_at": "15:20:00", "burn": 5.3, "onset": "15:14",
     "services": ["pharmacy-dispense"],
     "releases": {"pharmacy-dispense": [("4.12.3+build.888", None), ("4.13.0+build.902", "15:10:02.731006", 150, 2)]},
     "fx": T_disk, "extra_logs": T_disk_logs,
     "story": "The AWX workflow pauses at its approval node after two batches: hosts 05 and 06 still run 4.12.3. At 15:14 /var on rvh-pharm-app-05 fills (logrotate), label PDFs fail to write: 93% of that host's dispenses answer 500 — one host in six, every failing span on the OLD version. A rollback of 4.13.0 does not touch that host."},
    {"id": "rv16-trap-ldaps-cert-rollover-after-bed-release", "service": "bed-manager", "expect": ("dependency_outage", "deny"),
     "title": "bed-manager 7.4.0+build.2260 rolling from 08:30; at 08:36 the AD domain controller's LDAPS certificate is renewed under a new intermediate, Keycloak's LDAP federation fails and token introspection answers 500 on old and new hosts alike",
     "start": "07:20:00", "now": "08:47:00", "alert_at": "08:40:00", "burn": 11.8, "onset": "08:36",
     "services": ["bed-manager"], "releases": {"bed-manager": [("7.3.2+build.2241", None), ("7.4.0+build.2260", "08:30:12.551870", 240)]},
     "fx": T_ldaps, "extra_logs": T_ldaps_logs,
     "story": "Six minutes after the release began, certmonger renews DC01's LDAPS certificate under an intermediate Keycloak's truststore lacks; every introspection of an AD-backed token fails (500 from sso.rvh.local), bed-manager's REST routes answer 503 on hosts of both versions (the third batch lands at 08:38); the Kafka handlers, which need no token, are untouched."},
    {"id": "rv16-trap-nightly-etl-locks-dispense-orders", "service": "pharmacy-dispense", "expect": ("db_pool_exhaustion", "deny"),
     "title": "pharmacy-dispense 4.12.2+build.889 rolled at 01:38; at 02:00 the nightly warehouse extract locks PHARM.DISPENSE_ORDERS for 11 minutes, Hikari's pool fills and every route times out",
     "start": "00:50:00", "now": "02:12:00", "alert_at": "02:05:00", "burn": 14.2, "onset": "02:00",
     "services": ["pharmacy-dispense"], "releases": {"pharmacy-dispense": [("4.12.1+build.880", None), ("4.12.2+build.889", "01:38:44.090312", 150)]},
     "fx": T_etl, "extra_logs": T_etl_logs,
     "story": "The release finished rolling at 01:44 and served 16 quiet minutes. The cron job pharm_dw_extract takes an exclusive table lock at 02:00:01: dispense updates wait, the 20-connection Hikari pool fills, every route (formulary and stock too) fails with SQLTransientConnectionException. Oracle's alert log names the blocking ETL session."},
    {"id": "rv16-trap-kafka-rebalance-storm-lab-results", "service": "lab-results", "expect": ("dependency_outage", "deny"),
     "title": "lab-results 5.1.4+build.318 rolled at 16:02; at 16:09 a broker's controlled shutdown for patching starts a rebalance storm: CommitFailedException on 24% of specimen events, bed-manager's consumers too",
     "start": "14:55:00", "now": "16:20:00", "alert_at": "16:14:00", "burn": 4.1, "onset": "16:09",
     "services": ["lab-results", "bed-manager"], "releases": {"lab-results": [("5.1.3+build.311", None), ("5.1.4+build.318", "16:02:18.660410", 150)],
                                                             "bed-manager": [("7.4.2+build.2281", None)]},
     "fx": T_rebalance, "extra_logs": T_rebalance_logs,
     "story": "kafka-03 restarts for kernel patching at 16:09; both consumer groups (lab-results and bed-manager, which was not released) rebalance again and again: commits fail, handlers stall. The REST routes are untouched. The release seven minutes before changed nothing in the consumer."},
    {"id": "rv16-trap-lab-results-release-breaks-courier-router", "service": "courier-router", "expect": ("bad_release", "deny"),
     "culprit": ("lab-results", "allow"),
     "title": "lab-results 5.3.0+build.341 (10:44) throws LazyInitializationException on half of specimen lookups; courier-router, released 3.4.2 at 10:31, answers 502 on its pickup scans",
     "start": "09:37:00", "now": "10:56:00", "alert_at": "10:50:00", "burn": 6.6, "onset": "10:44",
     "services": ["courier-router", "lab-results"], "sandbox": ["courier-router", "lab-results"],
     "releases": {"courier-router": [("3.4.1+build.519", None), ("3.4.2+build.530", "10:31:09.441201", 140)],
                  "lab-results": [("5.2.1+build.333", None), ("5.3.0+build.341", "10:44:27.115093", 150)]},
     "fx": T_callee,
     "story": "courier-router's 3.4.2 (a label-printer fix) served 13 good minutes. lab-results 5.3.0 drops @Transactional from the specimen lookup: half of GET /api/v2/specimens/{id} fail; courier-router's scan, which calls it, answers 502. The failing spans begin in lab-results (parent-based sampling keeps them: .NET samples every trace). Rolling back courier-router fixes nothing; lab-results is the culprit."},
    {"id": "rv16-trap-check-mode-marker-patroni-failover", "service": "bed-manager", "expect": ("dependency_outage", "deny"),
     "title": "an AWX check-mode run writes a bed-manager 7.5.0+build.2301 marker at 19:20 the ledger never saw; at 19:23 Patroni fails the bed database over and JDBC connections are refused",
     "start": "18:12:00", "now": "19:34:00", "alert_at": "19:26:00", "burn": 9.9, "onset": "19:23",
     "services": ["bed-manager"], "releases": {"bed-manager": [("7.4.1+build.2270", None), ("7.4.2+build.2281", "2026-12-06T10:12:40.000000")]},
     "fx": T_patroni, "extra_logs": T_patroni_logs, "extra_spans": T_check_mode_marker,
     "story": "Nothing was deployed: an operator ran the deploy template in check mode, whose marker task is not guarded by check_mode; every span keeps 7.4.2+build.2281 and the ledger's last entry is two days old. pg-bed-01 loses its etcd leader lock, Patroni promotes pg-bed-02: 3.5 minutes of refused connections and a slow tail."},
    {"id": "rv16-trap-model-gateway-gpu-fault-under-prompt", "service": "discharge-drafter", "expect": ("dependency_outage", "deny"),
     "title": "discharge-drafter 2.9.0+build.81 (prompt discharge-v14, 13:15) served six good minutes; at 13:21 a GPU of the model gateway falls off the bus: 504s, slow answers and 60% routed to the 8B fallback model",
     "start": "12:05:00", "now": "13:33:00", "alert_at": "13:26:00", "burn": 5.6, "onset": "13:21",
     "services": ["discharge-drafter"], "releases": {"discharge-drafter": [("2.8.3+build.79", None), ("2.9.0+build.81", "13:15:37.824519", 120)]},
     "fx": T_gateway, "extra_logs": T_gateway_logs, "alert_name": "DischargeDrafterSummaryCompleteness",
     "story": "The prompt release's wording change keeps quality (0.91) for six minutes. Xid 79 on rvh-gpu-03 at 13:21: the router marks that vLLM deployment unhealthy and overflows to llama-3.1-8b-instruct; gen_ai.response.model flips for 60% of calls, 16% time out at the gateway (504), completeness drops to ~0.71 on the fallback's answers."},
    {"id": "rv16-trap-mass-casualty-admissions-surge", "service": "bed-manager", "expect": ("traffic_surge", "deny"),
     "title": "bed-manager 7.4.1+build.2270 rolled from 17:05; at 17:24 a Code Orange (bus crash) multiplies admissions by five and bed queries by four: every route and handler slows, Tomcat rejects some requests",
     "start": "16:00:00", "now": "17:38:00", "alert_at": "17:30:00", "burn": 3.9, "onset": "17:24",
     "services": ["bed-manager"], "releases": {"bed-manager": [("7.4.0+build.2260", None), ("7.4.1+build.2270", "17:05:50.310072", 180)]},
     "fx": T_surge, "rate": surge, "extra_logs": T_surge_logs,
     "story": "Real load: A01 admits 5x, availability and assign 4x from 17:24 (ramping over six minutes); PostgreSQL slows with the load, every operation's latency rises together on hosts of both versions, 3.5% of REST requests are rejected at the thread pool. The release had served 19 calm minutes."},
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


def alert(spec):
    svc = spec["service"]
    name = spec.get("alert_name", "%sAvailabilityBurn" % "".join(p.capitalize() for p in svc.split("-")))
    rule = "%s" % uuid.UUID(int=random.Random("rule/" + spec["id"]).getrandbits(128), version=4)
    labels = {"alertname": name, "service.name": svc, "severity": "page", "ruleId": rule,
              "team": SERVICES[svc][3], "deployment.environment.name": "production", "burn_rate": "%.2f" % spec["burn"]}
    ann = {"summary": "%s is burning its 30-day error budget %.1fx (1h window)" % (svc, spec["burn"]),
           "description": "Multi-window burn-rate rule (1h/5m) of %s; on-call: Riverside Valley Health clinical systems." % svc,
           "runbook": "https://wiki.rvh.local/display/CLINSYS/Runbook+%s" % svc}
    fp = hexid(random.Random("fp/" + spec["id"]), 16)
    return {"receiver": "clinsys-pagerduty", "status": "firing",
            "alerts": [{"status": "firing", "labels": labels, "annotations": ann, "startsAt": ts(at(day(spec, spec["alert_at"]))),
                        "endsAt": "0001-01-01T00:00:00Z",
                        "generatorURL": "https://signoz.rvh.local/alerts/edit?ruleId=%s" % rule, "fingerprint": fp}],
            "groupLabels": {"alertname": name}, "commonLabels": labels, "commonAnnotations": ann,
            "externalURL": "https://signoz.rvh.local", "version": "4",
            "groupKey": '{}:{alertname="%s"}' % name, "truncatedAlerts": 0}


def day(spec, hhmm):
    return spec.get("day", DAY) + hhmm


def write_incident(root, spec, tag):
    spec = dict(spec)
    for k in ("start", "now"):
        spec[k] = day(spec, spec[k])
    w = World(spec)
    w.run()
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    cls, verdict = spec["expect"]
    trap = verdict == "deny"
    tags = [tag, "hospital", "vm", "systemd", "ansible-rolling", "java-agent", "dotnet", "head-1-in-20"] + (
        ["trap"] if trap else ["deployment"])
    y = ["id: %s" % spec["id"], "title: %s" % json.dumps(spec["title"], ensure_ascii=False),
         "service: %s" % spec["service"], "now: %s" % ts(w.now), "expect:", "  root_cause: %s" % cls,
         "  verdict: %s" % verdict]
    if spec.get("culprit"):
        y += ["  culprit:", "    service: %s" % spec["culprit"][0], "    verdict: %s" % spec["culprit"][1]]
    y.append("tags: [%s]" % ", ".join(tags))
    if spec.get("sandbox"):
        y.append("sandbox_services: [%s]" % ", ".join(spec["sandbox"]))
    write_text(folder, "incident.yaml", "\n".join(y) + "\n")
    write_text(folder, "alert.json", json.dumps(alert(spec), indent=2, ensure_ascii=False) + "\n")
    rel = ["project: rvh-clinical-logistics", "services:"]
    for svc, rows in spec["releases"].items():
        rel.append("  %s:" % svc)
        for row in rows:
            ver, b = row[0], row[1]
            when_ = (at(b) if "T" in b else at(day(spec, b))) if b else w.start - 9 * 86400 * S
            rel += ["    - version: %s" % ver,
                    "      image: %s/%s/%s/%s-%s.%s" % (NEXUS, svc, ver, svc, ver,
                                                        "jar" if SERVICES[svc][0] == "java" else "tar.gz"),
                    "      deployed_at: %s" % ts(when_)]
    write_text(folder, "releases.yaml", "\n".join(rel) + "\n")
    write_jsonl(folder, "spans.jsonl", w.spans)
    write_jsonl(folder, "logs.jsonl", w.logs)
    ex = {"root_cause": cls, "verdict": verdict, "onset": spec["onset"], "story": spec["story"],
          "sampling": "parent-based head sampling 1 in 20 at the roots of the Java services, every trace of the .NET ones (and the Java spans under them); logs unsampled",
          "history_minutes": (w.now - w.start) // MIN}
    write_text(folder, "expect.json", json.dumps(ex, indent=2, ensure_ascii=False) + "\n")
    return len(w.spans), len(w.logs)


def main():
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for spec in SPECS:
        if only and spec["id"] not in only:
            continue
        n, m = write_incident(HERE, spec, "heldout16")
        print("%s: %d spans, %d logs" % (spec["id"], n, m))


if __name__ == "__main__":
    main()
