#!/usr/bin/env python3
"""Runs the portal's check-session page (OpenID Connect Session Management 1.0, section 3.2) in
headless Chromium, framed by a relying party's page, as an RP's own script uses it.

Usage: check_session.py, then PORTAL_URL on standard input.
The script first serves the RP page on a port the system picks (RP_PORT) and the same page on
another (OTHER_PORT, an origin no RP is registered with), and prints "ports RP_PORT OTHER_PORT";
the test then starts the portal with a relying party `rp` whose redirect URI is
http://127.0.0.1:RP_PORT/cb and writes the portal's URL on a line of standard input. It then logs in as dwho through the portal's form, runs authorize to the RP, whose page frames
checksession.html and posts "rp <session_state>": the answer must be "unchanged"; a malformed
message gets "error". After a logout in another tab the same message gets "changed". Framed by
the other origin the page must not load (frame-ancestors). Exits non-zero on any failure.
"""
import http.server
import sys
import threading
import urllib.parse

from chromium import browser  # noqa: E402  (first: keeps Selenium offline)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# The relying party's page: frames the OP iframe and keeps its answers in window.answers.
# `ask(message)` posts a message to it (the RP's own script, inline: the RP's page is ours).
RP_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>RP</title></head><body>
<iframe id="op" src="%(portal)s/oauth2/checksession.html"></iframe>
<script>
window.answers = [];
window.loaded = false;
var params = new URLSearchParams(location.search);
window.sessionState = params.get("session_state");
window.addEventListener("message", function (e) {
  if (e.origin === %(origin)s) { window.answers.push(e.data); }
});
document.getElementById("op").addEventListener("load", function () { window.loaded = true; });
window.ask = function (message) {
  document.getElementById("op").contentWindow.postMessage(message, %(origin)s);
};
</script></body></html>"""


def check(cond, msg):
    """An explicit check (Python's assert is stripped under PYTHONOPTIMIZE)."""
    if not cond:
        print("check-session flow failed: " + msg, file=sys.stderr)
        sys.exit(1)


def page(portal):
    origin = urllib.parse.urlsplit(portal)
    origin = "%s://%s" % (origin.scheme, origin.netloc)
    return (RP_PAGE % {"portal": portal, "origin": repr(origin)}).encode()


def serve(page):
    """Serves `page["body"]` on a port the system picks (the page is set once the portal is
    known, before any request can come)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page["body"]
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def answer_after(driver, message, count):
    """Posts `message` and waits for answer number `count` (1-based); returns it."""
    driver.execute_script("window.ask(arguments[0])", message)
    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script("return window.answers.length") >= count)
    return driver.execute_script("return window.answers[arguments[0]]", count - 1)


def rp_page_loaded(driver):
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.loaded === true"))


def main():
    shown = {"body": b""}
    servers = [serve(shown), serve(shown)]
    rp_port, other_port = (s.server_address[1] for s in servers)
    print("ports %d %d" % (rp_port, other_port), flush=True)
    portal = sys.stdin.readline().strip().rstrip("/")
    check(portal.startswith("http://"), "no portal URL on standard input: %r" % portal)
    shown["body"] = page(portal)
    rp = "http://127.0.0.1:%s" % rp_port
    driver = browser()
    try:
        driver.get(portal + "/")
        driver.find_element(By.NAME, "user").send_keys("dwho")
        driver.find_element(By.NAME, "password").send_keys("dwho")
        driver.execute_script("window.limetteOldPage = true")
        driver.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()
        WebDriverWait(driver, 10, ignored_exceptions=(WebDriverException,)).until(
            lambda d: d.execute_script("return window.limetteOldPage === undefined"))
        check(driver.get_cookie("lemonldapopbs"), "browser-state cookie expected after login")
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": "rp", "scope": "openid",
            "redirect_uri": rp + "/cb", "state": "s1"})
        driver.get(portal + "/oauth2/authorize?" + query)
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(rp + "/cb?"))
        rp_page_loaded(driver)
        ss = driver.execute_script("return window.sessionState")
        check(ss and "." in ss, "session_state expected in the answer: " + driver.current_url)
        got = answer_after(driver, "rp " + ss, 1)
        check(got == "unchanged", "expected unchanged, got %r" % got)
        got = answer_after(driver, "no-session-state", 2)
        check(got == "error", "expected error for a malformed message, got %r" % got)
        got = answer_after(driver, "other " + ss, 3)
        check(got == "changed", "another client's message must not match, got %r" % got)
        # The user logs out of the portal in another tab.
        rp_tab = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(portal + "/?logout=1")
        # The portal asks first (a link from another site must not end the session).
        driver.find_element(By.ID, "logout").click()
        try:
            WebDriverWait(driver, 5).until(lambda d: d.get_cookie("lemonldapopbs") is None)
        except WebDriverException:
            pass
        check(driver.get_cookie("lemonldapopbs") is None, "logout must clear the browser state")
        driver.switch_to.window(rp_tab)
        got = answer_after(driver, "rp " + ss, 4)
        check(got == "changed", "expected changed after logout, got %r" % got)
        # An origin no relying party redirects to cannot frame the page.
        driver.get_log("browser")
        driver.get("http://127.0.0.1:%s/cb" % other_port)
        WebDriverWait(driver, 10).until(
            lambda d: any("frame-ancestors" in e.get("message", "") for e in d.get_log("browser")))
        print("check-session flow ok")
    finally:
        driver.quit()
        for s in servers:
            s.shutdown()


if __name__ == "__main__":
    main()
