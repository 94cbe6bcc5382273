#!/usr/bin/env python3
"""The hostile soak's driver (bench/hostile.sh): attackers at 127.0.0.2 and 127.0.0.3 hold
slow-body, slow-header and idle keep-alive connections, reopening each as soon as the server
closes or refuses it, while a user at 127.0.0.1 logs in, runs the code flow and reads its
session, over and over. Prints one JSON line: the user's latencies and errors, and what the
attackers met. Standard library only; loopback only.

usage: hostile.py PORT SECONDS SLOW_BODIES SLOW_HEADERS IDLE
       hostile.py --verdict < its output line
"""
import base64
import json
import socket
import sys
import threading
import time
import urllib.parse

if sys.argv[1:] != ["--verdict"]:
    PORT, SECONDS, SLOW_BODIES, SLOW_HEADERS, IDLE = (int(a) for a in sys.argv[1:6])
CB = "http://127.0.0.1:9999/cb"
stop = threading.Event()
met = {"opened": 0, "answered": {}, "refused_at_connect": 0}
met_lock = threading.Lock()


def note(key, status=None):
    with met_lock:
        if status is None:
            met[key] += 1
        else:
            met["answered"][status] = met["answered"].get(status, 0) + 1


class Conn:
    """One attacking connection: its kind and socket, reopened when the server ends it."""

    HEADS = {
        "body": b"POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n",
        "header": b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n",
        "idle": b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n\r\n",
    }

    def __init__(self, source, kind):
        self.source, self.kind, self.sock = source, kind, None

    def open(self):
        try:
            s = socket.socket()
            s.bind((self.source, 0))
            s.settimeout(1)
            s.connect(("127.0.0.1", PORT))
            s.sendall(self.HEADS[self.kind])
            s.setblocking(False)
            self.sock = s
            note("opened")
        except OSError:
            self.sock = None
            note("refused_at_connect")

    def tick(self):
        """Sends its next dribble; reopens when the server answered or closed."""
        if self.sock is None:
            return self.open()
        try:
            data = self.sock.recv(65536)
            ended = True
            if data and self.kind == "idle" and data.startswith(b"HTTP/1.1 200"):
                ended = False  # the answer to its one request: now it idles
            elif data.startswith(b"HTTP/1.1 "):
                note(None, int(data[9:12]))
        except BlockingIOError:
            ended = False
        except OSError:
            ended = True
        if not ended:
            try:
                if self.kind == "body":
                    self.sock.send(b"a")
                elif self.kind == "header":
                    self.sock.send(b"X-Slow: a\r\n")
                return
            except OSError:
                pass
        self.sock.close()
        self.open()


def attacker(source, n_body, n_header, n_idle):
    conns = [Conn(source, "body") for _ in range(n_body)]
    conns += [Conn(source, "header") for _ in range(n_header)]
    conns += [Conn(source, "idle") for _ in range(n_idle)]
    while not stop.is_set():
        t0 = time.monotonic()
        for c in conns:
            c.tick()
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))
    for c in conns:
        if c.sock:
            c.sock.close()


def request(method, path, headers=None, body=b""):
    """One request on a fresh connection from 127.0.0.1: (status, headers, body, seconds)."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10, source_address=("127.0.0.1", 0))
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {len(body)}\r\n"
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    s.sendall(head.encode() + b"\r\n" + body)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    elapsed = time.monotonic() - t0
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    return status, hdrs, rest, elapsed


def user_round(lat, errors):
    """Login, authorize, token, read the session: each step's status checked and timed."""
    form = {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"}

    def step(name, want, *args, **kw):
        try:
            status, hdrs, body, secs = request(*args, **kw)
        except OSError as e:
            errors.append(f"{name}: {e}")
            return None
        lat.append(secs)
        if status != want:
            errors.append(f"{name}: {status}")
            return None
        return hdrs, body

    r = step("login", 200, "POST", "/", form, b"user=dwho&password=dwho")
    if not r:
        return
    sid = json.loads(r[1])["id"]
    cookie = {"Cookie": f"lemonldap={sid}"}
    q = urllib.parse.urlencode({"response_type": "code", "client_id": "demo", "scope": "openid",
                                "redirect_uri": CB, "state": "s", "nonce": "n"})
    r = step("authorize", 302, "GET", f"/oauth2/authorize?{q}", cookie)
    if not r:
        return
    code = urllib.parse.parse_qs(urllib.parse.urlparse(r[0]["location"]).query)["code"][0]
    body = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code,
                                   "redirect_uri": CB}).encode()
    basic = "Basic " + base64.b64encode(b"demo:demosecret").decode()
    token_headers = {"Content-Type": form["Content-Type"], "Authorization": basic}
    if not step("token", 200, "POST", "/oauth2/token", token_headers, body):
        return
    step("session", 200, "GET", f"/sessions/global/{sid}", {"Accept": "application/json"})


def user(seconds):
    lat, errors = [], []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        user_round(lat, errors)
        time.sleep(0.05)
    return lat, errors


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None


def main():
    before, before_err = user(2)
    half = lambda n: (n + 1) // 2
    attackers = [
        threading.Thread(target=attacker, args=(src, half(SLOW_BODIES), half(SLOW_HEADERS), half(IDLE)))
        for src in ("127.0.0.2", "127.0.0.3")
    ]
    for a in attackers:
        a.start()
    time.sleep(2)  # the attack in place before the user is measured
    print("ATTACK", flush=True)  # hostile.sh samples the server from here on
    during, errors = user(SECONDS)
    print("USER-DONE", flush=True)
    stop.set()
    for a in attackers:
        a.join()
    ms = lambda x: None if x is None else round(x * 1000, 1)
    print(json.dumps({
        "before": {"requests": len(before), "p50_ms": ms(quantile(before, 0.5)),
                   "p99_ms": ms(quantile(before, 0.99)), "errors": before_err},
        "during": {"requests": len(during), "p50_ms": ms(quantile(during, 0.5)),
                   "p99_ms": ms(quantile(during, 0.99)), "max_ms": ms(max(during, default=None)),
                   "errors": errors[:20], "error_count": len(errors)},
        "attackers": met,
    }))


def verdict():
    """Reads the driver's JSON line on stdin, prints the figures; exit 1 unless the user met
    no error and its p99 stayed under one second."""
    r = json.load(sys.stdin)
    b, d = r["before"], r["during"]
    print(f"hostile: user before: p50 {b['p50_ms']} ms, p99 {b['p99_ms']} ms ({b['requests']} requests)")
    print(f"hostile: user during: p50 {d['p50_ms']} ms, p99 {d['p99_ms']} ms, max {d['max_ms']} ms"
          f" ({d['requests']} requests), errors {d['error_count']} {d['errors']}")
    print(f"hostile: attackers: {r['attackers']}")
    ok = d["error_count"] == 0 and d["p99_ms"] is not None and d["p99_ms"] < 1000
    print("hostile: PASS" if ok else "hostile: FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    verdict() if sys.argv[1:] == ["--verdict"] else main()
