#!/usr/bin/env python3
"""WebAuthn devices across LemonLDAP::NG 2.16 and Limette, through LemonLDAP::NG's own verifier
(Authen::WebAuthn, which its portal's Lib/WebAuthn.pm calls) and Limette's JSON paths. The
authenticator is tests/fixtures/webauthn/make_vectors.py's (keys and signatures from
`cryptography`).

Usage: webauthn_llng.py BASE_URL PSESSIONS_DIR
BASE_URL names the portal by `localhost`; PSESSIONS_DIR is its persistent sessions' folder
(the File store: one JSON file per user, named by the MD5 of the login), which a LemonLDAP::NG
node sharing the store would read and write.
1. LemonLDAP::NG to Limette: Authen::WebAuthn validates a packed self-attested ES256
   registration; its result is stored as Portal/2F/Register/WebAuthn.pm stores it (dwho's
   `_2fDevices`, `_webAuthnUserHandle`). dwho signs in on Limette with the key (JSON client);
   the same assertion again is refused.
2. Limette to LemonLDAP::NG: rtyler registers an RS256 key through Limette's JSON paths
   (`registrationchallenge`, `registration`); the device Limette wrote is read back and
   Authen::WebAuthn validates an assertion against it, counter included.
Exits non-zero on any failure, naming the step.
"""
import hashlib
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "webauthn"))
import make_vectors as mv  # noqa: E402

# Authen::WebAuthn, called as Lib/WebAuthn.pm calls it; JSON in on stdin, JSON out.
PERL = r"""
use strict; use JSON; use Authen::WebAuthn;
my $in = decode_json(do { local $/; <STDIN> });
my $w = Authen::WebAuthn->new(rp_id => $in->{rp_id}, origin => $in->{origin});
my $r = $in->{op} eq 'register'
  ? $w->validate_registration(challenge_b64 => $in->{challenge}, requested_uv => 'preferred',
      client_data_json_b64 => $in->{clientDataJSON},
      attestation_object_b64 => $in->{attestationObject}, token_binding_id_b64 => '')
  : $w->validate_assertion(challenge_b64 => $in->{challenge},
      credential_pubkey_b64 => $in->{pubkey}, stored_sign_count => $in->{count},
      requested_uv => 'preferred', client_data_json_b64 => $in->{clientDataJSON},
      authenticator_data_b64 => $in->{authenticatorData}, signature_b64 => $in->{signature},
      extension_results => {}, token_binding_id_b64 => '');
delete $r->{attestation_result};
print encode_json($r);
"""


def check(cond, msg):
    """An explicit check (Python's assert is stripped under PYTHONOPTIMIZE)."""
    if not cond:
        print("webauthn-llng: " + msg, file=sys.stderr)
        sys.exit(1)


def perl(args):
    out = subprocess.run(["perl", "-e", PERL], input=json.dumps(args).encode(),
                         capture_output=True, check=False)
    check(out.returncode == 0, "Authen::WebAuthn refused: " + out.stderr.decode()[-800:])
    return json.loads(out.stdout)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Answers are read as sent (a redirect's cookies with it), never followed."""

    def redirect_request(self, *args, **kwargs):
        return None


class Client:
    """A client of one portal keeping its cookies by name (whatever their domain says)."""

    def __init__(self, base):
        self.base = base
        self.cookies = {}
        self.opener = urllib.request.build_opener(NoRedirect)

    def send(self, path, fields, headers):
        req = urllib.request.Request(self.base + path, urllib.parse.urlencode(fields).encode(),
                                     headers)
        if self.cookies:
            req.add_header("Cookie", "; ".join("%s=%s" % kv for kv in self.cookies.items()))
        try:
            r = self.opener.open(req)
        except urllib.error.HTTPError as e:
            r = e
        with r:
            for h in r.headers.get_all("Set-Cookie") or []:
                name, _, rest = h.partition("=")
                self.cookies[name.strip()] = rest.split(";")[0]
            return r.getcode(), r.read()

    def post(self, path, fields, csrf=False):
        headers = {"Accept": "application/json"}
        if csrf:
            headers["X-CSRF-Check"] = "1"
        status, body = self.send(path, fields, headers)
        try:
            return status, json.loads(body or b"{}")
        except ValueError:
            return status, {"body": body[:500].decode(errors="replace")}

    def post_html(self, path, fields):
        return self.send(path, fields, {})[1].decode(errors="replace")


def psession(folder, uid):
    return os.path.join(folder, hashlib.md5(uid.encode()).hexdigest())


def llng_to_limette(base, folder, origin):
    key, cred_id, handle = mv.Key("ES256"), os.urandom(32), os.urandom(64)
    challenge = mv.b64u(os.urandom(32))
    reg = mv.registration(key, cred_id, "packed", challenge)
    r = perl({"op": "register", "rp_id": mv.RP_ID, "origin": origin, "challenge": challenge,
              **reg["response"]})
    # Stored as Register/WebAuthn.pm stores it, in the persistent session a node shares.
    device = {"_credentialId": r["credential_id"], "_credentialPublicKey": r["credential_pubkey"],
              "_signCount": r["signature_count"], "type": "WebAuthn", "name": "LLNG key",
              "epoch": int(time.time())}
    ps = {"_session_id": hashlib.md5(b"dwho").hexdigest(), "_session_kind": "Persistent",
          "_session_uid": "dwho", "_utime": int(time.time()),
          "_2fDevices": json.dumps([device]), "_webAuthnUserHandle": mv.b64u(handle)}
    with open(psession(folder, "dwho"), "w", encoding="utf-8") as f:
        json.dump(ps, f)
    c = Client(base)
    status, held = c.post("/", {"user": "dwho", "password": "dwho"})
    check(status == 401 and held.get("token") and held.get("check") == "/webauthn2fcheck"
          and "data" in held, "dwho's login is held for WebAuthn: %s %r" % (status, held))
    request = held["data"]["request"]
    check([a["id"] for a in request["allowCredentials"]] == [r["credential_id"]],
          "the LLNG device is offered: %r" % request)
    answer = mv.assertion(key, cred_id, 0x05, 1, request["challenge"], handle)
    status, done = c.post("/webauthn2fcheck", {"token": held["token"],
                                               "credential": json.dumps(answer)})
    check(status == 200 and done.get("result") == 1, "dwho signed in: %s %r" % (status, done))
    status, again = c.post("/webauthn2fcheck", {"token": held["token"],
                                                "credential": json.dumps(answer)})
    check(again.get("result") != 1, "the same answer twice is refused: %r" % again)
    print("a device LemonLDAP::NG registered signs in on Limette")


def limette_to_llng(base, folder, origin):
    c = Client(base)
    status, done = c.post("/", {"user": "rtyler", "password": "rtyler"})
    check(status == 200 and done.get("result") == 1, "rtyler signs in: %s %r" % (status, done))
    status, start = c.post("/2fregisters/webauthn/registrationchallenge", {}, csrf=True)
    check(status == 200 and start.get("state_id"), "a challenge: %s %r" % (status, start))
    request = start["request"]
    check(request["rp"]["name"] and request["user"]["name"] == "rtyler", "options: %r" % request)
    key, cred_id = mv.Key("RS256"), os.urandom(48)
    reg = mv.registration(key, cred_id, "none", request["challenge"])
    status, done = c.post("/2fregisters/webauthn/registration", {
        "state_id": start["state_id"], "credential": json.dumps(reg), "keyName": "Limette key"},
        csrf=True)
    check(status == 200 and done.get("result") == 1, "registered: %s %r" % (status, done))
    with open(psession(folder, "rtyler"), encoding="utf-8") as f:
        ps = json.load(f)
    devices = json.loads(ps["_2fDevices"])
    check(len(devices) == 1, "one device: %r" % devices)
    d = devices[0]
    check(d["type"] == "WebAuthn" and d["name"] == "Limette key" and isinstance(d["epoch"], int)
          and d["_credentialId"] == mv.b64u(cred_id)
          and d["_credentialPublicKey"] == mv.b64u(key.cose) and d["_signCount"] == 0,
          "the device as LemonLDAP::NG writes it: %r" % d)
    challenge = mv.b64u(os.urandom(32))
    handle = mv.decode_b64u(ps["_webAuthnUserHandle"])
    answer = mv.assertion(key, cred_id, 0x01, 3, challenge, handle)["response"]
    r = perl({"op": "assert", "rp_id": mv.RP_ID, "origin": origin, "challenge": challenge,
              "pubkey": d["_credentialPublicKey"], "count": d["_signCount"], **answer})
    check(r.get("success") == 1 and r.get("signature_count") == 3, "LLNG verifies: %r" % r)
    print("a device Limette registered verifies in LemonLDAP::NG's verifier")


def main(base, folder):
    origin = base.rstrip("/")
    mv.RP_ID, mv.ORIGIN = urllib.parse.urlsplit(base).hostname, origin
    llng_to_limette(origin, folder, origin)
    limette_to_llng(origin, folder, origin)
    print("webauthn-llng ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
