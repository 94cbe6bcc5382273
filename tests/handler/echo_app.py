"""The protected application of the handler tests: answers every request with a JSON object of
its method, path and headers (names lower-cased, repeated ones joined with ", "), so that a
test sees what the web server passed after asking the handler endpoint. It binds the port given
as its argument (0: any), prints `listening <port>` on its first line, and serves until killed."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Echo(BaseHTTPRequestHandler):
    def answer(self):
        headers = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = headers[key] + ", " + value if key in headers else value
        body = json.dumps({"method": self.command, "path": self.path, "headers": headers}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_HEAD = answer

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Echo)
print("listening", server.server_address[1], flush=True)
server.serve_forever()
