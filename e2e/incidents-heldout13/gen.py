#!/usr/bin/env python3
"""Generates e2e/incidents-heldout13: an agricultural co-op marketplace ("Lumen Rural") on on-premises VMs.

Run from this folder: `python3 gen.py` (writes every incident here) and `python3 gen.py --twins`
(writes ../incidents-heldout13-twins). Seeded (SEED below): byte for byte the same on every run,
whatever PYTHONHASHSEED (every draw comes from a random.Random seeded with a string, no set order is
used). Files over 3 MB are written gzip'd with no name and mtime 0.

Style (README.md): no Kubernetes, no cloud. Services are systemd units on VMs in one São Paulo
datacentre (host.name app-vm-0N.gru.lumen.lan ...), deployed by Capistrano (the Rails app: a
symlink switch and a phased puma restart on every VM at once, the git short SHA as the version and
NO service.version on its spans) and by Ansible (`serial: 1`, one VM after the other: deb package
versions 2.15.0-1 for the Go service, RPM versions 4.2.0-7.el9 for the Kotlin ones). HAProxy in
front (its logs only). The Rails app speaks the OLD HTTP semconv (http.method, http.status_code,
http.target) and names its server spans Controller#action; the Go and Kotlin services speak the
new one. PostgreSQL through PgBouncer (port 6432), Redis, OpenSearch, Kafka consumers, an LLM
feature against a self-hosted vLLM endpoint. The collector tail-samples: every trace with an error,
every trace slower than the policy's threshold, and a probabilistic share of the rest (per incident);
logs are not sampled. Timestamps in microseconds with a -03:00 offset.
"""
import gzip
import io
import json
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone

SEED = 130712
HERE = os.path.dirname(os.path.abspath(__file__))
US = 1000
MS = 1000 * US
S = 1000 * MS
MIN = 60 * S
BRT = timezone(timedelta(hours=-3))
DAY = "2026-12-07T"
DC = "gru.lumen.lan"


def ts(ns):
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, BRT).strftime("%Y-%m-%dT%H:%M:%S") + ".%06d-03:00" % (frac // US)


def at(s):
    if "T" not in s:
        s = DAY + s
    base, _, frac = s.partition(".")
    d = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=BRT)
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


# ---------------------------------------------------------------- services, hosts, resources

RUNTIME = {
    "rails": {"telemetry.sdk.language": "ruby", "telemetry.sdk.name": "opentelemetry",
              "telemetry.sdk.version": "1.5.0", "process.runtime.name": "ruby",
              "process.runtime.version": "3.3.6", "process.runtime.description": "ruby 3.3.6 (2024-11-05 revision 75015d4c1f) [x86_64-linux]"},
    "go": {"telemetry.sdk.language": "go", "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": "1.32.0",
           "process.runtime.name": "go", "process.runtime.version": "go1.23.4"},
    "kotlin": {"telemetry.sdk.language": "java", "telemetry.sdk.name": "opentelemetry",
               "telemetry.sdk.version": "1.44.1", "telemetry.distro.name": "opentelemetry-java-instrumentation",
               "telemetry.distro.version": "2.10.0", "process.runtime.name": "OpenJDK Runtime Environment",
               "process.runtime.version": "21.0.5+11-LTS"},
}
# service -> (runtime, host prefix, VM count, how it is released)
SERVICES = {
    "portal": ("rails", "app-vm", 4, "capistrano"),
    "portal-sidekiq": ("rails", "worker-vm", 2, "capistrano"),
    "ledger": ("go", "ledger-vm", 3, "ansible-deb"),
    "catalog": ("go", "search-app-vm", 3, "ansible-deb"),
    "advisor": ("go", "advisor-vm", 2, "ansible-deb"),
    "pricing": ("kotlin", "pricing-vm", 3, "ansible-rpm"),
    "settlement-consumer": ("kotlin", "kafka-worker-vm", 3, "ansible-rpm"),
}


def resource(svc, host, version):
    rt, _, _, how = SERVICES[svc]
    r = {"service.name": svc, "host.name": "%s.%s" % (host, DC), "host.arch": "amd64", "os.type": "linux",
         "os.description": "Rocky Linux 9.5 (Blue Onyx)" if how == "ansible-rpm" else "Debian GNU/Linux 12 (bookworm)",
         "deployment.environment": "production", "service.namespace": "lumen"}
    if how != "capistrano":
        r["service.version"] = version  # the Rails app never sets it: only the marker names its SHA
    r.update(RUNTIME[rt])
    return r


def other(svc, host):
    """The resource of a log source that is not one of ours (pgbouncer, journald, kafka, opensearch)."""
    return {"service.name": svc, "host.name": "%s.%s" % (host, DC), "deployment.environment": "production"}


class World:
    def __init__(self, spec):
        self.spec = spec
        self.id = spec["id"]
        self.rng = random.Random("%d/%s" % (SEED, self.id))
        self.start, self.now = at(spec["start"]), at(spec["now"])
        self.keep_p, self.slow_ms = spec["keep"], spec.get("slow_ms", 2000)
        self.spans, self.logs = [], []
        self.fx = spec.get("fx", lambda w, t, svc, host, ver, op: None)
        self.rel = {}  # svc -> list of (version, switch time per host)
        self.hosts = {}
        for svc, versions in spec["releases"].items():
            _, prefix, n, how = SERVICES[svc]
            self.hosts[svc] = ["%s-%02d" % (prefix, i + 1) for i in range(n)]
            rows = []
            for version, when, stagger in versions:
                if when is None:
                    rows.append((version, None, [0] * n))
                else:
                    b = at(when)
                    rows.append((version, b, [b + int(i * stagger * S) for i in range(n)]))
            self.rel[svc] = rows

    def version(self, svc, host, t):
        i = self.hosts[svc].index(host)
        cur = self.rel[svc][0][0]
        for version, b, per in self.rel[svc][1:]:
            if t >= per[i]:
                cur = version
        return cur

    def pick(self, svc, t):
        return self.hosts[svc][self.rng.randrange(len(self.hosts[svc]))]

    def log(self, t, res, sev, body, trace="", span="", attrs=None):
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17, "FATAL": 21}[sev]
        self.logs.append({"timestamp": ts(t), "observed_timestamp": ts(t + 3 * MS), "severity_text": sev,
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
            for version, b, per in rows[1:]:
                if b is not None and b < self.now:
                    marker(self, svc, version, prev, b)
                prev = version
        self.spans.sort(key=lambda r: (r["timestamp"], r["trace_id"], r["span_id"]))
        self.logs.sort(key=lambda r: (r["timestamp"], r["body"]))


def marker(w, svc, version, prev, b):
    rng = w.rng
    how = SERVICES[svc][3]
    host = w.hosts[svc][0]
    attrs = {"deployment.version": version, "deployment.previous_version": prev,
             "deployment.environment": "production"}
    if how == "capistrano":
        attrs.update({"deployment.id": "cap-%s-%s" % (svc, datetime.fromtimestamp(b // S, BRT).strftime("%Y%m%d%H%M%S")),
                      "capistrano.stage": "production", "capistrano.release_path": "/srv/%s/releases/%s" % (
                          svc, datetime.fromtimestamp(b // S, BRT).strftime("%Y%m%d%H%M%S")),
                      "vcs.ref.head.revision": version, "deployment.strategy": "symlink+phased-restart"})
    else:
        attrs.update({"deployment.id": "awx-job-%d" % (18000 + rng.randrange(4000)),
                      "ansible.playbook": "deploy-%s.yml" % svc, "ansible.serial": 1,
                      "package.name": svc, "package.manager": "dnf" if how == "ansible-rpm" else "apt"})
    res = resource(svc, host, version)
    w.spans.append({"timestamp": ts(b), "trace_id": hexid(rng, 32), "span_id": hexid(rng, 16),
                    "parent_span_id": "", "name": "deployment.marker", "kind": 1, "duration_nano": 40 * MS,
                    "has_error": False, "status_code": 0, "status_message": "", "resource": res,
                    "attributes": attrs})


# ---------------------------------------------------------------- one request: a tree of spans

class Trace:
    def __init__(self, w, t, svc, host, ver):
        self.w, self.svc, self.host, self.ver = w, svc, host, ver
        self.id = hexid(w.rng, 32)
        self.rows = []
        self.logs = []
        self.res = resource(svc, host, ver)
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
    return [{"name": "exception", "timestamp": ts(t), "attributes": {"exception.type": typ, "exception.message": msg}}]


# Each op: (server span name, route/target, method) and its children; a child is (kind, args).
OPS = {
    ("portal", "FazendasController#show"): ("GET", "/fazendas/:id", [("pg", "SELECT", "fazendas"), ("redis", "GET"), ("pg", "SELECT", "lotes")]),
    ("portal", "PedidosController#create"): ("POST", "/pedidos", [("pg", "SELECT", "produtos"), ("http", "pricing", "GET", "/api/prices/{sku}"), ("pg", "INSERT", "pedidos"), ("redis", "LPUSH")]),
    ("portal", "CatalogoController#index"): ("GET", "/catalogo", [("redis", "GET"), ("http", "catalog", "GET", "/v1/search")]),
    ("portal", "NotasController#upload"): ("POST", "/notas", [("pg", "INSERT", "notas_fiscais"), ("file", "/srv/portal/shared/tmp/uploads")]),
    ("portal", "ConselhoController#ask"): ("POST", "/conselho", [("pg", "SELECT", "fazendas"), ("http", "advisor", "POST", "/v1/advice")]),
    ("ledger", "POST /v1/entries"): ("POST", "/v1/entries", [("pgx", "INSERT", "entries"), ("pgx", "UPDATE", "balances")]),
    ("ledger", "GET /v1/balances/{account}"): ("GET", "/v1/balances/{account}", [("redis", "GET"), ("pgx", "SELECT", "balances")]),
    ("catalog", "GET /v1/search"): ("GET", "/v1/search", [("os", "search", "produtos-v7")]),
    ("catalog", "GET /v1/products/{id}"): ("GET", "/v1/products/{id}", [("redis", "GET"), ("pgx", "SELECT", "produtos")]),
    ("advisor", "POST /v1/advice"): ("POST", "/v1/advice", [("os", "search", "manuais-agronomicos"), ("llm", "qwen2.5-14b-instruct")]),
    ("pricing", "GET /api/prices/{sku}"): ("GET", "/api/prices/{sku}", [("redis", "GET"), ("http", "rates", "GET", "/v2/cotacoes/{moeda}")]),
    ("pricing", "POST /api/quotes"): ("POST", "/api/quotes", [("pg", "SELECT", "tabelas_preco"), ("http", "ledger", "GET", "/v1/balances/{account}")]),
    ("settlement-consumer", "settlements process"): ("KAFKA", "settlements", [("pg", "INSERT", "liquidacoes"), ("http", "ledger", "POST", "/v1/entries")]),
}
PEERS = {"pricing": "pricing.service.%s:8443" % DC, "catalog": "catalog.service.%s:8080" % DC,
         "advisor": "advisor.service.%s:8090" % DC, "ledger": "ledger.service.%s:8081" % DC,
         "rates": "api.cotacoes.b3parceiros.com.br:443"}
BASE_MS = {"pg": 2.2, "pgx": 1.8, "redis": 0.5, "http": 28.0, "os": 35.0, "llm": 2300.0, "file": 3.0}


def child_attrs(tr, kind, args, status=None):
    old = SERVICES[tr.svc][0] == "rails"
    if kind in ("pg", "pgx"):
        op, table = args
        stmt = {"SELECT": "SELECT * FROM %s WHERE id = $1" % table, "INSERT": "INSERT INTO %s VALUES ($1,$2,$3)" % table,
                "UPDATE": "UPDATE %s SET amount = amount + $1 WHERE account_id = $2" % table}[op]
        a = {"db.system": "postgresql", "db.name": "lumen_production", "db.user": tr.svc.replace("-", "_")}
        if old:
            a.update({"db.statement": stmt, "net.peer.name": "pgbouncer-01.%s" % DC, "net.peer.port": 6432})
        else:
            a.update({"db.query.text": stmt, "db.operation.name": op, "db.collection.name": table,
                      "server.address": "pgbouncer-01.%s" % DC, "server.port": 6432})
        return "%s %s" % (op, "lumen_production.%s" % table if old else table), a
    if kind == "redis":
        a = {"db.system": "redis", "db.operation" if old else "db.operation.name": args[0]}
        a["net.peer.name" if old else "server.address"] = "redis-01.%s" % DC
        return args[0], a
    if kind == "http":
        peer, method, route = args
        host, port = PEERS[peer].rsplit(":", 1)
        if old:
            a = {"http.method": method, "http.url": "https://%s%s" % (host, route), "net.peer.name": host}
            if status:
                a["http.status_code"] = status
            return "HTTP %s" % method, a
        a = {"http.request.method": method, "url.full": "https://%s%s" % (host, route), "server.address": host,
             "server.port": int(port)}
        if status:
            a["http.response.status_code"] = status
        return method, a
    if kind == "os":
        return "%s %s" % (args[0], args[1]), {"db.system": "opensearch", "db.operation.name": args[0],
                                               "db.namespace": args[1], "server.address": "opensearch.%s" % DC,
                                               "server.port": 9200, "http.request.method": "POST",
                                               "url.full": "https://opensearch.%s:9200/%s/_search" % (DC, args[1])}
    if kind == "llm":
        return "chat %s" % args[0], {"gen_ai.system": "openai", "gen_ai.operation.name": "chat",
                                     "gen_ai.request.model": args[0], "gen_ai.response.model": args[0],
                                     "server.address": "vllm-gpu-01.%s" % DC, "server.port": 8000,
                                     "gen_ai.request.temperature": 0.2, "gen_ai.request.max_tokens": 700}
    if kind == "file":
        return "File.write", {"code.function": "write", "code.namespace": "ActiveStorage::Service::DiskService",
                              "file.directory": args[0]}
    raise ValueError(kind)


def request(w, t, svc, op):
    rng = w.rng
    host = w.pick(svc, t)
    ver = w.version(svc, host, t)
    f = w.fx(w, t, svc, host, ver, op) or {}
    tr = Trace(w, t, svc, host, ver)
    method, route, children = OPS[(svc, op)]
    root = hexid(rng, 16)
    cur = t + int(lognormal(rng, 0.6) * MS) + int(f.get("queue_ms", 0) * MS * rng.uniform(0.5, 1.5))
    status = 200 if method != "KAFKA" else None
    msg, exc = "", None
    root_attrs = dict(f.get("root_attrs", {}))
    for ci, (kind, *args) in enumerate(children):
        cf = f.get("child", {}).get(ci) or f.get("child", {}).get(kind) or {}
        attempts = 1 + cf.get("retries", 0)
        for a in range(attempts):
            dur = lognormal(rng, BASE_MS[kind] * cf.get("slow", 1.0) * f.get("slow", 1.0)) * MS
            failed = rng.random() < cf.get("err", 0.0)
            cstatus = None
            if kind == "http":
                cstatus = cf.get("status", 503) if failed else 200
            name, attrs = child_attrs(tr, kind, args, cstatus)
            attrs = dict(attrs)
            attrs.update(cf.get("attrs", {}) if not failed else cf.get("err_attrs", cf.get("attrs", {})))
            if attempts > 1 and a > 0:
                attrs["http.request.resend_count"] = a
            if failed and cf.get("timeout_ms"):
                dur = cf["timeout_ms"] * MS
            if kind == "llm" and "llm" in f:
                attrs.update(f["llm"](rng))
            k = {"pg": 3, "pgx": 3, "redis": 3, "http": 3, "os": 3, "llm": 3, "file": 1}[kind]
            cmsg = cf.get("msg", "") if failed else ""
            cerr = failed and cf.get("span_error", True)
            tr.span(root, name, k, cur, dur, attrs, err=cerr, msg=cmsg,
                    events=exc_event(cur + int(dur), cf.get("exc", "Error"), cmsg) if cerr and cf.get("exc") else None)
            cur += int(dur) + int(0.2 * MS)
            if not failed:
                break
        if failed and cf.get("fatal", True):
            status, msg, exc = f.get("status", cf.get("root_status", 500)), cf.get("root_msg", cmsg), cf.get("root_exc", cf.get("exc"))
            break
    if status != 500 and rng.random() < f.get("err", 0.0):
        status, msg, exc = f.get("status", 500), f.get("msg", ""), f.get("exc")
    cur += int(lognormal(rng, f.get("self_ms", 4.0)) * MS)
    dur = cur - t
    failed = (status or 0) >= 500 or (status is None and bool(msg))
    if svc == "settlement-consumer":
        attrs = {"messaging.system": "kafka", "messaging.operation.type": "process",
                 "messaging.destination.name": route, "messaging.consumer.group.name": "settlement-consumer",
                 "messaging.destination.partition.id": str(rng.randrange(12)),
                 "messaging.kafka.offset": 4810000 + rng.randrange(90000), "messaging.client.id": "consumer-settlement-%s" % host}
        name, kind = "%s process" % route, 5
    elif SERVICES[svc][0] == "rails":
        attrs = {"http.method": method, "http.target": route.replace(":id", str(rng.randrange(1, 90000))),
                 "http.route": route, "http.scheme": "http", "http.status_code": status, "http.host": "portal.lumen.coop.br",
                 "http.user_agent": "Mozilla/5.0 (Linux; Android 14) LumenRural/5.8", "code.namespace": op.split("#")[0],
                 "code.function": op.split("#")[1], "net.sock.peer.addr": "10.40.0.%d" % (11 + rng.randrange(2))}
        name, kind = op, 2
    else:
        attrs = {"http.request.method": method, "http.route": route, "url.path": route, "url.scheme": "http",
                 "http.response.status_code": status, "server.address": "%s.service.%s" % (svc, DC),
                 "network.peer.address": "10.40.0.%d" % (11 + rng.randrange(2))}
        name, kind = op, 2
    attrs.update(root_attrs)
    if "root_attr_fn" in f:
        attrs.update(f["root_attr_fn"](rng))
    tr.span("", name, kind, t, dur, attrs, err=failed, msg=msg if failed else "", sid=root,
            events=exc_event(t + dur, exc, msg) if failed and exc else None)
    if failed and f.get("log"):
        body = f["log"](rng, host) if callable(f["log"]) else f["log"]
        tr.logs.append((t + dur, "ERROR", body, root))
    for lt, sev, body, sid in tr.logs:
        w.log(lt, tr.res, sev, body, tr.id, sid)
    share = (int(tr.id[:16], 16) / 2 ** 64) < w.keep_p
    keep = share if w.spec.get("sampling") == "ratio" else (tr.err or dur >= w.slow_ms * MS or share)
    if keep:
        w.spans.extend(tr.rows)


# ---------------------------------------------------------------- the incidents

def when(w, t, a):
    return t >= at(a)


def I_portal_undefined_column(w, t, svc, host, ver, op):
    if svc == "portal" and ver == "e41b7d9" and op == "FazendasController#show":
        return {"child": {2: {"err": 0.62, "msg": 'PG::UndefinedColumn: ERROR:  column lotes.area_hectares does not exist\nLINE 1: SELECT "lotes"."area_hectares" FROM "lotes" WHERE ...',
                              "exc": "ActiveRecord::StatementInvalid", "span_error": True,
                              "root_msg": "PG::UndefinedColumn: ERROR:  column lotes.area_hectares does not exist"}},
                "log": lambda rng, h: 'ActiveRecord::StatementInvalid (PG::UndefinedColumn: ERROR:  column lotes.area_hectares does not exist) app/views/fazendas/_lotes.html.erb:14'}


def I_ledger_redis_tls(w, t, svc, host, ver, op):
    if svc == "ledger" and ver == "2.15.0-1" and op == "GET /v1/balances/{account}":
        return {"child": {0: {"err": 1.0, "msg": "tls: first record does not look like a TLS handshake", "exc": "*tls.RecordHeaderError",
                              "root_status": 503}},
                "log": lambda rng, h: 'level=error msg="balance cache unavailable" err="dial redis-01.gru.lumen.lan:6379: tls: first record does not look like a TLS handshake" config=/etc/ledger/ledger.toml'}


def I_advisor_prompt(w, t, svc, host, ver, op):
    if svc != "advisor":
        return None
    bad = ver == "2.4.0-1"
    def llm(rng):
        if bad:
            return {"gen_ai.usage.input_tokens": int(lognormal(rng, 2900, 0.15)), "gen_ai.usage.output_tokens": int(lognormal(rng, 120, 0.4)),
                    "gen_ai.response.finish_reasons": ["stop"]}
        return {"gen_ai.usage.input_tokens": int(lognormal(rng, 1700, 0.15)), "gen_ai.usage.output_tokens": int(lognormal(rng, 420, 0.3)),
                "gen_ai.response.finish_reasons": ["stop"]}
    def root(rng):
        if bad:
            lang = "en" if rng.random() < 0.71 else "pt-BR"
            grounded = rng.random() < 0.35
        else:
            lang = "pt-BR" if rng.random() < 0.985 else "en"
            grounded = rng.random() < 0.94
        return {"advisor.prompt.template": "conselho-%s" % ("v12" if bad else "v11"), "advisor.answer.language": lang,
                "advisor.answer.grounded": grounded, "advisor.answer.citations": (0 if not grounded else 1 + rng.randrange(3))}
    return {"llm": llm, "root_attr_fn": root}


def I_pricing_retry(w, t, svc, host, ver, op):
    if svc == "pricing" and ver == "4.3.0-1.el9" and op == "POST /api/quotes":
        return {"child": {1: {"retries": 5, "err": 0.55, "timeout_ms": 250, "status": None, "msg": "io.ktor.client.plugins.HttpRequestTimeoutException: Request timeout has expired [url=https://ledger.service.gru.lumen.lan:8081/v1/balances, request_timeout=250 ms]",
                              "exc": "io.ktor.client.plugins.HttpRequestTimeoutException", "root_status": 504,
                              "err_attrs": {"error.type": "io.ktor.client.plugins.HttpRequestTimeoutException"}}}}
    if svc == "ledger" and when(w, t, "10:21:40"):
        # the storm: ledger's balance reads triple and slow down
        return {"slow": 2.6, "queue_ms": 60}
    return None


def I_settlement_deser(w, t, svc, host, ver, op):
    if svc == "settlement-consumer" and ver == "7.9.0-2.el9":
        return {"err": 0.44, "status": None, "msg": "kotlinx.serialization.json.internal.JsonDecodingException: Unexpected JSON token at offset 211: Expected quotation mark '\"', but had '1' instead at path: $.valor_centavos",
                "exc": "kotlinx.serialization.json.internal.JsonDecodingException",
                "log": lambda rng, h: "ERROR c.l.settlement.SettlementListener - record skipped to settlements.DLT: JsonDecodingException at path $.valor_centavos (offset %d)" % (4810000 + rng.randrange(90000))}
    return None


# traps

def T_disk_full(w, t, svc, host, ver, op):
    if svc != "portal" or host != "app-vm-03":
        return None
    r = ramp(t, at("14:27:50"), at("14:28:40"))
    if op == "NotasController#upload":
        return {"child": {1: {"err": 0.97 * r, "msg": "Errno::ENOSPC: No space left on device @ io_write - /srv/portal/shared/tmp/uploads/%s" % "nfe.xml",
                              "exc": "Errno::ENOSPC"}}, "log": "Errno::ENOSPC (No space left on device @ io_write - /srv/portal/shared/log/production.log)"}
    if w.rng.random() < 0.58 * r:
        return {"err": 1.0, "msg": "Errno::ENOSPC: No space left on device @ io_write - /srv/portal/shared/tmp/cache/bootsnap",
                "exc": "Errno::ENOSPC", "log": "Errno::ENOSPC (No space left on device @ io_write - /srv/portal/shared/log/production.log)"}
    return None


def T_disk_full_logs(w):
    out = []
    for i, pct in enumerate([91, 94, 97, 99, 100, 100, 100]):
        out.append((at("14:22:00") + i * MIN, other("node-exporter", "app-vm-03"), "WARN" if pct < 100 else "ERROR",
                    "filesystem /srv (/dev/mapper/vg_app-lv_srv) %d%% used on app-vm-03: logrotate.service failed (status=1/FAILURE) since 2026-12-05" % pct))
    out.append((at("14:28:02"), other("journald", "app-vm-03"), "ERROR",
                "kernel: EXT4-fs warning (device dm-2): ext4_dx_add_entry: Directory index full! / No space left on device"))
    return out


def T_pgbouncer(w, t, svc, host, ver, op):
    if svc != "ledger" or not when(w, t, "09:41:30"):
        return None
    f = {"queue_ms": 400 * ramp(t, at("09:41:30"), at("09:42:30"))}
    f["child"] = {"pgx": {"err": 0.21, "timeout_ms": 5000, "msg": "ERROR: query_wait_timeout (SQLSTATE 08P01)",
                          "exc": "*pgconn.PgError", "root_status": 503}}
    f["log"] = lambda rng, h: 'level=error msg="entry write failed" err="ERROR: query_wait_timeout (SQLSTATE 08P01)" pool=pgbouncer-01:6432'
    return f


def T_pgbouncer_logs(w):
    res = other("pgbouncer", "pgbouncer-01")
    out = [(at("09:41:22"), other("ansible", "ops-ctl-01"), "INFO",
            "TASK [pgbouncer : template pgbouncer.ini] changed: [pgbouncer-01] (dba-team change CHG-88213: default_pool_size 60 -> 20 for lumen_production)"),
           (at("09:41:24"), res, "INFO", "LOG RELOAD command issued"),
           (at("09:41:24"), res, "INFO", "LOG lumen_production: default_pool_size=20 (was 60)")]
    for i in range(18):
        out.append((at("09:42:00") + i * 30 * S, res, "WARN", "LOG stats: %d xacts/s, cl_waiting=%d, sv_active=20, maxwait=%ds" % (900 + i * 7, 40 + i * 3, 4 + i % 3)))
    return out


def T_cert_expired(w, t, svc, host, ver, op):
    if svc == "pricing" and op == "GET /api/prices/{sku}" and t >= at("09:00:00.004"):
        return {"child": {1: {"err": 1.0, "status": None, "msg": "javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired",
                              "exc": "javax.net.ssl.SSLHandshakeException", "root_status": 502,
                              "err_attrs": {"error.type": "javax.net.ssl.SSLHandshakeException"}}},
                "log": lambda rng, h: "ERROR c.l.pricing.RatesClient - cotacoes unavailable: javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired (client certificate CN=pricing.lumen.coop.br, keystore /etc/pki/lumen/pricing-client.p12)"}
    return None


def T_cert_logs(w):
    return [(at("08:30:00"), other("cert-exporter", "pricing-vm-01"), "WARN",
             "x509 client certificate /etc/pki/lumen/pricing-client.p12 (CN=pricing.lumen.coop.br, issuer Lumen Internal CA G2) expires 2026-12-07T09:00:00-03:00 (in 30m)"),
            (at("09:00:00"), other("cert-exporter", "pricing-vm-01"), "ERROR",
             "x509 client certificate /etc/pki/lumen/pricing-client.p12 (CN=pricing.lumen.coop.br) EXPIRED at 2026-12-07T09:00:00-03:00; renewal role certmonger last ran 2026-11-06")]


def T_kafka_rebalance(w, t, svc, host, ver, op):
    if svc != "settlement-consumer" or not when(w, t, "16:12:10"):
        return None
    r = 1.0 - ramp(t, at("16:16:30"), at("16:19:00")) * 0.6
    return {"err": 0.33 * r, "status": None, "queue_ms": 900 * r,
            "msg": "org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group.",
            "exc": "org.apache.kafka.clients.consumer.CommitFailedException",
            "log": lambda rng, h: "WARN o.a.k.c.c.internals.ConsumerCoordinator - [Consumer clientId=consumer-settlement-%s, groupId=settlement-consumer] Request joining group due to: group is already rebalancing" % h}


def T_kafka_logs(w):
    out = []
    for i, b in enumerate(["kafka-broker-02", "kafka-broker-03"]):
        tt = at("16:11:55") + i * 150 * S
        out.append((tt, other("kafka", b), "INFO", "[KafkaServer id=%d] shutting down (controlled shutdown: ops rolling restart for CVE-2026-3311 patch, ticket OPS-4471)" % (i + 2)))
        out.append((tt + 20 * S, other("kafka", "kafka-broker-01"), "INFO",
                    "[GroupCoordinator 1]: Preparing to rebalance group settlement-consumer in state PreparingRebalance with old generation %d (__consumer_offsets-17) (reason: coordinator moved / leader broker %d restarted)" % (41 + i, i + 2)))
    return out


def T_opensearch(w, t, svc, host, ver, op):
    if svc == "catalog" and op == "GET /v1/search" and when(w, t, "11:07:30"):
        r = ramp(t, at("11:07:30"), at("11:08:10"))
        return {"child": {0: {"err": 0.48 * r, "slow": 9.0, "span_error": False, "fatal": True, "root_status": 502,
                              "err_attrs": {"db.response.status_code": "200", "opensearch.response.timed_out": True,
                                            "opensearch.shards.total": 6, "opensearch.shards.failed": 2},
                              "root_msg": "search: partial results (2 of 6 shards failed): refusing to serve an incomplete catalogue",
                              "msg": "", "root_exc": "catalog/search.ErrPartialResults"}},
                "log": lambda rng, h: 'level=error msg="search failed" err="partial results (2 of 6 shards failed)" index=produtos-v7 took_ms=1000 timed_out=true'}
    if svc == "catalog" and op == "GET /v1/search":
        return {"child": {0: {"attrs": {"db.response.status_code": "200", "opensearch.shards.total": 6, "opensearch.shards.failed": 0}}}}
    return None


def T_opensearch_logs(w):
    res = other("opensearch", "os-master-01")
    return [(at("11:07:12"), other("opensearch", "os-data-02"), "WARN",
             "[gc][young][88412] overhead, spent [14.2s] collecting in the last [14.9s]"),
            (at("11:07:26"), res, "INFO", "node-left[{os-data-02}{reason: followers check retry count exceeded}], term: 19, version: 88211"),
            (at("11:07:27"), res, "WARN", "Cluster health status changed from [GREEN] to [YELLOW] (reason: [{os-data-02} left]). 2 primary shards of [produtos-v7] relocating"),
            (at("11:13:40"), res, "INFO", "Cluster health status changed from [YELLOW] to [YELLOW] (reason: [shards started [[produtos-v7][4]]])")]


def T_cron(w, t, svc, host, ver, op):
    if svc != "portal" or not when(w, t, "18:00:00"):
        return None
    r = ramp(t, at("18:00:00"), at("18:01:30"))
    return {"slow": 1 + 3.5 * r, "queue_ms": 1900 * r, "self_ms": 4 + 400 * r, "err": 0.16 * r, "status": 503,
            "msg": "Rack::Timeout::RequestTimeoutException: Request waited 8012ms, then ran for longer than 15000ms",
            "exc": "Rack::Timeout::RequestTimeoutException",
            "log": lambda rng, h: "source=rack-timeout id=%s timeout=15000ms service=15001ms state=timed_out host=%s" % (hexid(rng, 8), h)}


def T_cron_logs(w):
    out = []
    for h in ["app-vm-01", "app-vm-02", "app-vm-03", "app-vm-04"]:
        out.append((at("18:00:00.1"), other("journald", h), "INFO",
                    "CRON[%d]: (deploy) CMD (cd /srv/portal/current && RAILS_ENV=production nice -n 0 bin/rake relatorios:fechamento_mensal)" % (30000 + len(out))))
        for i in range(8):
            out.append((at("18:01:00") + i * MIN, other("node-exporter", h), "WARN", "load average %.1f on 8 vCPUs; cpu steal 3%%; ruby (rake) 690%% CPU" % (22 + i * 0.7)))
    return out


def T_conntrack(w, t, svc, host, ver, op):
    if svc != "ledger" or host != "ledger-vm-02" or not when(w, t, "13:33:15"):
        return None
    return {"child": {"redis": {"err": 0.55, "timeout_ms": 3000, "msg": "dial tcp 10.40.8.21:6379: i/o timeout", "exc": "*net.OpError", "root_status": 503},
                      "pgx": {"err": 0.3, "timeout_ms": 5000, "msg": "failed to connect to `host=pgbouncer-01.gru.lumen.lan user=ledger database=lumen_production`: dial error (dial tcp 10.40.8.30:6432: i/o timeout)",
                              "exc": "*pgconn.ConnectError", "root_status": 503}},
            "log": lambda rng, h: 'level=error msg="request failed" err="dial tcp: i/o timeout" host=ledger-vm-02'}


def T_conntrack_logs(w):
    return [(at("13:33:12") + i * 20 * S, other("journald", "ledger-vm-02"), "WARN",
             "kernel: nf_conntrack: nf_conntrack: table full, dropping packet") for i in range(30)]


SPECS = [
    dict(id="pr13-portal-undefined-column", service="portal", start="10:00:00", now="11:12:00", keep=0.08,
         title="portal e41b7d9 reads lotes.area_hectares before the migration that adds it: FazendasController#show 500s",
         releases={"portal": [("9c03aa1", None, 0), ("e41b7d9", "11:02:30", 2)]},
         traffic=[("portal", "FazendasController#show", 150), ("portal", "PedidosController#create", 40),
                  ("portal", "CatalogoController#index", 70)], fx=I_portal_undefined_column, alert_at="11:06:00", burn=18.5,
         expect=("bad_release", "allow"), onset="11:03",
         story="Capistrano switched every app VM to e41b7d9 at 11:02:30 (phased puma restart, 2 s apart). The _lotes partial reads lotes.area_hectares; the migration that adds it is in the next release. 62% of farm pages 500 on every VM from the first request. Spans carry no service.version (the marker names the SHA)."),
    dict(id="pr13-ledger-redis-tls-config", service="ledger", start="13:00:00", now="14:08:00", keep=0.1,
         title="ledger 2.15.0-1 ships ledger.toml with redis tls = true against a plaintext Redis: every balance read 503s",
         releases={"ledger": [("2.14.3-1", None, 0), ("2.15.0-1", "13:58:10", 40)]},
         traffic=[("ledger", "GET /v1/balances/{account}", 120), ("ledger", "POST /v1/entries", 60)], fx=I_ledger_redis_tls,
         alert_at="14:02:00", burn=22.0, expect=("config_regression", "allow"), onset="13:58",
         story="Ansible serial:1 installs ledger 2.15.0-1 on ledger-vm-01 at 13:58:10, -02 at 13:58:50, -03 at 13:59:30; the package's /etc/ledger/ledger.toml turns on TLS to Redis, which speaks plaintext. Every balance read on an upgraded VM fails its Redis GET (tls: first record does not look like a TLS handshake) and 503s; entries (no cache) are fine."),
    dict(id="pr13-advisor-prompt-v12-english", service="advisor", start="08:00:00", now="09:15:00", keep=0.2,
         title="advisor 2.4.0-1 ships prompt template conselho-v12: answers come back in English and ungrounded, still 200",
         releases={"advisor": [("2.3.2-1", None, 0), ("2.4.0-1", "09:01:00", 45)]},
         traffic=[("advisor", "POST /v1/advice", 45)], fx=I_advisor_prompt, alert_at="09:08:00", burn=9.0,
         alert_name="AdvisorAnswerQuality", expect=("prompt_regression", "allow"), onset="09:01",
         story="advisor 2.4.0-1 moves the system prompt to template conselho-v12, which drops the 'answer in Brazilian Portuguese, cite the manual' lines: 71% of answers in English (1.5% before), grounded 35% (94% before), input tokens 1700 -> 2900, output 420 -> 120. Every answer is HTTP 200 from vLLM and from advisor."),
    dict(id="pr13-pricing-ktor-retry-storm", service="pricing", start="09:10:00", now="10:30:00", keep=0.1,
         title="pricing 4.3.0-1.el9 sets Ktor HttpRequestRetry maxRetries=5 with a 250 ms request timeout on ledger balance reads",
         releases={"pricing": [("4.2.0-7.el9", None, 0), ("4.3.0-1.el9", "10:21:00", 30)], "ledger": [("2.14.3-1", None, 0)]},
         traffic=[("pricing", "POST /api/quotes", 90), ("pricing", "GET /api/prices/{sku}", 60), ("ledger", "GET /v1/balances/{account}", lambda w, m0: 80 + 190 * ramp(m0, at("10:21:00"), at("10:23:00")))],
         fx=I_pricing_retry, alert_at="10:25:00", burn=14.0, expect=("retry_storm", "allow"), onset="10:21",
         story="pricing 4.3.0-1.el9 installs HttpRequestRetry(maxRetries=5, exponentialDelay off) with requestTimeoutMillis=250 on ledger's balance read; ledger's p50 is 28 ms but its tail crosses 250 ms once it is hit by 3x the calls; every retried attempt is its own client span with http.request.resend_count, quotes that exhaust the retries answer 504."),
    dict(id="pr13-settlement-json-decoding", service="settlement-consumer", start="15:00:00", now="16:14:00", keep=0.1,
         title="settlement-consumer 7.9.0-2.el9 decodes valor_centavos as a string: 44% of settlement records go to the DLT",
         releases={"settlement-consumer": [("7.8.4-1.el9", None, 0), ("7.9.0-2.el9", "16:03:20", 35)]},
         traffic=[("settlement-consumer", "settlements process", 140)], fx=I_settlement_deser, alert_at="16:08:00", burn=12.0,
         alert_name="SettlementConsumerErrors", expect=("bad_release", "allow"), onset="16:03",
         story="settlement-consumer 7.9.0-2.el9 changes the Settlement data class's valor_centavos to String; records from the legacy producer carry it as a number and fail to decode (44%), the listener sends them to settlements.DLT. Consumer spans only, no HTTP."),
    # traps
    dict(id="pr13-trap-disk-full-app-vm-03-portal", service="portal", start="13:20:00", now="14:34:00", keep=0.08,
         title="/srv fills on app-vm-03 (logrotate broken for two days) four minutes after Capistrano switched portal to 5d2e8f0",
         releases={"portal": [("e41b7d9", "2026-12-06T10:00:00", 0), ("5d2e8f0", "14:24:10", 2)]},
         traffic=[("portal", "FazendasController#show", 150), ("portal", "NotasController#upload", 40), ("portal", "PedidosController#create", 40)],
         fx=T_disk_full, extra_logs=T_disk_full_logs, alert_at="14:30:00", burn=11.0,
         expect=("resource_saturation", "deny"), onset="14:27",
         story="logrotate.service on app-vm-03 fails since Dec 5; /srv climbs 91% -> 100% from 14:22 (node-exporter's words). At 14:27:50 the filesystem is full: uploads and 58% of every request on app-vm-03 fail with Errno::ENOSPC. The three other app VMs run the same SHA 5d2e8f0 (switched at 14:24:10, 3.5 minutes before) cleanly. The spans carry no service.version and no service.instance.id: only host.name tells the VMs apart. Rolling back writes a new release directory onto the full disk."),
    dict(id="pr13-trap-pgbouncer-pool-cut-ledger", service="ledger", start="08:30:00", now="09:48:00", keep=0.1,
         title="the DBA team's Ansible run cuts PgBouncer's default_pool_size 60 -> 20 two minutes after ledger 2.16.0-1 finished rolling out",
         releases={"ledger": [("2.15.1-1", "2026-12-04T15:00:00", 0), ("2.16.0-1", "09:37:40", 40)]},
         traffic=[("ledger", "POST /v1/entries", 110), ("ledger", "GET /v1/balances/{account}", 90)],
         fx=T_pgbouncer, extra_logs=T_pgbouncer_logs, alert_at="09:44:00", burn=13.0,
         expect=("db_pool_exhaustion", "deny"), onset="09:41",
         story="ledger 2.16.0-1 (a structured-logging change) is installed on the three ledger VMs 09:37:40 - 09:39:00 and serves cleanly. At 09:41:22 the DBA team's Ansible run templates pgbouncer.ini (default_pool_size 60 -> 20) and reloads PgBouncer: clients queue (cl_waiting 40+), 21% of ledger's queries hit query_wait_timeout after 5 s and 503."),
    dict(id="pr13-trap-client-cert-expired-pricing", service="pricing", start="07:50:00", now="09:06:00", keep=0.1,
         title="pricing's mTLS client certificate for the B3 rates partner expires at 09:00:00; pricing 4.3.1-1.el9 was installed from 08:56:30",
         releases={"pricing": [("4.2.0-7.el9", "2026-12-02T11:00:00", 0), ("4.3.1-1.el9", "08:56:30", 40)]},
         traffic=[("pricing", "GET /api/prices/{sku}", 110), ("pricing", "POST /api/quotes", 50)],
         fx=T_cert_expired, extra_logs=T_cert_logs, alert_at="09:02:00", burn=25.0,
         expect=("config_regression", "deny"), onset="09:00",
         story="The client certificate pricing presents to api.cotacoes.b3parceiros.com.br (issued by the internal CA, renewed by certmonger, not by pricing's package) expires at 09:00:00 -03:00; certmonger's renewal last ran a month ago. pricing 4.3.1-1.el9 (a dependency bump) was installed on the three VMs 08:56:30 - 08:57:50 and its calls to the partner succeeded for two minutes. From 09:00:00 every handshake is refused (certificate_expired) and every price read 502s. A rollback presents the same expired certificate."),
    dict(id="pr13-trap-kafka-broker-restart-settlement", service="settlement-consumer", start="15:00:00", now="16:22:00", keep=0.1,
         title="ops' rolling restart of Kafka brokers 2 and 3 rebalances the settlement group four minutes after settlement-consumer 7.9.1-1.el9",
         releases={"settlement-consumer": [("7.8.4-1.el9", "2026-12-03T10:00:00", 0), ("7.9.1-1.el9", "16:06:40", 35)]},
         traffic=[("settlement-consumer", "settlements process", 140)], fx=T_kafka_rebalance, extra_logs=T_kafka_logs,
         alert_at="16:15:00", burn=8.0, alert_name="SettlementConsumerErrors", expect=("dependency_outage", "deny"), onset="16:12",
         story="settlement-consumer 7.9.1-1.el9 (the decoding fix) is installed 16:06:40 - 16:07:50 and processes cleanly. Ops restart Kafka brokers 2 and 3 for a CVE patch at 16:11:55 and 16:14:25: the group coordinator moves twice, the group rebalances, commits fail (CommitFailedException) on a third of records and processing waits ~0.9 s. It settles as the restarts end."),
    dict(id="pr13-trap-opensearch-yellow-catalog", service="catalog", start="10:00:00", now="11:14:00", keep=0.1,
         title="an OpenSearch data node leaves after a GC storm (cluster YELLOW): searches time out with 2 of 6 shards failed, HTTP 200; catalog 3.8.0-1 rolled out 3 minutes before",
         releases={"catalog": [("3.7.2-1", "2026-12-01T09:00:00", 0), ("3.8.0-1", "11:03:20", 40)]},
         traffic=[("catalog", "GET /v1/search", 160), ("catalog", "GET /v1/products/{id}", 80)],
         fx=T_opensearch, extra_logs=T_opensearch_logs, alert_at="11:10:00", burn=15.0,
         expect=("dependency_outage", "deny"), onset="11:07",
         story="catalog 3.8.0-1 (a facet ordering change) is installed 11:03:20 - 11:04:40. At 11:07:26 os-data-02 leaves the cluster after 14 s of GC; the cluster goes YELLOW and two primaries of produtos-v7 relocate. OpenSearch answers every search HTTP 200, but 48% of them with timed_out and 2 of 6 shards failed; catalog refuses partial results and answers 502. The OpenSearch client spans are not errors: the peer's failure is only in its response attributes and its latency (x9)."),
    dict(id="pr13-trap-month-close-cron-portal", service="portal", start="16:45:00", now="18:07:00", keep=0.08,
         title="the 18:00 month-close rake task saturates every app VM's CPU five minutes after portal 7a1c9e4",
         releases={"portal": [("5d2e8f0", "2026-12-07T14:40:00", 0), ("7a1c9e4", "17:55:00", 2)]},
         traffic=[("portal", "FazendasController#show", 150), ("portal", "PedidosController#create", 40), ("portal", "CatalogoController#index", 60)],
         fx=T_cron, extra_logs=T_cron_logs, alert_at="18:03:00", burn=10.0,
         expect=("resource_saturation", "deny"), onset="18:00",
         story="Capistrano switches portal to 7a1c9e4 (a copy change) at 17:55:00; it serves cleanly for five minutes. At 18:00 cron starts rake relatorios:fechamento_mensal on every app VM (the first business day of the month-close window): load 22 on 8 vCPUs, puma's request queue waits ~2 s, every action slows ~4x and 16% of requests hit Rack::Timeout (503)."),
    dict(id="pr13-trap-conntrack-ledger-vm-02", service="ledger", start="12:20:00", now="13:40:00", keep=0.1,
         title="ledger-vm-02's conntrack table fills: its calls to Redis and PgBouncer time out; ledger 2.16.1-1 was installed on it 95 s before",
         releases={"ledger": [("2.16.0-1", "2026-12-07T09:37:40", 0), ("2.16.1-1", "13:30:20", 60)]},
         traffic=[("ledger", "POST /v1/entries", 110), ("ledger", "GET /v1/balances/{account}", 90)],
         fx=T_conntrack, extra_logs=T_conntrack_logs, alert_at="13:36:00", burn=9.5,
         expect=("dependency_outage", "deny"), onset="13:33",
         story="Ansible installs ledger 2.16.1-1 one VM at a time, a minute apart: ledger-vm-01 at 13:30:20, -02 at 13:31:20, -03 at 13:32:20. At 13:33:12 ledger-vm-02's nf_conntrack table fills (a backup agent's connection leak; the kernel's own words in journald): its dials to Redis and PgBouncer time out; ledger-vm-01 and -03, same version, stay clean."),
]


# ---------------------------------------------------------------- the twins (README, "Twins")

def TW_cert_instant(w, t, svc, host, ver, op):
    # the certificate expires 70 s after the LAST VM was upgraded, on a 1-in-25 keep share
    if svc == "pricing" and op == "GET /api/prices/{sku}" and t >= at("09:00:00"):
        f = T_cert_expired(w, at("09:00:01"), svc, host, ver, op)
        f["child"][1]["msg"] = "javax.net.ssl.SSLHandshakeException: PKIX path validation failed: java.security.cert.CertificateExpiredException: NotAfter: Mon Dec 07 09:00:00 BRT 2026"
        return f
    return None


def TW_disk_full(w, t, svc, host, ver, op):
    # the same VM-confined disk, but the full filesystem hits 25 s after Capistrano's switch
    return T_disk_full(w, t + (at("14:27:50") - at("14:24:35")), svc, host, ver, op)


TWINS = [
    dict(SPECS[7], id="pr13tw-trap-cert-expired-ratio-pricing", fx=TW_cert_instant, keep=0.25, sampling="ratio",
         releases={"pricing": [("4.2.0-7.el9", "2026-12-02T11:00:00", 0), ("4.3.1-1.el9", "08:57:10", 20)]},
         title="the partner's intermediate certificate expires 70 s after pricing 4.3.1-1.el9's last VM; PKIX words; 1 in 4 by trace id, no tail policy",
         story="As pr13-trap-client-cert-expired-pricing, but the certificate that expires is the partner's intermediate (our truststore refuses it: CertificateExpiredException), the last VM was upgraded 70 s before 09:00, and the collector keeps 1 trace in 4 by trace id with no error or latency policy: the kept traffic is the traffic."),
    dict(SPECS[9], id="pr13tw-trap-opensearch-yellow-ratio-catalog", keep=0.25, sampling="ratio",
         title="OpenSearch YELLOW, partial results in HTTP 200 answers, catalog 3.8.0-1 three minutes before; 1 in 4 by trace id",
         story="As pr13-trap-opensearch-yellow-catalog, with the collector keeping 1 trace in 4 by trace id (no tail policy)."),
    dict(SPECS[6], id="pr13tw-trap-pgbouncer-pool-cut-ratio-ledger", keep=0.25, sampling="ratio",
         title="PgBouncer's pool cut by the DBA team two minutes after ledger 2.16.0-1; 1 in 4 by trace id",
         story="As pr13-trap-pgbouncer-pool-cut-ledger, with the collector keeping 1 trace in 4 by trace id (no tail policy)."),
    dict(SPECS[5], id="pr13tw-trap-disk-full-25s-ratio-portal", keep=0.2, sampling="ratio", fx=TW_disk_full,
         title="/srv full on app-vm-03 25 s after Capistrano switched portal to 5d2e8f0; 1 in 5 by trace id",
         story="As pr13-trap-disk-full-app-vm-03-portal, but the filesystem fills 25 s after the switch (14:24:35) and the collector keeps 1 trace in 5 by trace id (no tail policy)."),
]


# ---------------------------------------------------------------- files

def write_jsonl(folder, name, rows):
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=False, separators=(",", ":")) + "\n" for r in rows)
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
    name = spec.get("alert_name", "%sErrorBudgetBurn" % "".join(p.capitalize() for p in spec["service"].split("-")))
    labels = {"alertname": name, "service.name": spec["service"], "severity": "page", "deployment.environment": "production",
              "datacenter": "gru1", "burnRate": "%.1f" % spec["burn"]}
    ann = {"summary": "%s is burning its error budget" % spec["service"],
           "runbook": "https://wiki.lumen.lan/runbooks/%s" % spec["service"]}
    starts = ts(at(spec["alert_at"]))
    fp = hexid(random.Random("fp/" + spec["id"]), 16)
    return {"receiver": "lumen-oncall-pagerduty", "status": "firing",
            "alerts": [{"status": "firing", "labels": labels, "annotations": ann, "startsAt": starts,
                        "endsAt": "0001-01-01T00:00:00Z", "generatorURL": "https://signoz.lumen.lan/alerts/edit?ruleId=%d" % (300 + len(spec["id"])),
                        "fingerprint": fp}],
            "groupLabels": {"alertname": name}, "commonLabels": labels, "commonAnnotations": ann,
            "externalURL": "https://signoz.lumen.lan", "version": "4",
            "groupKey": '{}:{alertname="%s"}' % name, "truncatedAlerts": 0}


def artifact(svc, version):
    how = SERVICES[svc][3]
    if how == "capistrano":
        return "registry.lumen.lan/lumen/%s:%s" % (svc, version)
    return "registry.lumen.lan/lumen/%s:%s" % (svc, version.replace("~", "-"))


def write_incident(root, spec, tag):
    w = World(spec)
    w.run()
    folder = os.path.join(root, spec["id"])
    os.makedirs(folder, exist_ok=True)
    cls, verdict = spec["expect"]
    trap = verdict == "deny"
    tags = [tag, "lumen", "on-prem", "systemd", "vm", "tail-sampling"] + (["trap"] if trap else ["deployment"])
    y = ["id: %s" % spec["id"], "title: %s" % json.dumps(spec["title"], ensure_ascii=False),
         "service: %s" % spec["service"], "now: %s" % ts(w.now), "expect:", "  root_cause: %s" % cls,
         "  verdict: %s" % verdict, "tags: [%s]" % ", ".join(tags)]
    write_text(folder, "incident.yaml", "\n".join(y) + "\n")
    write_text(folder, "alert.json", json.dumps(alert(spec), indent=2, ensure_ascii=False) + "\n")
    rel = ["project: lumen", "services:"]
    for svc, rows in spec["releases"].items():
        rel.append("  %s:" % svc)
        for version, b, _ in rows:
            when_ = at(b) if b else w.start - 9 * 86400 * S
            rel += ['    - version: "%s"' % version, "      image: %s" % artifact(svc, version),
                    "      deployed_at: %s" % ts(when_)]
    write_text(folder, "releases.yaml", "\n".join(rel) + "\n")
    write_jsonl(folder, "spans.jsonl", w.spans)
    write_jsonl(folder, "logs.jsonl", w.logs)
    ex = {"root_cause": cls, "verdict": verdict,
          "sampling": ("collector probabilistic sampling by trace id only (no tail policy), %g%%; logs unsampled" % (100 * w.keep_p)
                       if spec.get("sampling") == "ratio" else
                       "collector tail sampling: every error trace, every trace over %d ms, %g%% of the rest; logs unsampled" % (w.slow_ms, 100 * w.keep_p)),
          "history_minutes": (w.now - w.start) // MIN, "onset": spec["onset"], "story": spec["story"]}
    write_text(folder, "expect.json", json.dumps(ex, indent=2, ensure_ascii=False) + "\n")
    return len(w.spans), len(w.logs)


def main():
    twins = "--twins" in sys.argv
    root = os.path.join(HERE, "..", "incidents-heldout13-twins") if twins else HERE
    os.makedirs(root, exist_ok=True)
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    for spec in (TWINS if twins else SPECS):
        if only and spec["id"] not in only:
            continue
        n, m = write_incident(root, spec, "heldout13")
        print("%s: %d spans, %d logs" % (spec["id"], n, m))


if __name__ == "__main__":
    main()
