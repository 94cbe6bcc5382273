#!/usr/bin/env python3
"""A row of make bench's hostile part: the registration flood. 1,000 dynamic registrations
(POST /oauth2/register, each on a new connection, a different client_name and 7 KB of
padding, as fast as the server answers) from one address, 127.0.5.1, while a user at 127.0.0.1
asks for /oauth2/jwks on a new connection every 20 ms, each answer awaited for at most 2 s.
The server's RSS and threads are sampled from /proc throughout; with DATA_DIR, the growth of
that folder (configurations, logs) is measured too. Prints one JSON line: the user's
answered_pct, p50_ms, p99_ms; peak_rss_mib, peak_threads; held (registrations the server
accepted), rate_limited (429 answers), other (any other answer or failure), disk_growth_mib.

The instance needs oidcServiceAllowDynamicRegistration=1 (and OpenID Connect on); the bounds
under test are their defaults (oidcServiceDynamicRegistrationRate and the others).

usage: attack_register.py PORT SERVER_PID SECONDS [DATA_DIR]
Standard library only; loopback only; bounded in time (the flood stops at SECONDS too).
"""
import json
import os
import sys
import threading
import time

PORT, PID, SECONDS = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
import attacklib  # noqa: E402 (bench/ is the script's own folder)
from attacklib import connect, peak, quantile, sampler, stop  # noqa: E402

attacklib.setup(PORT, PID)
DATA = sys.argv[4] if len(sys.argv) > 4 else None
ATTEMPTS = 1000
flood = {"held": 0, "rate_limited": 0, "other": 0}


def folder_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def exchange(source, request, timeout):
    """Sends `request` on a new connection; the status code (0 on failure)."""
    try:
        s = connect(source, timeout)
        s.sendall(request)
        got = b""
        while True:
            part = s.recv(65536)
            if not part:
                break
            got += part
        s.close()
        return int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/1.1 ") else 0
    except (OSError, ValueError, IndexError):
        return 0


def attack(end):
    for i in range(ATTEMPTS):
        if stop.is_set() or time.monotonic() > end:
            break
        body = json.dumps({"redirect_uris": ["http://127.0.0.1:19999/cb"],
                           "client_name": f"flood {i}", "padding": "x" * 7000}).encode()
        head = (f"POST /oauth2/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
        status = exchange("127.0.5.1", head + body, 10.0)
        key = {201: "held", 429: "rate_limited"}.get(status, "other")
        flood[key] += 1


def user(seconds):
    lat, failed = [], 0
    end = time.monotonic() + seconds
    req = b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    while time.monotonic() < end:
        t0 = time.monotonic()
        if exchange("127.0.0.1", req, 2.0) == 200:
            lat.append((time.monotonic() - t0) * 1000)
        else:
            failed += 1
        time.sleep(max(0.0, 0.02 - (time.monotonic() - t0)))
    return lat, failed


def main():
    before = folder_size(DATA) if DATA else None
    threading.Thread(target=sampler, daemon=True).start()
    worker = threading.Thread(target=attack, args=(time.monotonic() + SECONDS,), daemon=True)
    worker.start()
    lat, failed = user(SECONDS)
    stop.set()
    worker.join(15)
    total = len(lat) + failed
    growth = None if before is None else round((folder_size(DATA) - before) / 2**20, 2)
    print(json.dumps({
        "kind": "register-flood", "held": flood["held"], "rate_limited": flood["rate_limited"],
        "other": flood["other"], "user_requests": total,
        "answered_pct": round(100 * len(lat) / total, 1) if total else 0,
        "p50_ms": quantile(lat, 0.5), "p99_ms": quantile(lat, 0.99),
        "peak_rss_mib": round(peak["rss_kib"] / 1024, 1), "peak_threads": peak["threads"],
        "disk_growth_mib": growth,
    }))


main()
