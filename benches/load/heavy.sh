#!/usr/bin/env bash
# One heavy paid crawl must not freeze other connections (issue: "one connection never waits
# on another"). A loopback site serves a 2 MiB homepage with 100 000 distinct emails; while
# one paid request crawls it (a stub facilitator accepts and settles), wrk loads the unpaid
# 402 path with 64 keep-alive connections for 10 s. Prints the 402 path's requests/s, p50 and
# p99 alone, then during the heavy crawl, and how long the paid request took.
# Needs wrk, curl and python3. Loopback only; bounded (each phase 10 s, the paid request at
# most 120 s).
# Usage: bash benches/load/heavy.sh           (BIN=path/to/contact-extract to measure another
#        build, e.g. an older commit's; SMOL_THREADS and WORKER_THREADS pass through)
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "heavy: install $tool" >&2; exit 1; }
done
cargo build -q --release -p contact-runtime-smol -p contact-benches --bin contact-extract --bin sign-payment
BIN=${BIN:-./target/release/contact-extract}
PORT=${PORT:-18190}
SITE_PORT=${SITE_PORT:-18191}
FACILITATOR_PORT=${FACILITATOR_PORT:-18192}
export BIND_ADDR=127.0.0.1:$PORT PUBLIC_BASE_URL=https://contacts.example.com \
  PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 \
  FACILITATOR_URL=http://127.0.0.1:$FACILITATOR_PORT \
  ALLOW_PRIVATE_CIDRS=127.0.0.0/8 ALLOWED_PORTS=$SITE_PORT RESOLVE=www.heavy-site.com=127.0.0.1 \
  RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 SMOL_THREADS=${SMOL_THREADS:-1}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# The site and the facilitator, one python process, two loopback listeners.
cat > "$WORK/world.py" <<'PY'
import http.server, json, sys, threading
site_port, facilitator_port = int(sys.argv[1]), int(sys.argv[2])
emails = " ".join(f"user{i}@host{i % 97}.com" for i in range(100_000))
page = f"<html><head><title>Heavy</title></head><body><p>{emails}</p></body></html>".encode()
assert len(page) < 2 * 1024 * 1024, len(page)
class Site(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body, status = (page, 200) if self.path == "/" else (b"", 404)
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
class Facilitator(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        answer = {"isValid": True} if self.path.endswith("/verify") else \
            {"success": True, "transaction": "0xfeed", "network": "eip155:8453"}
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
servers = [http.server.ThreadingHTTPServer(("127.0.0.1", site_port), Site),
           http.server.ThreadingHTTPServer(("127.0.0.1", facilitator_port), Facilitator)]
for server in servers:
    threading.Thread(target=server.serve_forever, daemon=True).start()
print(f"page: {len(page)} bytes, 100000 distinct emails", flush=True)
threading.Event().wait(600)
PY
python3 "$WORK/world.py" "$SITE_PORT" "$FACILITATOR_PORT" &
PIDS+=($!)
"$BIN" serve 2>/dev/null &
PIDS+=($!)
sleep 1.5
cat > "$WORK/unpaid.lua" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"url":"https://www.example.com/"}'
wrk.headers["Content-Type"] = "application/json"
LUA
# The 402 path needs an allowed port: the site's.
sed -i "s#https://www.example.com/#http://www.heavy-site.com:$SITE_PORT/#" "$WORK/unpaid.lua"
load() {
  wrk -t1 -c64 -d10s --timeout 10s -s "$WORK/unpaid.lua" --latency \
    "http://127.0.0.1:$PORT/api/v1/extract-contact" \
    | grep -E "Requests/sec|^ +50%|^ +99%|Socket errors" | tr -s ' \n' ' '
  echo
}
echo "== the 402 path alone (64 keep-alive connections, 10 s)"
load
echo "== the 402 path during one paid crawl of the heavy page"
SIGNATURE=$(./target/release/sign-payment 1)
(
  start=$(date +%s.%N)
  status=$(curl -s -o "$WORK/paid.json" -w '%{http_code}' --max-time 120 \
    -H 'Content-Type: application/json' -H "PAYMENT-SIGNATURE: $SIGNATURE" \
    --data "{\"url\":\"http://www.heavy-site.com:$SITE_PORT/\"}" \
    "http://127.0.0.1:$PORT/api/v1/extract-contact" || true)
  end=$(date +%s.%N)
  echo "paid request: HTTP $status in $(python3 -c "print(round($end - $start, 1))") s" > "$WORK/paid.txt"
) &
PAID=$!
sleep 0.3
load
wait "$PAID" || true
cat "$WORK/paid.txt"
