#!/usr/bin/env bash
# Command one: install everything, prepare the database, seed the demo team, build, and run the console
# (http://localhost:3000, or $PORT), the worker and a demo Streamable HTTP MCP server until Ctrl-C.
set -euo pipefail
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
else
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
# unconfined, which the console then flags on every stdio installation).
if [[ "${STDIO_SANDBOX:-on}" != off ]] && ! command -v bwrap >/dev/null 2>&1; then
  cat >&2 <<MSG

Switchboard runs every stdio MCP server in a bubblewrap sandbox, and bwrap is not installed.
  Debian/Ubuntu: apt-get install bubblewrap passt python3-seccomp golang-github-containers-common e2fsprogs
Or start the demo with STDIO_SANDBOX=off to run stdio servers unconfined (not for a shared machine).
MSG
  exit 1
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

say "migrating the database"
npx prisma migrate deploy

say "seeding the demo team"
npx tsx apps/web/scripts/seed-demo.ts

say "building the console"
npm run build -w @switchboard/web

pids=()
# npm -> sh -> tsx -> node server.ts (the gateway) -> next (the console): stop whole trees, not just the processes started here.
killtree() { local child; for child in $(pgrep -P "$1"); do killtree "$child"; done; kill "$1" 2>/dev/null || true; }
cleanup() { trap - EXIT INT TERM; for p in "${pids[@]}"; do killtree "$p"; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

say "starting the demo MCP server (Streamable HTTP on :${DEMO_MCP_PORT})"
# Members call this server's tools (its get-env tool prints its environment): it gets a clean environment with
# only what it needs, never the secrets of .env that the console and worker read.
env -i PATH="$PATH" HOME="$HOME" LANG="${LANG:-C.UTF-8}" PORT="$DEMO_MCP_PORT" \
  node_modules/.bin/mcp-server-everything streamableHttp > .demo-mcp.log 2>&1 &
pids+=($!)

say "starting the worker"
npm run start -w @switchboard/worker &
pids+=($!)

say "starting the console on ${APP_URL}"
npm run start -w @switchboard/gateway &
pids+=($!)

for _ in $(seq 1 60); do curl -sf -o /dev/null "http://127.0.0.1:${PORT:-3000}/sign-in" && break; sleep 1; done
cat <<MSG

  Switchboard is running: ${APP_URL}
  Sign in as admin@demo.switchboard.local or member@demo.switchboard.local, password ${DEMO_PASSWORD:-switchboard-demo}
  Without SMTP_URL, email confirmation and password reset links are printed here (web log, "pass this link on").
  Ctrl-C stops everything.

MSG
wait
