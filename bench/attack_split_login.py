#!/usr/bin/env python3
"""A row of make bench's hostile part: slow bodies from 16 addresses against a browser whose
login body follows its head. 256 connections from 16 addresses (127.0.5.1 to 127.0.5.16),
twice the reading slots of the shipped limits, each send a login body of 60,000 bytes at
1,500 bytes a second (just above the shipped bodyMinRate, 1,024), reopened as soon as the
server ends them; meanwhile a user at 127.0.0.1 logs in again and again (JSON login as
dwho), each time sending the head, pausing 50 ms, then the body, as a browser on a slow link
does; each answer awaited for at most 2 s, its time counted from the head's first byte. The
server's RSS and threads are sampled from /proc throughout. Prints one JSON line; `held` is
the attack's connections still open (their body being read) when the user's run ends.

usage: attack_split_login.py PORT SERVER_PID SECONDS
Standard library only; loopback only; bounded in time.
"""
import json
import socket
import sys
import threading
import time

PORT, PID, SECONDS = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
import attacklib  # noqa: E402 (bench/ is the script's own folder)
from attacklib import connect, peak, quantile, sampler, stop  # noqa: E402

attacklib.setup(PORT, PID)
CONNS, ADDRESSES, BODY, PIECE, EVERY = 256, 16, 60000, 150, 0.1
LOGIN = b"user=dwho&password=dwho"
held = {"now": 0}


class Slow:
    """A login whose body comes at PIECE bytes every EVERY seconds; reopened when ended."""

    head = (b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: %d\r\n\r\n" % BODY)

    def __init__(self, source):
        self.source, self.sock = source, None

    def tick(self):
        if self.sock is None:
            try:
                self.sock = connect(self.source, 1.0)
                self.sock.sendall(self.head)
                self.sock.setblocking(False)
            except OSError:
                self.close()
            return
        try:
            self.sock.recv(1, socket.MSG_PEEK)
            self.close()  # answered (a refusal, a 408) or closed: reopened next tick
            return
        except BlockingIOError:
            pass
        except OSError:
            self.close()
            return
        try:
            self.sock.send(b"a" * PIECE)
        except BlockingIOError:
            pass
        except OSError:
            self.close()

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock = None


def attack():
    conns = [Slow(f"127.0.5.{1 + i % ADDRESSES}") for i in range(CONNS)]
    while not stop.is_set():
        t0 = time.monotonic()
        for c in conns:
            c.tick()
        held["now"] = sum(1 for c in conns if c.sock is not None)
        time.sleep(max(0.0, EVERY - (time.monotonic() - t0)))
    for c in conns:
        c.close()


def split_login():
    """One login: True when answered 200 within 2 s."""
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: %d\r\n\r\n" % len(LOGIN))
    s = connect("127.0.0.1")
    try:
        s.sendall(head)
        time.sleep(0.05)
        try:
            s.sendall(LOGIN)
        except OSError:
            pass  # refused from the head: the answer says so
        got = b""
        while True:
            part = s.recv(65536)
            if not part:
                break
            got += part
        return got.startswith(b"HTTP/1.1 200")
    finally:
        s.close()


def user(seconds):
    lat, failed = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        try:
            if split_login():
                lat.append((time.monotonic() - t0) * 1000)
            else:
                failed += 1
        except OSError:
            failed += 1
        time.sleep(max(0.0, 0.1 - (time.monotonic() - t0)))
    return lat, failed


def main():
    threading.Thread(target=sampler, daemon=True).start()
    worker = threading.Thread(target=attack, daemon=True)
    worker.start()
    time.sleep(3)  # let the attack take every slot (past the body rate's 2 s grace) first
    lat, failed = user(SECONDS)
    still = held["now"]
    stop.set()
    worker.join(5)
    total = len(lat) + failed
    print(json.dumps({
        "kind": "split-login", "held": still, "user_requests": total,
        "answered_pct": round(100 * len(lat) / total, 1) if total else 0,
        "p50_ms": quantile(lat, 0.5), "p99_ms": quantile(lat, 0.99),
        "peak_rss_mib": round(peak["rss_kib"] / 1024, 1), "peak_threads": peak["threads"],
    }))


main()
