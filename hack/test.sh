#!/usr/bin/env bash
# make test-go: the module's packages in two go test runs side by side, those named in
# NORACE_PKGS without the race detector (TEST_P of them at once, longest first) and all
# the others with it (RACE_P at once). Much of the suite waits on processes (the API
# server, the controller manager, Azure's long-running operations, az and helm), so the
# two runs together keep 2 cores busy where either alone left them idle part of the time.
# When the no-race run ends, the tools' own modules (hack/kindgen, the generator;
# hack/image, the image builder) are tested while the raced run goes on.
#
# Measured on 2 cores (2026-12-06, warm build cache, per-package CPU from the test
# binaries): with the raced run one package at a time, its chain (e2e/lifecycle about
# 380 s, internal/operator 180 s, then the rest) ended 8 minutes after the no-race run:
# two at a time, it ends about when the other does.
#
# Flags every run gets, whatever GO_TEST_FLAGS says: -vet=off (make lint runs go vet over
# the whole module; go test ran it again per package) and -ldflags=-w (no DWARF in the
# test binaries: linking each of them took about a third less CPU; panics and the race
# detector's reports still name files and lines, from the binary's own tables).
#
# The no-race run and the modules print as they go; the raced run's output is printed
# whole when it ends, so the two do not interleave. Any failing fails the whole.
set -euo pipefail
cd "$(dirname "$0")/.."
flags="${GO_TEST_FLAGS:--count=1} -vet=off -ldflags=-w"
timeout=${TEST_TIMEOUT:-20m}
p=${TEST_P:-3}
racep=${RACE_P:-2}
in_pkgs() { tr ' ' '\n' | grep -xF -f <(go list ${PKGS:-./...}) | tr '\n' ' ' || true; }
# shellcheck disable=SC2086
norace=$(bash hack/testpkgs.sh norace ${NORACE_PKGS:-} | in_pkgs)
# shellcheck disable=SC2086
race=$(bash hack/testpkgs.sh race ${NORACE_PKGS:-} | in_pkgs)
modules=
# The whole module (make test: PKGS=./...) brings the tools' modules; a narrower PKGS does not.
[[ ${PKGS:-./...} == ./... ]] && modules="hack/kindgen hack/image"

start=$SECONDS
racelog=$(mktemp "${TMPDIR:-/tmp}/aztenant-race-XXXXXX.log")
trap 'rm -f "$racelog"' EXIT
racepid=
if [[ -n ${race// /} ]]; then
  echo "go test -race -p $racep $flags <the $(wc -w <<<"$race") other packages> (printed when they end)"
  # shellcheck disable=SC2086
  (
    rc=0
    go test -race -p "$racep" $flags -timeout "$timeout" $race || rc=$?
    echo "--- the raced run ended after $((SECONDS - start)) s"
    exit $rc
  ) >"$racelog" 2>&1 &
  racepid=$!
fi
status=0
if [[ -n ${norace// /} ]]; then
  echo "go test -p $p $flags $norace" | sed 's|github.com/aztenant/aztenant|.|g'
  # shellcheck disable=SC2086
  go test -p "$p" $flags -timeout "$timeout" $norace || status=1
  echo "--- the no-race run ended after $((SECONDS - start)) s"
fi
for m in $modules; do
  echo "go -C $m test $flags ./..."
  # shellcheck disable=SC2086
  go -C "$m" test $flags -timeout "$timeout" ./... || status=1
  echo "--- $m ended after $((SECONDS - start)) s"
done
if [[ -n $racepid ]]; then
  wait "$racepid" || status=1
  echo "--- the raced packages:"
  grep -v 'no test files' "$racelog" || true
fi
exit $status
