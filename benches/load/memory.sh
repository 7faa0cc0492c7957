#!/usr/bin/env bash
# Peak memory under paid crawls (a memory budget for page bytes): 256 concurrent
# paid requests, each crawling a loopback site whose homepage and three extra pages are
# ~2 MiB each (a stub facilitator accepts and settles). Prints the service's peak RSS, the
# statuses, and the wall time, for MAX_PAGE_MEMORY at its default (512 MiB) and at 64 MiB.
# Needs python3. Loopback only; bounded (each request at most 60 s).
# Usage: bash benches/load/memory.sh   (BIN= to measure another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q --release -p contact-runtime-smol -p contact-benches --bin contact-extract --bin sign-payment
BIN=${BIN:-./target/release/contact-extract}
PORT=${PORT:-18210}
SITE_PORT=${SITE_PORT:-18211}
FACILITATOR_PORT=${FACILITATOR_PORT:-18212}
export PUBLIC_BASE_URL=https://contacts.example.com \
  PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 \
  FACILITATOR_URL=http://127.0.0.1:$FACILITATOR_PORT CHAIN_RPC_URL=none \
  ALLOW_PRIVATE_CIDRS=127.0.0.0/8 ALLOWED_PORTS=$SITE_PORT RESOLVE=www.big-site.com=127.0.0.1 \
  RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 X402_MAX_TIMEOUT_SECONDS=600
source benches/load/scratch.sh
# Signed once for both runs: valid long enough for the second (the service refuses a payment
# with less than 56 s of validity left; docs/payments.md "The window").
for nonce in $(seq 0 255); do VALID_SECONDS=600 ./target/release/sign-payment "$nonce"; done > "$WORK/signatures"
nice -n 10 python3 benches/load/world.py "$SITE_PORT" "$FACILITATOR_PORT" big &
PIDS+=($!)
sleep 1
run() { # MAX_PAGE_MEMORY
  BIND_ADDR=127.0.0.1:$PORT MAX_PAGE_MEMORY=$1 "$BIN" serve 2>/dev/null &
  local server=$!
  sleep 1
  python3 - "$PORT" "$SITE_PORT" "$server" "$WORK/signatures" "$1" <<'PY'
import collections, socket, sys, threading, time
port, site_port, pid, signatures, budget = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
rss = lambda: int(open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split()[0])
body = f'{{"url":"http://www.big-site.com:{site_port}/"}}'.encode()
statuses = collections.Counter()
def paid(signature):
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(60)
    s.sendall(b"POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              + f"PAYMENT-SIGNATURE: {signature}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    statuses[data[9:12].decode() or "none"] += 1
idle = rss()
threads = [threading.Thread(target=paid, args=(line.strip(),)) for line in open(signatures)]
peak, start = idle, time.time()
for t in threads:
    t.start()
while any(t.is_alive() for t in threads) and time.time() - start < 90:
    peak = max(peak, rss())
    time.sleep(0.02)
print(f"MAX_PAGE_MEMORY={budget}: 256 concurrent paid crawls of 4 x 2 MiB pages: "
      f"idle RSS {idle // 1024} MiB, peak {peak // 1024} MiB, {time.time() - start:.1f} s, "
      f"statuses {dict(sorted(statuses.items()))}", flush=True)
PY
  kill -INT "$server"; wait "$server" 2>/dev/null || true
}
run 512MiB
run 64MiB
