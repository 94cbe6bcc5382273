"""What the logout checks (tests/conformance/checks/*.py) share: the verdict lines, a Limette
started for one script on loopback with the relying parties it describes, an RP's endpoints
(a recording HTTP server on 127.0.0.1), and the OpenID Connect calls of a relying party.

A check prints one line, `RESULT <profile> <check-id> PASSED|FAILED <spec section>: <reason>`;
a script exits 1 when one of its checks FAILED, 2 when it could not run at all.

Not a check itself (not executable, outside checks/): the scripts import it from the folder
above theirs.
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SECRET = "logout-conformance-secret-of-32-bytes"
USER = "dwho"


class Verdicts:
    """The RESULT lines of one profile."""

    def __init__(self, profile):
        self.profile = profile
        self.failed = 0

    def check(self, check_id, section, ok, reason):
        """One check: `ok` true passes; `reason` says what was seen (kept on one line)."""
        if not ok:
            self.failed += 1
        reason = " ".join(str(reason).split())[:400]
        print("RESULT %s %s %s %s: %s" % (self.profile, check_id, "PASSED" if ok else "FAILED",
                                         section, reason), flush=True)
        return ok

    def exit(self):
        sys.exit(1 if self.failed else 0)

    def run(self, steps, *args):
        """Runs `steps(self, *args)`; an error that stops it midway is a FAILED check
        `completed` (the checks it did not reach are not printed)."""
        try:
            steps(self, *args)
        except Exception as e:  # any failure of the flow is a verdict, never a traceback
            self.check("completed", "-", False, "the checks stopped: %s: %s"
                       % (type(e).__name__, e))


def arguments(doc, switches):
    """The command line every script takes (see each script's docstring)."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--limette", default=os.environ.get("LIMETTE_BIN")
                   or os.path.join(ROOT, "target", "release", "limette"),
                   help="the Limette binary (default: $LIMETTE_BIN, else target/release/limette)")
    p.add_argument("--work", help="folder for the instance's data and log (default: a "
                   "temporary folder, removed at the end unless a check failed)")
    p.add_argument("--switch-off", choices=sorted(switches), action="append", default=[],
                   help="run with this feature switched off: its checks must then FAIL")
    return p.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Limette:
    """A Limette on 127.0.0.1 with the demo configuration (user dwho) plus `rps` (name ->
    options without the `oidcRPMetaDataOptions` prefix; client id = name, secret SECRET,
    consent bypassed) and `conf` (more top-level keys). Loopback is allowed to the outbound
    guard (`outboundAllowTo`), as a site with internal relying parties allows it."""

    def __init__(self, binary, rps, conf=None, work=None):
        if not os.access(binary, os.X_OK):
            print("no Limette binary at %s (build it, or give --limette)" % binary,
                  file=sys.stderr)
            sys.exit(2)
        self.keep = work is not None
        self.work = os.path.abspath(work) if work else tempfile.mkdtemp(prefix="limette-logout.")
        os.makedirs(os.path.join(self.work, "conf"), exist_ok=True)
        self.port = free_port()
        self.url = "http://127.0.0.1:%d/" % self.port
        c = json.load(open(os.path.join(ROOT, "conf", "lmConf-1.json")))
        c["portal"] = self.url
        c["oidcRPMetaDataOptions"] = {}
        c["oidcRPMetaDataExportedVars"] = {}
        for name, extra in rps.items():
            o = {"ClientID": name, "ClientSecret": SECRET, "BypassConsent": 1,
                 "IDTokenSignAlg": "HS256"}
            o.update(extra)
            c["oidcRPMetaDataOptions"][name] = {
                "oidcRPMetaDataOptions" + k: v for k, v in o.items() if v is not None}
            c["oidcRPMetaDataExportedVars"][name] = {
                "email": "mail", "name": "cn", "preferred_username": "uid"}
        c.update(conf or {})
        with open(os.path.join(self.work, "conf", "lmConf-1.json"), "w") as f:
            json.dump(c, f, indent=1)
        ini = os.path.join(self.work, "limette.ini")
        with open(ini, "w") as f:
            f.write("[all]\nlogLevel = info\n[configuration]\ntype = File\n"
                    "dirName = {w}/conf\n[portal]\noutboundAllowTo = 127.0.0.0/8\n"
                    "globalStorage = File\n"
                    "globalStorageOptions = {{\"Directory\": \"{w}/sessions\"}}\n"
                    "persistentStorage = File\n"
                    "persistentStorageOptions = {{\"Directory\": \"{w}/psessions\"}}\n"
                    .format(w=self.work))
        self.log = os.path.join(self.work, "limette.log")
        out = open(self.log, "a")
        self.proc = subprocess.Popen(
            [binary, "-c", ini, "--data", self.work, "-l", "127.0.0.1:%d" % self.port],
            stdout=out, stderr=out)
        deadline = time.time() + 120  # a first start generates the provider's keys
        while True:
            try:
                requests.get(self.url + ".well-known/openid-configuration", timeout=2)
                break
            except requests.ConnectionError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    print("Limette did not start, see %s" % self.log, file=sys.stderr)
                    print(open(self.log).read()[-2000:], file=sys.stderr)
                    sys.exit(2)
                time.sleep(0.05)

    def stop(self, failed=False):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if failed:
            print("instance's data and log kept in %s" % self.work, file=sys.stderr)
        elif not self.keep:
            shutil.rmtree(self.work, ignore_errors=True)

    def discovery(self):
        return requests.get(self.url + ".well-known/openid-configuration", timeout=10).json()


class Receiver:
    """A relying party's endpoints on 127.0.0.1: records every request (method, path, query
    as a dict of first values, headers, body) and answers 200, with `pages[path]` as HTML when
    given. `hold[path]`: an Event the answer to that path waits for (at most 10 s)."""

    def __init__(self):
        self.got = []
        self.pages = {}
        self.hold = {}
        self.lock = threading.Lock()
        rx = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def handle_one(self, method):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n).decode("utf-8", "replace") if n else ""
                u = urllib.parse.urlsplit(self.path)
                query = {k: v[0] for k, v in urllib.parse.parse_qs(u.query).items()}
                with rx.lock:
                    rx.got.append({"method": method, "path": u.path, "query": query,
                                   "headers": {k.lower(): v for k, v in self.headers.items()},
                                   "body": body, "at": time.time()})
                if u.path in rx.hold:
                    rx.hold[u.path].wait(10)
                page = rx.pages.get(u.path, "<!DOCTYPE html><title>RP</title><p>ok</p>")
                data = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.handle_one("GET")

            def do_POST(self):
                self.handle_one("POST")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.origin = "http://127.0.0.1:%d" % self.port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return self.origin + path

    def requests_to(self, path, n=1, wait=5.0):
        """The requests to `path`, waiting up to `wait` seconds for `n` of them."""
        deadline = time.time() + wait
        while True:
            with self.lock:
                mine = [r for r in self.got if r["path"] == path]
            if len(mine) >= n or time.time() > deadline:
                return mine
            time.sleep(0.02)

    def stop(self):
        for e in self.hold.values():
            e.set()
        self.server.shutdown()


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def jwt_parts(token):
    """Header and claims of a compact JWS (not verified), or (None, None)."""
    try:
        h, c, _ = token.split(".")
        return json.loads(b64d(h)), json.loads(b64d(c))
    except (ValueError, AttributeError):
        return None, None


def verify_jws(token, secret, jwks):
    """Whether the compact JWS `token` verifies: HS* with `secret`, else with the key of `jwks`
    that its `kid` names (Authlib). Returns (ok, alg or reason)."""
    header, _ = jwt_parts(token)
    if header is None:
        return False, "not a compact JWS"
    alg = header.get("alg", "")
    if alg.startswith("HS"):
        h, c, s = token.split(".")
        digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}
        if alg not in digest:
            return False, "alg " + alg
        mac = hmac.new(secret.encode(), ("%s.%s" % (h, c)).encode(), digest[alg]).digest()
        return hmac.compare_digest(mac, b64d(s)), alg
    if alg in ("", "none"):
        return False, "alg " + repr(alg)
    import warnings
    warnings.filterwarnings("ignore", message="authlib.jose module is deprecated")
    from authlib.jose import JsonWebSignature, JsonWebKey
    keys = [k for k in jwks.get("keys", []) if k.get("kid") == header.get("kid")]
    if not keys:
        return False, "no published key with kid %r" % header.get("kid")
    try:
        JsonWebSignature(algorithms=[alg]).deserialize_compact(token, JsonWebKey.import_key(keys[0]))
        return True, alg
    except Exception as e:  # authlib raises its own error types for a bad signature
        return False, "%s: %s" % (alg, e)


class RelyingParty:
    """A relying party's calls, over HTTP (no browser): the user's login (JSON), authorize with
    that SSO cookie, the code redeemed at the token endpoint."""

    def __init__(self, op):
        self.op = op

    def login(self):
        """A new SSO session of dwho: a requests session holding its cookies."""
        s = requests.Session()
        r = s.post(self.op.url, data={"user": USER, "password": USER},
                   headers={"Accept": "application/json"}, timeout=10)
        if r.status_code != 200:
            raise RuntimeError("login: %d %s" % (r.status_code, r.text[:200]))
        return s

    def authorize(self, s, client, redirect_uri, state="st", nonce="n0"):
        """The answer of authorize (code flow) to `client`: its query as a dict."""
        q = {"response_type": "code", "client_id": client, "scope": "openid profile",
             "redirect_uri": redirect_uri, "state": state, "nonce": nonce}
        r = s.get(self.op.url + "oauth2/authorize", params=q, allow_redirects=False, timeout=10)
        loc = r.headers.get("Location", "")
        if r.status_code != 302 or not loc.startswith(redirect_uri):
            raise RuntimeError("authorize %s: %d %s" % (client, r.status_code, loc or r.text[:200]))
        return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(loc).query).items()}

    def redeem(self, client, code, redirect_uri):
        r = requests.post(self.op.url + "oauth2/token", auth=(client, SECRET), timeout=10,
                          data={"grant_type": "authorization_code", "code": code,
                                "redirect_uri": redirect_uri})
        if r.status_code != 200:
            raise RuntimeError("token %s: %d %s" % (client, r.status_code, r.text[:200]))
        return r.json()

    def id_token(self, s, client, redirect_uri):
        """A code flow for `client` in session `s`: (the ID token, its claims)."""
        code = self.authorize(s, client, redirect_uri)["code"]
        t = self.redeem(client, code, redirect_uri)["id_token"]
        return t, jwt_parts(t)[1]

    def session_alive(self, s):
        r = s.get(self.op.url, headers={"Accept": "application/json"}, timeout=10)
        return r.status_code == 200

    def portal_logout(self, s):
        """The portal's own logout as a browser does it: `/?logout=1` asks, its form is posted
        with the page's token. The answer to the confirmation."""
        ask = s.get(self.op.url + "?logout=1", timeout=10)
        token = ask.text.split('name="token" value="', 1)[-1].split('"', 1)[0]
        return s.post(self.op.url + "?logout=1", data={"token": token}, allow_redirects=False,
                      timeout=10)


def form_token(html):
    """The `token` field of a confirmation page, or None."""
    if 'name="token" value="' not in html:
        return None
    return html.split('name="token" value="', 1)[1].split('"', 1)[0]


def browser(v):
    """The project's headless Chromium (tests/browser/chromium.py: offline, loopback only), or
    None after a FAILED check `browser` when it cannot start."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "browser"))
    try:
        import chromium
        return chromium.browser()
    except Exception as e:  # Selenium, Chromium or its driver missing
        v.check("browser", "-", False, "headless Chromium did not start: %s: %s"
                % (type(e).__name__, e))
        return None


def wait_for(driver, cond, seconds=10):
    """Waits for `cond(driver)`; its last value (falsy on timeout, never an exception)."""
    deadline = time.time() + seconds
    while True:
        try:
            got = cond(driver)
        except Exception:  # a page still loading answers scripts with errors
            got = None
        if got or time.time() > deadline:
            return got
        time.sleep(0.05)


def browser_login(driver, op):
    """dwho signs in through the portal's form in `driver`."""
    from selenium.webdriver.common.by import By
    driver.get(op.url)
    driver.find_element(By.NAME, "user").send_keys(USER)
    driver.find_element(By.NAME, "password").send_keys(USER)
    driver.execute_script("window.limetteOldPage = true")
    driver.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()
    if not wait_for(driver, lambda d: d.execute_script("return window.limetteOldPage === undefined")):
        raise RuntimeError("the login form did not answer")


def browser_code(driver, op, client, redirect_uri, state="st"):
    """Authorize (code flow) in `driver`'s session: the answer's query, once the browser is at
    `redirect_uri`."""
    q = urllib.parse.urlencode({"response_type": "code", "client_id": client, "scope": "openid",
                                "redirect_uri": redirect_uri, "state": state, "nonce": "n0"})
    driver.get(op.url + "oauth2/authorize?" + q)
    if not wait_for(driver, lambda d: d.current_url.startswith(redirect_uri + "?")):
        raise RuntimeError("authorize %s ended at %s" % (client, driver.current_url))
    u = urllib.parse.urlsplit(driver.current_url)
    return {k: v[0] for k, v in urllib.parse.parse_qs(u.query).items()}


def browser_portal_logout(driver, op):
    """The portal's logout in `driver`: `/?logout=1`, then the confirmation's button."""
    from selenium.webdriver.common.by import By
    driver.get(op.url + "?logout=1")
    driver.find_element(By.ID, "logout").click()
