#!/usr/bin/env bash
# make test-go: the module's packages in two go test runs side by side, those named in
# NORACE_PKGS without the race detector (TEST_P of them at once, longest first) and all
# the others with it (one at a time). Much of the suite waits on processes (the API
# server, the controller manager, Azure's long-running operations, az and helm), so the
# raced packages, which are few and mostly short, fill the time the others leave the
# CPUs; one after the other, the two runs left about a fifth of 2 cores idle (21 min,
# 2026-12-05).
#
# Three no-race packages at a time by default (TEST_P): most of their time is waiting, and
# at two the no-race run ended last, well after the raced one (2026-12-06: 21m13s at two,
# 19m23s at three, the same tree).
#
# The tools' own modules (hack/kindgen, the generator; hack/image, the image builder) are
# tested after the raced packages, in the same background run: one after the other at the
# end, they added a minute in which one core sat idle.
#
# The no-race run prints as it goes; the background run's output is printed whole when it
# ends, so the two do not interleave. Any failing fails the whole.
set -euo pipefail
cd "$(dirname "$0")/.."
flags=${GO_TEST_FLAGS:--count=1}
timeout=${TEST_TIMEOUT:-20m}
p=${TEST_P:-3}
in_pkgs() { tr ' ' '\n' | grep -xF -f <(go list ${PKGS:-./...}) | tr '\n' ' ' || true; }
# shellcheck disable=SC2086
norace=$(bash hack/testpkgs.sh norace ${NORACE_PKGS:-} | in_pkgs)
# shellcheck disable=SC2086
race=$(bash hack/testpkgs.sh race ${NORACE_PKGS:-} | in_pkgs)

racelog=$(mktemp "${TMPDIR:-/tmp}/aztenant-race-XXXXXX.log")
trap 'rm -f "$racelog"' EXIT
modules=
# The whole module (make test: PKGS=./...) brings the tools' modules; a narrower PKGS does not.
[[ ${PKGS:-./...} == ./... ]] && modules="hack/kindgen hack/image"
echo "go test -race -p 1 $flags <the $(wc -w <<<"$race") other packages>, then the modules ${modules:-(none)} (printed when they end)"
(
  rc=0
  if [[ -n ${race// /} ]]; then
    # shellcheck disable=SC2086
    go test -race -p 1 $flags -timeout "$timeout" $race || rc=1
  fi
  for m in $modules; do
    # shellcheck disable=SC2086
    go -C "$m" test $flags -timeout "$timeout" ./... || rc=1
  done
  exit $rc
) >"$racelog" 2>&1 &
racepid=$!
status=0
if [[ -n ${norace// /} ]]; then
  echo "go test -p $p $flags $norace" | sed 's|github.com/aztenant/aztenant|.|g'
  # shellcheck disable=SC2086
  go test -p "$p" $flags -timeout "$timeout" $norace || status=1
fi
wait "$racepid" || status=1
echo "--- the raced packages and the modules:"
grep -v 'no test files' "$racelog" || true
exit $status
