#!/usr/bin/env python3
"""Writes e2e/incidents-heldout11 (and, with --twin DIR NAME..., harsher twins of its traps):
Lockerbay, a parcel-locker network run serverless on AWS Lambda in ap-south-1.

An API Gateway HTTP API (which emits no spans of its own) in front of Lambda functions in Node 20,
Python 3.12 and Java 21 with SnapStart, each instrumented by the ADOT (OpenTelemetry) Lambda layer;
SQS, EventBridge and Step Functions triggers; DynamoDB, SES, IoT and Bedrock through the AWS SDK
instrumentation (rpc.system aws-api). Releases are Lambda versions published and shifted behind the
alias `live` by CodeDeploy (Canary10Percent5Minutes, Linear10PercentEvery1Minute, AllAtOnce), so two
versions serve at once with weights; a CodeDeploy lifecycle hook writes the deployment.marker.
Node functions set service.version from package.json; Python and Java functions carry only
faas.version (the Lambda version number), and their releases.yaml names that number.

Sampling is X-Ray style, decided at the trace's entry: the first request of every second (the
1 req/s reservoir) and 5% of the rest; logs (CloudWatch, forwarded) are not sampled.
Timestamps: RFC 3339 with nanoseconds in Nepal time, +05:45, everywhere.

Deterministic: every draw comes from random.Random seeded from SEED and the incident's id, so a run
writes the same bytes every time, whatever PYTHONHASHSEED. Files over 3 MB are written as
*.jsonl.gz with no name and mtime 0.
Usage: python3 gen.py                      (the corpus, next to this file)
       python3 gen.py --twin DIR NAME...   (twins; names in TWINS)
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

SEED = 111150
HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1000 * 1000
S = 1000 * MS
MIN = 60 * S
GZIP_OVER = 3 * 1024 * 1024
TZ = timezone(timedelta(hours=5, minutes=45))
DAY = "2026-12-16"
ACCOUNT = "482113907561"
REGION = "ap-south-1"


def ts(ns):
    """RFC 3339 with nanoseconds at +05:45."""
    sec, frac = divmod(ns, S)
    return datetime.fromtimestamp(sec, TZ).strftime("%Y-%m-%dT%H:%M:%S") + ".%09d+05:45" % frac


def at(s):
    """'HH:MM[:SS]' local (+05:45) on DAY, in ns."""
    parts = s.split(":")
    if len(parts) == 2:
        parts.append("00")
    d = datetime.strptime(DAY + "T" + ":".join(parts), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=TZ)
    return int(d.timestamp()) * S


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


def lognorm(rng, median, sigma):
    return median * math.exp(rng.gauss(0, sigma))


def arn(fn, qual=None):
    base = "arn:aws:lambda:%s:%s:function:%s" % (REGION, ACCOUNT, fn)
    return base + (":" + qual if qual else "")


RUNTIME = {
    "node": {"telemetry.sdk.language": "nodejs", "telemetry.sdk.name": "opentelemetry",
             "telemetry.sdk.version": "1.30.1", "process.runtime.name": "nodejs",
             "process.runtime.version": "20.18.1", "telemetry.distro.name": "aws-otel-nodejs"},
    "python": {"telemetry.sdk.language": "python", "telemetry.sdk.name": "opentelemetry",
               "telemetry.sdk.version": "1.29.0", "process.runtime.name": "cpython",
               "process.runtime.version": "3.12.8", "telemetry.distro.name": "aws-otel-python"},
    "java": {"telemetry.sdk.language": "java", "telemetry.sdk.name": "opentelemetry",
             "telemetry.sdk.version": "1.45.0", "process.runtime.name": "OpenJDK Runtime Environment",
             "process.runtime.version": "21.0.5+11-LTS", "telemetry.distro.name": "aws-otel-java"},
}
# function -> (runtime, memory MB, handler span name, trigger)
FN = {
    "locker-api": ("node", 1024, "locker-api", "http"),
    "booking-fn": ("python", 512, "booking.handler.lambda_handler", "http"),
    "label-svc": ("java", 2048, "label-svc", "http"),
    "dispatch-worker": ("python", 768, "dispatch-queue process", "pubsub"),
    "notify-fn": ("node", 512, "notify-fn", "pubsub"),
    "assist-fn": ("python", 1024, "assist.app.handler", "http"),
    "ops-digest": ("python", 1024, "ops_digest.handler", "other"),
    "bank-import": ("python", 1024, "bank_import.handler", "other"),
}
PARTNER = "api.yeti-express.example"


class Version:
    def __init__(self, fn, num, semver=None):
        self.fn, self.num, self.semver = fn, str(num), semver

    @property
    def name(self):
        return self.semver or self.num


class World:
    def __init__(self, iid, start, now):
        self.iid, self.start, self.now = iid, start, now
        self.rng = random.Random(int(hashlib.sha256(("%d:%s" % (SEED, iid)).encode()).hexdigest()[:16], 16))
        self.spans, self.logs = [], []
        self.envs = {}
        self.releases = {}
        self.p = {}

    def hexid(self, n):
        return "%0*x" % (n * 2, self.rng.getrandbits(n * 8))

    def uuid(self):
        h = self.hexid(16)
        return "%s-%s-4%s-a%s-%s" % (h[:8], h[8:12], h[13:16], h[17:20], h[20:32])

    def resource(self, ver, inst):
        rt, mem, _, _ = FN[ver.fn]
        r = {"service.name": ver.fn}
        if ver.semver:
            r["service.version"] = ver.semver
        r.update({"cloud.provider": "aws", "cloud.platform": "aws_lambda", "cloud.region": REGION,
                  "cloud.account.id": ACCOUNT, "faas.name": ver.fn, "faas.version": ver.num,
                  "faas.instance": inst, "faas.max_memory": mem * 1024 * 1024,
                  "deployment.environment.name": "prod"})
        r.update(RUNTIME[rt])
        return r

    def instance(self, ver, t, cold):
        key = (ver.fn, ver.num)
        pool = self.envs.setdefault(key, [])
        if cold or not pool:
            inst = "2026/12/16/[%s]%s" % (ver.num, self.hexid(16))
            pool.append(inst)
            if len(pool) > 40:
                pool.pop(0)
            return inst, cold
        return self.rng.choice(pool), False

    def span(self, t, dur, name, kind, res, attrs, trace, parent="", err=False, msg=""):
        sid = self.hexid(8)
        self.spans.append((t, {"timestamp": ts(t), "trace_id": trace, "span_id": sid, "parent_span_id": parent,
                               "name": name, "kind": kind, "duration_nano": int(dur), "has_error": bool(err),
                               "status_code": 2 if err else 0, "status_message": msg if err else "",
                               "resource": res, "attributes": attrs}))
        return sid

    def log(self, t, sev, body, res, attrs, trace="", sid=""):
        num = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17}[sev]
        self.logs.append((t, {"timestamp": ts(t), "observed_timestamp": ts(t + 180 * MS + self.rng.randrange(90 * MS)),
                              "severity_text": sev, "severity_number": num, "body": body, "trace_id": trace,
                              "span_id": sid, "resource": res, "attributes": attrs}))

    def marker(self, t, ver, prev, config, hook="BeforeAllowTraffic", change="code"):
        res = {"service.name": ver.fn, "cloud.provider": "aws", "cloud.platform": "aws_lambda",
               "cloud.region": REGION, "faas.name": ver.fn, "faas.version": ver.num}
        if ver.semver:
            res["service.version"] = ver.semver
        dep = "d-" + "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(9))
        attrs = {"deployment.version": ver.name, "deployment.previous_version": prev.name,
                 "deployment.id": dep, "deployment.environment.name": "prod",
                 "aws.codedeploy.deployment_config": config, "aws.codedeploy.lifecycle_hook": hook,
                 "aws.lambda.alias": "live", "aws.lambda.target_version": ver.num,
                 "aws.lambda.current_version": prev.num, "deployment.change": change}
        self.span(t, 40 * MS, "deployment.marker", 1, res, attrs, self.hexid(16))

    def release(self, ver, t):
        self.releases.setdefault(ver.fn, []).append(
            {"version": ver.name, "image": arn(ver.fn, ver.num), "deployed_at": ts(t)})


def weights_fn(old, new, t0, config):
    """The alias's routing over time for a CodeDeploy deployment config starting at t0."""
    def w(t):
        if t < t0:
            return [(old, 1.0)]
        if config == "AllAtOnce":
            return [(new, 1.0)]
        if config == "Canary10Percent5Minutes":
            return [(old, 0.9), (new, 0.1)] if t < t0 + 5 * MIN else [(new, 1.0)]
        if config == "Linear10PercentEvery1Minute":
            k = min(10, 1 + (t - t0) // MIN)
            return [(new, 1.0)] if k >= 10 else [(old, 1 - k / 10), (new, k / 10)]
        raise ValueError(config)
    return w


def pick(rng, ws):
    x = rng.random()
    for v, p in ws:
        x -= p
        if x <= 0:
            return v
    return ws[-1][0]


class Call:
    """A child span: an AWS SDK or HTTP client call."""
    def __init__(self, name, dur, attrs, err=False, msg="", kind=3, gap=2 * MS, children=None):
        self.name, self.dur, self.attrs, self.err, self.msg, self.kind, self.gap = name, dur, attrs, err, msg, kind, gap
        self.children = children or []


def ddb(rng, op, table, ms=6.0, err=None, status=200):
    a = {"rpc.system": "aws-api", "rpc.service": "DynamoDB", "rpc.method": op,
         "aws.dynamodb.table_names": '["%s"]' % table, "cloud.region": REGION,
         "server.address": "dynamodb.%s.amazonaws.com" % REGION, "aws.request_id": "%032X" % rng.getrandbits(128),
         "http.response.status_code": status if not err else 400}
    if op in ("Query", "Scan"):
        a["aws.dynamodb.consistent_read"] = False
        a["aws.dynamodb.count"] = rng.randint(1, 12)
    if err:
        a["error.type"] = err
    return Call("DynamoDB.%s" % op, lognorm(rng, ms, 0.35) * MS, a, err=bool(err), msg=err or "")


def awscall(rng, svc, op, ms, host, err=None, status=200):
    a = {"rpc.system": "aws-api", "rpc.service": svc, "rpc.method": op, "cloud.region": REGION,
         "server.address": host, "aws.request_id": w_uuid(rng),
         "http.response.status_code": status}
    if err:
        a["error.type"] = err
    return Call("%s.%s" % (svc, op), lognorm(rng, ms, 0.3) * MS, a, err=bool(err), msg=err or "")


def w_uuid(rng):
    h = "%032x" % rng.getrandbits(128)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


class Out:
    def __init__(self, route=None, status=200, err=False, msg="", calls=None, attrs=None, extra_ms=0.0,
                 logs=None, base_ms=8.0):
        self.route, self.status, self.err, self.msg = route, status, err, msg
        self.calls, self.attrs, self.extra_ms, self.logs = calls or [], attrs or {}, extra_ms, logs or []
        self.base_ms = base_ms


# ---------------------------------------------------------------- handlers: one per function
# Each takes (world, t, version, rng) and returns an Out; scenario knobs live in world.p.

def h_locker(w, t, v, rng):
    p = w.p
    x = rng.random()
    if x < 0.5:
        route, method = "/lockers/{lockerId}", "GET"
        calls = [ddb(rng, "GetItem", "lockers", 5)]
    elif x < 0.75:
        route, method = "/lockers/{lockerId}/open", "POST"
        calls = [ddb(rng, "UpdateItem", "lockers", 8),
                 awscall(rng, "EventBridge", "PutEvents", 14, "events.%s.amazonaws.com" % REGION)]
    else:
        route, method = "/sites/{siteId}/availability", "GET"
        calls = [ddb(rng, "Query", "lockers", 11)]
    o = Out(route, 200, calls=calls, base_ms=9)
    o.attrs = {"http.request.method": method, "http.route": route}
    bug = p.get("locker_bug")
    if bug and v.num == bug[0] and route == bug[1] and rng.random() < bug[2]:
        o.status, o.err = 500, True
        o.msg = "TypeError: Cannot read properties of undefined (reading 'slotCode')"
        o.calls = calls[:1]
        o.logs.append(("ERROR", "Invoke Error {\"errorType\":\"TypeError\",\"errorMessage\":\"Cannot read "
                       "properties of undefined (reading 'slotCode')\",\"stack\":[\"TypeError: Cannot read "
                       "properties of undefined (reading 'slotCode')\",\"    at resolveSlot (/var/task/dist/open.js:88:31)\"]}"))
    return o


def h_booking(w, t, v, rng):
    p = w.p
    x = rng.random()
    if x < 0.35:
        route, method = "/bookings", "POST"
        calls = [ddb(rng, "GetItem", "lockers", 5), ddb(rng, "PutItem", "bookings", 9),
                 ddb(rng, "PutItem", "payment-holds", 8)]
    elif x < 0.8:
        route, method = "/bookings/{bookingId}", "GET"
        calls = [ddb(rng, "GetItem", "bookings", 5)]
    else:
        route, method = "/bookings/{bookingId}", "DELETE"
        calls = [ddb(rng, "DeleteItem", "bookings", 8),
                 awscall(rng, "SQS", "SendMessage", 12, "sqs.%s.amazonaws.com" % REGION)]
    o = Out(route, 200 if method != "POST" else 201, calls=calls, base_ms=14)
    o.attrs = {"http.request.method": method, "http.route": route}
    cfg = p.get("holds_table")
    if cfg and v.num == cfg and route == "/bookings" and method == "POST":
        c = ddb(rng, "PutItem", "payment-holds-v2", 4, err="ResourceNotFoundException")
        o.calls = calls[:2] + [c]
        o.status, o.err, o.msg = 500, True, "ResourceNotFoundException: Requested resource not found"
        o.logs.append(("ERROR", "[ERROR] ResourceNotFoundException: An error occurred (ResourceNotFoundException) "
                       "when calling the PutItem operation: Requested resource not found (table payment-holds-v2)"))
    hot = p.get("hot")
    if hot and t >= hot[0] and method in ("POST", "DELETE"):
        share = hot[1] * ramp(t, hot[0], hot[0] + 60 * S)
        if rng.random() < share:
            # the hot key: a write to bank#KTM-021 throttled after the SDK's retries
            op = "PutItem" if method == "POST" else "DeleteItem"
            c = ddb(rng, op, "bookings", 40, err="ProvisionedThroughputExceededException")
            c.dur += lognorm(rng, 380, 0.3) * MS
            c.attrs["aws.dynamodb.partition_key"] = "bank#KTM-021"
            o.calls = (calls[:1] if method == "POST" else []) + [c]
            o.status, o.err = 503, True
            o.msg = "ProvisionedThroughputExceededException: The level of configured provisioned throughput for the table was exceeded"
            o.logs.append(("ERROR", "[ERROR] ProvisionedThroughputExceededException: An error occurred "
                           "(ProvisionedThroughputExceededException) when calling the %s operation (reached max "
                           "retries: 3): The level of configured provisioned throughput for the table was exceeded. "
                           "Consider increasing your provisioning level with the UpdateTable API." % op))
        elif rng.random() < share:
            for c in o.calls:
                if c.attrs.get("rpc.method") in ("PutItem", "DeleteItem", "GetItem"):
                    c.dur += lognorm(rng, 160, 0.4) * MS
    return o


def partner_call(rng, attempt, dur_ms, status, err, timeout=False):
    a = {"http.request.method": "POST", "url.full": "https://%s/v2/shipments" % PARTNER,
         "server.address": PARTNER, "server.port": 443, "network.protocol.version": "1.1"}
    if attempt:
        a["http.request.resend_count"] = attempt
    if timeout:
        a["error.type"] = "java.net.http.HttpTimeoutException"
        return Call("POST", dur_ms * MS, a, err=True, msg="HttpTimeoutException: request timed out")
    a["http.response.status_code"] = status
    if status >= 500:
        a["error.type"] = str(status)
    return Call("POST", dur_ms * MS, a, err=err)


def h_label(w, t, v, rng):
    p = w.p
    x = rng.random()
    if x < 0.7:
        route, method = "/labels", "POST"
    else:
        route, method = "/labels/{labelId}", "GET"
        o = Out(route, 200, calls=[ddb(rng, "GetItem", "labels", 6)], base_ms=7)
        o.attrs = {"http.request.method": method, "http.route": route}
        return o
    timeout_ms, attempts = 2000.0, 2
    rs = p.get("retry")
    if rs and v.num == rs[0]:
        timeout_ms, attempts = rs[1], rs[2]
    load = p.get("partner_load", lambda t: 1.0)(t)
    out = p.get("outage")
    calls, ok, status = [], False, 502
    for i in range(attempts):
        lat = lognorm(rng, 330 * load, 0.45)
        fail503 = out and t >= out[0] and rng.random() < out[1] * ramp(t, out[0], out[0] + 45 * S)
        if fail503 and rng.random() < 0.35:
            calls.append(partner_call(rng, i, min(lat * 8, timeout_ms), 0, True, timeout=lat * 8 >= timeout_ms))
            if lat * 8 < timeout_ms:
                calls[-1] = partner_call(rng, i, lat * 8, 504, True)
            continue
        if fail503:
            calls.append(partner_call(rng, i, lognorm(rng, 40, 0.3), 503, True))
            continue
        if lat >= timeout_ms:
            calls.append(partner_call(rng, i, timeout_ms, 0, True, timeout=True))
            continue
        calls.append(partner_call(rng, i, lat, 201, False))
        ok = True
        break
    if ok:
        calls.append(ddb(rng, "PutItem", "labels", 7))
        o = Out(route, 201, calls=calls, base_ms=12)
    else:
        o = Out(route, 502, err=True, calls=calls, base_ms=12,
                msg="CarrierUnavailableException: yeti-express shipment create failed after %d attempts" % attempts)
        o.logs.append(("ERROR", "ERROR c.l.label.CarrierClient - shipment create failed after %d attempts: %s"
                       % (attempts, calls[-1].msg or "HTTP %s" % calls[-1].attrs.get("http.response.status_code"))))
    if len(calls) > 1:
        o.logs.append(("WARN", "WARN c.l.label.CarrierClient - retrying POST /v2/shipments (attempt %d of %d)"
                       % (len(calls), attempts)))
    o.attrs = {"http.request.method": method, "http.route": route}
    return o


def h_dispatch(w, t, v, rng):
    """An SQS batch: one CONSUMER span, per message an UpdateItem and an IoT publish."""
    p = w.p
    n = p.get("batch", lambda t: rng.randint(1, 4))(t)
    calls, failed = [], 0
    bug = p.get("dispatch_bug")
    redrive = p.get("redrive")
    for i in range(n):
        stale = redrive and t >= redrive[0] and rng.random() < redrive[1]
        if bug and v.num == bug[0] and rng.random() < bug[1]:
            failed += 1
            continue
        if stale:
            calls.append(ddb(rng, "UpdateItem", "bookings", 9, err="ConditionalCheckFailedException"))
            failed += 1
            continue
        calls.append(ddb(rng, "UpdateItem", "bookings", 8))
        iot_err = None
        if redrive and t >= redrive[0] and rng.random() < redrive[2]:
            iot_err = "ThrottlingException"
        calls.append(awscall(rng, "IotDataPlane", "Publish", 18, "data-ats.iot.%s.amazonaws.com" % REGION,
                             err=iot_err, status=429 if iot_err else 200))
        if iot_err:
            failed += 1
    o = Out(None, 0, calls=calls, base_ms=6)
    o.attrs = {"messaging.system": "aws_sqs", "messaging.operation.type": "process",
               "messaging.operation.name": "process", "messaging.destination.name": "dispatch-queue",
               "messaging.batch.message_count": n,
               "messaging.destination.address": "https://sqs.%s.amazonaws.com/%s/dispatch-queue" % (REGION, ACCOUNT),
               "lockerbay.batch.failed_items": failed}
    if failed:
        o.err = True
        o.msg = "%d of %d messages reported as batchItemFailures" % (failed, n)
        if bug and v.num == bug[0]:
            o.logs.append(("ERROR", "[ERROR] KeyError: 'locker_size' Traceback (most recent call last): "
                           "File \"/var/task/dispatch/handler.py\", line 61, in _process record['body']['locker_size']"))
        elif redrive:
            o.logs.append(("WARN", "[WARNING] %d of %d records failed: ConditionalCheckFailedException/ThrottlingException" % (failed, n)))
    return o


def h_notify(w, t, v, rng):
    p = w.p
    kinds = ["ParcelDeposited", "ParcelCollected", "LockerExpired", "PaymentCaptured"]
    kind = kinds[min(3, int(rng.random() * 4))]
    calls = [ddb(rng, "GetItem", "bookings", 5),
             awscall(rng, "SESv2", "SendEmail", 60, "email.%s.amazonaws.com" % REGION)]
    o = Out(None, 0, calls=calls, base_ms=10)
    o.attrs = {"messaging.system": "aws.eventbridge", "messaging.destination.name": "lockerbay-bus",
               "lockerbay.event.detail_type": kind}
    bug = p.get("notify_bug")
    if bug and v.num == bug[0] and kind == "LockerExpired" and rng.random() < bug[1]:
        o.calls = calls[:1]
        o.err, o.msg = True, "TypeError: Cannot read properties of undefined (reading 'code')"
        o.logs.append(("ERROR", "ERROR Invoke Error {\"errorType\":\"TypeError\",\"errorMessage\":\"Cannot read "
                       "properties of undefined (reading 'code')\",\"stack\":[\"    at renderExpiry "
                       "(/var/task/templates/expiry.js:14:42)\"]}"))
    return o


MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"


def bedrock(rng, inp, outp, finish, err=None, extra_ms=0.0):
    a = {"gen_ai.system": "aws.bedrock", "gen_ai.operation.name": "chat", "gen_ai.request.model": MODEL,
         "gen_ai.response.model": MODEL, "rpc.system": "aws-api", "rpc.service": "BedrockRuntime",
         "rpc.method": "Converse", "cloud.region": REGION,
         "server.address": "bedrock-runtime.%s.amazonaws.com" % REGION, "gen_ai.request.max_tokens": 512}
    if err:
        a["error.type"] = err
        a["http.response.status_code"] = 429
        return Call("chat %s" % MODEL, (lognorm(rng, 90, 0.3) + extra_ms) * MS, a, err=True,
                    msg="ThrottlingException: Too many tokens, please wait before trying again.")
    a.update({"gen_ai.usage.input_tokens": inp, "gen_ai.usage.output_tokens": outp,
              "gen_ai.response.finish_reasons": '["%s"]' % finish, "http.response.status_code": 200})
    dur = 350 + 9.5 * outp + 0.08 * inp + extra_ms
    return Call("chat %s" % MODEL, lognorm(rng, dur, 0.15) * MS, a)


def h_assist(w, t, v, rng):
    p = w.p
    prompt = p.get("prompt_of", {}).get(v.num, "assist-v7")
    if prompt == "assist-v8":
        inp = int(lognorm(rng, 1180, 0.12))
        outp = int(min(512, lognorm(rng, 410, 0.25)))
        grounded = rng.random() > 0.41
    else:
        inp = int(lognorm(rng, 1870, 0.12))
        outp = int(min(512, lognorm(rng, 175, 0.3)))
        grounded = rng.random() > 0.04
    finish = "max_tokens" if outp >= 512 else "end_turn"
    thr = p.get("bedrock_throttle")
    err = None
    if thr and t >= thr[0] and rng.random() < thr[1] * ramp(t, thr[0], thr[0] + 40 * S):
        err = "ThrottlingException"
    calls = [ddb(rng, "Query", "bookings", 9), bedrock(rng, inp, outp, finish, err=err)]
    o = Out("/assist", 200, calls=calls, base_ms=22)
    o.attrs = {"http.request.method": "POST", "http.route": "/assist", "assist.prompt.template": prompt}
    if err:
        o.status, o.err = 503, True
        o.msg = "ThrottlingException: Too many tokens, please wait before trying again."
        o.logs.append(("ERROR", "[ERROR] ThrottlingException: An error occurred (ThrottlingException) when calling "
                       "the Converse operation (reached max retries: 4): Too many tokens, please wait before trying again."))
    else:
        o.attrs["assist.answer.grounded"] = grounded
        o.attrs["assist.answer.chars"] = outp * 4 + rng.randint(0, 40)
    return o


def h_opsdigest(w, t, v, rng):
    calls = []
    for _ in range(rng.randint(3, 6)):
        calls.append(bedrock(rng, int(lognorm(rng, 14000, 0.2)), int(lognorm(rng, 480, 0.1)), "end_turn"))
    o = Out(None, 0, calls=calls, base_ms=30)
    o.attrs = {"aws.step_functions.state_machine": "ops-digest-monthly", "aws.step_functions.state": "SummariseSite"}
    return o


def h_bankimport(w, t, v, rng):
    calls = [ddb(rng, "BatchWriteItem", "bookings", 30) for _ in range(rng.randint(4, 8))]
    for c in calls:
        c.attrs["aws.dynamodb.partition_key"] = "bank#KTM-021"
    o = Out(None, 0, calls=calls, base_ms=15)
    o.attrs = {"aws.step_functions.state_machine": "bank-onboarding", "aws.step_functions.state": "ImportReservations"}
    return o


HANDLERS = {"locker-api": h_locker, "booking-fn": h_booking, "label-svc": h_label, "dispatch-worker": h_dispatch,
            "notify-fn": h_notify, "assist-fn": h_assist, "ops-digest": h_opsdigest, "bank-import": h_bankimport}
INIT_MS = {"node": (420, 0.3), "python": (610, 0.3), "java": (240, 0.35)}  # java: SnapStart restore


def simulate(w, fn, rate, routing, cold_extra=lambda t, v: 0.0, slow=lambda t, v: 1.0, t0=None, t1=None):
    """Invocations of fn at rate(t) per second, routed by routing(t) -> [(Version, weight)]."""
    rng = w.rng
    rt, mem, sname, trig = FN[fn]
    handler = HANDLERS[fn]
    t0 = w.start if t0 is None else t0
    t1 = w.now if t1 is None else t1
    first_seen = {}
    for sec in range(t0 // S, t1 // S):
        base = sec * S
        lam = rate(base)
        n = poisson(rng, lam)
        offs = sorted(rng.randrange(S) for _ in range(n))
        for i, off in enumerate(offs):
            t = base + off
            v = pick(rng, routing(t))
            # a version already serving when the history begins is warm
            first_seen.setdefault(v.num, t if t > w.start + 5 * S else t - 3600 * S)
            # cold starts: a trickle always, more while a version's environments are created
            age = (t - first_seen[v.num]) / S
            pc = 0.004 + 0.25 * math.exp(-age / 45.0) + cold_extra(t, v)
            inst, cold = w.instance(v, t, rng.random() < pc)
            sampled = i == 0 or rng.random() < 0.05
            o = handler(w, t, v, rng)
            res = w.resource(v, inst)
            init = lognorm(rng, *INIT_MS[rt]) if cold else 0.0
            trace = w.hexid(16) if sampled else ""
            inv = w.uuid()
            dur = (o.base_ms + o.extra_ms) * MS * slow(t, v)
            for c in o.calls:
                dur += c.gap + c.dur
            dur += init * MS
            attrs = {"faas.trigger": trig, "faas.invocation_id": inv, "faas.coldstart": cold,
                     "cloud.resource_id": arn(fn), "aws.lambda.invoked_arn": arn(fn, "live")}
            if trig == "http":
                attrs.update({"url.path": o.attrs.get("http.route", "/").replace("{lockerId}", "L-%05d" % rng.randrange(40000))
                              .replace("{bookingId}", "B-%07d" % rng.randrange(9999999))
                              .replace("{labelId}", "LB-%06d" % rng.randrange(999999))
                              .replace("{siteId}", "KTM-%03d" % rng.randrange(80)),
                              "url.scheme": "https", "http.response.status_code": o.status,
                              "user_agent.original": rng.choice(["Lockerbay/5.2.1 (Android 14)", "Lockerbay/5.2.0 (iOS 18.1)",
                                                                 "lockerbay-kiosk/2.4"]),
                              "client.address": "27.34.%d.%d" % (rng.randrange(256), rng.randrange(256))})
            attrs.update(o.attrs)
            if init:
                attrs["faas.init_duration_ms"] = round(init, 2)
            kind = 2 if trig == "http" else (5 if trig == "pubsub" else 2)
            if sampled:
                root = w.span(t, dur, sname, kind, res, attrs, trace, err=o.err, msg=o.msg)
                ct = t + int(init * MS) + 3 * MS
                for c in o.calls:
                    ct += int(c.gap)
                    w.span(ct, c.dur, c.name, c.kind, res, c.attrs, trace, root, err=c.err, msg=c.msg)
                    ct += int(c.dur)
            else:
                root = ""
            for sev, body in o.logs:
                w.log(t + int(dur) - 2 * MS, sev, body, res, {"aws.lambda.request_id": inv,
                                                              "faas.invocation_id": inv}, trace, root)
            if cold:
                w.log(t + int(dur), "INFO", "REPORT RequestId: %s Duration: %.2f ms Billed Duration: %d ms Memory Size: %d MB "
                      "Max Memory Used: %d MB Init Duration: %.2f ms%s" % (
                          inv, dur / MS - init, int(dur / MS - init) + 1, mem, int(mem * 0.22 + rng.randrange(40)), init,
                          "\tRestore Duration: %.2f ms" % init if rt == "java" else ""),
                      res, {"aws.lambda.request_id": inv, "faas.coldstart": True})


def steady(r):
    return lambda t: r


def scale(r, t0, t1, k):
    """rate r, multiplied by k between t0 and t1 (ramping over 40 s)."""
    return lambda t: r * (1 + (k - 1) * ramp(t, t0, t0 + 40 * S) * (1 if t < t1 else 0))


# ---------------------------------------------------------------- incidents

def alert_json(fn, name, starts, burn, summary, desc, severity="critical"):
    labels = {"alertname": name, "service.name": fn, "severity": severity, "team": "lockers",
              "cloud.region": REGION, "faas.name": fn, "deployment.environment.name": "prod"}
    ann = {"summary": summary, "description": desc, "slo_burn_rate": "%.1f" % burn,
           "runbook": "https://wiki.lockerbay.example/runbooks/%s" % name.lower()}
    fp = hashlib.sha1((fn + name + ts(starts)).encode()).hexdigest()[:16]
    return {"receiver": "lockerbay-opsgenie", "status": "firing",
            "alerts": [{"status": "firing", "labels": labels, "annotations": ann, "startsAt": ts(starts),
                        "endsAt": "0001-01-01T00:00:00Z",
                        "generatorURL": "https://signoz.lockerbay.example/alerts/history?ruleName=%s" % name,
                        "fingerprint": fp}],
            "groupLabels": {"alertname": name}, "commonLabels": labels, "commonAnnotations": ann,
            "externalURL": "https://signoz.lockerbay.example", "version": "4",
            "groupKey": "{}:{alertname=\"%s\"}" % name, "truncatedAlerts": 0}


INCIDENTS = []


def incident(fn):
    INCIDENTS.append(fn)
    return fn


def deploy(w, fn, old, new, t_old, t0, config, change="code"):
    w.release(old, t_old)
    w.release(new, t0)
    w.marker(t0, new, old, config, change=change)
    return weights_fn(old, new, t0, config)


def others(w, *fns):
    """Releases of the project's other functions (nothing recent)."""
    base = {"locker-api": Version("locker-api", 57, "4.12.3"), "booking-fn": Version("booking-fn", 41),
            "label-svc": Version("label-svc", 19), "dispatch-worker": Version("dispatch-worker", 33),
            "notify-fn": Version("notify-fn", 22, "3.1.4"), "assist-fn": Version("assist-fn", 14)}
    for f in fns:
        if f not in w.releases:
            w.release(base[f], at("09:12:40") - 3 * 24 * 60 * MIN + w.rng.randrange(60 * MIN))


@incident
def canary_locker(p):
    """bad_release, allow: locker-api 4.13.0 breaks POST /lockers/{id}/open under a 10% canary, then all."""
    iid = "lb11-canary-slotcode-locker-api"
    t0 = at("10:31:12") + 417 * MS
    w = World(iid, at("09:50"), at("10:44"))
    old, new = Version("locker-api", 57, "4.12.3"), Version("locker-api", 58, "4.13.0")
    route = deploy(w, "locker-api", old, new, at("08:02"), t0, "Canary10Percent5Minutes")
    w.p["locker_bug"] = ("58", "/lockers/{lockerId}/open", 0.62)
    simulate(w, "locker-api", steady(6.0), route)
    others(w, "booking-fn", "notify-fn")
    return w, dict(fn="locker-api", title="locker-api 4.13.0 (Lambda version 58) throws on POST /lockers/{lockerId}/open "
                   "for lockers without a slot code: 10% canary for 5 minutes, then all traffic",
                   cls="bad_release", verdict="deny" if False else "allow", onset=t0, starts=t0 + 8 * MIN,
                   alert=("LockerApiErrorBudgetBurn", 9.4, "locker-api 5xx burn 9.4x", "5xx of locker-api over the 1h window"),
                   tags=["canary", "node20", "service-version"],
                   story="CodeDeploy Canary10Percent5Minutes shifts 10% of the alias live to version 58 at 10:31:12; "
                         "58 throws TypeError on 62% of POST /lockers/{lockerId}/open (lockers without a slot code). "
                         "After 5 minutes all traffic moves to 58 and the errors grow tenfold. Version 57 was clean.")


@incident
def config_booking(p):
    iid = "lb11-env-holds-table-booking-fn"
    t0 = at("14:07:40") + 88 * MS
    w = World(iid, at("13:20"), at("14:23"))
    old, new = Version("booking-fn", 41), Version("booking-fn", 42)
    route = deploy(w, "booking-fn", old, new, at("07:40"), t0, "Linear10PercentEvery1Minute", change="configuration")
    w.p["holds_table"] = "42"
    simulate(w, "booking-fn", steady(5.0), route)
    others(w, "locker-api", "dispatch-worker")
    return w, dict(fn="booking-fn", title="booking-fn version 42 publishes only an environment change "
                   "(PAYMENT_HOLDS_TABLE=payment-holds-v2, a table that does not exist in ap-south-1): POST /bookings "
                   "fails, shifted 10% a minute", cls="config_regression", verdict="allow", onset=t0,
                   starts=t0 + 9 * MIN, alert=("BookingFnErrors", 6.2, "booking-fn error burn 6.2x",
                                              "booking-fn 5xx, 1h window"),
                   tags=["linear", "python312", "faas-version-only", "env-var"],
                   story="Version 42 has the same code as 41 and one environment variable changed: the payment holds "
                         "table name points to a table never created in ap-south-1. Only POST /bookings writes holds; "
                         "its PutItem fails ResourceNotFoundException. Linear10PercentEvery1Minute moves 10% more of "
                         "the traffic each minute. Python functions carry no service.version: only faas.version 42.")


@incident
def prompt_assist(p):
    iid = "lb11-prompt-v8-assist-fn"
    t0 = at("16:45:03") + 902 * MS
    w = World(iid, at("16:00"), at("17:01"))
    old, new = Version("assist-fn", 14), Version("assist-fn", 15)
    route = deploy(w, "assist-fn", old, new, at("06:55"), t0, "AllAtOnce")
    w.p["prompt_of"] = {"14": "assist-v7", "15": "assist-v8"}
    simulate(w, "assist-fn", steady(2.6), route)
    others(w, "booking-fn")
    return w, dict(fn="assist-fn", title="assist-fn version 15 ships prompt assist-v8 (drops the booking context "
                   "block): on Bedrock input tokens fall, output tokens more than double, ungrounded answers 4% -> 41%, "
                   "HTTP 200 throughout", cls="prompt_regression", verdict="allow", onset=t0, starts=t0 + 7 * MIN,
                   alert=("AssistUngroundedAnswers", 5.1, "assist-fn ungrounded answers 41%",
                          "share of assist answers with assist.answer.grounded=false over 10m"),
                   tags=["allatonce", "python312", "faas-version-only", "bedrock", "gen_ai", "http-200"],
                   story="Version 15 replaces prompt assist-v7 with assist-v8, which drops the booking context block: "
                         "gen_ai.usage.input_tokens 1870 -> 1180, output tokens 175 -> 410 (more max_tokens stops), "
                         "assist.answer.grounded false 4% -> 41%. No error, latency up with the longer answers.")


@incident
def retry_label(p):
    iid = "lb11-carrier-timeout-retries-label-svc"
    t0 = at("12:18:26") + 310 * MS
    w = World(iid, at("11:30"), at("12:33"))
    old, new = Version("label-svc", 19), Version("label-svc", 20)
    route = deploy(w, "label-svc", old, new, at("05:30"), t0, "AllAtOnce")
    w.p["retry"] = ("20", 420.0, 6)
    # the partner slows under the retries it receives
    w.p["partner_load"] = lambda t: 1.0 + 0.9 * ramp(t, t0, t0 + 120 * S)
    simulate(w, "label-svc", steady(3.2), route)
    others(w, "locker-api")
    return w, dict(fn="label-svc", title="label-svc version 20 cuts the carrier client's timeout 2 s -> 420 ms and "
                   "raises attempts 2 -> 6: one HTTP client span per attempt (http.request.resend_count), the carrier "
                   "slows under them, 502s", cls="retry_storm", verdict="allow", onset=t0, starts=t0 + 6 * MIN,
                   alert=("LabelSvcErrorBudgetBurn", 8.0, "label-svc 5xx burn 8.0x", "label-svc 5xx over 1h"),
                   tags=["allatonce", "java21", "snapstart", "faas-version-only", "resend-count"],
                   story="Version 20 sets the carrier HttpClient timeout to 420 ms with 6 attempts; the carrier's "
                         "median is 330 ms with a long tail, so a third of first attempts time out and are resent; "
                         "the carrier slows under about 3x the calls and more attempts fail. Version 19 (2 s, 2 "
                         "attempts) was clean.")


@incident
def sqs_bug(p):
    iid = "lb11-keyerror-batch-dispatch-worker"
    t0 = at("19:22:51") + 64 * MS
    w = World(iid, at("18:40"), at("19:36"))
    old, new = Version("dispatch-worker", 33), Version("dispatch-worker", 34)
    route = deploy(w, "dispatch-worker", old, new, at("03:10"), t0, "AllAtOnce")
    w.p["dispatch_bug"] = ("34", 0.3)
    simulate(w, "dispatch-worker", steady(2.2), route)
    others(w, "booking-fn", "locker-api")
    return w, dict(fn="dispatch-worker", title="dispatch-worker version 34 reads record['locker_size'], absent from "
                   "kiosk-created bookings: 30% of SQS messages fail and are reported as batchItemFailures",
                   cls="bad_release", verdict="allow", onset=t0, starts=t0 + 7 * MIN,
                   alert=("DispatchWorkerBatchFailures", 7.3, "dispatch-worker failing batches",
                          "dispatch-worker invocations with batch item failures, 30m"),
                   tags=["allatonce", "python312", "faas-version-only", "sqs", "consumer-only"],
                   story="Version 34 indexes record['body']['locker_size'], which kiosk bookings lack (30% of "
                         "messages): the handler reports them as batchItemFailures; they return to the queue. "
                         "Version 33 did not read the field.")


@incident
def notify_bug(p):
    iid = "lb11-expiry-template-notify-fn"
    t0 = at("07:14:09") + 555 * MS
    w = World(iid, at("06:30"), at("07:27"))
    old, new = Version("notify-fn", 22, "3.1.4"), Version("notify-fn", 23, "3.2.0")
    route = deploy(w, "notify-fn", old, new, at("05:01"), t0, "Canary10Percent5Minutes")
    w.p["notify_bug"] = ("23", 0.9)
    simulate(w, "notify-fn", steady(3.0), route)
    others(w, "locker-api", "booking-fn")
    return w, dict(fn="notify-fn", title="notify-fn 3.2.0 (version 23) renders LockerExpired events with a template "
                   "that reads detail.locker.code: EventBridge invocations of that type fail, 10% canary then all",
                   cls="bad_release", verdict="allow", onset=t0, starts=t0 + 8 * MIN,
                   alert=("NotifyFnErrors", 6.6, "notify-fn invocation errors", "notify-fn errors, 1h"),
                   tags=["canary", "node20", "service-version", "eventbridge", "consumer-only"],
                   story="3.2.0's expiry template reads detail.locker.code, which LockerExpired events do not carry: "
                         "90% of those (a quarter of all events) throw. Canary10Percent5Minutes: 10% of invocations "
                         "go to 23 for 5 minutes, then all.")


# ---------------- traps

@incident
def trap_surge(p):
    iid = "lb11-trap-coldstarts-surge-locker-api"
    t0 = at("18:02:30") + 201 * MS
    ts_ = t0 + p.get("gap", 190) * S
    w = World(iid, at("17:15"), at("18:17"))
    old, new = Version("locker-api", 58, "4.13.0"), Version("locker-api", 59, "4.13.1")
    route = deploy(w, "locker-api", old, new, at("10:40"), t0, "AllAtOnce")
    k = p.get("k", 4.5)
    rate = scale(5.0, ts_, w.now + MIN, k)

    def slow(t, v):
        return 1.0 + 1.8 * ramp(t, ts_, ts_ + 60 * S)

    def cold(t, v):
        return 0.12 * ramp(t, ts_, ts_ + 30 * S) * (1 - ramp(t, ts_ + 240 * S, ts_ + 420 * S))
    simulate(w, "locker-api", rate, route, cold_extra=cold, slow=slow)
    # API Gateway access logs: requests throttled at the function's reserved concurrency never invoke it
    rng = w.rng
    gw = {"service.name": "lockerbay-http-api", "cloud.provider": "aws", "cloud.platform": "aws_api_gateway",
          "cloud.region": REGION, "aws.apigateway.api_id": "k7x2pq91de", "aws.apigateway.stage": "$default"}
    for sec in range(ts_ // S, w.now // S):
        for _ in range(poisson(rng, 5.0 * k * 0.22 * ramp(sec * S, ts_ + 20 * S, ts_ + 80 * S))):
            t = sec * S + rng.randrange(S)
            w.log(t, "ERROR", json.dumps({"requestId": w.hexid(8), "routeKey": "GET /lockers/{lockerId}",
                                          "status": "503", "integrationStatus": "429",
                                          "integrationErrorMessage": "Rate Exceeded.",
                                          "errorType": "TooManyRequestsException",
                                          "responseLatency": str(rng.randint(3, 12))}, separators=(",", ":")),
                  gw, {"http.response.status_code": 503})
    others(w, "booking-fn")
    return w, dict(fn="locker-api", title="a push campaign sends the app's users to locker pickup at once 190 s after "
                   "locker-api 4.13.1: traffic x4.5, new environments cold-start, the reserved concurrency (60) "
                   "throttles (TooManyRequestsException at the API), p95 latency breaches",
                   cls="traffic_surge", verdict="deny", onset=ts_, starts=ts_ + 5 * MIN,
                   alert=("LockerApiLatencyP95", 7.7, "locker-api p95 latency 2.6 s", "p95 of locker-api over 10m"),
                   tags=["allatonce", "node20", "service-version", "cold-start", "throttling", "surge"],
                   story="4.13.1 (a logging dependency bump) goes AllAtOnce at 18:02:30; its cold starts after the "
                         "deploy pass in a minute. At 18:05:40 marketing's push notification lands: requests x4.5, "
                         "Lambda creates environments (cold starts, init 420 ms), the reserved concurrency throttles a "
                         "fifth of requests at the API, and warm invocations slow as DynamoDB reads queue. Version 58 "
                         "would meet the same crowd.")


@incident
def trap_hot(p):
    iid = "lb11-trap-hot-partition-booking-fn"
    t0 = at("13:41:05") + 772 * MS
    th = t0 + p.get("gap", 150) * S
    w = World(iid, at("12:55"), at("13:56"))
    old, new = Version("booking-fn", 42), Version("booking-fn", 43)
    route = deploy(w, "booking-fn", old, new, at("07:40"), t0, "AllAtOnce", change="configuration")
    w.p["hot"] = (th, p.get("share", 0.45))
    simulate(w, "booking-fn", steady(5.0), route)
    bi = Version("bank-import", 6)
    w.release(bi, at("08:00") - 2 * 24 * 60 * MIN)
    simulate(w, "bank-import", lambda t: 1.6, lambda t: [(bi, 1.0)], t0=th - 20 * S, t1=w.now)
    w.log(th - 21 * S, "INFO", json.dumps({"type": "ExecutionStarted", "stateMachine": "bank-onboarding",
                                           "input": {"bank": "KTM-021", "reservations": 182000}},
                                          separators=(",", ":")),
          {"service.name": "bank-onboarding", "cloud.provider": "aws", "cloud.platform": "aws_step_functions",
           "cloud.region": REGION}, {})
    others(w, "locker-api")
    return w, dict(fn="booking-fn", title="a bank's bulk reservation import (Step Functions, bank-import) writes "
                   "182k items under one partition key 150 s after booking-fn version 43 (a LOG_LEVEL change): "
                   "the hot partition throttles booking-fn's writes (ProvisionedThroughputExceededException)",
                   cls="dependency_outage", verdict="deny", onset=th, starts=th + 5 * MIN,
                   alert=("BookingFnErrors", 5.8, "booking-fn error burn 5.8x", "booking-fn 5xx, 1h window"),
                   tags=["allatonce", "python312", "faas-version-only", "env-var", "dynamodb", "hot-partition"],
                   story="Version 43 only changes LOG_LEVEL (a configuration release). The bank-onboarding state "
                         "machine starts an import of 182k reservations for bank KTM-021, all under partition key "
                         "bank#KTM-021 of table bookings; that partition exceeds its 1000 WCU and booking-fn's writes "
                         "to the same key are throttled after the SDK's retries. Version 42 writes the same keys.")


@incident
def trap_partner(p):
    iid = "lb11-trap-carrier-outage-label-svc"
    t0 = at("09:10:44") + 5 * MS
    to = t0 + p.get("gap", 200) * S
    w = World(iid, at("08:25"), at("09:27"))
    old, new = Version("label-svc", 20), Version("label-svc", 21)
    route = deploy(w, "label-svc", old, new, at("05:30"), t0, p.get("config", "Linear10PercentEvery1Minute"))
    w.p["outage"] = (to, p.get("share", 0.7))
    simulate(w, "label-svc", steady(3.2), route)
    others(w, "locker-api")
    return w, dict(fn="label-svc", title="the carrier yeti-express answers 503 and stalls (its status page: "
                   "'degraded shipment API') 200 s into label-svc version 21's linear shift: both versions fail alike",
                   cls="dependency_outage", verdict="deny", onset=to, starts=to + 5 * MIN,
                   alert=("LabelSvcErrorBudgetBurn", 9.9, "label-svc 5xx burn 9.9x", "label-svc 5xx over 1h"),
                   tags=["linear", "java21", "snapstart", "faas-version-only", "partner-outage"],
                   story="Version 21 (a Jackson bump) starts Linear10PercentEvery1Minute at 09:10:44. At 09:14:04 the "
                         "carrier's shipment API degrades: 503 on most calls, some stalls; versions 20 and 21, "
                         "serving side by side, fail alike. Rolling back changes nothing.")


@incident
def trap_redrive(p):
    iid = "lb11-trap-dlq-redrive-dispatch-worker"
    t0 = at("15:33:17") + 340 * MS
    tr = t0 + p.get("gap", 130) * S
    w = World(iid, at("14:50"), at("15:48"))
    old, new = Version("dispatch-worker", 34), Version("dispatch-worker", 35)
    route = deploy(w, "dispatch-worker", old, new, at("03:10"), t0, "AllAtOnce")
    k = p.get("k", 5.0)
    w.p["redrive"] = (tr, 0.32, 0.18)
    w.p["batch"] = lambda t: (10 if t >= tr and w.rng.random() < 0.85 else w.rng.randint(1, 4))
    simulate(w, "dispatch-worker", scale(2.2, tr, w.now + MIN, k), route,
             slow=lambda t, v: 1.0 + 0.6 * ramp(t, tr, tr + 60 * S))
    w.log(tr - 4 * S, "INFO", json.dumps({"eventSource": "sqs.amazonaws.com", "eventName": "StartMessageMoveTask",
                                          "userIdentity": {"arn": "arn:aws:sts::%s:assumed-role/OpsAdmin/pratima" % ACCOUNT},
                                          "requestParameters": {"sourceArn": "arn:aws:sqs:%s:%s:dispatch-dlq" % (REGION, ACCOUNT),
                                                                "destinationArn": "arn:aws:sqs:%s:%s:dispatch-queue" % (REGION, ACCOUNT)},
                                          "approximateNumberOfMessagesToMove": 41250}, separators=(",", ":")),
          {"service.name": "cloudtrail", "cloud.provider": "aws", "cloud.region": REGION}, {})
    others(w, "booking-fn")
    return w, dict(fn="dispatch-worker", title="an operator redrives 41k messages from the dead-letter queue 130 s "
                   "after dispatch-worker version 35: full batches, invocations x5, a third of the old messages fail "
                   "their booking condition and IoT publish throttles",
                   cls="traffic_surge", verdict="deny", onset=tr, starts=tr + 5 * MIN,
                   alert=("DispatchWorkerBatchFailures", 8.8, "dispatch-worker failing batches",
                          "dispatch-worker invocations with batch item failures, 30m"),
                   tags=["allatonce", "python312", "faas-version-only", "sqs", "redrive", "throttling"],
                   story="Version 35 (a boto3 bump) goes AllAtOnce at 15:33:17. At 15:35:27 an operator starts "
                         "StartMessageMoveTask from dispatch-dlq: 41k week-old messages arrive in full batches of 10; "
                         "a third fail ConditionalCheckFailedException (bookings long expired), the IoT publish rate "
                         "limit throttles. Version 34 would process the same messages the same way.")


@incident
def trap_pc(p):
    iid = "lb11-trap-provisioned-concurrency-locker-api"
    t0 = at("11:06:21") + 630 * MS
    tp = t0 + p.get("gap", 250) * S
    w = World(iid, at("10:20"), at("11:22"))
    old, new = Version("locker-api", 59, "4.13.1"), Version("locker-api", 60, "4.13.2")
    route = deploy(w, "locker-api", old, new, at("09:45"), t0, p.get("config", "AllAtOnce"))

    def cold(t, v):
        return -0.003 + p.get("cold", 0.38) * ramp(t, tp, tp + 30 * S) if t >= tp else -0.003

    def slow(t, v):
        return 1.0 + 0.25 * ramp(t, tp, tp + 60 * S)
    simulate(w, "locker-api", steady(5.5), route, cold_extra=cold, slow=slow)
    w.log(tp - 3 * S, "INFO", json.dumps({"eventSource": "lambda.amazonaws.com",
                                          "eventName": "PutProvisionedConcurrencyConfig20191130",
                                          "userIdentity": {"arn": "arn:aws:sts::%s:assumed-role/terraform-ci/atlantis" % ACCOUNT},
                                          "requestParameters": {"functionName": "locker-api", "qualifier": "live",
                                                                "provisionedConcurrentExecutions": 4}},
                                         separators=(",", ":")),
          {"service.name": "cloudtrail", "cloud.provider": "aws", "cloud.region": REGION}, {})
    others(w, "booking-fn")
    config = p.get("config", "AllAtOnce")
    return w, dict(fn="locker-api", title="a Terraform apply (a cost-cutting change) lowers locker-api's provisioned "
                   "concurrency on alias live 40 -> 4 %d s after locker-api 4.13.2's deployment (%s) began: %d%% of "
                   "invocations cold-start (init ~0.4 s), p95 latency breaches" % (
                       p.get("gap", 250), config, round(100 * p.get("cold", 0.38))),
                   cls="resource_saturation", verdict="deny", onset=tp, starts=tp + 5 * MIN,
                   alert=("LockerApiLatencyP95", 6.1, "locker-api p95 latency 1.1 s", "p95 of locker-api over 10m"),
                   tags=["allatonce", "node20", "service-version", "cold-start", "provisioned-concurrency"],
                   story="4.13.2 (a copy change) is deployed %s from 11:06:21 with the alias's provisioned "
                         "concurrency following it. %d s later atlantis applies PutProvisionedConcurrencyConfig 4 on "
                         "live: most invocations now land on on-demand environments, %d%% of them cold. Rolling back "
                         "to 59 keeps the alias's 4." % (config, p.get("gap", 250), round(100 * p.get("cold", 0.38))))


@incident
def trap_bedrock(p):
    iid = "lb11-trap-bedrock-quota-assist-fn"
    t0 = at("20:03:58") + 211 * MS
    tq = t0 + p.get("gap", 170) * S
    w = World(iid, at("19:20"), at("20:19"))
    old, new = Version("assist-fn", 15), Version("assist-fn", 16)
    route = deploy(w, "assist-fn", old, new, at("06:55"), t0, "AllAtOnce")
    w.p["prompt_of"] = {"15": "assist-v7", "16": "assist-v7"}
    w.p["bedrock_throttle"] = (tq, p.get("share", 0.45))
    simulate(w, "assist-fn", steady(2.6), route)
    od = Version("ops-digest", 3)
    w.release(od, at("09:00") - 5 * 24 * 60 * MIN)
    simulate(w, "ops-digest", lambda t: 1.2, lambda t: [(od, 1.0)], t0=tq - 25 * S, t1=w.now)
    others(w, "booking-fn")
    return w, dict(fn="assist-fn", title="the monthly ops-digest state machine (a Step Functions Map of 400 sites) "
                   "uses up the account's Bedrock on-demand tokens-per-minute quota 170 s after assist-fn version 16 "
                   "(a boto3 bump): ThrottlingException on Converse",
                   cls="dependency_outage", verdict="deny", onset=tq, starts=tq + 5 * MIN,
                   alert=("AssistFnErrors", 6.9, "assist-fn 5xx burn 6.9x", "assist-fn 5xx over 1h"),
                   tags=["allatonce", "python312", "faas-version-only", "bedrock", "gen_ai", "quota"],
                   story="Version 16 bumps boto3; the prompt is unchanged. At 20:06:48 the ops-digest Map state "
                         "starts summarising 400 sites with 14k-token prompts, exhausting the account's Claude 3.5 "
                         "Haiku tokens-per-minute quota: Converse answers ThrottlingException after botocore's "
                         "retries. Version 15 shares the quota.")


# ---------------- twins of the trap that was rolled back on main (harsher: the provisioned concurrency cut
# closer to the release, during a canary or a linear shift, or fewer cold starts)
TWINS = {
    "pc-canary": (trap_pc, {"gap": 330, "config": "Canary10Percent5Minutes"}, "lb11-twin-pc-canary-locker-api"),
    "pc-close": (trap_pc, {"gap": 50, "cold": 0.3}, "lb11-twin-pc-close-locker-api"),
    "pc-linear": (trap_pc, {"gap": 200, "config": "Linear10PercentEvery1Minute", "cold": 0.25}, "lb11-twin-pc-linear-locker-api"),
    "pc-small": (trap_pc, {"gap": 150, "cold": 0.16}, "lb11-twin-pc-small-locker-api"),
}


def dump_jsonl(path, rows):
    rows.sort(key=lambda r: (r[0], r[1]["span_id"] if "span_id" in r[1] else ""))
    data = "".join(json.dumps(r, separators=(",", ":"), sort_keys=False) + "\n" for _, r in rows).encode()
    if len(data) > GZIP_OVER:
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as g:
            g.write(data)
        with open(path + ".gz", "wb") as f:
            f.write(buf.getvalue())
        if os.path.exists(path):
            os.remove(path)
    else:
        with open(path, "w") as f:
            f.write(data.decode())
        if os.path.exists(path + ".gz"):
            os.remove(path + ".gz")


def yq(s):
    return json.dumps(s, ensure_ascii=False)


def write(outdir, w, m, iid=None):
    iid = iid or w.iid
    d = os.path.join(outdir, iid)
    os.makedirs(d, exist_ok=True)
    # the world's own id seeds its draws; a twin keeps its trap's id in the draws but is written under its own
    spans = [(t, dict(r)) for t, r in w.spans]
    logs = [(t, dict(r, span_id=r["span_id"])) for t, r in w.logs]
    dump_jsonl(os.path.join(d, "spans.jsonl"), spans)
    dump_jsonl(os.path.join(d, "logs.jsonl"), logs)
    name, burn, summary, desc = m["alert"]
    with open(os.path.join(d, "alert.json"), "w") as f:
        json.dump(alert_json(m["fn"], name, m["starts"], burn, summary, desc), f, indent=2)
        f.write("\n")
    now = m["starts"] + 2 * MIN + 30 * S
    assert now <= w.now, (iid, ts(now), ts(w.now))
    with open(os.path.join(d, "incident.yaml"), "w") as f:
        f.write("id: %s\n" % iid)
        f.write("title: %s\n" % yq(m["title"]))
        f.write("service: %s\n" % m["fn"])
        f.write("now: %s\n" % ts(now))
        f.write("expect:\n  root_cause: %s\n  verdict: %s\n" % (m["cls"], m["verdict"]))
        f.write("tags: [heldout11, lockerbay, aws-lambda, xray-sampling, %s]\n" % ", ".join(m["tags"]))
    with open(os.path.join(d, "releases.yaml"), "w") as f:
        f.write("project: lockerbay\nservices:\n")
        for fn, rels in w.releases.items():
            f.write("  %s:\n" % fn)
            for r in rels:
                f.write("    - version: \"%s\"\n      image: %s\n      deployed_at: %s\n" % (
                    r["version"], r["image"], r["deployed_at"]))
    with open(os.path.join(d, "expect.json"), "w") as f:
        json.dump({"root_cause": m["cls"], "verdict": m["verdict"],
                   "sampling": "X-Ray style at the entry: 1 request a second (reservoir) + 5% of the rest; logs unsampled",
                   "history_minutes": (now - w.start) // MIN, "onset": ts(m["onset"]), "story": m["story"]},
                  f, indent=2)
        f.write("\n")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--twin":
        out = args[1]
        for name in args[2:]:
            fn, params, iid = TWINS[name]
            w, m = fn(params)
            write(out, w, m, iid)
        return
    for fn in INCIDENTS:
        w, m = fn({})
        write(HERE, w, m)


if __name__ == "__main__":
    main()
