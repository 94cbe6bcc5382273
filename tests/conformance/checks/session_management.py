#!/usr/bin/env python3
"""OpenID Connect Session Management 1.0, checked in headless Chromium against a Limette
started for the run.

Usage: session_management.py [--limette BIN] [--work DIR] [--switch-off FEATURE]...

Starts Limette (BIN: default $LIMETTE_BIN, else target/release/limette) on 127.0.0.1 with a
relying party `sm` whose redirect URI is a page of this script (origin A). That page, the
RP iframe's part, frames the OP's `check_session_iframe` and posts it `client_id
session_state` messages. In the distribution's Chromium (headless, offline) dwho signs in,
authorize answers the page with `session_state`, the OP iframe must answer `unchanged`, and
`changed` once the user has signed out in another tab; the same page on origin B, which no
RP registered, must not get to frame it. One line per check:
`RESULT Session-Management <check-id> PASSED|FAILED <section>: <reason>`; exit 1 when one
failed.

--switch-off proves the checks depend on the feature (they must then FAIL):
  rp-origin   the RP's page runs on origin B, which the RP did not register: the OP iframe
              may not be framed there (and a session_state is bound to its origin)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import logout_kit as kit  # noqa: E402

PROFILE = "Session-Management"
SWITCHES = {"rp-origin"}

# The RP's page: frames the OP iframe, keeps its answers in window.answers; ask(message)
# posts a message to it (section 4.1, the RP iframe's part, inline on the RP's own page).
RP_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>RP</title></head><body>
<iframe id="op" src="%(iframe)s"></iframe>
<script>
window.answers = [];
window.loaded = false;
window.sessionState = new URLSearchParams(location.search).get("session_state");
window.addEventListener("message", function (e) {
  if (e.origin === %(origin)s) { window.answers.push(e.data); }
});
document.getElementById("op").addEventListener("load", function () { window.loaded = true; });
window.ask = function (message) {
  document.getElementById("op").contentWindow.postMessage(message, %(origin)s);
};
</script></body></html>"""


def main():
    args = kit.arguments(__doc__, SWITCHES)
    off = set(args.switch_off)
    a, b = kit.Receiver(), kit.Receiver()
    op = kit.Limette(args.limette, {"sm": {"RedirectUris": a.url("/cb")}}, work=args.work)
    iframe = op.discovery().get("check_session_iframe") or op.url + "oauth2/checksession.html"
    origin = op.url.rstrip("/")
    for rx in (a, b):
        rx.pages["/cb"] = RP_PAGE % {"iframe": iframe, "origin": repr(origin)}
    v = kit.Verdicts(PROFILE)
    driver = None
    try:
        driver = kit.browser(v)
        if driver is not None:
            v.run(run, op, a, b, driver, "rp-origin" in off)
    finally:
        if driver is not None:
            driver.quit()
        op.stop(failed=v.failed > 0 and not off)
        a.stop()
        b.stop()
    v.exit()


def answer(driver, message, count):
    """Posts `message` to the OP iframe; answer number `count` (1-based), or None after 5 s."""
    try:
        driver.execute_script("window.ask(arguments[0])", message)
    except Exception:  # no frame to post to
        return None
    if not kit.wait_for(driver, lambda d: d.execute_script("return window.answers.length")
                        >= count, 5):
        return None
    return driver.execute_script("return window.answers[arguments[0]]", count - 1)


def run(v, op, a, b, driver, elsewhere):
    disco = op.discovery()
    csi = disco.get("check_session_iframe")
    v.check("discovery-check_session_iframe", "2.1", bool(csi) and csi.startswith(op.url),
            "check_session_iframe = %r" % csi)
    end = disco.get("end_session_endpoint")
    v.check("discovery-end_session_endpoint", "RP-Initiated 2.1",
            bool(end) and end.startswith(op.url), "end_session_endpoint = %r" % end)

    kit.browser_login(driver, op)
    q = kit.browser_code(driver, op, "sm", a.url("/cb"))
    ss = q.get("session_state")
    v.check("session_state-in-authorization-response", "3", bool(ss),
            "the authorization answer's parameters: %r" % sorted(q))
    if elsewhere:
        driver.get(b.url("/cb?") + kit.urllib.parse.urlencode(q))
    kit.wait_for(driver, lambda d: d.execute_script("return window.loaded === true"))
    got = answer(driver, "sm " + str(ss), 1)
    v.check("iframe-unchanged", "4.2", got == "unchanged",
            "`client_id session_state` of the current session: %r" % got)
    n = 1 if got is not None else 0
    got = answer(driver, "other " + str(ss), n + 1)
    v.check("iframe-changed-for-another-client", "4.2, 4.3", got == "changed",
            "the same session_state under another client_id: %r" % got)
    n += got is not None
    got = answer(driver, "no-session-state", n + 1)
    v.check("iframe-error-for-malformed-message", "4.2", got == "error",
            "a message without a session_state: %r" % got)
    n += got is not None

    rp_tab = driver.current_window_handle
    driver.switch_to.new_window("tab")
    kit.browser_portal_logout(driver, op)
    kit.wait_for(driver, lambda d: d.get_cookie("lemonldapopbs") is None)
    driver.switch_to.window(rp_tab)
    got = answer(driver, "sm " + str(ss), n + 1)
    v.check("iframe-changed-after-logout", "4.2", got == "changed",
            "the same message once the user signed out in another tab: %r" % got)

    # An origin no RP registered: the OP iframe refuses to be framed there (its
    # frame-ancestors), so no page of that origin can read the browser state through it.
    driver.get_log("browser")
    driver.get(b.url("/cb?session_state=x"))
    refused = kit.wait_for(driver, lambda d: any(
        "frame-ancestors" in e.get("message", "") for e in d.get_log("browser")), 5)
    v.check("iframe-not-framed-by-other-origin", "4.2", bool(refused),
            "framed by %s, which no RP registered: %s"
            % (b.origin, "refused (frame-ancestors)" if refused else "no refusal seen"))


if __name__ == "__main__":
    main()
