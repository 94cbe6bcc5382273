"""Puts back what the tool's pinned packages import from older Pythons, before they load.

oic 0.15.1 (pinned by oidctest 0.8.2) imports `Mapping` and friends from `collections`;
CherryPy 8.9.1 uses `inspect.getargspec`; `future`'s backport of `http.cookies` has a regular
expression Python 3.11 refuses (the standard library's module is the same API). Imported first
by tool_server.py and by run.sh's check that the tool's environment is ready.
"""
import collections
import collections.abc
import http.cookies
import inspect
import sys

for _n in ("Mapping", "MutableMapping", "Sequence", "Callable", "Iterable"):
    if not hasattr(collections, _n):
        setattr(collections, _n, getattr(collections.abc, _n))
if not hasattr(inspect, "getargspec"):
    inspect.getargspec = lambda f: inspect.getfullargspec(f)[:4]
sys.modules.setdefault("future.backports.http.cookies", http.cookies)
