#!/bin/sh
# Builds agentk-demo/shop-api:v1 (healthy) and :v2 (bad_release: half of /ask
# fails) FROM scratch, without pulling anything; and the two-service target's
# callee (issue 33), agentk-demo/payment:v1 (healthy) and :v2 (bad_release:
# half of /charge fails), the same binary run with SERVICE_NAME=payment.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp "$here/Dockerfile" "$ctx/"
build() { # tag version fault
	(cd "$here" && CGO_ENABLED=0 GOOS=linux go build -trimpath \
		-ldflags "-s -w -X main.version=$2 -X main.releaseFault=$3" -o "$ctx/demo-target" ./cmd/demo-target)
	docker build --pull=false --label "org.opencontainers.image.version=$2" --label "org.opencontainers.image.title=${1%%:*}" -t "$1" "$ctx"
}
build agentk-demo/shop-api:v1 v1 ""
build agentk-demo/shop-api:v2 v2 bad_release
build agentk-demo/payment:v1 v1 ""
build agentk-demo/payment:v2 v2 bad_release
