#!/usr/bin/env bash
# The module's packages split for `make test`: `race` prints those tested with the race
# detector, `norace` those tested without it (the packages given as arguments, as
# `go list` names them). Every package of ./... is in exactly one of the two lists: the
# race list is ./... without the others, so a new package is raced unless named; a
# name given that is no package of ./... (moved, renamed, mistyped) fails here rather
# than leaving a package untested. The no-race list keeps the order given: go test starts
# packages in that order, so the longest are named first and do not end a run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: testpkgs.sh race|norace [package...]}
shift
all=$(go list ./...)
norace=
if (($#)); then
  norace=$(go list "$@" | awk '!seen[$0]++') || { echo "testpkgs.sh: no package $*" >&2; exit 1; }
fi
for p in $norace; do
  if ! grep -qxF "$p" <<<"$all"; then
    echo "testpkgs.sh: $p is not a package of ./..." >&2
    exit 1
  fi
done
race=$(comm -23 <(sort -u <<<"$all") <(printf '%s\n' $norace | sed '/^$/d' | sort))
if [[ $(printf '%s\n' $race $norace | sed '/^$/d' | sort) != $(sort <<<"$all") ]]; then
  echo "testpkgs.sh: the race and no-race lists do not cover ./... exactly" >&2
  exit 1
fi
case $mode in
race) echo $race ;;
norace) echo $norace ;;
*) echo "testpkgs.sh: race or norace, not $mode" >&2; exit 2 ;;
esac
