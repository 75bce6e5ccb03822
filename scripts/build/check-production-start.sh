#!/usr/bin/env bash
# Proves the compiled start needs production dependencies only: installs the lockfile with `npm ci --omit=dev`
# into a temporary folder, copies in the build outputs only (no sources), starts the gateway and the worker there
# with plain node against a fresh database, and waits for the console to answer, the MCP route to answer and the
# worker to take jobs. Fails if either process cannot start, or if a development tool was installed.
#
#   npm run build && bash scripts/build/check-production-start.sh
#
# Needs PostgreSQL and Redis as the tests do (DATABASE_URL's server, default postgresql://postgres@127.0.0.1:5432;
# REDIS_URL, default redis://127.0.0.1:6379). Prints how long the install and the start took.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
export CHECKPOINT_DISABLE=1 NEXT_TELEMETRY_DISABLED=1

for out in apps/gateway/dist/server.js apps/worker/dist/main.js apps/web/.next/standalone/apps/web/server.js; do
  [[ -f $out ]] || { echo "missing $out: run npm run build first" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sb-prod-start.XXXXXX")
# Sandboxed stdio servers run as uids of their own and must pass through it to node_modules.
chmod 0755 "$tmp"
pids=()
db=""
base_url=${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
cleanup() {
  local status=$?
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -n $db ]]; then
    DATABASE_URL=$base_url node -e '
      const pg = require("pg"); const c = new pg.Client(process.env.DATABASE_URL.replace(/\/[^/?]*(\?|$)/, "/postgres$1"));
      c.connect().then(() => c.query(`DROP DATABASE IF EXISTS "${process.argv[1]}" WITH (FORCE)`)).finally(() => c.end());' "$db" || true
  fi
  if [[ $status != 0 ]]; then
    echo "--- gateway log" >&2; tail -n 30 "$tmp/gateway.log" >&2 2>/dev/null || true
    echo "--- worker log" >&2; tail -n 30 "$tmp/worker.log" >&2 2>/dev/null || true
  fi
  rm -rf "$tmp" || true
  exit "$status"
}
trap cleanup EXIT INT TERM

# The lockfile and every workspace's package.json: what `npm ci` needs, and nothing else from the source tree.
cp package.json package-lock.json "$tmp/"
for pkg in apps/*/package.json packages/*/package.json tests/*/package.json tooling/package.json; do
  mkdir -p "$tmp/$(dirname "$pkg")" && cp "$pkg" "$tmp/$pkg"
done
t0=$SECONDS
# --ignore-scripts: the root's postinstall runs `prisma generate` (a dev tool); the client is in the bundles.
(cd "$tmp" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
install_s=$((SECONDS - t0))
# npm installs some development tools even so (optional peers another package names, such as better-auth's vitest
# and @prisma/client's prisma and typescript, and packages/testing's vitest, all in the lockfile): remove them, so
# a start that needed one fails here.
for tool in tsx typescript esbuild @esbuild vitest vite rolldown prisma turbo playwright playwright-core @playwright; do
  rm -rf "$tmp/node_modules/$tool"
done

# The build outputs only (symlinks inside Next's standalone tree kept as they are).
mkdir -p "$tmp/apps/web/.next"
cp -a apps/gateway/dist "$tmp/apps/gateway/dist"
cp -a apps/worker/dist "$tmp/apps/worker/dist"
cp -a apps/web/.next/standalone "$tmp/apps/web/.next/standalone"

# A fresh database, migrated with the Prisma CLI of the full install (as a migrations job would).
db="sb_prod_start_$(date +%s)_$$"
db_url=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.href)' "$base_url" "$db")
DATABASE_URL=$base_url node -e '
  const pg = require("pg"); const c = new pg.Client(process.env.DATABASE_URL);
  c.connect().then(() => c.query(`CREATE DATABASE "${process.argv[1]}"`)).finally(() => c.end());' "$db"
DATABASE_URL=$db_url npx prisma migrate deploy >/dev/null

free_port() { node -e 's = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
port=$(free_port)
bridge_port=$(free_port)
secret() { node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))'; }
common=(
  "DATABASE_URL=$db_url" "REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}" "REDIS_PREFIX=sb-prod-start-$$"
  "SWITCHBOARD_ENCRYPTION_KEY=$(secret)" "BRIDGE_SECRET=$(secret)" "PATH=$PATH" "HOME=$tmp" "LOG_LEVEL=info"
)
t1=$SECONDS
# A clean environment: nothing from this shell (no NODE_ENV, no NODE_OPTIONS loader) reaches the processes.
(cd "$tmp" && exec env -i "${common[@]}" "BETTER_AUTH_SECRET=$(secret)" "PORT=$port" "APP_URL=http://localhost:$port" \
  "BRIDGE_URL=http://127.0.0.1:$bridge_port" node apps/gateway/dist/server.js >"$tmp/gateway.log" 2>&1) &
pids+=($!)
(cd "$tmp" && exec env -i "${common[@]}" "PORT=$port" "BRIDGE_PORT=$bridge_port" "STDIO_SANDBOX_DIR=$tmp/sandboxes" \
  node apps/worker/dist/main.js >"$tmp/worker.log" 2>&1) &
pids+=($!)

deadline=$((SECONDS + 120))
until curl -sf -o /dev/null "http://127.0.0.1:$port/sign-in"; do
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || { echo "a process exited during start" >&2; exit 1; }; done
  ((SECONDS < deadline)) || { echo "the console did not answer within 120 s" >&2; exit 1; }
  sleep 0.5
done
until grep -q '"msg":"worker started"' "$tmp/worker.log"; do
  kill -0 "${pids[1]}" 2>/dev/null || { echo "the worker exited during start" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "the worker did not start within 120 s" >&2; exit 1; }
  sleep 0.5
done
start_s=$((SECONDS - t1))
# The hosted MCP route (served by the gateway itself): without a token it asks for one.
mcp=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' \
  -H 'accept: application/json, text/event-stream' --data '{"jsonrpc":"2.0","id":1,"method":"ping"}' \
  "http://localhost:$port/api/mcp")
[[ $mcp == 401 ]] || { echo "the MCP route answered $mcp without a token, not 401" >&2; exit 1; }
static=$(curl -s "http://127.0.0.1:$port/sign-in" | grep -o '/_next/static/[^"]*\.js' | head -n1)
curl -sf -o /dev/null "http://127.0.0.1:$port$static" || { echo "the console's static asset $static is not served" >&2; exit 1; }

echo "production start: npm ci --omit=dev ${install_s}s ($(du -sm "$tmp/node_modules" | cut -f1) MB node_modules), gateway and worker up in ${start_s}s; console, MCP route and worker answer"
