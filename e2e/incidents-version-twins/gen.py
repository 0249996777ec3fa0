#!/usr/bin/env python3
"""Writes e2e/incidents-version-twins: twins of e2e/incidents-heldout4's
ho4-typeerror-link-platform-account-portal where the failure is not the
release's. Run from this folder: `python3 gen.py`. It drives heldout4's own
gen.py (seed 4304, the same world index, so the traffic, the versions each
request meets and the sampling draw as there): only the failure changes.
platform-auth starts answering null handles at T0 (seconds from 8.4.0's
marker) and every version of account-portal throws the same TypeError on
POST /api/account/link-platform; every link-platform request calls
platform-auth first. README.md says why.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "incidents-heldout4"))
import gen  # noqa: E402
from gen import D, MS, NS, Trace, arrivals, at, client, db, lognorm, minutes, server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
T0_OFFSET = 0.0

def build_h0(w, sp):
    t0 = at(D + "09:58:41.7") + int(T0_OFFSET * NS)
    routes = [("GET", "/api/account/profile", 90, 35), ("POST", "/api/account/link-platform", 14, 120),
              ("GET", "/api/account/entitlements", 60, 45), ("POST", "/api/account/session", 40, 60)]
    for m in minutes(w):
        for method, route, rate, med in routes:
            for t in arrivals(w, m, rate):
                tr = Trace(w)
                v = w.version("account-portal", t)
                dur = lognorm(w.rng, med)
                status, et = 200, None
                # H0: platform-auth starts answering null handles at t0; every version throws
                fails = t >= t0 and route == "/api/account/link-platform" and w.rng.random() < 0.62
                if fails:
                    status, et, dur = 500, "TypeError", lognorm(w.rng, 18)
                elif w.rng.random() < 0.002:
                    status, et = 503, "Illuminate\\Database\\QueryException"
                s = server(tr, "account-portal", method, route, route, t, dur, status, err_type=et, version=v)
                d1 = lognorm(w.rng, med * 0.3)
                db(tr, "account-portal", s, "mysql", "SELECT", "accounts", "select * from `accounts` where `id` = ? limit 1", t + MS, d1)
                if route == "/api/account/link-platform":
                    client(tr, "account-portal", s, "platform-auth.lanternfall.internal", "POST", "/v2/link",
                           t + d1 + 2 * MS, lognorm(w.rng, med * 0.5), 200)
                    if fails:
                        tr.log("account-portal", t + dur - MS, 17,
                               "App\\Services\\PlatformLink::normalize(): Argument #1 ($handle) must be of type string, null given, called in /var/www/app/Http/Controllers/LinkController.php on line 58",
                               span=s, attrs={"exception.type": "TypeError", "code.filepath": "app/Services/PlatformLink.php", "code.lineno": 31})
                tr.keep()


def twin_specs(tid, t0):
    out = []
    for s in gen.spec_list():
        if s["id"] == "ho4-typeerror-link-platform-account-portal":
            out.append(dict(s, id=tid, builder=build_h0,
                            title="platform-auth answers null handles from %+gs of account-portal 8.4.0's marker: every version throws TypeError on link-platform" % t0,
                            expect=("dependency_outage", "deny"), tags=["php", "laravel", "envoy", "version-twin", "trap"]))
    return out


# (id, T0 seconds from the marker, head sampled, the TypeError's text as the
# server span's status message)
TWINS = [
    ("vt-trap-null-handles-plus5s-account-portal", 5, False, False),
    ("vt-trap-null-handles-plus5s-head-account-portal", 5, True, False),
    ("vt-trap-null-handles-minus15s-account-portal", -15, False, False),
    # Session 19 (h48misc's probes, README.md): with a status message, the
    # head-sampled twins were rolled back on persona:quality's
    # config_regression (gate.change_op_settings).
    ("vt-trap-null-handles-plus5s-head-msg-account-portal", 5, True, True),
    ("vt-trap-null-handles-plus30s-head-msg-account-portal", 30, True, True),
]


def main():
    global T0_OFFSET, server
    every, keep, plain = gen.spec_list, gen.Trace.keep, server
    for tid, t0, head, msg in TWINS:
        T0_OFFSET = t0
        server = with_status_message(plain) if msg else plain
        specs = twin_specs(tid, t0)
        gen.spec_list = lambda specs=specs: specs
        try:
            if head:
                gen.head_twin(HERE, {tid})
            else:
                gen.HERE = HERE
                gen.main()
        finally:
            gen.spec_list, gen.Trace.keep, server = every, keep, plain
        y = os.path.join(HERE, tid, "incident.yaml")
        s = open(y).read().replace("tags: [heldout4, lanternfall, ", "tags: [lanternfall, ")
        open(y, "w").write(s)


# --probe: seeds other than 4304 (heldout4's), not part of the corpus.
PROBE_SEEDS = [4311, 4322, 4333, 4344, 4355]
TYPE_ERROR_TEXT = "App\\Services\\PlatformLink::normalize(): Argument #1 ($handle) must be of type string, null given"


def with_status_message(server_fn):
    """server_fn, but a TypeError's server span carries the exception's text as
    its status message (as most runtimes' instrumentations write it; PHP's does
    not)."""
    def server_msg(tr, svc, method, route, path, start, dur, status, err_type=None, attrs=None, version=None):
        s = server_fn(tr, svc, method, route, path, start, dur, status, err_type=err_type, attrs=attrs, version=version)
        if err_type == "TypeError":
            s["status_message"] = TYPE_ERROR_TEXT
        return s
    return server_msg


def probe(out):
    """Writes into out (not part of the corpus) the twins over PROBE_SEEDS:
    the outside cause from +5 s and +30 s of the marker, head-sampled, as the
    corpus writes it (pr-) and with the TypeError's text as the span's status
    message (msg-); and heldout4's own release failure, tail- and
    head-sampled (br-). README.md says what they show."""
    global T0_OFFSET, server
    every, keep, plain = gen.spec_list, gen.Trace.keep, server
    os.makedirs(out, exist_ok=True)
    runs = []
    for seed in PROBE_SEEDS:
        for t0 in (5, 30):
            runs.append(("pr-s%d-t%d-head-account-portal" % (seed, t0), seed, t0, True, plain, True))
            runs.append(("msg-s%d-t%d-head-account-portal" % (seed, t0), seed, t0, True, with_status_message(plain), True))
        for head in (False, True):
            runs.append(("br-s%d-%s-account-portal" % (seed, "head" if head else "tail"), seed, 0, head, plain, False))
    for tid, seed, t0, head, server_fn, twin in runs:
        T0_OFFSET, server, gen.SEED = t0, server_fn, seed
        if twin:
            specs = twin_specs(tid, t0)
        else:
            specs = [dict(s, id=tid) for s in every() if s["id"] == "ho4-typeerror-link-platform-account-portal"]
        gen.spec_list = lambda specs=specs: specs
        try:
            if head:
                gen.head_twin(out, {tid})
            else:
                gen.HERE = out
                gen.main()
        finally:
            gen.spec_list, gen.Trace.keep, server, gen.SEED = every, keep, plain, 4304


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--probe":
        # python3 gen.py --probe OUT-DIR
        probe(sys.argv[2])
    else:
        main()
