#!/bin/sh
# `npm test` runs every test file; `npm test -- FILE…` runs only those (paths or globs), e.g.
#   npm test -- test/api/jobs.test.ts
#   npm test -- --test-name-pattern="cancel" test/jobs/cancel.test.ts
# Options (arguments starting with "-") go to `node --test` as they are; give an option's value after "=".
# The tests are TypeScript run directly, so they need Node.js 24: the project's own (the npm package `node`,
# brought by `npm install`), whatever `node` comes first on PATH.
set -eu
cd "$(dirname "$0")/.."
node=node_modules/node/bin/node
[ -x "$node" ] || node=node

files=no
for arg in "$@"; do
  case "$arg" in
    -*) ;;
    *) files=yes ;;
  esac
done
[ "$files" = yes ] || set -- "$@" "test/**/*.test.ts"
exec "$node" --test --test-concurrency=2 "$@"
