"""Runs the OpenID Foundation's OP test tool against a Limette started for the run.

Every profile the tool has, each with an HS256, an RS256 and an ES256 client: Basic (`code`),
Implicit (`id_token`, `id_token token`) and Hybrid (`code id_token`, `code token`,
`code id_token token`), each with a static client (conf-HS256, conf-RS256, conf-ES256) and with
a client the tool registers itself (Dynamic), with discovery (Config), Form Post and the tool's
extra tests. For each run it starts the tool (tool_server.py) on its own port, asks it which of
its tests apply to the profile, plays the user's browser for each (browser.py) and takes the
tool's verdict (judge.py). The summary goes to SUMMARY (Markdown) and SUMMARY with `.tsv` (one
line a test); the exit code is 1 when a test that applies does not pass.

`--subset ci`: what CI runs in about five minutes: Basic and Dynamic (`code`) with Config and
Form Post, without the extra tests, one client of each algorithm.

Usage: conformance.py --limette BIN --python VENV_PY --work DIR --flows DIR --summary FILE
                      [--only PROFILE,...] [--subset all|ci] [--jobs N]
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import requests
import urllib3

import judge
import limette_setup
import operator_actions
import tls_front
from browser import Browser, End

urllib3.disable_warnings()

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = limette_setup.ROOT
ALGS = limette_setup.ALGS
RESPONSE_TYPES = [("Basic", "C"), ("Implicit", "I"), ("Implicit", "IT"), ("Hybrid", "CI"),
                  ("Hybrid", "CT"), ("Hybrid", "CIT")]
RT_NAMES = {"C": "code", "I": "id_token", "IT": "id_token token", "CI": "code id_token",
            "CT": "code token", "CIT": "code id_token token"}
# The tool's profile string: return type . webfinger . discovery . registration . crypto
# (s: signed; e, n: encrypted and unsigned tests are listed, and not_applicable.json says why)
# . extras ("+") . form_post ("T"). WebFinger is off: Limette does not offer it (the tool then
# lists no WebFinger test).
FULL_TAIL, CI_TAIL = "sen.+.T", "s..T"


# The tests of a request object signed "with any algorithm" (OpenID Connect Core 6.1): the tool
# signs with its `behaviour.request_object_signing_alg`, else sends `none`, which Limette
# accepts only from a client that registered `none` (docs/oidc.md). So in registered runs they
# go to a tool instance of their own, whose behaviour signs with the run's algorithm; the
# Unsigned tests, which register `none`, stay with the plain instance.
SIGNED_OBJECT_TESTS = {"OP-request-Sig-any", "OP-request_uri-Sig-any"}


def runs_of(subset):
    """(label, profile, alg, signed) of each tool instance to run."""
    tail = CI_TAIL if subset == "ci" else FULL_TAIL
    rts = [("Basic", "C")] if subset == "ci" else RESPONSE_TYPES
    out = []
    for reg in ("F", "T"):
        for name, rt in rts:
            for alg in ALGS:
                label = "{} {}".format("Dynamic" if reg == "T" else name, RT_NAMES[rt])
                profile = "{}.F.T.{}.{}".format(rt, reg, tail)
                out.append((label, profile, alg, False))
                if reg == "T":
                    out.append((label, profile, alg, True))
    return out


def tests_of(tests, profile, signed):
    """The tests an instance runs: in registered runs, the signed ones apart (see above)."""
    if profile.split(".")[3] != "T":
        return tests
    return [t for t in tests if (t in SIGNED_OBJECT_TESTS) == signed]


def profile_static(label):
    return not label.startswith("Dynamic")


def group_of(flow, run_label):
    """The certification profile a test belongs to, from its definition's `usage`."""
    usage = flow.get("usage") or {}
    if usage.get("form_post"):
        return "Form Post"
    if usage.get("extra"):
        return "Extra"
    if usage.get("register"):
        return "Dynamic"
    if usage.get("discover"):
        return "Config"
    return run_label.split(" ")[0]


def tool_instance(flows, port, issuer, profile, alg, signed=False):
    rts = ["code", "id_token", "id_token token", "code id_token", "code token",
           "code id_token token"]
    client = {
        "behaviour": {"scope": ["openid", "profile", "email", "address", "phone"]},
        "client_prefs": {
            "grant_types": ["authorization_code", "implicit", "refresh_token"],
            "id_token_signed_response_alg": [alg],
            "response_types": rts,
            "subject_type": "public",
            "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
            "userinfo_signed_response_alg": [alg],
        },
    }
    if signed:
        client["behaviour"]["request_object_signing_alg"] = alg
    base = "http://127.0.0.1:{}/".format(port)
    client["registration_info"] = {
        "application_name": "conformance", "application_type": "web",
        "redirect_uris": ["{}authz_cb"], "contacts": ["conformance@example.com"],
        "post_logout_redirect_uris": ["{}logout"]}
    if profile.split(".")[3] == "F":
        # what the static client is in Limette's configuration (limette_setup.py)
        client["registration_info"] = {
            "redirect_uris": [base + "authz_cb"],
            "post_logout_redirect_uris": [base + "logout"]}
        client["registration_response"] = {
            "client_id": "conf-" + alg, "client_secret": limette_setup.SECRET,
            "redirect_uris": [base + "authz_cb", base + "authz_post"],
            "post_logout_redirect_uris": [base + "logout"],
            "id_token_signed_response_alg": alg,
            "token_endpoint_auth_method": "client_secret_basic",
            "response_types": rts}
    tag = "{}-{}{}".format(profile, alg, "-signed" if signed else "")
    return {"port": port, "flows": flows, "issuer": issuer, "tag": tag, "insecure": True,
            "entity": {"client": client, "tool": {
                "profile": profile, "issuer": issuer, "tag": tag, "login_hint": "dwho",
                "insecure": False}}}


class Runner:
    def __init__(self, args, issuer):
        self.args, self.issuer = args, issuer
        self.operator = operator_actions.Operator(args.limette, args.work, args.op_port)
        self.rows, self.lock = [], threading.Lock()
        self.flows = {f[:-5]: json.load(open(os.path.join(args.flows, f)))
                      for f in os.listdir(args.flows) if f.endswith(".json")}
        self.ports = list(range(args.tool_port, args.tool_port + args.jobs))

    def run_profile(self, label, profile, alg, signed):
        with self.lock:
            port = self.ports.pop()
        try:
            self._run_profile(port, label, profile, alg, signed)
        finally:
            with self.lock:
                self.ports.append(port)

    def _run_profile(self, port, label, profile, alg, signed):
        tool_work = os.path.join(self.args.work, "tool-{}-{}{}".format(
            profile, alg, "-signed" if signed else ""))
        shutil.rmtree(tool_work, ignore_errors=True)
        os.makedirs(tool_work)
        inst_file = os.path.join(tool_work, "instance.json")
        with open(inst_file, "w") as f:
            json.dump(tool_instance(self.args.flows, port, self.issuer, profile, alg, signed), f)
        err = open(os.path.join(tool_work, "stdout.log"), "w")
        proc = subprocess.Popen([self.args.python, os.path.join(HERE, "tool_server.py"),
                                 tool_work, inst_file], stdout=subprocess.PIPE, stderr=err,
                                text=True)
        line = proc.stdout.readline()
        if not line.startswith("tool listening"):
            proc.kill()
            raise SystemExit("conformance: the tool did not start, see "
                             "{}/stdout.log".format(tool_work))
        tests = tests_of(line.split("tests:", 1)[1].split(), profile, signed)
        trace = open(os.path.join(tool_work, "browser.log"), "w")
        try:
            for test_id in tests:
                self.one(tool_work, port, label, alg, test_id, trace)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()

    def one(self, tool_work, port, label, alg, test_id, trace):
        row = {"test": test_id, "profile": label, "client": alg,
               "group": group_of(self.flows.get(test_id, {}), label)}
        static = profile_static(label)
        na = judge.NOT_APPLICABLE.get(test_id) or (
            static and judge.NOT_APPLICABLE.get(test_id + " static"))
        rt = label.split(" ", 1)[1]  # the response type of the run
        own = judge.OWN_CHECKS.get(test_id) or judge.OWN_CHECKS.get(
            "{} {}".format(test_id, rt))
        t0 = time.time()
        if na:
            row.update(result="not applicable", detail=na)
        else:
            trace.write("== {}\n".format(test_id))
            browser = Browser("http://127.0.0.1:{}/".format(port),
                              lambda m: trace.write(m + "\n"), self.operator.on_note)
            self.operator.lock.acquire_shared()
            try:
                end = browser.run(test_id)
            except requests.RequestException as e:
                end = End("error", text=str(e))
            finally:
                self.operator.lock.release_shared()
            result, detail = judge.judge(tool_work, test_id, end, browser)
            if own and result != "passed":
                result, detail = "own check", "{} (the tool: {})".format(own, detail)
            row.update(result=result, detail=detail)
            trace.flush()
        with self.lock:
            self.rows.append(row)
            print("  {:<44} {:<28} {:<6} {} ({:.1f}s)".format(
                test_id, label, alg, row["result"], time.time() - t0), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limette", required=True)
    ap.add_argument("--python", required=True, help="the tool's virtual environment's python")
    ap.add_argument("--work", required=True)
    ap.add_argument("--flows", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--op-port", type=int, default=18480)
    ap.add_argument("--tool-port", type=int, default=18490)
    ap.add_argument("--tls-port", type=int, default=18443)
    ap.add_argument("--jobs", type=int, default=4, help="tool instances at once")
    ap.add_argument("--subset", default="all", choices=["all", "ci"])
    ap.add_argument("--only", default="", help="runs whose label starts with one of these")
    args = ap.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    limette_setup.write_config(args.work, args.tls_port,
                               range(args.tool_port, args.tool_port + args.jobs))
    lim = limette_setup.start(args.limette, args.work, args.op_port)
    tls_front.start(args.work, args.tls_port, args.op_port)
    issuer = requests.get("https://127.0.0.1:{}/.well-known/openid-configuration".format(
        args.tls_port), verify=False).json()["issuer"]
    runner = Runner(args, issuer)
    only = [o for o in args.only.split(",") if o]
    runs = [r for r in runs_of(args.subset) if not only or any(r[0].startswith(o) for o in only)]
    t0 = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for fut in [pool.submit(runner.run_profile, *r) for r in runs]:
                fut.result()
    finally:
        lim.terminate()
        lim.wait(10)
    rows = sorted(runner.rows, key=lambda r: (r["profile"], r["client"], r["test"]))
    ok = all(r["result"] in ("passed", "not applicable", "own check") for r in rows)
    out = judge.write_summary(args.summary, rows, time.time() - t0, ok)
    with open(os.path.splitext(args.summary)[0] + ".tsv", "w") as f:
        for r in rows:
            f.write("\t".join([r["test"], r["profile"], r["group"], r["client"], r["result"],
                               r["detail"]]) + "\n")
    print("\n".join(out[:40]))
    print("conformance: summary written to {}".format(args.summary))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
