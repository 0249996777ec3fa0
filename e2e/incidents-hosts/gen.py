#!/usr/bin/env python3
"""Generates e2e/incidents-hosts: the node read by host.name where no k8s.node.name names one.

Run from this folder: `python3 gen.py`. It borrows e2e/incidents-heldout13's world (Lumen Rural's
VMs, Capistrano and Ansible `serial: 1` releases, its request trees and its seed) and writes four
incidents, each kept 1 in 4 by trace id (no tail policy: under heldout13's tail sampling the load
check denies every replay, and these would test nothing). Byte for byte the same on every run.

- an Ansible `serial: 1` release that fails on the one VM it reached (a canary of the release: the
  failures are confined to the VM that runs the new version) is the release's;
- a VM that fails on the OLD version while the new one runs clean elsewhere is no release's;
- a canary pod whose host.name is its own (with k8s.pod.name and container.id, no service.version)
  is no node: the release's failure on it is the release's;
- the same canary on a VM with no version on its spans: read as a node's fault (the known cost);
- a release that fails on one replica only (its new in-process job runs on the elected leader), on
  pods whose host.name is their own: no node's fault, the release's;
- the same on VMs: read as a node's fault (the known cost, which k8s.node.name's reading shares).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "incidents-heldout13"))
import gen as g  # noqa: E402


def ledger_tls_on_upgraded(w, t, svc, host, ver, op):
    return g.I_ledger_redis_tls(w, t, svc, host, ver, op)


def conntrack_on_old_vm(w, t, svc, host, ver, op):
    # ledger-vm-03's conntrack table fills while it still runs 2.16.0-1
    if svc != "ledger" or host != "ledger-vm-03" or not g.when(w, t, "13:33:15"):
        return None
    f = g.T_conntrack(w, t, svc, "ledger-vm-02", ver, op)
    f["log"] = lambda rng, h: 'level=error msg="request failed" err="dial tcp: i/o timeout" host=ledger-vm-03'
    return f


def conntrack_logs_vm03(w):
    return [(t, g.other("journald", "ledger-vm-03"), sev, body) for t, _, sev, body in g.T_conntrack_logs(w)]


def undefined_column_on_canary(w, t, svc, host, ver, op):
    return g.I_portal_undefined_column(w, t, svc, host, ver, op)


_vm_resource = g.resource


def pod_resource(svc, host, version):
    """A pod's resource, host.name its own (an SDK's host detector in a container), beside
    k8s.pod.name and container.id; the VM's os.description is dropped."""
    r = _vm_resource(svc, host, version)
    slot = host.split(".")[0]
    pod = "%s-%s-%s" % (svc, g.hexid(g.random.Random("rs/%s/%s" % (svc, version)), 10)[:6], g.hexid(g.random.Random("pod/" + slot), 5))
    r.update({"host.name": pod, "k8s.pod.name": pod, "k8s.namespace.name": "lumen", "container.id": g.hexid(g.random.Random(pod), 64)})
    r.pop("os.description", None)
    return r


def leader_job(vm):
    """The release's in-process compaction job runs on the elected leader only (vm's slot) and
    holds the entries table's advisory lock: that replica's writes fail."""
    def fx(w, t, svc, host, ver, op):
        if svc != "ledger" or host != vm or ver != "2.15.0-1" or not g.when(w, t, "13:59:40"):
            return None
        if op != "POST /v1/entries" or w.rng.random() >= 0.7:
            return None
        return {"err": 1.0, "status": 500, "msg": "ledger: compaction holds advisory lock 0x1d3e on entries: write refused",
                "exc": "*ledger.CompactionLockError",
                "log": lambda rng, h: 'level=error msg="entry write refused" err="compaction holds advisory lock 0x1d3e on entries" component=compactor role=leader'}
    return fx


SPECS = [
    dict(id="hs-serial1-first-vm-tls-ledger", service="ledger", start="12:55:00", now="14:03:00", keep=0.25, sampling="ratio",
         title="ledger 2.15.0-1 fails every balance read on the one VM Ansible serial: 1 reached; the next VM waits five minutes",
         releases={"ledger": [("2.14.3-1", None, 0), ("2.15.0-1", "13:58:10", 300)]},
         traffic=[("ledger", "GET /v1/balances/{account}", 120), ("ledger", "POST /v1/entries", 60)], fx=ledger_tls_on_upgraded,
         alert_at="14:01:30", burn=9.0, expect=("config_regression", "allow"), onset="13:58",
         story="Ansible serial: 1 with a five-minute pause between hosts installs ledger 2.15.0-1 on ledger-vm-01 at 13:58:10 (ledger-vm-02 would follow at 14:03:10). The package's ledger.toml turns TLS on towards a plaintext Redis: every balance read on ledger-vm-01 fails; ledger-vm-02 and -03, still on 2.14.3-1, are clean. The failures are confined to one VM because it is the only one running the release: the release's, not the VM's."),
    dict(id="hs-trap-old-version-vm-conntrack-ledger", service="ledger", start="12:20:00", now="13:40:00", keep=0.25, sampling="ratio",
         title="ledger-vm-03's conntrack table fills while it still runs 2.16.0-1; Ansible serial: 1 installed 2.16.1-1 on ledger-vm-01 three minutes before",
         releases={"ledger": [("2.16.0-1", "2026-12-07T09:37:40", 0), ("2.16.1-1", "13:30:20", 300)]},
         traffic=[("ledger", "POST /v1/entries", 110), ("ledger", "GET /v1/balances/{account}", 90)],
         fx=conntrack_on_old_vm, extra_logs=conntrack_logs_vm03, alert_at="13:36:00", burn=7.0,
         expect=("dependency_outage", "deny"), onset="13:33",
         story="Ansible serial: 1 with a five-minute pause installs ledger 2.16.1-1 on ledger-vm-01 at 13:30:20 (ledger-vm-02 follows at 13:35:20; ledger-vm-03 would at 13:40:20). At 13:33:12 ledger-vm-03's nf_conntrack table fills (the kernel's words in journald): its dials to Redis and PgBouncer time out, on 2.16.0-1, the old version. The release runs clean on ledger-vm-01 and then -02: rolling it back changes nothing."),
    dict(id="hs-canary-pod-undefined-column-portal", service="portal", start="10:00:00", now="11:12:00", keep=0.25, sampling="ratio", pods=True,
         title="portal e41b7d9 on its canary pod (one of four, host.name the pod's own) reads a column the next migration adds: farm pages 500 there",
         releases={"portal": [("9c03aa1", None, 0), ("e41b7d9", "11:02:30", 100000)]},
         traffic=[("portal", "FazendasController#show", 150), ("portal", "PedidosController#create", 40),
                  ("portal", "CatalogoController#index", 70)], fx=undefined_column_on_canary, alert_at="11:06:00", burn=6.0,
         expect=("bad_release", "allow"), onset="11:03",
         story="As heldout13's pr13-portal-undefined-column, but portal runs in Kubernetes pods and the release went to a canary pod first (one of four; the others would follow after the analysis). The Ruby SDK's host detector names each pod's own hostname in host.name, beside k8s.pod.name and container.id; no service.version. 62% of farm pages on the canary pod 500: a replica, not a node, fails, and it fails because it runs the release."),
    dict(id="hs-canary-vm-undefined-column-portal", service="portal", start="10:00:00", now="11:12:00", keep=0.25, sampling="ratio",
         title="portal e41b7d9 on a canary VM (one of four) reads a column the next migration adds; no service.version on the spans",
         releases={"portal": [("9c03aa1", None, 0), ("e41b7d9", "11:02:30", 100000)]},
         traffic=[("portal", "FazendasController#show", 150), ("portal", "PedidosController#create", 40),
                  ("portal", "CatalogoController#index", 70)], fx=undefined_column_on_canary, alert_at="11:06:00", burn=6.0,
         expect=("bad_release", "allow"), onset="11:03",
         story="As hs-canary-pod-undefined-column-portal, but the canary is app-vm-01, one of four VMs (Capistrano's canary role), and the spans name no version: one VM fails and three serve cleanly, which the spans cannot tell from that VM's own fault. A known cost of reading host.name as the node: denied (missed), never rolled back wrongly."),
    dict(id="hs-leader-pod-compaction-lock-ledger", service="ledger", start="12:55:00", now="14:08:00", keep=0.25, sampling="ratio", pods=True,
         title="ledger 2.15.0-1's in-process compaction job runs on the elected leader pod only and holds the entries table's lock: that pod's writes fail",
         releases={"ledger": [("2.14.3-1", None, 0), ("2.15.0-1", "13:58:10", 20)]},
         traffic=[("ledger", "POST /v1/entries", 110), ("ledger", "GET /v1/balances/{account}", 90)], fx=leader_job("ledger-vm-02"),
         alert_at="14:03:00", burn=8.0, expect=("bad_release", "allow"), onset="13:59",
         story="ledger runs as three Kubernetes pods (host.name each pod's own, beside k8s.pod.name and container.id; no k8s.node.name). 2.15.0-1, rolled out to all three by 13:58:50, moves the compaction job in-process: only the elected leader runs it, from 13:59:40, and it holds the entries table's advisory lock, so 70% of that pod's entry writes are refused (500). The two other pods, same version, are clean. The failures are the release's, on the one replica its new job runs on: a rollback fixes them."),
    dict(id="hs-leader-vm-compaction-lock-ledger", service="ledger", start="12:55:00", now="14:08:00", keep=0.25, sampling="ratio",
         title="ledger 2.15.0-1's in-process compaction job runs on the elected leader VM only and holds the entries table's lock: that VM's writes fail",
         releases={"ledger": [("2.14.3-1", None, 0), ("2.15.0-1", "13:58:10", 20)]},
         traffic=[("ledger", "POST /v1/entries", 110), ("ledger", "GET /v1/balances/{account}", 90)], fx=leader_job("ledger-vm-02"),
         alert_at="14:03:00", burn=8.0, expect=("bad_release", "allow"), onset="13:59",
         story="As hs-leader-pod-compaction-lock-ledger on the three ledger VMs (host.name, host.arch, os.type): the release's failure confined to one machine, the same version clean on the others, which the spans cannot tell from that machine's own fault. A known cost of reading host.name as the node (k8s.node.name's reading has the same one): denied (missed), never rolled back wrongly."),

]


def main():
    root = HERE
    for spec in SPECS:
        g.resource = pod_resource if spec.get("pods") else _vm_resource
        n, m = g.write_incident(root, spec, "hosts")
        print("%s: %d spans, %d logs" % (spec["id"], n, m))


if __name__ == "__main__":
    main()
