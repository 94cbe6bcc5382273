"""A relying party using a pushed authorization request (RFC 9126) with Authlib.

Usage:
  oidc_par.py <issuer> <client_id> <secret> <redirect_uri> <sso_cookie | login:USER>
      Reads the provider's discovery document, pushes an authorization request to its
      pushed_authorization_request_endpoint with Authlib's client_secret_basic authentication,
      sends the "browser" (requests with the SSO cookie <sso_cookie>, name=value) to the
      authorization endpoint with client_id and the request_uri alone; with login:USER the
      browser has no session: it fills the login form it is shown (password = USER), follows
      the redirect back to the authorization endpoint, and accepts the consent page when one
      is shown, as a person would. Then it redeems the code with
      Authlib (which checks the state it generated), verifies the ID token's signature (HS256,
      the secret), issuer, audience and nonce with Authlib's jose, and prints a JSON summary.
Offline: only the provider on loopback is called, with no proxy from the environment.
"""
import html
import json
import re
import sys
from urllib.parse import urljoin
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
    pages = []
    if cookie.startswith("login:"):
        hop = sign_in(browser, url, cookie[len("login:"):], pages)
    else:
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
    print(json.dumps({"sub": claims["sub"], "request_uri": request_uri, "pages": pages}))


def form(page):
    """The first form of a page's content (after the account bar): its action and its hidden
    fields."""
    page = page.split("<main", 1)[-1]
    found = re.search(r'<form[^>]*action="([^"]*)"(.*?)</form>', page, re.S)
    assert found, page
    fields = {
        html.unescape(n): html.unescape(v)
        for n, v in re.findall(
            r'<input type="hidden" name="([^"]*)" value="([^"]*)"', found.group(2)
        )
    }
    return html.unescape(found.group(1)), fields


def sign_in(browser, url, user, pages):
    """A browser without a session: the login form, back to authorize, the consent page when
    one is shown (each page's name added to `pages`); the answer that redirects to the
    client."""
    page = browser.get(url, allow_redirects=False)
    assert page.status_code == 200, (page.status_code, page.text)
    assert 'name="password"' in page.text, page.text
    pages.append("login")
    action, fields = form(page.text)
    fields.update(user=user, password=user)
    back = browser.post(urljoin(url, action), data=fields, allow_redirects=False)
    assert back.status_code == 302, (back.status_code, back.text)
    hop = browser.get(urljoin(url, back.headers["Location"]), allow_redirects=False)
    if hop.status_code == 200 and 'name="confirm"' in hop.text:
        pages.append("consent")
        action, fields = form(hop.text)
        fields["confirm"] = "1"
        hop = browser.post(urljoin(url, action), data=fields, allow_redirects=False)
    return hop


if __name__ == "__main__":
    main()
