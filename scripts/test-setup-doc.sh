#!/usr/bin/env bash
# Follows docs/setup.md literally: every ```sh block, in order, in one bash
# session (set -euo pipefail) from the repository root. It adds only what keeps
# it from touching your machine's state: a scratch AGENTK_DATA_DIR, free
# loopback ports for NATS, health, the ingester and the bridge (the page uses
# the defaults, which a running agentk may hold), agentk built once first
# (untimed), and a deadline on the rest. A command of
# the page that fails fails the test, with the page's line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
doc=${1:-$root/docs/setup.md}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A port below the kernel's ephemeral range: one inside it was taken, between
# this check and `agentk up`, by an outgoing connection of another process
# (fresh-clone CI beside replays: "bridge: listen 127.0.0.1:47186: address
# already in use"), and the page's wait then ran into the deadline.
ephemeral_low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % (ephemeral_low > 21000 ? ephemeral_low - 20000 : 1000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

# The page's blocks, each line preceded by a trace naming the page's line.
n=0 inblock=0
while IFS= read -r line || [[ -n $line ]]; do
	n=$((n + 1))
	if [[ $line =~ ^\`\`\`sh[[:space:]]*$ ]]; then
		inblock=1
	elif [[ $line =~ ^\`\`\`[[:space:]]*$ ]]; then
		inblock=0
	elif ((inblock)); then
		printf 'echo %q >&2\n%s\n' "+ ${doc#"$root"/}:$n: $line" "$line"
	fi
done <"$doc" >"$tmp/steps.sh"
if ! grep -q . "$tmp/steps.sh"; then
	echo "test-setup-doc: no sh blocks in $doc" >&2
	exit 1
fi

{
	echo 'set -euo pipefail'
	# Whatever the page left running in the background is stopped at the end.
	echo 'trap '\''kill $(jobs -p) 2>/dev/null || true'\'' EXIT'
	cat "$tmp/steps.sh"
} >"$tmp/run.sh"

cd "$root"
export AGENTK_DATA_DIR="$tmp/data" AGENTK_OTEL_DISABLED=1
export AGENTK_NATS_PORT=$(free_port) AGENTK_HEALTH_ADDR=127.0.0.1:$(free_port)
export AGENTK_INGEST_ADDR=127.0.0.1:$(free_port) AGENTK_BRIDGE_ADDR=127.0.0.1:$(free_port)
# The page's `go build` takes what the machine takes on a cold cache (issue
# 36: a fixed deadline on a build is a bet on the machine's load). It is built
# once here first, with no deadline and saying how long it took, so that the
# page's own build hits the cache and the deadline below bounds the steps
# whose length does not depend on the load.
built=$SECONDS
echo "test-setup-doc: building agentk before the timed run (no deadline)"
go build -C services/agentk -o "$tmp/agentk-prebuilt" .
echo "test-setup-doc: built in $((SECONDS - built)) s"
start=$SECONDS
if ! timeout "${SETUP_DOC_TIMEOUT:-600}" bash "$tmp/run.sh"; then
	echo "test-setup-doc: FAILED following ${doc#"$root"/} (see the last + line above)" >&2
	[[ -f bin/agentk-up.log ]] && tail -20 bin/agentk-up.log >&2
	exit 1
fi
echo "test-setup-doc: ${doc#"$root"/} followed literally in $((SECONDS - start)) s"
