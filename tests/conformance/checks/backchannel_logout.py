#!/usr/bin/env python3
"""OpenID Connect Back-Channel Logout 1.0, checked against a Limette started for the run.

Usage: backchannel_logout.py [--limette BIN] [--work DIR] [--switch-off FEATURE]...

Starts Limette (BIN: default $LIMETTE_BIN, else target/release/limette) on 127.0.0.1 with four
relying parties whose `LogoutUrl` (LogoutType `back`) is a listener of this script: `bc-hs`
(HS256, LogoutSessionRequired 1), `bc-es` (ES256, no session required), `bc-slow` (whose
listener holds its answer) and `bc-unused` (never used). dwho logs in, the first three get
an ID token, and the session ends by the portal's logout; the listeners check what they get.
One line per check: `RESULT Back-Channel <check-id> PASSED|FAILED <section>: <reason>`;
exit 1 when one failed.

--switch-off proves the checks depend on the feature (they must then FAIL):
  logout-url        the RPs have no LogoutUrl: nothing is posted
  front-type        the RPs' LogoutType is `front`: nothing is posted
  session-required  LogoutSessionRequired 0 for bc-hs: its token has no `sid`
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import logout_kit as kit  # noqa: E402

PROFILE = "Back-Channel"
EVENT = "http://schemas.openid.net/event/backchannel-logout"
SWITCHES = {"logout-url", "front-type", "session-required"}


def main():
    args = kit.arguments(__doc__, SWITCHES)
    off = set(args.switch_off)
    rx = kit.Receiver()
    cb = rx.url("/cb")

    def back(path, **extra):
        o = {"RedirectUris": cb, "LogoutType": "front" if "front-type" in off else "back",
             "LogoutUrl": None if "logout-url" in off else rx.url(path)}
        o.update(extra)
        return o

    rps = {
        "bc-hs": back("/bc-hs", LogoutSessionRequired=0 if "session-required" in off else 1),
        "bc-es": back("/bc-es", IDTokenSignAlg="ES256"),
        "bc-slow": back("/bc-slow"),
        "bc-unused": back("/bc-unused"),
    }
    op = kit.Limette(args.limette, rps, work=args.work)
    v = kit.Verdicts(PROFILE)
    try:
        v.run(run, op, rx)
    finally:
        op.stop(failed=v.failed > 0 and not off)
        rx.stop()
    v.exit()


def run(v, op, rx):
    disco = op.discovery()
    v.check("discovery-backchannel_logout_supported", "2.1",
            disco.get("backchannel_logout_supported") is True,
            "backchannel_logout_supported = %r" % disco.get("backchannel_logout_supported"))
    v.check("discovery-backchannel_logout_session_supported", "2.1",
            disco.get("backchannel_logout_session_supported") is True,
            "backchannel_logout_session_supported = %r"
            % disco.get("backchannel_logout_session_supported"))
    jwks = kit.requests.get(disco["jwks_uri"], timeout=10).json()

    rp = kit.RelyingParty(op)
    s = rp.login()
    ids = {c: rp.id_token(s, c, rx.url("/cb"))[1] for c in ("bc-hs", "bc-es", "bc-slow")}
    v.check("id-token-sid", "2.1", all(ids[c].get("sid") for c in ids),
            "the ID tokens carry sid (an OP supporting sessions puts it there): %r"
            % [ids[c].get("sid") for c in ids])

    # The slow RP's listener answers only once the logout has answered the browser (or 10 s).
    rx.hold["/bc-slow"] = threading.Event()
    t0 = time.time()
    r = rp.portal_logout(s)
    took = time.time() - t0
    rx.hold["/bc-slow"].set()
    v.check("logout-ends-session", "2.3", not rp.session_alive(s) and r.status_code < 400,
            "the portal's logout answered %d; session alive afterwards: %s"
            % (r.status_code, rp.session_alive(s)))

    for client, alg, session_required in (("bc-hs", "HS256", True), ("bc-es", "ES256", False)):
        got = rx.requests_to("/" + client, 1)
        if not v.check("%s-post" % client, "2.5", len(got) == 1 and got[0]["method"] == "POST",
                       "%s: %d request(s) to its LogoutUrl %s" % (
                           client, len(got), [g["method"] for g in got])):
            continue
        req = got[0]
        ctype = req["headers"].get("content-type", "")
        form = kit.urllib.parse.parse_qs(req["body"])
        token = form.get("logout_token", [""])[0]
        v.check("%s-form-encoded" % client, "2.5",
                ctype.split(";")[0].strip() == "application/x-www-form-urlencoded"
                and list(form) == ["logout_token"] and token,
                "Content-Type %r, parameters %r" % (ctype, sorted(form)))
        header, claims = kit.jwt_parts(token)
        if not v.check("%s-jwt" % client, "2.4", claims is not None,
                       "the logout_token is a JWT: %r" % token[:60]):
            continue
        ok, how = kit.verify_jws(token, kit.SECRET, jwks)
        v.check("%s-signed" % client, "2.4", ok and header.get("alg") == alg,
                "signed as the RP's ID tokens (%s): header %r, verification %s" % (alg, header, how))
        v.check("%s-typ" % client, "2.4", header.get("typ") == "logout+jwt",
                "explicitly typed (SHOULD): typ %r" % header.get("typ"))
        idt = ids[client]
        now = time.time()
        aud = claims.get("aud")
        checks = [
            ("iss", claims.get("iss") == disco["issuer"], "iss %r" % claims.get("iss")),
            ("aud", aud == client or (isinstance(aud, list) and client in aud), "aud %r" % aud),
            ("iat", isinstance(claims.get("iat"), int) and abs(claims["iat"] - now) < 120,
             "iat %r" % claims.get("iat")),
            ("exp", isinstance(claims.get("exp"), int) and claims["exp"] > claims.get("iat", 0),
             "exp %r" % claims.get("exp")),
            ("jti", isinstance(claims.get("jti"), str) and len(claims["jti"]) >= 8,
             "jti %r" % claims.get("jti")),
        ]
        for name, ok, why in checks:
            v.check("%s-claim-%s" % (client, name), "2.4", ok, why)
        v.check("%s-events" % client, "2.4", claims.get("events") == {EVENT: {}},
                "events %r" % claims.get("events"))
        v.check("%s-sub-or-sid" % client, "2.4",
                claims.get("sub") == idt.get("sub") or
                (claims.get("sid") and claims.get("sid") == idt.get("sid")),
                "sub %r sid %r (ID token: sub %r sid %r)" % (
                    claims.get("sub"), claims.get("sid"), idt.get("sub"), idt.get("sid")))
        v.check("%s-no-nonce" % client, "2.4", "nonce" not in claims,
                "claims %r" % sorted(claims))
        if session_required:
            v.check("%s-sid-when-required" % client, "2.2, 2.4",
                    claims.get("sid") is not None and claims.get("sid") == idt.get("sid"),
                    "backchannel_logout_session_required: sid %r, the ID token's %r"
                    % (claims.get("sid"), idt.get("sid")))
        # Another logout token for the same RP must have another jti (replay detection, 2.6).
    jtis = [kit.jwt_parts(kit.urllib.parse.parse_qs(g["body"]).get("logout_token", [""])[0])[1]
            for c in ("bc-hs", "bc-es") for g in rx.requests_to("/" + c, 1, 0)]
    jtis = [c.get("jti") for c in jtis if c]
    v.check("jti-unique", "2.4", len(jtis) == 2 and len(set(jtis)) == 2,
            "jti of each token unique: %r" % jtis)

    slow = rx.requests_to("/bc-slow", 1)
    # Waiting for bc-slow would take its whole try (1.5 s, docs/oidc.md, the back-channel queue).
    v.check("delivery-does-not-hold-logout", "2.5, 3", took < 1.4 and len(slow) == 1,
            "the logout answered in %.2f s while bc-slow held its answer; bc-slow got %d "
            "request(s)" % (took, len(slow)))
    unused = rx.requests_to("/bc-unused", 1, 0.5)
    v.check("unused-rp-not-told", "2.3", not unused,
            "an RP the session did not use got %d request(s)" % len(unused))


if __name__ == "__main__":
    main()
