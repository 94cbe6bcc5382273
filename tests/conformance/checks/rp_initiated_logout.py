#!/usr/bin/env python3
"""OpenID Connect RP-Initiated Logout 1.0, checked against a Limette started for the run.

Usage: rp_initiated_logout.py [--limette BIN] [--work DIR] [--switch-off FEATURE]...

Starts Limette (BIN: default $LIMETTE_BIN, else target/release/limette) on 127.0.0.1 with two
relying parties: `rpi` (post-logout URI /bye on a listener of this script,
LogoutBypassConfirm 1: a valid hint of the current session ends it without a question, as
LemonLDAP::NG) and `rpi-ask` (post-logout URI /bye2, no bypass). Each check logs dwho in
afresh (over HTTP, no browser needed) and calls the end-session endpoint as an RP's page
sends the browser there. One line per check:
`RESULT RP-Initiated <check-id> PASSED|FAILED <section>: <reason>`; exit 1 when one failed.

--switch-off proves the checks depend on the feature (they must then FAIL):
  post-logout-uri   the RPs register no post-logout redirect URI
  bypass-confirm    rpi no longer bypasses the question with a valid hint
"""
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import logout_kit as kit  # noqa: E402

PROFILE = "RP-Initiated"
SWITCHES = {"post-logout-uri", "bypass-confirm"}


def main():
    args = kit.arguments(__doc__, SWITCHES)
    off = set(args.switch_off)
    rx = kit.Receiver()
    uris = "post-logout-uri" not in off
    rps = {
        "rpi": {"RedirectUris": rx.url("/cb"),
                "PostLogoutRedirectUris": rx.url("/bye") if uris else None,
                "LogoutBypassConfirm": 0 if "bypass-confirm" in off else 1},
        "rpi-ask": {"RedirectUris": rx.url("/cb"),
                    "PostLogoutRedirectUris": rx.url("/bye2") if uris else None},
    }
    op = kit.Limette(args.limette, rps, work=args.work)
    v = kit.Verdicts(PROFILE)
    try:
        v.run(run, op, rx)
    finally:
        op.stop(failed=v.failed > 0 and not off)
        rx.stop()
    v.exit()


def redirected(r, uri):
    """The query of the answer's redirect to `uri` (dict), or None when it is none."""
    loc = r.headers.get("Location", "")
    if r.status_code not in (301, 302, 303, 307, 308) or loc.split("?")[0] != uri:
        return None
    return {k: w[0] for k, w in urllib.parse.parse_qs(urllib.parse.urlsplit(loc).query).items()}


def what(r):
    return "%d %s" % (r.status_code, r.headers.get("Location") or r.text[:120])


def run(v, op, rx):
    disco = op.discovery()
    end = disco.get("end_session_endpoint")
    v.check("discovery-end_session_endpoint", "2.1", bool(end) and end.startswith(op.url),
            "end_session_endpoint = %r" % end)
    rp = kit.RelyingParty(op)
    bye, bye2, evil = rx.url("/bye"), rx.url("/bye2"), rx.url("/evil")

    def session(client="rpi"):
        s = rp.login()
        return s, rp.id_token(s, client, rx.url("/cb"))[0]

    # 1. A valid hint of the current session, a registered URI, a state: back to the RP.
    s, hint = session()
    r = s.get(end, params={"id_token_hint": hint, "post_logout_redirect_uri": bye,
                           "state": "st-1"}, allow_redirects=False, timeout=10)
    q = redirected(r, bye)
    v.check("hint-redirects-with-state", "2, 3", q is not None and q.get("state") == "st-1",
            "GET with id_token_hint, registered post_logout_redirect_uri, state: " + what(r))
    v.check("hint-ends-session", "2", not rp.session_alive(s),
            "the OP session is gone afterwards: %s" % (not rp.session_alive(s)))

    # 2. The same request POSTed (form-encoded).
    s, hint = session()
    r = s.post(end, data={"id_token_hint": hint, "post_logout_redirect_uri": bye,
                          "state": "st-2"}, allow_redirects=False, timeout=10)
    q = redirected(r, bye)
    v.check("post-method", "2", q is not None and q.get("state") == "st-2"
            and not rp.session_alive(s), "POST: " + what(r))

    # 3. A post_logout_redirect_uri the RP did not register: never redirected to.
    s, hint = session()
    r = s.get(end, params={"id_token_hint": hint, "post_logout_redirect_uri": evil,
                           "state": "st-3"}, allow_redirects=False, timeout=10)
    v.check("unregistered-uri-no-redirect", "3",
            evil not in r.headers.get("Location", "") and evil not in r.text,
            "unregistered post_logout_redirect_uri: " + what(r))

    # 4. A hint whose signature is not the OP's: not taken as a hint.
    h, c, sig = hint.split(".")
    forged = "%s.%s.%s" % (h, c, ("A" if sig[0] != "A" else "B") + sig[1:])
    r = s.get(end, params={"id_token_hint": forged, "post_logout_redirect_uri": bye,
                           "state": "st-4"}, allow_redirects=False, timeout=10)
    v.check("forged-hint-refused", "2", redirected(r, bye) is None and rp.session_alive(s),
            "a hint with a wrong signature: %s; session alive: %s"
            % (what(r), rp.session_alive(s)))

    # 5. client_id other than the hint's audience.
    r = s.get(end, params={"id_token_hint": hint, "client_id": "rpi-ask",
                           "post_logout_redirect_uri": bye2, "state": "st-5"},
              allow_redirects=False, timeout=10)
    v.check("client_id-must-match-hint", "2", redirected(r, bye2) is None
            and rp.session_alive(s), "client_id rpi-ask with a hint issued to rpi: %s; "
            "session alive: %s" % (what(r), rp.session_alive(s)))

    # 6. No hint: the OP asks; the session ends only on the user's answer, then back to the RP.
    s, _ = session("rpi-ask")
    params = {"client_id": "rpi-ask", "post_logout_redirect_uri": bye2, "state": "st-6"}
    r = s.get(end, params=params, allow_redirects=False, timeout=10)
    token = kit.form_token(r.text)
    v.check("no-hint-asks", "2", r.status_code == 200 and token is not None
            and rp.session_alive(s), "without id_token_hint the OP must ask: %s; session "
            "alive: %s" % (what(r), rp.session_alive(s)))
    r = s.post(end, data=dict(params, confirm="1", token=token or ""), allow_redirects=False,
               timeout=10)
    q = redirected(r, bye2)
    v.check("no-hint-confirmed-redirects-with-state", "3",
            q is not None and q.get("state") == "st-6" and not rp.session_alive(s),
            "the user's yes: %s; session alive: %s" % (what(r), rp.session_alive(s)))

    # 7. A hint of another session: the OP asks.
    _, other = session()
    s, _ = session()
    r = s.get(end, params={"id_token_hint": other, "post_logout_redirect_uri": bye,
                           "state": "st-7"}, allow_redirects=False, timeout=10)
    v.check("other-session-hint-asks", "2", redirected(r, bye) is None
            and rp.session_alive(s) and kit.form_token(r.text) is not None,
            "a hint of another OP session must be asked about: %s; session alive: %s"
            % (what(r), rp.session_alive(s)))


if __name__ == "__main__":
    main()
