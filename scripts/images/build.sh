#!/usr/bin/env bash
# Builds Switchboard's two images with Podman from the Containerfile at the repository's root and prints their sizes:
#
#   scripts/images/build.sh [TAG]     # localhost/switchboard-gateway:TAG, localhost/switchboard-worker:TAG (TAG: dev)
#
# BASE_IMAGE picks the base (any Debian bookworm image with Node 20 and npm in /usr/local). Unset, the base is made
# here from Debian's packages (scripts/images/base-image.sh), for machines that reach no container registry; set
# BASE_IMAGE=docker.io/library/node:20-bookworm-slim where one is reachable. Podman keeps the layers: a second build
# with no change reuses them all, a source change rebuilds from the build step on (the dependency installs stay).
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:-dev}
here=scripts/images
# runc and the host's ulimits (see containers.conf) unless the caller has its own Podman configuration.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/$here/containers.conf}
base=${BASE_IMAGE:-$(bash "$here/base-image.sh")}
# Behind an HTTPS proxy with its own CA (which this machine's Node or npm is told to trust), the build's npm steps
# need it too: mounted for the RUN steps only, never copied into a layer.
cafile=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
ca=()
if [[ -n "$cafile" && "$cafile" != null && "$cafile" != undefined && -f "$cafile" ]]; then
  ca=(--volume "$cafile:/run/host-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/host-ca.crt)
fi

# SWITCHBOARD_IMAGE_BUILD=host: the images take the compiled output `npm run build` left here instead of building it
# again inside (this checkout replaces the Containerfile's `compiled` stage, whose build is then skipped): CI, which
# has just built and tested that output on the same Debian and Node.
build=()
if [[ "${SWITCHBOARD_IMAGE_BUILD:-source}" == host ]]; then
  for output in apps/gateway/dist/server.js apps/worker/dist/main.js apps/web/.next/standalone; do
    [[ -e "$output" ]] || { echo "$output is missing: run npm run build first (SWITCHBOARD_IMAGE_BUILD=host)" >&2; exit 1; }
  done
  build=(--build-context "compiled=$PWD")
fi

for target in gateway worker; do
  start=$SECONDS
  echo "== building localhost/switchboard-$target:$tag from $base (compiled output: ${SWITCHBOARD_IMAGE_BUILD:-source})"
  # --network host: RUN steps reach Debian's and npm's registries through the host (works without CNI set up).
  podman build --quiet --layers --network host --build-arg "BASE_IMAGE=$base" --target "$target" "${build[@]}" "${ca[@]}" \
    -t "localhost/switchboard-$target:$tag" -f Containerfile . >/dev/null
  echo "   done in $((SECONDS - start)) s"
done
# The sizes CI prints (uncompressed, as `podman images` counts them, shared base layers included in each).
podman images --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep -E "^localhost/switchboard-(gateway|worker):$tag " |
  sed 's/^/   image size: /'
