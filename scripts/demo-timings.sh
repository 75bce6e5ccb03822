#!/usr/bin/env bash
# Times `npm run demo` from its start to "Switchboard is running", cold (a build from nothing: the build outputs
# removed, turbo's cache bypassed; skipped with DEMO_TIMINGS_COLD=0) and warm (a second run, nothing changed: no
# build), and checks after each that a Ctrl-C (SIGINT to the demo's process group, as a terminal sends it)
# leaves no process behind: none that carries this run's marker in its environment, works in this checkout or
# names the run's sandbox directory. Exits 1 on a leftover, or on a demo that does not come up.
#
#   bash scripts/demo-timings.sh        (uses the demo's .env; PostgreSQL and Redis as the demo needs them)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
marker="sb-demo-timings-$$-$RANDOM"
sandboxes=$(mktemp -d "${TMPDIR:-/tmp}/sb-demo-timings.XXXXXX")
chmod 0755 "$sandboxes"
log=$(mktemp)
trap 'rm -f "$log"; rm -rf "$sandboxes" 2>/dev/null || true' EXIT

# This script, what runs it and what runs beside it (a CI shell in this checkout, a pipe's `tail`) are not the
# demo's: the demo runs in a session of its own, and what it starts keeps that one or makes its own.
ancestors=" "
for ((p = $$; p > 1; p = $(awk '{print $4}' "/proc/$p/stat"))); do ancestors+="$p "; done
session() { awk '{print $6}' "/proc/$1/stat" 2>/dev/null; }
own_session=$(session $$)

# Processes of this demo run still alive: by marker, by working directory, by command line.
leftovers() {
  local pid
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    [[ $ancestors == *" $pid "* || $pid == "$BASHPID" ]] && continue
    [[ -r /proc/$pid/cmdline ]] || continue
    grep -q "State:.*[ZX]" "/proc/$pid/status" 2>/dev/null && continue
    [[ "$(session "$pid")" == "$own_session" ]] && continue
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx "SB_DEMO_RUN=$marker" ||
      [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == "$root"* ]] ||
      { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF "$sandboxes"; then
      echo "$pid $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | cut -c1-150)"
    fi
  done
}

run() {
  local label=$1
  : >"$log"
  # Its own session and process group, as a terminal's foreground job would be.
  setsid env SB_DEMO_RUN="$marker" TURBO_FORCE="${TURBO_FORCE:-false}" STDIO_SANDBOX_DIR="$sandboxes" bash scripts/demo.sh >"$log" 2>&1 &
  local demo=$!
  local t0=$SECONDS
  until grep -q "Switchboard is running" "$log"; do
    if ! kill -0 "$demo" 2>/dev/null; then
      tail -n 40 "$log" >&2
      echo "the demo exited before it was running" >&2
      exit 1
    fi
    if ((SECONDS - t0 > ${DEMO_TIMINGS_TIMEOUT:-900})); then
      tail -n 40 "$log" >&2
      echo "the demo was not running after ${DEMO_TIMINGS_TIMEOUT:-900} s" >&2
      kill -INT -"$demo" 2>/dev/null || true
      wait "$demo" 2>/dev/null || true
      leftovers >&2
      exit 1
    fi
    sleep 0.2
  done
  local took
  took=$(grep -o "started in [0-9.]* s" "$log" | grep -o "[0-9.]*")
  local built=reused
  grep -q "cache miss, executing" "$log" && built=built
  # Ctrl-C: SIGINT to the whole foreground group.
  local t1=$SECONDS
  kill -INT -"$demo"
  # The demo's own grace is 40 s; one that waits on a child it lost track of must not hang this check.
  while kill -0 "$demo" 2>/dev/null && ((SECONDS - t1 < 60)); do sleep 0.2; done
  local stop_s=$((SECONDS - t1))
  printf 'demo %s: up in %s s (build %s), stopped in %s s after Ctrl-C\n' "$label" "$took" "$built" "$stop_s"
  local left
  left=$(leftovers)
  if [[ -n $left ]]; then
    echo "left behind after Ctrl-C:" >&2
    echo "$left" >&2
    exit 1
  fi
}

if [[ ${DEMO_TIMINGS_COLD:-1} != 0 ]]; then
  rm -rf apps/gateway/dist apps/worker/dist apps/web/.next
  TURBO_FORCE=true run cold # builds whatever turbo's cache holds
fi
run warm
