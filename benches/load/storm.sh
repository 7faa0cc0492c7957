#!/usr/bin/env bash
# Bursts and connection storms, on loopback, bounded:
#  2. Burst: 10 × RATE_LIMIT_BURST unpaid requests pipelined from one client, then the same
#     from 1 000 clients behind a trusted proxy (TRUSTED_PROXIES + X-Forwarded-For). Every
#     answer must be 402, 429 or 503 (429/503 with Retry-After), never another 5xx; the
#     service's RSS before and after is printed (it must stay within 10 %).
#  3. 10 000 idle connections plus a slowloris storm (1 000 connections sending one byte a
#     second) while wrk measures the 402 path (64 keep-alive connections, 10 s): p99, req/s
#     and the service's RSS.
# Needs wrk and python3. Usage: bash benches/load/storm.sh   (BIN= to measure another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in wrk python3; do
  command -v "$tool" >/dev/null || { echo "storm: install $tool" >&2; exit 1; }
done
cargo build -q --release -p contact-runtime-smol
BIN=${BIN:-./target/release/contact-extract}
PORT=${PORT:-18200}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
WORK=$(mktemp -d)
SERVER=
cleanup() {
  [ -n "$SERVER" ] && { kill -INT "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; }
  rm -rf "$WORK"
}
trap cleanup EXIT
start() { # extra VAR=value settings
  env BIND_ADDR=127.0.0.1:$PORT PUBLIC_BASE_URL=https://contacts.example.com \
    PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 \
    FACILITATOR_URL=https://facilitator.example.com "$@" "$BIN" serve 2>/dev/null &
  SERVER=$!
  sleep 1
}
stop() { kill -INT "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; SERVER=; }

echo "== 2. burst: 10 x RATE_LIMIT_BURST (20) from one client, then from 1 000 clients via X-Forwarded-For"
start RATE_LIMIT_PER_MINUTE=60 RATE_LIMIT_BURST=20 TRUSTED_PROXIES=127.0.0.1/32 \
  MAX_CONNECTIONS_PER_IP=20000
python3 - "$PORT" "$SERVER" <<'PY'
import collections, socket, sys
port, pid = int(sys.argv[1]), sys.argv[2]
rss = lambda: int(open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split()[0])
BODY = b'{"url":"https://www.example.com/"}'
def request(forwarded=None):
    extra = f"X-Forwarded-For: {forwarded}\r\n".encode() if forwarded else b""
    return (b"POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + extra + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY)
def burst(count, forwarded=None):
    """Pipelines `count` requests on one connection; returns (status, has Retry-After) per answer."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(20)
    s.sendall(request(forwarded) * (count - 1) + request(forwarded).replace(b"Host: x", b"Host: x\r\nConnection: close"))
    data = bytearray()
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    s.close()
    answers = []
    for part in data.split(b"HTTP/1.1 ")[1:]:
        head = part.split(b"\r\n\r\n")[0].lower()
        answers.append((int(part[:3]), b"\r\nretry-after:" in head))
    return answers
def report(name, answers):
    counts = collections.Counter(status for status, _ in answers)
    bad = [a for a in answers if a[0] not in (402, 429, 503) or (a[0] in (429, 503) and not a[1])]
    print(f"{name}: {len(answers)} answers {dict(sorted(counts.items()))}; "
          f"{'OK' if not bad else 'BAD: %d unexpected' % len(bad)}")
    return not bad
ok = report("one client, 200 requests", burst(200))
def clients(round):
    answers = []
    for i in range(1000):
        answers += burst(40, f"10.{round}.{i // 250}.{i % 250 + 1}")
    return answers
ok &= report("1000 clients via a trusted proxy, 40 requests each", clients(0))
# RSS once warm (allocator arenas, the limiter's first buckets), then after four more rounds
# of 1000 new clients each: it must stay flat.
before = rss()
for round in range(1, 5):
    ok &= report(f"round {round}: 1000 new clients", clients(round))
after = rss()
print(f"RSS warm {before} kB, after 4 more rounds {after} kB ({(after - before) * 100 / before:+.1f} %)")
sys.exit(0 if ok else 1)
PY
stop

echo "== 3. 10 000 idle connections + 1 000 slowloris connections, while wrk loads the 402 path"
start RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 \
  MAX_CONNECTIONS=20000 MAX_CONNECTIONS_PER_IP=20000 SMOL_THREADS=${SMOL_THREADS:-1}
cat > "$WORK/unpaid.lua" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"url":"https://www.example.com/"}'
wrk.headers["Content-Type"] = "application/json"
LUA
python3 - "$PORT" "$SERVER" <<'PY' &
import resource, socket, sys, time
port, pid = int(sys.argv[1]), sys.argv[2]
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
rss = lambda: open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split("\n")[0].strip()
print("idle service:", rss(), flush=True)
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(10000)]
slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(1000)]
print("with 10000 idle + 1000 slow connections:", rss(), flush=True)
prefix = b"POST /api/v1/extract-contact HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 64
reopened = 0
for second in range(12):
    for i, s in enumerate(slow):
        try:
            s.send(prefix[second:second + 1])
        except OSError:
            # Closed at the head deadline: a storm opens another.
            slow[i] = socket.create_connection(("127.0.0.1", port))
            reopened += 1
    time.sleep(1)
print(f"during the storm: {rss()} ({reopened} slow connections closed by the service and reopened)", flush=True)
for s in idle + slow:
    s.close()
PY
STORM=$!
sleep 4
wrk -t1 -c64 -d10s --timeout 10s -s "$WORK/unpaid.lua" --latency \
  "http://127.0.0.1:$PORT/api/v1/extract-contact" \
  | grep -E "Requests/sec|^ +50%|^ +99%|Socket errors" | tr -s ' \n' ' '
echo
wait "$STORM"
stop
