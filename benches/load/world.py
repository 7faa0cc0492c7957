"""The loopback world of the load scripts (heavy.sh, memory.sh): a site and a stub
facilitator that accepts every payment and settles it, each on its own port, for at most
15 minutes.

    python3 world.py SITE_PORT FACILITATOR_PORT pages DIR     # DIR/NAME.html at http://NAME.<any>/
    python3 world.py SITE_PORT FACILITATOR_PORT big           # one ~2 MiB page at every path
"""
import http.server, json, os, sys, threading

site_port, facilitator_port, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

if mode == "pages":
    pages_dir = sys.argv[4]
    pages = {name[:-5]: open(os.path.join(pages_dir, name), "rb").read()
             for name in os.listdir(pages_dir) if name.endswith(".html")}

    def page_for(host, path):
        name = host.split(".")[0]
        return pages.get(name) if path == "/" else None
else:
    links = '<a href="/contact">Contact</a><a href="/about">About us</a><a href="/impressum">Impressum</a>'
    filler = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 30 + "</p>\n"
    big = (f"<html><head><title>Big Site</title></head><body>{links}<p>info@big-site.com</p>"
           + filler * (2_000_000 // len(filler)) + "</body></html>").encode()
    pages = {"big": big}

    def page_for(host, path):
        return big


class Site(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = page_for(self.headers.get("Host", ""), self.path)
        status = 200 if body is not None else 404
        body = body or b""
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


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 1024


for server in [Server(("127.0.0.1", site_port), Site),
               Server(("127.0.0.1", facilitator_port), Facilitator)]:
    threading.Thread(target=server.serve_forever, daemon=True).start()
print("pages:", ", ".join(f"{n} {len(b)} bytes" for n, b in sorted(pages.items())), flush=True)
threading.Event().wait(900)
