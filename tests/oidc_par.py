"""A relying party using a pushed authorization request (RFC 9126) with Authlib.

Usage:
  oidc_par.py <issuer> <client_id> <secret> <redirect_uri> <sso_cookie>
      Reads the provider's discovery document, pushes an authorization request to its
      pushed_authorization_request_endpoint with Authlib's client_secret_basic authentication,
      sends the "browser" (requests with the SSO cookie <sso_cookie>, name=value) to the
      authorization endpoint with client_id and the request_uri alone, redeems the code with
      Authlib (which checks the state it generated), verifies the ID token's signature (HS256,
      the secret), issuer, audience and nonce with Authlib's jose, and prints a JSON summary.
Offline: only the provider on loopback is called, with no proxy from the environment.
"""
import json
import sys
import warnings

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from authlib.jose import jwt


def main():
    issuer, client_id, secret, redirect_uri, cookie = sys.argv[1:6]
    rp = OAuth2Session(
        client_id,
        secret,
        redirect_uri=redirect_uri,
        scope="openid email",
        token_endpoint_auth_method="client_secret_basic",
    )
    rp.trust_env = False
    meta = rp.get(issuer + ".well-known/openid-configuration", withhold_token=True).json()
    state, nonce = generate_token(16), generate_token(16)
    pushed = rp.post(
        meta["pushed_authorization_request_endpoint"],
        data={
            "response_type": "code",
            "scope": "openid email",
            "redirect_uri": redirect_uri,
            "state": state,
            "nonce": nonce,
        },
        auth=rp.client_auth("client_secret_basic"),
        withhold_token=True,
    )
    assert pushed.status_code == 201, (pushed.status_code, pushed.text)
    request_uri = pushed.json()["request_uri"]
    url, _ = rp.create_authorization_url(
        meta["authorization_endpoint"], state=state, request_uri=request_uri
    )
    browser = requests.Session()
    browser.trust_env = False
    name, value = cookie.split("=", 1)
    browser.cookies.set(name, value)
    hop = browser.get(url, allow_redirects=False)
    assert hop.status_code == 302, (hop.status_code, hop.text)
    location = hop.headers["Location"]
    token = rp.fetch_token(
        meta["token_endpoint"], authorization_response=location, state=state
    )
    claims = jwt.decode(
        token["id_token"],
        secret.encode(),
        claims_options={
            "iss": {"essential": True, "value": meta["issuer"]},
            "aud": {"essential": True, "value": client_id},
            "nonce": {"essential": True, "value": nonce},
        },
    )
    claims.validate()
    print(json.dumps({"sub": claims["sub"], "request_uri": request_uri}))


if __name__ == "__main__":
    main()
