#!/usr/bin/env bash
# Runs the test suite RUNS times (default 3) while BUSY processes (default 2,
# one per core here) spin on the CPUs, and prints each run's wall time and
# result: a suite that passes only on an idle machine fails here first.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3} busy=${BUSY:-2}
pids=()
cleanup() { ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for ((i = 0; i < busy; i++)); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
failed=0
for ((r = 1; r <= runs; r++)); do
  start=$SECONDS
  # make test's go test runs (the race detector on all but NORACE_PKGS).
  if make --no-print-directory test-go TEST_TIMEOUT="${TEST_TIMEOUT:-30m}" >"bin/test-under-load-$r.log" 2>&1; then
    status=passed
  else
    status=FAILED
    failed=$((failed + 1))
  fi
  echo "run $r of $runs with $busy busy processes: $status in $((SECONDS - start)) s (log: bin/test-under-load-$r.log)"
done
echo "$((runs - failed)) passed, $failed failed"
((failed == 0))
