"""Parses a Prometheus text exposition (format 0.0.4) read on standard input with the
reference parser of prometheus_client, which refuses what the format forbids, and prints
every sample as JSON lines: {"family", "type", "name", "labels", "value"}."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
for family in text_string_to_metric_families(text):
    for s in family.samples:
        print(json.dumps({
            "family": family.name,
            "type": family.type,
            "name": s.name,
            "labels": s.labels,
            "value": s.value,
        }))
