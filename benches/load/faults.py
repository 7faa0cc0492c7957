"""Faults over real sockets, many times (driven by faults.sh).

A loopback world that misbehaves on purpose, and a client that pays the service through it:

- the site (SITE_PORT) answers by the first label of the Host: `ok` a small page; `reset` half a
  body then a TCP reset; `endless` header lines without end; `chunks` invalid chunked
  encoding; `bomb` a gzip body that inflates to 300 MB; `stall` half a body then silence
  (longer than the service's read timeout); `tlsstall.*` is dialled over TLS on STALL_PORT,
  which accepts and never answers (a stalled handshake);
- the facilitator (FACILITATOR_PORT) answers by the payment's EIP-3009 nonce: nonce % 10 in
  0-4 as a facilitator should; 5 `/verify` garbage; 6 `/verify` 500; 7 `/verify` hangs; 8
  `/settle` garbage; 9 `/settle` 500;
- the client sends REPS paid requests (CONCURRENCY at once), each a combination of a site fault
  and a facilitator fault; one in 11 leaves right after sending (a client that disconnects).

Checks, each printed with OK or BAD (exit status 1 on any BAD):
- every answer has the status its combination calls for (200, 422 for a site fault, 503 for a
  facilitator fault at /verify or an unknown settlement);
- /settle succeeded only for payments whose site and /verify were fine, and exactly once for
  each of them;
- the service's RSS after the warm-up, at half way and at the end: flat within 10 %;
- afterwards, its gauges (METRICS_PORT): no open connection, no paid job in flight, no page
  memory held.

    python3 faults.py SERVICE_PORT SITE_PORT STALL_PORT FACILITATOR_PORT METRICS_PORT PID REPS
Signatures come from `sign-payment` (SIGNER, with the service's settings in the environment).
Loopback only; bounded: every socket has a timeout, every loop a count.
"""
import collections, gzip, json, os, socket, subprocess, sys, threading, time
import http.server

service_port, site_port, stall_port, facilitator_port, metrics_port, pid, reps = map(int, sys.argv[1:8])
SIGNER = os.environ.get("SIGNER", "./target/release/sign-payment")
CONCURRENCY = 32
SITE_FAULTS = ["ok", "reset", "endless", "chunks", "bomb", "stall", "tlsstall"]
FACILITATOR_FAULTS = ["ok"] * 5 + ["verify-garbage", "verify-500", "verify-hang",
                                   "settle-garbage", "settle-500"]
FIRST_NONCE = 10_000

# ---- the site -------------------------------------------------------------------------------
PAGE = b"<html><head><title>Fault Free Ltd</title></head><body><p>hello@fault-free.com</p></body></html>"
compressor = gzip.GzipFile(fileobj=(bomb_buffer := __import__("io").BytesIO()), mode="wb")
zeros = b"\0" * 1_000_000
for _ in range(300):
    compressor.write(zeros)
compressor.close()
BOMB = bomb_buffer.getvalue()
# A head announcing 100 000 bytes and the first 5 003 of them.
HALF_A_BODY = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n"
               + b"<p>" + b"x" * 5000)


def serve_site(conn):
    conn.settimeout(30)
    try:
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                return
            head += chunk
        host = b""
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"host:"):
                host = line[5:].strip()
        fault = host.split(b".")[0].decode()
        if fault == "ok":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n" % len(PAGE) + PAGE)
        elif fault == "reset":
            conn.sendall(HALF_A_BODY)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        elif fault == "endless":
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(4000):  # at most 4 MB; the service hangs up long before
                conn.sendall(b"X-Pad: " + b"a" * 1000 + b"\r\n")
        elif fault == "chunks":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
                         b"zz\r\nhello\r\n0\r\n\r\n")
        elif fault == "bomb":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(BOMB) + BOMB)
        elif fault == "stall":
            conn.sendall(HALF_A_BODY)
            time.sleep(12)
    except OSError:
        pass
    finally:
        conn.close()


def stall_handshake(conn):
    time.sleep(8)  # the service gives a TLS handshake 5 s
    conn.close()


def listen(port, handler):
    server = socket.create_server(("127.0.0.1", port), backlog=1024)
    def loop():
        while True:
            conn, _ = server.accept()
            threading.Thread(target=handler, args=(conn,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()


listen(site_port, serve_site)
listen(stall_port, stall_handshake)

# ---- the facilitator ------------------------------------------------------------------------
settled = collections.Counter()
settled_lock = threading.Lock()


def nonce_of(body):
    authorization = json.loads(body)["paymentPayload"]["payload"]["authorization"]
    return int(authorization["nonce"][-16:], 16)


class Facilitator(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        nonce = nonce_of(body)
        fault = FACILITATOR_FAULTS[(nonce - FIRST_NONCE) // len(SITE_FAULTS) % len(FACILITATOR_FAULTS)]
        verify = self.path.endswith("/verify")
        if verify and fault == "verify-hang":
            time.sleep(20)
            return
        if (verify and fault == "verify-garbage") or (not verify and fault == "settle-garbage"):
            answer, status = b"<html>oops", 200
        elif (verify and fault == "verify-500") or (not verify and fault == "settle-500"):
            answer, status = b'{"error":"boom"}', 500
        elif verify:
            answer, status = json.dumps({"isValid": True}).encode(), 200
        else:
            with settled_lock:
                settled[nonce] += 1
            answer, status = json.dumps({"success": True, "transaction": "0xfeed",
                                         "network": "eip155:8453"}).encode(), 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


facilitator = http.server.ThreadingHTTPServer(("127.0.0.1", facilitator_port), Facilitator)
threading.Thread(target=facilitator.serve_forever, daemon=True).start()

# ---- the client -----------------------------------------------------------------------------


def expected(rep):
    site = SITE_FAULTS[rep % len(SITE_FAULTS)]
    facilitator_fault = FACILITATOR_FAULTS[rep // len(SITE_FAULTS) % len(FACILITATOR_FAULTS)]
    if facilitator_fault.startswith("verify"):
        return 503
    if site != "ok":
        return 422
    return 503 if facilitator_fault.startswith("settle") else 200


def request(rep, signature):
    site = SITE_FAULTS[rep % len(SITE_FAULTS)]
    url = (f"https://tlsstall.fault-site.com:{stall_port}/" if site == "tlsstall"
           else f"http://{site}.fault-site.com:{site_port}/")
    body = json.dumps({"url": url}).encode()
    head = (f"POST /api/v1/extract-contact HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"PAYMENT-SIGNATURE: {signature}\r\nConnection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", service_port), timeout=60) as s:
        s.sendall(head + body)
        if rep % 11 == 3:
            return None  # the client leaves
        answer = b""
        while len(answer) < 1_000_000:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    return int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else -1


def run(first, count, results):
    signatures = subprocess.run(
        [SIGNER, str(FIRST_NONCE + first), str(count)], capture_output=True, check=True,
        env=dict(os.environ, VALID_SECONDS="110")).stdout.decode().split()
    lock = threading.Lock()
    todo = list(range(first, first + count))
    def worker():
        while True:
            with lock:
                if not todo:
                    return
                rep = todo.pop(0)
            try:
                status = request(rep, signatures[rep - first])
            except OSError as error:
                status = f"error {error}"
            with lock:
                results[rep] = status
    threads = [threading.Thread(target=worker) for _ in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def rss():
    return int(open(f"/proc/{pid}/status").read().split("VmRSS:")[1].split()[0])


ok = True
def check(name, good, detail=""):
    global ok
    ok &= good
    print(f"{'OK ' if good else 'BAD'} {name}{': ' + detail if detail else ''}", flush=True)


results = {}
started = time.time()
warm = min(140, reps)  # two rounds of every combination
run(0, warm, results)
rss_warm = rss()
# Batches of 140 (every combination twice), each signed just before it is sent: a signature
# must still have 45 s of validity when it arrives.
done = warm
rss_half = rss_warm
while done < reps:
    count = min(140, reps - done)
    run(done, count, results)
    done += count
    if done >= reps // 2 and rss_half == rss_warm:
        rss_half = rss()
time.sleep(2)  # answers of settlements still under way
rss_end = rss()
print(f"{reps} paid requests in {time.time() - started:.0f} s, concurrency {CONCURRENCY}")

by_combination = collections.Counter()
wrong = []
for rep, status in sorted(results.items()):
    if status is None:
        continue
    site = SITE_FAULTS[rep % len(SITE_FAULTS)]
    facilitator_fault = FACILITATOR_FAULTS[rep // len(SITE_FAULTS) % len(FACILITATOR_FAULTS)]
    by_combination[(site, facilitator_fault, status)] += 1
    if status != expected(rep):
        wrong.append((rep, site, facilitator_fault, status, expected(rep)))
statuses = collections.Counter(s for s in results.values() if s is not None)
left = sum(1 for s in results.values() if s is None)
check("every answer as its faults call for", not wrong and len(results) == reps,
      f"{dict(sorted(statuses.items(), key=str))}, {left} clients left early"
      + (f"; wrong: {wrong[:5]}" if wrong else ""))

should_settle = {FIRST_NONCE + rep for rep in range(reps)
                 if SITE_FAULTS[rep % len(SITE_FAULTS)] == "ok"
                 and FACILITATOR_FAULTS[rep // len(SITE_FAULTS) % len(FACILITATOR_FAULTS)] == "ok"}
wrongly = {n for n in settled if n not in should_settle}
twice = {n for n, c in settled.items() if c > 1}
missing = should_settle - set(settled)
check("settled only what succeeded, each once", not wrongly and not twice and not missing,
      f"{len(settled)} settled of {len(should_settle)} that succeeded; settled for a failure: "
      f"{len(wrongly)}, twice: {len(twice)}, never: {len(missing)}")

growth = (rss_end - rss_warm) * 100 / rss_warm
check("RSS flat", abs(growth) <= 10,
      f"after warm-up {rss_warm} kB, half way {rss_half} kB, end {rss_end} kB ({growth:+.1f} %)")

metrics = {}
for _ in range(20):  # the last connections may still be closing
    with socket.create_connection(("127.0.0.1", metrics_port), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        text = b""
        while chunk := s.recv(65536):
            text += chunk
    metrics = {line.split()[0]: float(line.split()[1]) for line in text.decode().splitlines()
               if line.startswith(("contact_open_connections", "contact_paid_jobs_in_flight",
                                   "contact_page_memory_bytes"))}
    if metrics and not any(metrics.values()):
        break
    time.sleep(0.5)
check("nothing left open or held afterwards", bool(metrics) and not any(metrics.values()),
      ", ".join(f"{k} {v:g}" for k, v in sorted(metrics.items())))
sys.exit(0 if ok else 1)
