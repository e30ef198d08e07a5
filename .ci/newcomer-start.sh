#!/usr/bin/env bash
# The README's first command, run as a newcomer runs it on a fresh clone: `npm start` with no
# variable set (default port, default ./data), then /healthz, the home page and the public settings
# must answer, and SIGTERM must stop it with exit code 0. Any failure fails CI (issue 23: the start
# once died on a missing ./data and no test saw it).
set -euo pipefail
cd "$(dirname "$0")/.."

WAIT_SEC=${NEWCOMER_WAIT_SEC:-120}
PORT_DEFAULT=8080
BASE="http://127.0.0.1:${PORT_DEFAULT}"
LOG=$(mktemp -t securering-newcomer-XXXXXX.log)

fail() {
  echo "[newcomer] ÉCHEC : $*" >&2
  echo "[newcomer] --- sortie de npm start ---" >&2
  tail -n 80 "$LOG" >&2 || true
  exit 1
}

if [ -e data ]; then
  fail "./data existe déjà avant le démarrage : le test doit partir d'un clone neuf"
fi
if curl -s -o /dev/null --max-time 2 "$BASE/healthz"; then
  fail "le port ${PORT_DEFAULT} est déjà pris par un autre processus"
fi

# Exactly a newcomer's environment: none of the project's variables (CI exports the test ones).
# Its own process group (setsid), stopped as a terminal stops it: the signal goes to npm, the start
# script and the server together (npm alone does not pass SIGTERM on to its script).
setsid env -u DATABASE_URL -u REDIS_URL -u DATA_DIR -u PORT -u HOST -u PUBLIC_URL \
  -u ADMIN_USERNAME -u ADMIN_PASSWORD -u ADMIN_EMAIL -u PAYMENT_TEST_MODE -u S3_BUCKET \
  -u TEST_DATABASE_URL -u TEST_REDIS_URL \
  npm start >"$LOG" 2>&1 &
PID=$!
stop_group() { kill "-$1" -- "-$PID" 2>/dev/null || true; }
# Whatever happens, nothing of it is left running.
trap 'stop_group KILL' EXIT
started=$(date +%s)

ready=0
while [ $(($(date +%s) - started)) -lt "$WAIT_SEC" ]; do
  if ! kill -0 "$PID" 2>/dev/null; then
    wait "$PID" && code=0 || code=$?
    fail "npm start s'est arrêté avant de répondre (code $code)"
  fi
  if [ "$(curl -s --max-time 2 "$BASE/healthz" || true)" = '{"status":"ok"}' ]; then
    ready=1
    break
  fi
  sleep 1
done
if [ "$ready" != 1 ]; then
  stop_group TERM
  fail "/healthz n'a pas répondu en ${WAIT_SEC} s"
fi
echo "[newcomer] prêt en $(($(date +%s) - started)) s"

check() {
  local path=$1 pattern=$2 body status
  body=$(mktemp)
  status=$(curl -s -o "$body" -w '%{http_code}' --max-time 10 "$BASE$path" || true)
  if [ "$status" != 200 ] || ! grep -q "$pattern" "$body"; then
    stop_group TERM
    fail "$path a répondu $status (attendu 200 avec « $pattern »)"
  fi
  rm -f "$body"
  echo "[newcomer] $path : 200"
}
check / '<div id="root">'
check /api/settings.php '"success":true'

[ -d data ] || fail "./data n'a pas été créé"
mode=$(stat -c '%a' data)
[ "$mode" = 700 ] || fail "./data a les droits $mode (attendu 700)"

# SIGTERM to what `npm start` runs (scripts/start.mjs, which passes it to the server), as a
# process manager would; npm then exits with its script's code. (SIGTERM to npm itself ends npm
# with 143 whatever the server does.)
# (npm runs it through `sh -c`: match the node process itself, not the shell.)
START_PID=$(pgrep -g "$PID" -f '^[^ ]*node scripts/start\.mjs' | head -n 1 || true)
[ -n "$START_PID" ] || fail "processus scripts/start.mjs introuvable"
kill -TERM "$START_PID"
for _ in $(seq 1 30); do kill -0 "$PID" 2>/dev/null || break; sleep 1; done
if kill -0 "$PID" 2>/dev/null; then
  stop_group KILL
  fail "npm start ne s'est pas arrêté 30 s après SIGTERM"
fi
wait "$PID" && code=0 || code=$?
[ "$code" = 0 ] || fail "npm start s'est terminé avec le code $code après SIGTERM"
grep -q 'SecureRing prêt sur' "$LOG" || fail "la ligne « SecureRing prêt sur » manque dans le journal"
grep -q 'arrêt en cours' "$LOG" || fail "le serveur n'a pas journalisé son arrêt (« arrêt en cours »)"
echo "[newcomer] npm start sur un clone neuf : servi puis arrêté proprement (code 0)"
rm -rf data "$LOG"
