#!/usr/bin/env python3
"""A WebAuthn device moves between a real LemonLDAP::NG 2.16 portal and Limette sharing its
persistent sessions (tests/suite/second_factor/webauthn_llng_node.rs starts both).

Usage: webauthn_llng_node.py LLNG_URL LIMETTE_URL
The authenticator is tests/fixtures/webauthn/make_vectors.py's (keys and signatures from
`cryptography`), signing for the relying party of the portal it talks to: LemonLDAP::NG 2.16
takes the authority of its portal URL (host and port) as relying party id, Limette the host.
1. alice registers an ES256 key on LemonLDAP::NG through its script actions
   (`registrationchallenge`, `registration`), then signs in on Limette with it (JSON client).
2. bob registers an RS256 key on Limette the same way, then LemonLDAP::NG's `webauthn2fcheck`
   page asks for it and accepts the assertion: its SSO cookie is set.
Exits non-zero on any failure, naming the step.
"""
import json
import os
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webauthn_llng import Client, check, mv  # noqa: E402


def rp(base):
    """Signs for the portal at `base` as LemonLDAP::NG or Limette names its relying party."""
    u = urllib.parse.urlsplit(base)
    mv.ORIGIN = "%s://%s" % (u.scheme, u.netloc)
    return u


def register(c, base, rp_id, key, cred_id, name):
    rp(base)
    mv.RP_ID = rp_id
    status, start = c.post("/2fregisters/webauthn/registrationchallenge", {}, csrf=True)
    check(status == 200 and start.get("state_id"), "%s: a challenge: %s %r" % (base, status, start))
    request = start["request"]
    reg = mv.registration(key, cred_id, "none", request["challenge"])
    status, done = c.post("/2fregisters/webauthn/registration", {
        "state_id": start["state_id"], "credential": json.dumps(reg), "keyName": name}, csrf=True)
    check(status == 200 and done.get("result") == 1, "%s: registered: %s %r" % (base, status, done))
    return mv.decode_b64u(request["user"]["id"])


def llng_to_limette(llng, limette):
    c = Client(llng)
    status, done = c.post("/", {"user": "alice", "password": "wonderland"})
    check(status == 200 and done.get("result") == 1, "alice on LLNG: %s %r" % (status, done))
    key, cred_id = mv.Key("ES256"), os.urandom(32)
    handle = register(c, llng, urllib.parse.urlsplit(llng).netloc, key, cred_id, "llng")
    c = Client(limette)
    status, held = c.post("/", {"user": "alice", "password": "wonderland"})
    check(status == 401 and held.get("check") == "/webauthn2fcheck",
          "alice's Limette login is held for WebAuthn: %s %r" % (status, held))
    rp(limette)
    mv.RP_ID = urllib.parse.urlsplit(limette).hostname
    answer = mv.assertion(key, cred_id, 0x01, 1, held["data"]["request"]["challenge"], handle)
    status, done = c.post("/webauthn2fcheck", {"token": held["token"],
                                               "credential": json.dumps(answer)})
    check(status == 200 and done.get("result") == 1, "alice on Limette: %s %r" % (status, done))
    print("a key registered on LemonLDAP::NG signs in on Limette")


def limette_to_llng(llng, limette):
    c = Client(limette)
    status, done = c.post("/", {"user": "bob", "password": "canwefixit"})
    check(status == 200 and done.get("result") == 1, "bob on Limette: %s %r" % (status, done))
    key, cred_id = mv.Key("RS256"), os.urandom(32)
    handle = register(c, limette, urllib.parse.urlsplit(limette).hostname, key, cred_id, "limette")
    c = Client(llng)
    page = c.post_html("/", {"user": "bob", "password": "canwefixit"})
    token = re.search(r'name="token" value="([^"]+)"', page)
    inits = re.findall(r'<script type="application/init">\s*(.*?)\s*</script>', page, re.S)
    data = [json.loads(i) for i in inits if '"request"' in i]
    check(token and data, "LemonLDAP::NG asks for the key: " + page[-3000:])
    request = data[0]["request"]
    rp(llng)
    mv.RP_ID = urllib.parse.urlsplit(llng).netloc
    answer = mv.assertion(key, cred_id, 0x01, 1, request["challenge"], handle)
    check(len(c.cookies.pop("lemonldap", "")) <= 10, "no SSO cookie before the key")
    c.post_html("/webauthn2fcheck", {"token": token.group(1), "credential": json.dumps(answer)})
    check(len(c.cookies.get("lemonldap", "")) > 10,
          "LemonLDAP::NG accepted bob's key from Limette: %r" % c.cookies)
    print("a key registered on Limette signs in on LemonLDAP::NG")


def main(llng, limette):
    llng_to_limette(llng.rstrip("/"), limette.rstrip("/"))
    limette_to_llng(llng.rstrip("/"), limette.rstrip("/"))
    print("webauthn-llng-node ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
