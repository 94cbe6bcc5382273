"""The Limette of a conformance run: its configuration, made for the run, and its start.

The demo configuration (conf/lmConf-1.json) with the implicit and hybrid flows and dynamic
registration on, three static relying parties (`conf-HS256`, `conf-RS256`, `conf-ES256`, consent
bypassed) whose redirect URIs are the tool instances' callbacks, and a conformance user: the
demo account `dwho` given every standard claim of OpenID Connect Core 5.1 through the
configuration's `macros` (constant values), released to static and registered clients alike.
"""
import json
import os
import socket
import subprocess
import sys
import time

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SECRET = "conformance-secret-of-at-least-32-bytes"
ALGS = ["HS256", "RS256", "ES256"]

# The conformance user's claims (OpenID Connect Core 5.1): session attribute -> value.
USER_CLAIMS = {
    "family_name": "Who", "given_name": "Doctor", "middle_name": "The",
    "nickname": "Doctor", "profile": "https://example.com/dwho",
    "picture": "https://example.com/dwho.png", "website": "https://example.com/",
    "gender": "male", "birthdate": "1963-11-23", "zoneinfo": "Europe/London",
    "locale": "en-GB", "updated_at": "1700000000", "email_verified": "1",
    "formatted": "1 Totters Lane, London", "street_address": "1 Totters Lane",
    "locality": "London", "region": "Greater London", "postal_code": "SW1A 1AA",
    "country": "GB", "phone_number": "+44 20 7946 0000", "phone_number_verified": "1",
}
# claim -> attribute[;type] (oidcRPMetaDataExportedVars)
EXPORTED = {"email": "mail", "name": "cn", "preferred_username": "uid"}
EXPORTED.update({c: "conf_" + c for c in USER_CLAIMS})
EXPORTED.update({"updated_at": "conf_updated_at;int", "email_verified": "conf_email_verified;bool",
                 "phone_number_verified": "conf_phone_number_verified;bool"})


def tool_urls(tool_ports, path):
    return " ".join("http://127.0.0.1:{}/{}".format(p, path) for p in tool_ports)


def write_config(work, tls_port, tool_ports):
    conf = json.load(open(os.path.join(ROOT, "conf", "lmConf-1.json")))
    conf["portal"] = "https://127.0.0.1:{}/".format(tls_port)
    conf["oidcServiceAllowImplicitFlow"] = 1
    conf["oidcServiceAllowHybridFlow"] = 1
    conf["oidcServiceAllowDynamicRegistration"] = 1
    # The tool registers a client per test, all from 127.0.0.1.
    conf["oidcServiceDynamicRegistrationRate"] = 100000
    # ... and keeps them all: about 80 a registered-client run, 18 such runs.
    conf["oidcServiceDynamicRegistrationMaxClients"] = 5000
    conf["oidcServiceDynamicRegistrationExportedVars"] = EXPORTED
    conf["macros"] = {"conf_" + k: "'{}'".format(v) for k, v in USER_CLAIMS.items()}
    redirects = tool_urls(tool_ports, "authz_cb") + " " + tool_urls(tool_ports, "authz_post")
    for alg in ALGS:
        name = "conf-" + alg
        conf.setdefault("oidcRPMetaDataOptions", {})[name] = {
            "oidcRPMetaDataOptionsClientID": name,
            "oidcRPMetaDataOptionsClientSecret": SECRET,
            "oidcRPMetaDataOptionsRedirectUris": redirects,
            "oidcRPMetaDataOptionsPostLogoutRedirectUris": tool_urls(tool_ports, "logout"),
            "oidcRPMetaDataOptionsIDTokenSignAlg": alg,
            "oidcRPMetaDataOptionsBypassConsent": 1,
            "oidcRPMetaDataOptionsRefreshToken": 1,
        }
        conf.setdefault("oidcRPMetaDataExportedVars", {})[name] = EXPORTED
    os.makedirs(os.path.join(work, "conf"), exist_ok=True)
    with open(os.path.join(work, "conf", "lmConf-1.json"), "w") as f:
        json.dump(conf, f, indent=1)
    with open(os.path.join(work, "limette.ini"), "w") as f:
        f.write("""[all]
logLevel = info
[configuration]
type = File
dirName = {w}/conf
[portal]
globalStorage = File
globalStorageOptions = {{"Directory": "{w}/sessions"}}
persistentStorage = File
persistentStorageOptions = {{"Directory": "{w}/psessions"}}
; the tool's clients publish their keys and request objects on loopback: the outbound guard
; lets the portal reach it
outboundAllowTo = 127.0.0.0/8 ::1
""".format(w=work))


def start(binary, work, op_port):
    # Another server on the port would answer for this one (a run left behind): refuse.
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", op_port))
    except OSError:
        sys.exit("conformance: 127.0.0.1:{} is taken (a run left behind?); stop it or pass "
                 "--op-port".format(op_port))
    finally:
        probe.close()
    out = open(os.path.join(work, "limette.log"), "a")
    proc = subprocess.Popen([binary, "-c", os.path.join(work, "limette.ini"), "--data", work,
                             "-l", "127.0.0.1:{}".format(op_port)], stdout=out, stderr=out)
    for _ in range(600):
        try:
            requests.get("http://127.0.0.1:{}/.well-known/openid-configuration".format(op_port),
                         timeout=2)
            return proc
        except requests.ConnectionError:
            if proc.poll() is not None:
                sys.exit("conformance: Limette did not start, see {}/limette.log".format(work))
            time.sleep(0.1)
    sys.exit("conformance: Limette did not answer")
