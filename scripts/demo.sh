#!/usr/bin/env bash
# Command one: install everything, prepare the database, seed the demo team, build, and run the console
# (http://localhost:3000, or $PORT), the worker and a demo Streamable HTTP MCP server until Ctrl-C, with the
# compiled production start (docs/production.md). A second run with nothing changed reuses the build (turbo's
# cache) and starts in seconds. Ctrl-C (or SIGTERM) stops everything it started, and everything those started.
set -euo pipefail
started_at=$(date +%s%N)
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1 NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1

say() { printf '\033[1m== %s\033[0m\n' "$*"; }

if [[ ! -f .env ]]; then
  port=${PORT:-3000}
  say "writing .env with fresh secrets (kept out of git)"
  cat > .env <<ENV
DATABASE_URL=${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/switchboard}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
PORT=${port}
APP_URL=${APP_URL:-http://localhost:${port}}
BETTER_AUTH_SECRET=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')
SWITCHBOARD_ENCRYPTION_KEY=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')
DEMO_MCP_PORT=${DEMO_MCP_PORT:-3001}
BRIDGE_PORT=${BRIDGE_PORT:-7410}
BRIDGE_URL=http://127.0.0.1:${BRIDGE_PORT:-7410}
ENV
fi
# Older .env files predate the worker's stdio bridge: give them a shared secret too.
grep -q '^BRIDGE_SECRET=' .env || echo "BRIDGE_SECRET=$(node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))')" >> .env
set -a; source .env; set +a
# The demo's own Streamable HTTP server runs on this host: the one exception to the egress rules it needs.
export EGRESS_ALLOW="${EGRESS_ALLOW:+${EGRESS_ALLOW},}127.0.0.1:${DEMO_MCP_PORT:-3001}"

say "installing dependencies"
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
elif [[ ! -f packages/db/src/generated/prisma/client.ts || prisma/schema.prisma -nt packages/db/src/generated/prisma/client.ts ]]; then
  npm run db:generate --silent
fi

say "checking PostgreSQL and Redis"
if ! node scripts/check-services.mjs; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    say "starting PostgreSQL and Redis with docker compose"
    docker compose up -d --wait postgres redis
  else
    cat >&2 <<MSG

Switchboard needs PostgreSQL and Redis. Start them, or point DATABASE_URL / REDIS_URL (in .env) at running ones:
  PostgreSQL: e.g. 'pg_ctlcluster 15 main start' or 'brew services start postgresql'
  Redis:      e.g. 'redis-server --daemonize yes'
Docker is not available here, so the demo cannot start them for you.
MSG
    exit 1
  fi
fi
node scripts/check-services.mjs --create-db

# Stdio servers run in a bubblewrap sandbox; without it the worker refuses them (STDIO_SANDBOX=off runs them
# unconfined, which the console then flags on every stdio installation). The same packages as .ci/run's.
if [[ "${STDIO_SANDBOX:-on}" != off ]]; then
  missing=()
  command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
  command -v pasta >/dev/null 2>&1 || missing+=(passt)
  { command -v prlimit && command -v setpriv; } >/dev/null 2>&1 || missing+=(util-linux)
  [[ -f /usr/share/containers/seccomp.json ]] || missing+=(golang-github-containers-common)
  /usr/bin/python3 -c 'import seccomp' >/dev/null 2>&1 || missing+=(python3-seccomp)
  command -v mkfs.ext4 >/dev/null 2>&1 || missing+=(e2fsprogs)
  if ((${#missing[@]})) && [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing the stdio sandbox's packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    missing=()
  fi
  if ((${#missing[@]})); then
    if ! command -v bwrap >/dev/null 2>&1; then
      cat >&2 <<MSG

Switchboard runs every stdio MCP server in a bubblewrap sandbox, and bwrap is not installed.
  Debian/Ubuntu: sudo apt-get install ${missing[*]}
Or start the demo with STDIO_SANDBOX=off to run stdio servers unconfined (not for a shared machine).
MSG
      exit 1
    fi
    say "note: the sandbox runs with fewer limits without ${missing[*]} ('sudo apt-get install ${missing[*]}' adds them)"
  fi
  # Outbound network for sandboxes that may have it (pasta) needs a usable /dev/net/tun. Debian's udev makes it
  # 0666; a fresh container may have none, or one only root may open.
  if [[ "$(id -u)" == 0 ]]; then
    [[ -e /dev/net/tun ]] || { mkdir -p /dev/net && mknod -m 0666 /dev/net/tun c 10 200; } 2>/dev/null || true
    [[ -c /dev/net/tun && "$(stat -c %a /dev/net/tun)" != 666 ]] && chmod 0666 /dev/net/tun 2>/dev/null || true
  fi
  if [[ ! -c /dev/net/tun ]]; then
    say "note: sandboxed stdio servers get no outbound network: this host has no /dev/net/tun$([[ "$(id -u)" == 0 ]] && echo " and does not let root create it (a container without CAP_MKNOD: add the device to it)" || echo " ('sudo mkdir -p /dev/net && sudo mknod -m 0666 /dev/net/tun c 10 200' creates it)")"
  elif ! (exec 3<>/dev/net/tun) 2>/dev/null; then
    say "note: sandboxed stdio servers get no outbound network: /dev/net/tun cannot be opened here (a container must be given the device)"
  fi
fi

# As root, the worker runs each stdio server as a uid of its own, which must pass through the directories above
# node_modules; a clone under a private home (/root is 0700) keeps it out, and stdio servers are then refused.
if [[ "${STDIO_SANDBOX:-on}" != off && "$(id -u)" == 0 ]]; then
  d=$PWD
  while [[ "$d" != / ]]; do
    if [[ $(( 8#$(stat -c %a "$d") & 1 )) == 0 ]]; then
      say "note: $d is closed to other users, so the sandboxed stdio server cannot start; 'chmod o+x $d' (or running as a non-root user) fixes it"
      break
    fi
    d=$(dirname "$d")
  done
fi

if node scripts/migrations-applied.mjs; then
  say "the database has every migration"
else
  say "migrating the database"
  npx prisma migrate deploy
fi

say "seeding the demo team"
npx tsx apps/web/scripts/seed-demo.ts

say "building (turbo: reused when nothing changed)"
npx turbo run build --filter=@switchboard/gateway --filter=@switchboard/worker --filter=@switchboard/web \
  --output-logs=errors-only

pids=()
# node dist/server.js (the gateway) -> the console's standalone server: stop whole trees, not just the processes
# started here; each stops what it started itself (the worker its sandboxed stdio servers) on SIGTERM, and what
# has not gone after 40 s (the processes' own 30 s grace, then some) is killed.
descendants() { local child; for child in $(pgrep -P "$1"); do descendants "$child"; echo "$child"; done; }
cleanup() {
  trap - EXIT INT TERM
  local all=() p
  for p in "${pids[@]}"; do all+=($(descendants "$p") "$p"); done
  ((${#all[@]})) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 1 400); do
    alive=()
    for p in "${all[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
    ((${#alive[@]})) || break
    sleep 0.1
  done
  ((${#alive[@]})) && kill -KILL "${alive[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "starting the demo MCP server (Streamable HTTP on :${DEMO_MCP_PORT})"
# Members call this server's tools (its get-env tool prints its environment): it gets a clean environment with
# only what it needs, never the secrets of .env that the console and worker read.
env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" PORT="$DEMO_MCP_PORT" \
  node_modules/.bin/mcp-server-everything streamableHttp > .demo-mcp.log 2>&1 &
pids+=($!)

say "starting the worker"
node apps/worker/dist/main.js &
pids+=($!)

say "starting the console on ${APP_URL}"
node apps/gateway/dist/server.js &
pids+=($!)

for _ in $(seq 1 600); do curl -sf -o /dev/null "http://127.0.0.1:${PORT:-3000}/sign-in" && break; sleep 0.1; done
elapsed=$((($(date +%s%N) - started_at) / 1000000))
cat <<MSG

  Switchboard is running: ${APP_URL} (started in $((elapsed / 1000)).$(printf %03d $((elapsed % 1000))) s)
  Sign in as admin@demo.switchboard.local or member@demo.switchboard.local, password ${DEMO_PASSWORD:-switchboard-demo}
  Without SMTP_URL, email confirmation and password reset links are printed here (web log, "pass this link on").
  Ctrl-C stops everything.

MSG
wait
