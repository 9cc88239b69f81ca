#!/usr/bin/env bash
# The main job on embedded defaults: start the daemon, send a script, wait
# for the rendered MP4, download it to ./demo.mp4, stop the daemon.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/reelsmith}
DATA=$(mktemp -d)
LOG="$DATA/daemon.log"
# A fresh random webhook secret for this run, never the example's placeholder.
REELSMITH__WEBHOOK__SIGNING_SECRET=$(python3 -c 'import secrets; print(secrets.token_hex(32))') \
  "$BIN" serve --config reelsmith.example.toml --listen 127.0.0.1:0 --data-dir "$DATA/data" >"$DATA/out" 2>"$LOG" &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q '^listening on ' "$DATA/out" 2>/dev/null && break; sleep 0.1; done
BASE=$(sed -n 's/^listening on //p' "$DATA/out" | head -1)
if [ -z "$BASE" ]; then echo "the daemon did not start:"; cat "$DATA/out" "$LOG"; exit 1; fi
KEY=$(cat "$DATA/data/bootstrap-key")
echo "daemon at $BASE (key in $DATA/data/bootstrap-key)"
BODY=$(python3 -c 'import json,sys; print(json.dumps({"script_text": open("assets/demo-script.txt").read(), "output_type": "video"}))')
ID=$(curl -sf -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d "$BODY" "$BASE/v1/create_video" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "job $ID"
while :; do
  S=$(curl -sf -H "Authorization: Bearer $KEY" "$BASE/v1/status/$ID")
  STATUS=$(echo "$S" | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["status"], v["details"]["step"], round(v["progress"]*100))')
  printf '\r%-40s' "status: $STATUS%"
  case "$STATUS" in processing*) sleep 1 ;; *) echo; break ;; esac
done
URL=$(echo "$S" | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["result"].get("video_url") or "")')
if [ -z "$URL" ]; then echo "job did not complete: $S"; exit 1; fi
curl -sf -o demo.mp4 "$URL"
echo "wrote demo.mp4 from $URL"
