#!/usr/bin/env python3
"""One fact of make bench's hostile part (bench/run.sh): an attack script's JSON line, as the
text of its row: what the attack held, the user's answered share, p50 and p99, the server's
peak RSS and threads, and the data folder's growth when the script measured it.

usage: hostile_fact.py JSON_LINE
"""
import json
import sys

r = json.loads(sys.argv[1])
text = "%s held, " % r["held"] if r.get("held") else ""
text += "user: %s%% answered, p50 %s ms, p99 %s ms; server: peak RSS %s MiB, %s threads" % (
    r["answered_pct"], r["p50_ms"], r["p99_ms"], r["peak_rss_mib"], r["peak_threads"])
if r.get("disk_growth_mib") is not None:
    text += "; data folder +%s MiB" % r["disk_growth_mib"]
print(text)
