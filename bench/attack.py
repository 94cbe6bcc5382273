#!/usr/bin/env python3
"""Rows of make bench's hostile part (bench/run.sh): one attack at a time on a running
Limette while a user at 127.0.0.1 asks for /oauth2/jwks on a new connection every 20 ms,
each answer awaited for at most 2 s. Attackers bind their own loopback addresses. The
server's RSS and threads are sampled from /proc throughout. Prints one JSON line.

usage: attack.py PORT SERVER_PID SECONDS KIND
  KIND idle:N          N idle keep-alive connections (one answered request each), from
                       N/50 addresses 127.0.2.x
  KIND slow-headers    256 connections from 16 addresses (127.0.3.x) sending a header line a
                       second, reopened as soon as the server ends them
  KIND big-bodies      128 anonymous login posts of 8 MB from 8 addresses (127.0.4.x), sent
                       as fast as the server reads, reopened as soon as it ends them
Standard library only; loopback only; bounded in time.
"""
import json
import socket
import sys
import threading
import time

PORT, PID, SECONDS, KIND = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
import attacklib  # noqa: E402 (bench/ is the script's own folder)
from attacklib import connect, peak, quantile, sampler, stop  # noqa: E402

attacklib.setup(PORT, PID)


def hold_idle(n):
    held = []
    for i in range(n):
        try:
            s = connect(f"127.0.2.{1 + i // 50}")
            s.sendall(b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n\r\n")
            if not s.recv(65536):
                s.close()
                continue
            held.append(s)
        except OSError:
            pass
    return held


class Attacker:
    """A connection that sends its head, then feeds `tick` forever; reopened when ended."""

    def __init__(self, source, head, feed, every):
        self.source, self.head, self.feed, self.every = source, head, feed, every
        self.sock, self.next = None, 0.0

    def tick(self, now):
        if self.sock is None:
            try:
                self.sock = connect(self.source, 1.0)
                self.sock.sendall(self.head)
                self.sock.setblocking(False)
            except OSError:
                self.sock = None
                return
        if now < self.next:
            return
        self.next = now + self.every
        try:
            if self.sock.recv(65536, socket.MSG_PEEK) == b"":
                raise OSError("closed")
        except BlockingIOError:
            pass
        except OSError:
            self.close()
            return
        try:
            self.sock.send(self.feed)
        except BlockingIOError:
            pass
        except OSError:
            self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
        self.sock = None


def attackers(kind):
    if kind == "slow-headers":
        head = b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\n"
        return [Attacker(f"127.0.3.{1 + i % 16}", head, b"X-Slow: a\r\n", 1.0) for i in range(256)]
    if kind == "big-bodies":
        head = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: 8388608\r\n\r\n")
        return [Attacker(f"127.0.4.{1 + i % 8}", head, b"a" * 65536, 0.0) for i in range(128)]
    raise SystemExit(f"unknown attack {kind}")


def attack(conns):
    while not stop.is_set():
        now = time.monotonic()
        for c in conns:
            c.tick(now)
        time.sleep(0.005)
    for c in conns:
        if c.sock is not None:
            c.close()


def user(seconds):
    lat, failed = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        try:
            s = connect("127.0.0.1")
            s.sendall(b"GET /oauth2/jwks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            got = b""
            while True:
                part = s.recv(65536)
                if not part:
                    break
                got += part
            s.close()
            if got.startswith(b"HTTP/1.1 200"):
                lat.append((time.monotonic() - t0) * 1000)
            else:
                failed += 1
        except OSError:
            failed += 1
        time.sleep(max(0.0, 0.02 - (time.monotonic() - t0)))
    return lat, failed


def main():
    threading.Thread(target=sampler, daemon=True).start()
    held, worker = [], None
    if KIND.startswith("idle:"):
        held = hold_idle(int(KIND.split(":")[1]))
    else:
        worker = threading.Thread(target=attack, args=(attackers(KIND),), daemon=True)
        worker.start()
        time.sleep(2)  # let the attack take hold before the user is timed
    lat, failed = user(SECONDS)
    stop.set()
    if worker:
        worker.join(5)
    total = len(lat) + failed
    print(json.dumps({
        "kind": KIND, "held": len(held), "user_requests": total,
        "answered_pct": round(100 * len(lat) / total, 1) if total else 0,
        "p50_ms": quantile(lat, 0.5), "p99_ms": quantile(lat, 0.99),
        "peak_rss_mib": round(peak["rss_kib"] / 1024, 1), "peak_threads": peak["threads"],
    }))
    for s in held:
        s.close()


main()
