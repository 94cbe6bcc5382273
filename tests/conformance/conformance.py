"""Runs the OpenID Foundation's OP test tool against a Limette started for the run.

For each profile and client (HS256, RS256, ES256 relying parties registered statically, and one
run that registers its clients dynamically) it starts the tool (tool_server.py) on 127.0.0.1,
asks it which of its tests apply to the profile, and plays the user's browser for each: it starts
the test at the tool, follows the redirects to Limette, fills the login form with the demo user,
hands the answer back to the tool's callback (a fragment is posted to `authz_post`, as the
tool's page script does) and reads the verdict the tool wrote in its log. The summary (test id,
profile, client, result) goes to SUMMARY; the exit code is 1 when a test that applies failed.

Usage: conformance.py --limette BIN --work DIR --flows DIR --summary FILE [--only PROFILE,...]
"""
import argparse
import glob
import html.parser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse

import requests
import urllib3

import tls_front

urllib3.disable_warnings()

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
USER, PASSWORD = "dwho", "dwho"
SECRET = "conformance-secret-of-at-least-32-bytes"
# Tests the tool lists for a profile but that cannot apply to this provider, with the reason.
NOT_APPLICABLE = json.load(open(os.path.join(HERE, "not_applicable.json")))

# (profile name, tool profile string): return type . webfinger . discovery . registration
STATIC_PROFILES = [
    ("Basic", "C.F.T.F"),
    ("Implicit id_token", "I.F.T.F"),
    ("Implicit id_token+token", "IT.F.T.F"),
    ("Hybrid code+id_token", "CI.F.T.F"),
    ("Hybrid code+token", "CT.F.T.F"),
    ("Hybrid code+id_token+token", "CIT.F.T.F"),
]
DYNAMIC_PROFILES = [("Dynamic", "C.F.T.T")]
ALGS = ["HS256", "RS256", "ES256"]


class Forms(html.parser.HTMLParser):
    """The forms of a page: action, method and the inputs' names and values."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action") or "", "method":
                               (a.get("method") or "get").lower(), "fields": {}})
        elif tag in ("input", "button") and self.forms and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.forms[-1]["fields"].setdefault(a["name"], a.get("value") or "")


def forms_of(text):
    p = Forms()
    p.feed(text)
    return p.forms


def limette_config(work, tls_port, tool_port):
    """The run's configuration: the demo one, the flows and registration on, three RPs."""
    conf = json.load(open(os.path.join(ROOT, "conf", "lmConf-1.json")))
    conf["portal"] = "https://127.0.0.1:{}/".format(tls_port)
    conf["oidcServiceAllowImplicitFlow"] = 1
    conf["oidcServiceAllowHybridFlow"] = 1
    conf["oidcServiceAllowDynamicRegistration"] = 1
    # The tool registers a client per test, all from 127.0.0.1.
    conf["oidcServiceDynamicRegistrationRate"] = 1000
    base = "http://127.0.0.1:{}/".format(tool_port)
    for alg in ALGS:
        name = "conf-" + alg
        conf.setdefault("oidcRPMetaDataOptions", {})[name] = {
            "oidcRPMetaDataOptionsClientID": name,
            "oidcRPMetaDataOptionsClientSecret": SECRET,
            "oidcRPMetaDataOptionsRedirectUris": base + "authz_cb",
            "oidcRPMetaDataOptionsPostLogoutRedirectUris": base + "logout",
            "oidcRPMetaDataOptionsIDTokenSignAlg": alg,
            "oidcRPMetaDataOptionsBypassConsent": 1,
            "oidcRPMetaDataOptionsRefreshToken": 1,
        }
        conf.setdefault("oidcRPMetaDataExportedVars", {})[name] = {
            "email": "mail", "name": "cn", "preferred_username": "uid",
            "family_name": "sn", "given_name": "givenName"}
    os.makedirs(os.path.join(work, "conf"), exist_ok=True)
    with open(os.path.join(work, "conf", "lmConf-1.json"), "w") as f:
        json.dump(conf, f, indent=1)
    with open(os.path.join(work, "limette.ini"), "w") as f:
        f.write("""[all]
logLevel = info
[configuration]
type = File
dirName = {w}/conf
[portal]
globalStorage = File
globalStorageOptions = {{"Directory": "{w}/sessions"}}
persistentStorage = File
persistentStorageOptions = {{"Directory": "{w}/psessions"}}
""".format(w=work))


def start_limette(binary, work, op_port):
    out = open(os.path.join(work, "limette.log"), "a")
    proc = subprocess.Popen([binary, "-c", os.path.join(work, "limette.ini"), "--data", work,
                             "-l", "127.0.0.1:{}".format(op_port)], stdout=out, stderr=out)
    for _ in range(600):
        try:
            requests.get("http://127.0.0.1:{}/.well-known/openid-configuration".format(op_port),
                         timeout=2)
            return proc
        except requests.ConnectionError:
            if proc.poll() is not None:
                sys.exit("conformance: Limette did not start, see {}/limette.log".format(work))
            time.sleep(0.1)
    sys.exit("conformance: Limette did not answer")


def tool_instance(work, flows, port, issuer, profile, alg):
    client = {
        "behaviour": {"scope": ["openid", "profile", "email", "address", "phone"]},
        "client_prefs": {
            "grant_types": ["authorization_code", "implicit", "refresh_token"],
            "id_token_signed_response_alg": [alg] if alg else ["RS256", "ES256", "HS256"],
            "response_types": ["code", "id_token", "id_token token", "code id_token",
                               "code token", "code id_token token"],
            "subject_type": "public",
            "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
            "userinfo_signed_response_alg": ["RS256", "ES256", "HS256"],
        },
    }
    base = "http://127.0.0.1:{}/".format(port)
    if profile.split(".")[3] == "T":
        client["registration_info"] = {
            "application_name": "conformance", "application_type": "web",
            "redirect_uris": ["{}authz_cb"], "contacts": ["conformance@example.com"],
            "post_logout_redirect_uris": ["{}logout"]}
    else:
        client["registration_response"] = {
            "client_id": "conf-" + alg, "client_secret": SECRET,
            "redirect_uris": [base + "authz_cb"],
            "post_logout_redirect_uris": [base + "logout"],
            "id_token_signed_response_alg": alg,
            "token_endpoint_auth_method": "client_secret_basic",
            "response_types": ["code", "id_token", "id_token token", "code id_token",
                               "code token", "code id_token token"]}
    tag = "{}-{}".format(profile, alg or "dynamic")
    return {"port": port, "flows": flows, "issuer": issuer, "tag": tag, "insecure": True,
            "entity": {"client": client, "tool": {
                "profile": profile, "issuer": issuer, "tag": tag, "sig": False,
                "enc": False, "extra": False, "insecure": False}}}


class Browser:
    """The user's browser: one cookie jar for Limette's portal across a profile's tests."""

    def __init__(self, tool_base):
        self.s = requests.Session()
        self.s.verify = False  # the TLS front's certificate is made for the run
        self.tool = tool_base

    def run(self, test_id):
        url, method, data = self.tool + test_id, "get", None
        for _ in range(40):
            r = self.s.request(method, url, data=data, allow_redirects=False, timeout=60,
                               verify=False)
            method, data = "get", None
            if r.is_redirect or r.status_code in (301, 302, 303, 307):
                loc = urllib.parse.urljoin(url, r.headers["Location"])
                if loc.startswith(self.tool + "display"):
                    return "done"
                if loc.startswith(self.tool) and "#" in loc:
                    # the tool's page script posts the fragment to authz_post
                    head, frag = loc.split("#", 1)
                    self.s.get(head, allow_redirects=False, timeout=60, verify=False)
                    url, method, data = self.tool + "authz_post", "post", {"fragment": frag}
                    continue
                url = loc
                continue
            if url.startswith(self.tool):
                return "page {}: {}".format(r.status_code, r.text[:300].replace("\n", " "))
            forms = forms_of(r.text)
            login = [f for f in forms if "password" in f["fields"]]
            if login:
                f = login[0]
                f["fields"].update({"user": USER, "password": PASSWORD})
            elif forms:
                f = forms[0]  # consent, or a form_post answer
            else:
                return "page {} at {}: {}".format(r.status_code, url.split("?")[0],
                                                  r.text[:300].replace("\n", " "))
            url = urllib.parse.urljoin(url, f["action"] or url)
            method, data = f["method"], f["fields"]
        return "too many redirects"


def verdict(tool_work, test_id):
    files = glob.glob(os.path.join(tool_work, "log", "**", test_id + ".txt"), recursive=True)
    if not files:
        return None, ""
    text = open(max(files, key=os.path.getmtime)).read()
    m = re.search(r"^RESULT: (.*)", text, re.M | re.S)
    return (m.group(1).strip() if m else "?"), max(files, key=os.path.getmtime)


def run_profile(args, venv_python, name, profile, alg, issuer, rows):
    tool_work = os.path.join(args.work, "tool-{}-{}".format(profile, alg or "dynamic"))
    shutil.rmtree(tool_work, ignore_errors=True)
    os.makedirs(tool_work)
    inst = tool_instance(tool_work, args.flows, args.tool_port, issuer, profile, alg)
    inst_file = os.path.join(tool_work, "instance.json")
    json.dump(inst, open(inst_file, "w"), indent=1)
    out = open(os.path.join(tool_work, "stdout.log"), "w")
    proc = subprocess.Popen([venv_python, os.path.join(HERE, "tool_server.py"), tool_work,
                             inst_file], stdout=subprocess.PIPE, stderr=out, text=True)
    line = proc.stdout.readline()
    if not line.startswith("tool listening"):
        proc.kill()
        sys.exit("conformance: the tool did not start, see {}/stdout.log".format(tool_work))
    tests = line.split("tests:", 1)[1].split()
    client = alg or "dynamic"
    try:
        for test_id in tests:
            na = NOT_APPLICABLE.get(test_id)
            if na:
                rows.append((test_id, name, client, "not applicable", na))
                continue
            browser = Browser("http://127.0.0.1:{}/".format(args.tool_port))
            t0 = time.time()
            try:
                end = browser.run(test_id)
            except requests.RequestException as e:
                end = "error: {}".format(e)
            res, log = verdict(tool_work, test_id)
            first = (res or "").split("\n")[0]
            passed = first in ("PASSED", "OK")
            detail = "" if passed else ((res or end) or "").replace("\n", " | ")[:400]
            if not passed and log:
                detail += " (log: {})".format(os.path.relpath(log, ROOT))
            rows.append((test_id, name, client, "passed" if passed else
                         "FAILED" if res else "no result", detail))
            print("  {:<40} {:<28} {:<8} {} ({:.1f}s)".format(
                test_id, name, client, rows[-1][3], time.time() - t0), flush=True)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


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
    ap.add_argument("--only", default="", help="profile names to run, comma separated")
    args = ap.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    limette_config(args.work, args.tls_port, args.tool_port)
    lim = start_limette(args.limette, args.work, args.op_port)
    tls_front.start(args.work, args.tls_port, args.op_port)
    issuer = requests.get("https://127.0.0.1:{}/.well-known/openid-configuration".format(
        args.tls_port), verify=False).json()["issuer"]
    rows = []
    t0 = time.time()
    try:
        runs = [(n, p, a) for n, p in STATIC_PROFILES for a in ALGS]
        runs += [(n, p, None) for n, p in DYNAMIC_PROFILES]
        only = [o for o in args.only.split(",") if o]
        for name, profile, alg in runs:
            if only and not any(name.startswith(o) for o in only):
                continue
            print("{} ({}), client {}".format(name, profile, alg or "registered"), flush=True)
            run_profile(args, args.python, name, profile, alg, issuer, rows)
    finally:
        lim.terminate()
        lim.wait(10)
    write_summary(args.summary, rows, time.time() - t0)
    return 1 if any(r[3] not in ("passed", "not applicable") for r in rows) else 0


def write_summary(path, rows, seconds):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    counts = {}
    for r in rows:
        c = counts.setdefault((r[1], r[2]), {})
        c[r[3]] = c.get(r[3], 0) + 1
    with open(path, "w") as f:
        f.write("# OpenID Foundation OP test tool (oidctest 0.8.2) against Limette, {:.0f} s\n"
                .format(seconds))
        f.write("# test id\tprofile\tclient\tresult\tdetail\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
        f.write("\n# profile\tclient\tcounts\n")
        for (p, c), n in counts.items():
            f.write("# {}\t{}\t{}\n".format(p, c, ", ".join(
                "{} {}".format(v, k) for k, v in sorted(n.items()))))
    print("conformance: summary written to {}".format(path))
    for (p, c), n in counts.items():
        print("  {:<28} {:<8} {}".format(p, c, ", ".join(
            "{} {}".format(v, k) for k, v in sorted(n.items()))))


if __name__ == "__main__":
    sys.exit(main())
