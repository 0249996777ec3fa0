#!/usr/bin/env bash
# Builds every image of the compose stack FROM scratch, from static binaries
# compiled on this host (CGO_ENABLED=0): no base image and no registry pull,
# so it works offline with only Go (and its module proxy or module cache) and
# a Docker engine.
#
#   agentk/agentk:$TAG      the combined agentk binary (`agentk <service>`)
#   agentk/deployer:$TAG    the same plus Docker Compose v2, for the deployer
#   agentk/nats:$TAG        nats-server from its Go module
#   agentk-demo/shop-api:v1 and :v2, the demo target (its own build.sh),
#   and agentk-demo/payment:v1 and :v2, the two-service target's callee
#
# Variables: AGENTK_TAG (dev), NATS_SERVER_VERSION, COMPOSE_VERSION,
# AGENTK_IMAGES (space-separated subset of: agentk deployer nats demo).
# Third-party binaries are cached in bin/tools/ by version; their source is
# never copied into this repository.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

TAG=${AGENTK_TAG:-dev}
NATS_SERVER_VERSION=${NATS_SERVER_VERSION:-v2.15.2}
COMPOSE_VERSION=${COMPOSE_VERSION:-v2.40.3}
IMAGES=${AGENTK_IMAGES:-agentk deployer nats demo}
bin="$root/bin"
tools="$bin/tools"
mkdir -p "$bin" "$tools"

revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
version=$(git describe --always --dirty 2>/dev/null || echo "$TAG")
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
export CGO_ENABLED=0 GOOS=linux GOFLAGS="${GOFLAGS:-} -trimpath"

want() { [[ " $IMAGES " == *" $1 "* ]]; }

# context DIR: a fresh, minimal build context (the docker build sees only what
# is copied into it, never the repository).
ctxs=()
cleanup() { ((${#ctxs[@]})) && rm -rf "${ctxs[@]}"; return 0; }
trap cleanup EXIT
newctx() { local d; d=$(mktemp -d "${TMPDIR:-/tmp}/agentk-image.XXXXXX"); ctxs+=("$d"); echo "$d"; }

labels() { # title description
	printf -- '--label\0org.opencontainers.image.%s\0' \
		"title=$1" "description=$2" "version=$version" "revision=$revision" "created=$created" \
		"source=https://github.com/agentk/agentk" "licenses=Apache-2.0" "vendor=agentk"
}

build() { # tag dockerfile context title description
	local tag=$1 file=$2 ctx=$3 title=$4 desc=$5
	cp "$file" "$ctx/Dockerfile"
	local -a l
	mapfile -d '' l < <(labels "$title" "$desc")
	echo "images: building $tag"
	docker build --pull=false -q "${l[@]}" -t "$tag" "$ctx" >/dev/null
}

# CA certificates only when the host has them: FROM scratch has none, and the
# investigator may talk TLS to an LLM provider, the sandbox to SigNoz.
certs() { # rootfs
	if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
		install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$1/etc/ssl/certs/ca-certificates.crt"
	else
		echo "images: no /etc/ssl/certs/ca-certificates.crt on this host: outbound TLS from the containers will fail" >&2
	fi
}

# tool NAME VERSION PACKAGE: a third-party binary from the module proxy,
# built once per version into bin/tools/NAME-VERSION.
tool_nats() {
	local out="$tools/nats-server-$NATS_SERVER_VERSION"
	if [[ ! -x $out ]]; then
		echo "images: go install github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION" >&2
		local gobin; gobin=$(newctx)
		GOWORK=off GOBIN="$gobin" go install -ldflags '-s -w' "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION"
		mv "$gobin/nats-server" "$out"
	fi
	echo "$out"
}

tool_compose() {
	local out="$tools/docker-compose-$COMPOSE_VERSION"
	if [[ ! -x $out ]]; then
		# compose's go.mod carries exclude directives, which `go install
		# pkg@version` refuses; a throw-away main module that requires it (and
		# repeats the excludes) builds the same package.
		echo "images: go build github.com/docker/compose/v2/cmd@$COMPOSE_VERSION (first time: a few minutes)" >&2
		local mod; mod=$(newctx)
		cat >"$mod/go.mod" <<EOF
module agentk.local/compose-build

go 1.24

require github.com/docker/compose/v2 $COMPOSE_VERSION

exclude (
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2
)
EOF
		(cd "$mod" && GOWORK=off GOFLAGS="$GOFLAGS -mod=mod" go build \
			-ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
			-o "$out" github.com/docker/compose/v2/cmd)
	fi
	echo "$out"
}

start=$SECONDS

if want agentk || want deployer; then
	echo "images: go build bin/agentk"
	(cd services/agentk && go build -ldflags '-s -w' -o "$bin/agentk" .)
fi

if want agentk || want deployer; then
	ctx=$(newctx)
	install -D -m 0755 "$bin/agentk" "$ctx/rootfs/usr/local/bin/agentk"
	install -d -m 1777 "$ctx/rootfs/tmp"
	certs "$ctx/rootfs"
	build "agentk/agentk:$TAG" deploy/agentk/Dockerfile "$ctx" agentk \
		"agentk: SigNoz alerts in, evidence-backed investigation, a plain-Go gate, a human's signed yes, a verified rollback"
fi

if want deployer; then
	compose=$(tool_compose)
	ctx=$(newctx)
	install -D -m 0755 "$compose" "$ctx/rootfs/usr/local/bin/docker-compose"
	sed "s|^ARG AGENTK_IMAGE=.*|ARG AGENTK_IMAGE=agentk/agentk:$TAG|" deploy/deployer/Dockerfile >"$ctx/Dockerfile.in"
	build "agentk/deployer:$TAG" "$ctx/Dockerfile.in" "$ctx" agentk-deployer \
		"agentk deployer: the only container with the Docker socket; agentk plus Docker Compose $COMPOSE_VERSION"
fi

if want nats; then
	nats=$(tool_nats)
	ctx=$(newctx)
	install -D -m 0755 "$nats" "$ctx/rootfs/nats-server"
	install -d -m 1777 "$ctx/rootfs/tmp"
	install -d -m 0750 "$ctx/data/jetstream"
	build "agentk/nats:$TAG" deploy/nats/Dockerfile "$ctx" agentk-nats \
		"nats-server $NATS_SERVER_VERSION built from its Go module, FROM scratch"
fi

if want demo; then
	echo "images: the demo target (services/deployer/demotarget/build.sh)"
	sh services/deployer/demotarget/build.sh >/dev/null
fi

echo "images: done in $((SECONDS - start)) s"
docker image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' |
	grep -E "^(agentk/(agentk|deployer|nats):$TAG|agentk-demo/(shop-api|payment):v[12])	" | sort
