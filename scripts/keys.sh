#!/usr/bin/env bash
# Prepares what docker-compose.yml mounts, under AGENTK_STATE (default .data):
#
#   keys/                 every role's nkey seed, the admin's, keyring.json (`agentk keys`)
#   nats/nats.conf        nats-server config: one nkey user per role, its subject permissions
#   keys-<role>/          ONLY <role>.nk and keyring.json: what that one container mounts
#   keys-admin/           the NATS admin seed, for the one-shot provision container only
#   secrets/<role>/       that container's own secret files (mounted at /run/secrets)
#   deployer/             the deployer's state (compose pin file)
#
# and writes the host-specific values compose needs into .env (AGENTK_ENV_FILE):
# the uid/gid the services run as (so they can read their 0600 seed files), the
# Docker socket's group (the deployer's only), the project directory (which the
# deployer mounts at the same path to run compose) and the project name.
#
# Existing seeds and secrets are kept: running it again only re-splits and
# refreshes. Secrets a human must supply are created empty; fill them in:
#   secrets/sandbox/signoz_api_key       SigNoz API key, Viewer role
#   secrets/investigator/llm_api_key     LLM provider key (empty: offline rules investigator)
#   secrets/bridge/slack_bot_token, slack_signing_secret, approvers   (Slack; optional)
# Generated: secrets/ingester/ingest_token (SigNoz webhook bearer token) and
# secrets/bridge/console_tokens (`oncall=<token>` for the console and CLI).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
state=${AGENTK_STATE:-$root/.data}
envfile=${AGENTK_ENV_FILE:-$root/.env}
# admin: the one-shot provision container (streams and buckets), nothing else.
roles=(ingester sandbox investigator reviewer gate bridge deployer admin)
umask 077

agentk=${AGENTK_BIN:-$root/bin/agentk}
if [[ ! -x $agentk ]]; then
	echo "keys: building $agentk"
	mkdir -p "$(dirname "$agentk")"
	(cd "$root/services/agentk" && CGO_ENABLED=0 go build -trimpath -o "$agentk" .)
fi

mkdir -p "$state/nats"
"$agentk" keys --dir "$state/keys" --nats-conf "$state/nats/nats.conf" --nats-store /data/jetstream >/dev/null
# nats-server runs as its own user in its container; the file holds public keys only.
chmod 0755 "$state/nats"
chmod 0644 "$state/nats/nats.conf"

for role in "${roles[@]}"; do
	dir="$state/keys-$role"
	mkdir -p "$dir"
	chmod 0700 "$dir"
	# Only the role's own seed: anything else found here (an older layout, a
	# copied-in seed) is removed.
	find "$dir" -mindepth 1 -maxdepth 1 ! -name "$role.nk" ! -name keyring.json -exec rm -rf {} +
	install -m 0600 "$state/keys/$role.nk" "$dir/$role.nk"
	install -m 0644 "$state/keys/keyring.json" "$dir/keyring.json"
done
for role in ingester sandbox investigator bridge; do
	mkdir -p "$state/secrets/$role"
	chmod 0700 "$state/secrets/$role"
done

token() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# secret FILE [VALUE]: created once (0600), never overwritten.
secret() {
	[[ -e $1 ]] && return 0
	printf '%s' "${2:-}" >"$1"
	chmod 0600 "$1"
}
secret "$state/secrets/ingester/ingest_token" "$(token)"
secret "$state/secrets/sandbox/signoz_api_key"
secret "$state/secrets/investigator/llm_api_key"
secret "$state/secrets/bridge/console_tokens" "oncall=$(token)"$'\n'
secret "$state/secrets/bridge/approvers" "# slack:<user id>=<name>, one a line; console approvers come from console_tokens"$'\n'
secret "$state/secrets/bridge/slack_bot_token"
secret "$state/secrets/bridge/slack_signing_secret"
mkdir -p "$state/deployer"
chmod 0700 "$state/deployer"

# .env: set KEY=VALUE, replacing the line if the key is there.
setenv() {
	touch "$envfile"
	if grep -q "^$1=" "$envfile"; then
		local tmp; tmp=$(mktemp)
		awk -v k="$1" -v v="$2" 'index($0, k"=")==1 {print k"="v; next} {print}' "$envfile" >"$tmp"
		cat "$tmp" >"$envfile" && rm -f "$tmp"
	else
		printf '%s=%s\n' "$1" "$2" >>"$envfile"
	fi
}
docker_gid=0
[[ -S /var/run/docker.sock ]] && docker_gid=$(stat -c %g /var/run/docker.sock)
setenv AGENTK_UID "$(id -u)"
setenv AGENTK_GID "$(id -g)"
setenv DOCKER_GID "$docker_gid"
setenv AGENTK_PROJECT_DIR "$root"
setenv AGENTK_STATE "$state"
grep -q '^COMPOSE_PROJECT_NAME=' "$envfile" || setenv COMPOSE_PROJECT_NAME agentk
chmod 0644 "$envfile"

echo "keys: $state ready (per-role keys in keys-<role>/, secrets in secrets/<role>/); compose settings in $envfile"
[[ -s $state/secrets/sandbox/signoz_api_key ]] ||
	echo "keys: put a SigNoz API key (Viewer role) in $state/secrets/sandbox/signoz_api_key before starting the sandbox" >&2
exit 0
