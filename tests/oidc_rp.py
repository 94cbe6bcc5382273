"""An independent relying party (Authlib) completing the code flow against Limette.

Usage: oidc_rp.py <issuer> <client_id> <client_secret> <redirect_uri> [<how>]
Logs in as dwho through the portal's JSON login, runs the authorization code flow with PKCE
and a nonce, then lets Authlib validate the ID token (signature, iss, aud, azp, exp, iat,
nonce, at_hash) and reads userinfo. <how> is the key the signature is checked with:
"secret" (the default: HS* with the client secret), "jwks:ALG" (the keys of the provider's
jwks_uri, picked by the token's kid; the header must name ALG), or "pem:FILE:KID:ALG" (the
public half of the PEM private key in FILE, read by Python's cryptography; the header must
carry kid KID). It also checks that the same
validation rejects a forged signature, a wrong nonce and a wrong at_hash, so a validator that
checks nothing cannot pass. Prints "RP OK" on success; any failure exits non-zero.
Offline: only the issuer on loopback is ever called, with no proxy from the environment.
"""
import sys
import warnings

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
with warnings.catch_warnings():
    # Newer Authlib points to joserfc; the authlib.jose API is still the documented OIDC one.
    warnings.simplefilter("ignore")
    from authlib.jose import JsonWebKey, jwt
    from authlib.oidc.core import CodeIDToken
import base64
import json

from cryptography.hazmat.primitives import serialization


def validate(id_token, key, issuer, client_id, nonce, access_token):
    claims = jwt.decode(
        id_token,
        key,
        claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": issuer}, "aud": {"essential": True, "value": client_id}},
        claims_params={"nonce": nonce, "client_id": client_id, "access_token": access_token},
    )
    claims.validate()
    return claims


def check(cond, msg):
    """An explicit check (Python's assert is stripped under PYTHONOPTIMIZE)."""
    if not cond:
        print("RP failed: " + str(msg), file=sys.stderr)
        sys.exit(1)


def must_fail(what, *args):
    try:
        validate(*args)
    except Exception:  # Authlib raises authlib.jose or joserfc errors depending on its version
        return
    raise SystemExit(f"validation accepted {what}")


def header(token):
    part = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


KTY = {"RS": ("RSA", 2048), "ES": ("EC", "P-256"), "Ed": ("OKP", "Ed25519")}


def keys_for(how, browser, meta, secret, id_token):
    """The key to verify with, and a key of the same kind (and kid) that must not verify."""
    if how == "secret":
        return secret.encode(), b"not-the-secret"
    head = header(id_token)
    if how.startswith("jwks:"):
        alg = how[len("jwks:"):]
        check(head.get("alg") == alg, head)
        r = browser.get(meta["jwks_uri"], timeout=10)
        check("max-age" in r.headers.get("Cache-Control", ""), r.headers)
        jwks = r.json()
        for k in jwks["keys"]:
            check(k.get("use") == "sig" and k.get("kid") and k.get("alg"), k)
            check(not any(p in k for p in ("d", "p", "q", "dp", "dq", "qi")), "a private part is published")
        check(alg in meta["id_token_signing_alg_values_supported"], meta)
        kids = [k["kid"] for k in jwks["keys"]]
        check(head.get("kid") in kids, (head, kids))
        kty, size = KTY[alg[:2]]
        other = JsonWebKey.generate_key(kty, size, options={"kid": head["kid"]}, is_private=True)
        return JsonWebKey.import_key_set(jwks), other
    _, path, kid, alg = how.split(":")
    check(head.get("kid") == kid and head.get("alg") == alg, head)
    with open(path, "rb") as f:
        private = serialization.load_pem_private_key(f.read(), password=None)
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    kty, size = KTY[alg[:2]]
    return public, JsonWebKey.generate_key(kty, size, is_private=True)


def main():
    issuer, client_id, secret, redirect_uri = sys.argv[1:5]
    how = sys.argv[5] if len(sys.argv) > 5 else "secret"
    check(issuer.startswith("http://127.0.0.1:"), f"the issuer must be on loopback: {issuer}")
    browser = requests.Session()
    browser.trust_env = False  # no proxy, no .netrc: straight to loopback
    meta = browser.get(issuer + ".well-known/openid-configuration", timeout=10).json()
    check(meta["issuer"] == issuer, meta)
    for endpoint in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint"):
        check(meta[endpoint].startswith(issuer), (endpoint, meta[endpoint]))

    r = browser.post(issuer, data={"user": "dwho", "password": "dwho"}, headers={"Accept": "application/json"}, timeout=10)
    check(r.status_code == 200, r.text)

    client = OAuth2Session(
        client_id,
        secret,
        scope="openid profile email",
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )
    client.trust_env = False
    nonce, verifier = generate_token(20), generate_token(64)
    url, state = client.create_authorization_url(meta["authorization_endpoint"], nonce=nonce, code_verifier=verifier)
    r = browser.get(url, allow_redirects=False, timeout=10)
    check(r.status_code == 302, (r.status_code, r.text))
    token = client.fetch_token(
        meta["token_endpoint"], authorization_response=r.headers["Location"], state=state, code_verifier=verifier
    )

    key, wrong = keys_for(how, browser, meta, secret, token["id_token"])
    at = token["access_token"]
    claims = validate(token["id_token"], key, issuer, client_id, nonce, at)
    check(claims["sub"] == "dwho", claims)
    must_fail("a wrong key", token["id_token"], wrong, issuer, client_id, nonce, at)
    must_fail("a wrong nonce", token["id_token"], key, issuer, client_id, "other-nonce", at)
    must_fail("a wrong at_hash", token["id_token"], key, issuer, client_id, nonce, at + "x")
    must_fail("a wrong audience", token["id_token"], key, issuer, "someone-else", nonce, at)
    must_fail("a wrong issuer", token["id_token"], key, "http://evil.example/", client_id, nonce, at)

    info = client.get(meta["userinfo_endpoint"], timeout=10).json()
    check(info["sub"] == "dwho" and info["email"] == "dwho@badwolf.org", info)
    print("RP OK", claims["sub"], info["email"], header(token["id_token"]).get("kid", "-"))


if __name__ == "__main__":
    main()
