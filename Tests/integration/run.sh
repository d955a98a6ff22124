#!/usr/bin/env bash
# Integration tests against real servers on 127.0.0.1: Synapse (SQLite) and mastodon-mock, both from PyPI in a venv
# under .venv-integration/ (git-ignored, reused between runs). Starts both servers with generated configs in a temp
# dir, registers a Matrix user and room, runs `swift test --filter IntegrationTests` with their addresses in
# STEPTWEET_IT_* variables, and stops every process it started (trap), whatever happens. The same suite drives the
# receiver of a real agent with curl.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV="$ROOT/.venv-integration"
SYNAPSE_VERSION=1.163.2
MASTODON_MOCK_VERSION=0.6.1
SWIFT=${SWIFT:-swift}
PIDS=()
WORK=$(mktemp -d "${TMPDIR:-/tmp}/steptweet-integration.XXXXXX")

cleanup() {
    local status=$?
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ "$status" -ne 0 ]; then
        echo "integration: FAILED (exit $status); server logs:" >&2
        tail -n 20 "$WORK"/synapse/homeserver.log "$WORK"/synapse.stdout "$WORK"/mastodon.stdout 2>/dev/null >&2 || true
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { echo "integration: $*"; }

# --- curl, which drives the receiver as a phone app or a script would (ReceiverCurlTests) ---
if ! command -v curl >/dev/null 2>&1; then
    step "installing curl (apt)"
    SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq curl
fi

# --- Python venv with both servers (cached) ---------------------------------------------------------------------
MARKER="$VENV/.installed-synapse-$SYNAPSE_VERSION-mastodon-mock-$MASTODON_MOCK_VERSION"
if [ ! -f "$MARKER" ]; then
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        step "installing python3-venv (apt)"
        SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
        $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv
    fi
    step "creating $VENV with matrix-synapse $SYNAPSE_VERSION and mastodon-mock $MASTODON_MOCK_VERSION (PyPI)"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    timeout 300 "$VENV/bin/pip" install -q --disable-pip-version-check \
        "matrix-synapse==$SYNAPSE_VERSION" "mastodon-mock==$MASTODON_MOCK_VERSION"
    touch "$MARKER"
fi
PY="$VENV/bin/python"

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# Waits until GET $1 answers 2xx, for at most $2 seconds.
wait_http() {
    "$PY" - "$1" "$2" <<'PY'
import sys, time, urllib.request
url, limit = sys.argv[1], float(sys.argv[2])
end = time.time() + limit
while time.time() < end:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            if 200 <= r.status < 300: sys.exit(0)
    except Exception:
        time.sleep(0.25)
print(f"no answer from {url} within {limit:.0f} s", file=sys.stderr)
sys.exit(1)
PY
}

# --- Synapse on 127.0.0.1 with SQLite --------------------------------------------------------------------------
SYNAPSE_PORT=$(free_port)
mkdir -p "$WORK/synapse"
step "generating Synapse config (port $SYNAPSE_PORT)"
(cd "$WORK/synapse" && "$PY" -m synapse.app.homeserver --server-name localhost --config-path homeserver.yaml \
    --data-directory "$WORK/synapse/data" --generate-config --report-stats=no >/dev/null)
"$PY" - "$WORK/synapse/homeserver.yaml" "$SYNAPSE_PORT" <<'PY'
import sys, yaml
path, port = sys.argv[1], int(sys.argv[2])
config = yaml.safe_load(open(path))
config["listeners"] = [{"port": port, "tls": False, "type": "http", "x_forwarded": False,
                        "bind_addresses": ["127.0.0.1"], "resources": [{"names": ["client"], "compress": False}]}]
config["trusted_key_servers"] = []
config["suppress_key_server_warning"] = True
config["federation_domain_whitelist"] = []
config["report_stats"] = False
config["url_preview_enabled"] = False
fast = {"per_second": 1000, "burst_count": 1000}
config["rc_message"] = fast
config["rc_registration"] = fast
config["rc_login"] = {"address": fast, "account": fast, "failed_attempts": fast}
yaml.safe_dump(config, open(path, "w"))
PY
(cd "$WORK/synapse" && exec "$PY" -m synapse.app.homeserver -c homeserver.yaml) > "$WORK/synapse.stdout" 2>&1 &
PIDS+=($!)

# --- mastodon-mock on 127.0.0.1 with a file-backed SQLite ------------------------------------------------------
MASTODON_PORT=$(free_port)
# Media inside $WORK, which cleanup removes: left unset, mastodon-mock makes a /tmp/mastodon_mock_media_* folder
# that nothing removes.
cat > "$WORK/mastodon.toml" <<TOML
media_storage_path = "$WORK/mastodon-media"

[server]
host = "127.0.0.1"
port = $MASTODON_PORT

[database]
path = "$WORK/mastodon.sqlite"
TOML
step "starting mastodon-mock (port $MASTODON_PORT) and Synapse"
"$VENV/bin/mastodon_mock" serve --config "$WORK/mastodon.toml" > "$WORK/mastodon.stdout" 2>&1 &
PIDS+=($!)

wait_http "http://127.0.0.1:$SYNAPSE_PORT/_matrix/client/versions" 90
wait_http "http://127.0.0.1:$MASTODON_PORT/api/v1/instance" 60

# --- A Matrix user, a device and a room ------------------------------------------------------------------------
step "registering a Matrix user and creating a room"
timeout 60 "$VENV/bin/register_new_matrix_user" -c "$WORK/synapse/homeserver.yaml" -u stepbot -p 'stepbot-pass-123' \
    --no-admin "http://127.0.0.1:$SYNAPSE_PORT" >/dev/null
eval "$("$PY" - "http://127.0.0.1:$SYNAPSE_PORT" <<'PY'
import json, sys, urllib.request
base = sys.argv[1]
def call(path, body, token=None):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    if token: request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=20) as r:
        return json.load(r)
login = call("/_matrix/client/v3/login", {"type": "m.login.password", "device_id": "STEPBOT1",
             "identifier": {"type": "m.id.user", "user": "stepbot"}, "password": "stepbot-pass-123"})
room = call("/_matrix/client/v3/createRoom", {"name": "steps", "preset": "private_chat"}, login["access_token"])
print(f"export STEPTWEET_IT_MATRIX_TOKEN='{login['access_token']}'")
print(f"export STEPTWEET_IT_MATRIX_ROOM='{room['room_id']}'")
PY
)"
export STEPTWEET_IT_MATRIX_URL="http://127.0.0.1:$SYNAPSE_PORT"
# For a second login (a new device, whose txnIds are its own): the look-up test.
export STEPTWEET_IT_MATRIX_USER="stepbot" STEPTWEET_IT_MATRIX_PASSWORD="stepbot-pass-123"
export STEPTWEET_IT_MASTODON_URL="http://127.0.0.1:$MASTODON_PORT"
export STEPTWEET_IT_MASTODON_TOKEN="mock_token"

# --- The Swift suite ---------------------------------------------------------------------------------------------
step "running swift test --filter IntegrationTests"
cd "$ROOT"
timeout 240 "$SWIFT" test --filter IntegrationTests 2>&1 | tee "$WORK/swift-test.log" | grep -E "✔|✘|error:|Test run" || true
if ! grep -q "Test run with .* passed" "$WORK/swift-test.log"; then
    echo "integration: the Swift suite did not pass" >&2
    tail -n 40 "$WORK/swift-test.log" >&2
    exit 1
fi
step "OK: Synapse $SYNAPSE_VERSION and mastodon-mock $MASTODON_MOCK_VERSION on 127.0.0.1, $(grep -o 'Test run with [0-9]* tests' "$WORK/swift-test.log" | grep -o '[0-9]*') tests passed; servers stopped"
