#!/usr/bin/env bash
# `npm test`: the type check and the linters run beside jest instead of before it (niced, so that they take the
# CPU jest's waits leave rather than slow its timing-sensitive tests); the run fails when any of them fails, and
# prints their output after jest's. Arguments go to jest (`npm test -- test/unit`).
set -uo pipefail
cd "$(dirname "$0")/.."
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
nice -n 10 npm run -s typecheck >"$logs/typecheck" 2>&1 &
typecheck=$!
nice -n 10 npm run -s lint >"$logs/lint" 2>&1 &
lint=$!
npx jest "$@"
status=$?
for check in typecheck lint; do
  if wait "${!check}"; then
    echo "npm run $check: passed"
  else
    echo "npm run $check: FAILED" >&2
    cat "$logs/$check" >&2
    status=1
  fi
done
exit "$status"
