#!/usr/bin/env python3
"""OpenID Connect Front-Channel Logout 1.0, checked in headless Chromium against a Limette
started for the run.

Usage: frontchannel_logout.py [--limette BIN] [--work DIR] [--switch-off FEATURE]...

Starts Limette (BIN: default $LIMETTE_BIN, else target/release/limette) on 127.0.0.1 with
three relying parties whose `LogoutUrl` (LogoutType `front`) is a listener of this script:
`fc-sid` (LogoutSessionRequired 1, its URL with a query of its own, LogoutBypassConfirm 1),
`fc-plain` (no session required) and `fc-unused` (never used). In the distribution's
Chromium (tests/browser/chromium.py: headless, offline), dwho signs in through the portal's
form and the first two RPs get a code each; the portal's logout page must then make the
browser load each used RP's URL in an iframe. A second session ends by RP-initiated logout
with a post-logout URI: the frames first, then the RP's URI with `state`.
One line per check: `RESULT Front-Channel <check-id> PASSED|FAILED <section>: <reason>`;
exit 1 when one failed.

--switch-off proves the checks depend on the feature (they must then FAIL):
  logout-url        the RPs have no LogoutUrl: no iframe
  back-type         the RPs' LogoutType is `back`: no iframe (a POST instead)
  session-required  LogoutSessionRequired 0 for fc-sid: no `iss` nor `sid` on its URL
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import logout_kit as kit  # noqa: E402

PROFILE = "Front-Channel"
SWITCHES = {"logout-url", "back-type", "session-required"}


def main():
    args = kit.arguments(__doc__, SWITCHES)
    off = set(args.switch_off)
    rx = kit.Receiver()

    def front(url, **extra):
        o = {"RedirectUris": rx.url("/cb"), "PostLogoutRedirectUris": rx.url("/bye"),
             "LogoutType": "back" if "back-type" in off else "front",
             "LogoutUrl": None if "logout-url" in off else url}
        o.update(extra)
        return o

    rps = {
        "fc-sid": front(rx.url("/fc-sid?app=1"), LogoutBypassConfirm=1,
                        LogoutSessionRequired=0 if "session-required" in off else 1),
        "fc-plain": front(rx.url("/fc-plain")),
        "fc-unused": front(rx.url("/fc-unused")),
    }
    op = kit.Limette(args.limette, rps, work=args.work)
    v = kit.Verdicts(PROFILE)
    driver = None
    try:
        driver = kit.browser(v)
        if driver is not None:
            v.run(run, op, rx, driver)
    finally:
        if driver is not None:
            driver.quit()
        op.stop(failed=v.failed > 0 and not off)
        rx.stop()
    v.exit()


def in_iframe(req):
    """Whether the browser loaded the request as an iframe (Fetch Metadata's destination)."""
    return req["method"] == "GET" and req["headers"].get("sec-fetch-dest") == "iframe"


def run(v, op, rx, driver):
    disco = op.discovery()
    for flag in ("frontchannel_logout_supported", "frontchannel_logout_session_supported"):
        v.check("discovery-" + flag, "3", disco.get(flag) is True,
                "%s = %r" % (flag, disco.get(flag)))
    rp = kit.RelyingParty(op)
    cb = rx.url("/cb")
    kit.browser_login(driver, op)
    sids = {}
    for client in ("fc-sid", "fc-plain"):
        code = kit.browser_code(driver, op, client, cb)["code"]
        idt = kit.jwt_parts(rp.redeem(client, code, cb)["id_token"])[1]
        sids[client] = idt.get("sid")
    v.check("id-token-sid", "3", all(sids.values()),
            "the ID tokens carry sid: %r" % sids)

    kit.browser_portal_logout(driver, op)
    got = rx.requests_to("/fc-sid", 1)
    ok = len(got) == 1 and in_iframe(got[0])
    v.check("fc-sid-rendered-in-iframe", "2", ok,
            "the logout page made the browser load fc-sid's URL in an iframe: %r"
            % [(g["method"], g["headers"].get("sec-fetch-dest")) for g in got])
    q = got[0]["query"] if got else {}
    v.check("fc-sid-iss", "2", ok and q.get("iss") == disco["issuer"],
            "session required: iss %r (issuer %r)" % (q.get("iss"), disco["issuer"]))
    v.check("fc-sid-sid", "2", ok and q.get("sid") is not None and q.get("sid") == sids["fc-sid"],
            "session required: sid %r (ID token's %r)" % (q.get("sid"), sids["fc-sid"]))
    v.check("fc-sid-own-query-kept", "2", ok and q.get("app") == "1",
            "the URL's own query component kept: %r" % q)
    plain = rx.requests_to("/fc-plain", 1)
    v.check("fc-plain-rendered-in-iframe", "2", len(plain) == 1 and in_iframe(plain[0]),
            "one iframe per RP the session used: fc-plain got %r"
            % [(g["method"], g["headers"].get("sec-fetch-dest")) for g in plain])
    unused = rx.requests_to("/fc-unused", 1, 0.5)
    v.check("unused-rp-not-rendered", "2", not unused,
            "an RP the session did not use got %d request(s)" % len(unused))

    # RP-initiated logout with a post-logout URI: the frames, then the RP's URI with state.
    kit.browser_login(driver, op)
    code = kit.browser_code(driver, op, "fc-sid", cb)["code"]
    hint = rp.redeem("fc-sid", code, cb)["id_token"]
    sid = kit.jwt_parts(hint)[1].get("sid")
    bye = rx.url("/bye")
    end = disco["end_session_endpoint"] + "?" + kit.urllib.parse.urlencode(
        {"id_token_hint": hint, "post_logout_redirect_uri": bye, "state": "fc-st"})
    driver.get(end)
    at_bye = kit.wait_for(driver, lambda d: d.current_url.startswith(bye + "?"), 15)
    frames = [g for g in rx.requests_to("/fc-sid", 2) if g["query"].get("sid") == sid]
    byes = rx.requests_to("/bye", 1, 0)
    v.check("rp-initiated-frames-then-redirect", "2; RP-Initiated 3",
            at_bye and driver.current_url == bye + "?state=fc-st" and len(frames) == 1
            and in_iframe(frames[0]) and byes and frames[0]["at"] <= byes[0]["at"],
            "ended at %s; fc-sid's iframe for this session: %d, before the redirect: %s"
            % (driver.current_url, len(frames),
               bool(frames and byes and frames[0]["at"] <= byes[0]["at"])))


if __name__ == "__main__":
    main()
