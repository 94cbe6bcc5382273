#!/usr/bin/env python3
"""A browser-like client of Limette behind nginx over https, trusting only the test's CA.

Usage: https_flow.py PORTAL_URL CA_FILE CLIENT_ID CLIENT_SECRET REDIRECT_URI
Logs in as dwho through the HTML form (the SSO cookie must be Secure and come back over https
only), follows the portal's redirect after login, then runs the OpenID Connect authorization
code flow (authorize with the cookie, token with client_secret_basic, userinfo with the
access token). Checks that the portal's pages carry Strict-Transport-Security (nginx says the
client came over https) and that a plain http request to the https port gets nothing useful.
Prints "TLS OK" on success; any failure exits non-zero.
Offline: only the portal on loopback is ever called, with no proxy from the environment.
"""
import base64
import re
import sys
from urllib.parse import parse_qs, urlencode, urlparse

import requests


def check(cond, msg):
    """An explicit check (Python's assert is stripped under PYTHONOPTIMIZE)."""
    if not cond:
        print("TLS flow failed: " + str(msg), file=sys.stderr)
        sys.exit(1)


def field(html, name):
    m = re.search(r'name="%s" value="([^"]*)"' % re.escape(name), html)
    check(m, "no field %s in %s" % (name, html[:2000]))
    return m.group(1)


def session(verify):
    """A client that reads nothing from the environment (no proxy, no .netrc, no CA bundle)."""
    s = requests.Session()
    s.trust_env = False
    s.verify = verify
    return s


def main():
    portal, ca, client_id, secret, redirect_uri = sys.argv[1:6]
    check(portal.startswith("https://127.0.0.1:"), "the portal must be https on loopback: " + portal)
    browser = session(ca)
    rp = session(ca)  # the relying party's back channel: no cookies of the browser

    # Without the test's CA the certificate is refused: the client really checks it.
    try:
        session(True).get(portal, timeout=10)
        check(False, "a client without the test CA accepted the certificate")
    except requests.exceptions.SSLError:
        pass

    page = browser.get(portal, timeout=10)
    check(page.status_code == 200, ("login form", page.status_code, page.text[:500]))
    check(page.headers.get("Strict-Transport-Security") == "max-age=600",
          ("HSTS over https", dict(page.headers)))
    check("default-src 'self'" in page.headers.get("Content-Security-Policy", ""),
          ("CSP", dict(page.headers)))

    # The HTML login, coming back to the portal's own URL.
    back = portal + "?after=login"
    url = base64.b64encode(back.encode()).decode()
    login = browser.post(portal, data={"user": "dwho", "password": "dwho",
                                       "token": field(page.text, "token"), "url": url},
                         allow_redirects=False, timeout=10)
    check(login.status_code == 302, ("login", login.status_code, login.text[:500]))
    check(login.headers.get("Location") == back, ("redirect after login", login.headers))
    set_cookie = login.headers.get("Set-Cookie", "")
    check(set_cookie.startswith("lemonldap="), ("SSO cookie", set_cookie))
    attrs = [a.strip().lower() for a in set_cookie.split(";")[1:]]
    check("secure" in attrs and "httponly" in attrs, ("cookie attributes", set_cookie))
    check([c for c in browser.cookies if c.name == "lemonldap" and c.secure],
          "the jar keeps a Secure SSO cookie")

    me = browser.get(portal, headers={"Accept": "application/json"}, timeout=10)
    check(me.status_code == 200 and me.json().get("result") == 1, ("connected", me.text))

    meta = browser.get(portal + ".well-known/openid-configuration", timeout=10).json()
    check(meta["issuer"] == portal, meta)
    for endpoint in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint"):
        check(meta[endpoint].startswith(portal), (endpoint, meta[endpoint]))

    query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
             "scope": "openid profile email", "state": "s-tls", "nonce": "n-tls"}
    auth = browser.get(meta["authorization_endpoint"] + "?" + urlencode(query),
                       allow_redirects=False, timeout=10)
    check(auth.status_code == 302, ("authorize", auth.status_code, auth.text[:500]))
    location = auth.headers["Location"]
    check(location.startswith(redirect_uri + "?"), ("authorize redirect", location))
    params = parse_qs(urlparse(location).query)
    check(params.get("state") == ["s-tls"], params)
    code = params["code"][0]

    token = rp.post(meta["token_endpoint"], auth=(client_id, secret), timeout=10,
                    data={"grant_type": "authorization_code", "code": code,
                          "redirect_uri": redirect_uri})
    check(token.status_code == 200, ("token", token.status_code, token.text))
    check("no-store" in token.headers.get("Cache-Control", ""), ("token caching", token.headers))
    tokens = token.json()
    check(tokens.get("id_token") and tokens.get("access_token"), tokens)

    info = rp.get(meta["userinfo_endpoint"], timeout=10,
                  headers={"Authorization": "Bearer " + tokens["access_token"]})
    check(info.status_code == 200 and info.json().get("sub") == "dwho", ("userinfo", info.text))

    # Plain http on the https port: nginx refuses it; nothing of Limette's answers.
    plain = session(False).get(portal.replace("https://", "http://"), timeout=10)
    check(plain.status_code == 400 and "lemonldap" not in plain.headers.get("Set-Cookie", ""),
          ("plain http", plain.status_code))
    print("TLS OK")


if __name__ == "__main__":
    main()
