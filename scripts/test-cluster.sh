#!/usr/bin/env bash
# The three-node NATS JetStream cluster test on the Docker engine
# (e2e/cluster): a node killed, a node partitioned away and back, each
# mid-incident. Needs Docker; a missing engine fails. About 1-2 minutes when it
# passes, bounded at 4 minutes per fault. AGENTK_CLUSTER_LOG=<file> keeps the
# services' and the bus's logs (debug).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/e2e"
# The go test timeout must exceed the image build (2 min) and both faults'
# budgets (4 min each): a timeout panic skips the tests' cleanups and would
# leave the containers and the network behind for the next run.
AGENTK_RUN_CLUSTER=1 AGENTK_REQUIRE_DOCKER=1 go test -count=1 -timeout 15m -v ./cluster/ "$@"
