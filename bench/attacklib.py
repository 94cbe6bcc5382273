"""What make bench's hostile rows share (bench/attack.py, bench/attack_*.py): the server's
peak RSS and threads sampled from /proc, a connection from a chosen loopback address, and
the quantiles the rows print. Each script calls `setup(PORT, PID)` first.
Standard library only; loopback only.
"""
import socket
import threading
import time

PORT = 0
PID = 0
# Set when the row is over: the sampler and the attackers stop.
stop = threading.Event()
# The server's peaks while the row runs; a script may add its own counts.
peak = {"rss_kib": 0, "threads": 0}


def setup(port, pid):
    global PORT, PID
    PORT, PID = port, pid


def proc(key):
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def sampler():
    while not stop.is_set():
        peak["rss_kib"] = max(peak["rss_kib"], proc("VmRSS"))
        peak["threads"] = max(peak["threads"], proc("Threads"))
        time.sleep(0.2)


def connect(source, timeout=2.0):
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", PORT))
    return s


def quantile(xs, q):
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1) if xs else None
