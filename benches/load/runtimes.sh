#!/usr/bin/env bash
# The two runtimes side by side, and nginx as the machine's ceiling (a benchmark, not a test):
# the unpaid 402 path with keep-alive, 64 connections for 10 s (wrk, one thread), rounds
# alternating smol, tokio and nginx (Debian `nginx-light`, one worker process, answering the
# very same 402 head fields and body with no work). First the servers on one IO thread pinned
# to CPU 0 (wrk on CPU 1), then on two IO threads unpinned. Then the RSS of each runtime with
# 10 000 idle connections.
# Needs wrk and nginx (Debian packages `wrk`, `nginx-light`), curl and python3.
# Usage: bash benches/load/runtimes.sh        (ROUNDS=3 by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in wrk nginx curl python3 taskset; do
  command -v "$tool" >/dev/null || { echo "runtimes: install $tool (apt-get install wrk nginx-light curl python3 util-linux)" >&2; exit 1; }
done
cargo build -q --release -p contact-runtime-smol
ROUNDS=${ROUNDS:-3}
SMOL_PORT=18190 TOKIO_PORT=18191 NGINX_PORT=18192
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cat > "$WORK/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body   = '{"url":"https://www.example.com/"}'
wrk.headers["Content-Type"] = "application/json"
LUA

start() { # runtime port io_threads cpus
  local cpus=$4
  BIND_ADDR=127.0.0.1:$2 PUBLIC_BASE_URL=https://contacts.example.com \
  PAY_TO=0x70997970C51812dc3A010C7d01b50e0d17dc79C8 FACILITATOR_URL=https://facilitator.example.com CHAIN_RPC_URL=none \
  RATE_LIMIT_PER_MINUTE=1000000000 RATE_LIMIT_BURST=1000000000 IO_THREADS=$3 \
  MAX_CONNECTIONS=20000 MAX_CONNECTIONS_PER_IP=20000 RUNTIME=$1 \
    taskset -c "$cpus" ./target/release/contact-extract serve 2>/dev/null &
  PIDS+=($!)
}

nginx_conf() { # the same 402 as the service: head fields (but Date, Server, lengths, ids) and body
  curl -s -D "$WORK/head" -o "$WORK/body" -X POST -H 'Content-Type: application/json' \
    -d '{"url":"https://www.example.com/"}' "http://127.0.0.1:$SMOL_PORT/api/v1/extract-contact"
  python3 - "$WORK" "$NGINX_PORT" <<'PY'
import sys
work, port = sys.argv[1], sys.argv[2]
headers = []
for line in open(f"{work}/head", encoding="latin-1").read().split("\r\n")[1:]:
    if ":" not in line:
        continue
    name, value = line.split(":", 1)
    if name.lower() in ("date", "server", "content-length", "connection", "content-type", "keep-alive"):
        continue
    headers.append(f"      add_header {name} '{value.strip()}' always;")
# nginx strings cannot escape `$`: a variable that holds one stands in for each.
body = (open(f"{work}/body", encoding="utf-8").read()
        .replace("\\", "\\\\").replace("'", "\\'").replace("$", "${dollar}"))
open(f"{work}/nginx.conf", "w").write(f"""
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log;
events {{ worker_connections 20000; }}
http {{
  access_log off;
  geo $dollar {{ default "$"; }}
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{port};
    location = /api/v1/extract-contact {{
      default_type application/json;
{chr(10).join(headers)}
      return 402 '{body}';
    }}
  }}
}}
""")
PY
}

load() { # name port
  wrk -t1 -c64 -d10s -s "$WORK/post.lua" --latency "http://127.0.0.1:$2/api/v1/extract-contact" \
    | awk -v name="$1" '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {printf "%-6s %10s req/s  p50 %8s  p99 %8s\n", name, rps, p50, p99}'
}

for threads in 1 2; do
  if [ "$threads" = 1 ]; then cpus=0; wrk_cpus=1; else cpus=0-1; wrk_cpus=0-1; fi
  start smol $SMOL_PORT "$threads" "$cpus"
  start tokio $TOKIO_PORT "$threads" "$cpus"
  sleep 1
  nginx_conf
  taskset -c "$cpus" nginx -c "$WORK/nginx.conf" -g 'daemon off;' &
  PIDS+=($!)
  sleep 1
  echo "== unpaid 402, 64 keep-alive connections, 10 s per run; servers on $threads IO thread(s), CPUs $cpus; wrk on CPUs $wrk_cpus"
  for _ in $(seq "$ROUNDS"); do
    for server in "smol $SMOL_PORT" "tokio $TOKIO_PORT" "nginx $NGINX_PORT"; do
      set -- $server
      taskset -c "$wrk_cpus" bash -c "$(declare -f load); WORK=$WORK load $1 $2"
    done
  done
  for pid in "${PIDS[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  PIDS=()
done

echo "== RSS with 10 000 idle connections (one IO thread)"
start smol $SMOL_PORT 1 0-1
start tokio $TOKIO_PORT 1 0-1
sleep 1
python3 - "$SMOL_PORT" "${PIDS[0]}" "$TOKIO_PORT" "${PIDS[1]}" <<'PY'
import resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
for name, port, pid in (("smol", sys.argv[1], sys.argv[2]), ("tokio", sys.argv[3], sys.argv[4])):
    rss = lambda: open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split("\n")[0].strip()
    time.sleep(1)
    idle = rss()
    socks = [socket.create_connection(("127.0.0.1", int(port))) for _ in range(10000)]
    time.sleep(1)
    print(f"{name:6} idle {idle:>10}   with 10 000 idle connections {rss():>10}")
    for s in socks:
        s.close()
PY
