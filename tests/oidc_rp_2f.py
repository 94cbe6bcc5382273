"""An independent relying party (Authlib) whose client needs a higher level than a password
gives: the portal asks for the user's TOTP code (computed here by pyotp) instead of refusing,
and the ID token says how the user authenticated.

Usage: oidc_rp_2f.py <issuer> <client_id> <client_secret> <redirect_uri> <totp_secret> <skew>
Logs in as dwho through the portal's JSON login (a password only: sfOnlyUpgrade), runs the
authorization code flow with PKCE and a nonce; the authorization endpoint sends the browser to
/upgradesession, whose JSON answer names the factor's check path and token; the code posted
there raises the session's level, and the flow goes on. Authlib validates the ID token
(signature with the client secret, iss, aud, exp, iat, nonce, at_hash); the script then checks
acr and amr. Prints "RP 2F OK" on success; any failure exits non-zero. Offline: loopback only.
"""
import sys
import time
import warnings

import pyotp
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from authlib.jose import jwt
    from authlib.oidc.core import CodeIDToken


def check(cond, msg):
    """An explicit check (Python's assert is stripped under PYTHONOPTIMIZE)."""
    if not cond:
        print("RP 2F failed: " + str(msg), file=sys.stderr)
        sys.exit(1)


def main():
    issuer, client_id, secret, redirect_uri, totp_secret, skew = sys.argv[1:7]
    check(issuer.startswith("http://127.0.0.1:"), issuer)
    browser = requests.Session()
    browser.trust_env = False
    meta = browser.get(issuer + ".well-known/openid-configuration", timeout=10).json()
    check("loa-5" in meta["acr_values_supported"], meta["acr_values_supported"])
    r = browser.post(issuer, data={"user": "dwho", "password": "dwho"}, headers={"Accept": "application/json"}, timeout=10)
    check(r.status_code == 200, r.text)

    client = OAuth2Session(client_id, secret, scope="openid", redirect_uri=redirect_uri,
                           code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    client.trust_env = False
    nonce, verifier = generate_token(20), generate_token(64)
    url, state = client.create_authorization_url(meta["authorization_endpoint"], nonce=nonce, code_verifier=verifier)
    r = browser.get(url, allow_redirects=False, timeout=10)
    check(r.status_code == 302 and "/upgradesession?url=" in r.headers["Location"], (r.status_code, r.headers, r.text))
    r = browser.get(r.headers["Location"], headers={"Accept": "application/json"}, allow_redirects=False, timeout=10)
    held = r.json()
    check(r.status_code == 401 and held.get("check") == "/totp2fcheck", (r.status_code, held))
    code = pyotp.TOTP(totp_secret).at(time.time() + int(skew))
    r = browser.post(issuer.rstrip("/") + held["check"], data={"token": held["token"], "code": code},
                     headers={"Accept": "application/json"}, timeout=10)
    check(r.status_code == 200 and r.json().get("result") == 1, (r.status_code, r.text))

    r = browser.get(url, allow_redirects=False, timeout=10)
    check(r.status_code == 302 and r.headers["Location"].startswith(redirect_uri), (r.status_code, r.headers, r.text))
    token = client.fetch_token(meta["token_endpoint"], authorization_response=r.headers["Location"],
                               state=state, code_verifier=verifier)
    claims = jwt.decode(token["id_token"], secret.encode(), claims_cls=CodeIDToken,
                        claims_options={"iss": {"essential": True, "value": issuer},
                                        "aud": {"essential": True, "value": client_id}},
                        claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]})
    # The portal's clock runs <skew> seconds ahead (the test moved it one TOTP step on).
    claims.validate(leeway=int(skew) + 5)
    check(claims["sub"] == "dwho", claims)
    check(claims["acr"] == "loa-5", claims)
    check(claims["amr"] == ["pwd", "otp", "mfa"], claims)
    print("RP 2F OK", claims["acr"], ",".join(claims["amr"]))


if __name__ == "__main__":
    main()
