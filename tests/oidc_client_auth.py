"""A relying party authenticating with private_key_jwt (RFC 7523), with Authlib.

Usage:
  oidc_client_auth.py keys <dir>
      Generates an RSA (2048 bits) and an EC P-256 private key with Python's cryptography,
      writes them to <dir>/rsa.pem and <dir>/ec.pem (PKCS#8), and prints the JWK Set of their
      public halves (kids "rsa1" and "ec1") to register with the provider.
  oidc_client_auth.py redeem <token_url> <client_id> <pem> <kid> <alg> <code> <redirect_uri>
      Redeems an authorization code with Authlib's PrivateKeyJWT client authentication (the
      assertion signed with <pem>, header kid <kid>, algorithm <alg>) and prints the token
      endpoint's JSON answer.
Offline: only the provider on loopback is called, with no proxy from the environment.
"""
import json
import os
import sys
import warnings

from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from authlib.jose import JsonWebKey


def pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def keys(directory):
    made = {
        "rsa1": ("rsa.pem", "RS256", rsa.generate_private_key(public_exponent=65537, key_size=2048)),
        "ec1": ("ec.pem", "ES256", ec.generate_private_key(ec.SECP256R1())),
    }
    jwks = []
    for kid, (name, alg, key) in made.items():
        text = pem(key)
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)
        jwk = JsonWebKey.import_key(text, {"kid": kid, "alg": alg, "use": "sig"}).as_dict(is_private=False)
        jwks.append(jwk)
    print(json.dumps({"keys": jwks}))


def redeem(token_url, client_id, pem_file, kid, alg, code, redirect_uri):
    # Authlib's PrivateKeyJWT signs with joserfc's key types (a PEM alone is read as RSA).
    from joserfc.jwk import ECKey, RSAKey

    with open(pem_file) as f:
        key = (ECKey if alg.startswith("ES") else RSAKey).import_key(f.read())
    auth = PrivateKeyJWT(token_url, headers={"kid": kid}, alg=alg)
    session = OAuth2Session(client_id, key, token_endpoint_auth_method=auth)
    session.trust_env = False
    token = session.fetch_token(
        token_url,
        grant_type="authorization_code",
        code=code,
        redirect_uri=redirect_uri,
    )
    print(json.dumps(dict(token)))


if __name__ == "__main__":
    if sys.argv[1] == "keys":
        keys(sys.argv[2])
    elif sys.argv[1] == "redeem":
        redeem(*sys.argv[2:9])
    else:
        raise SystemExit("usage: keys <dir> | redeem ...")
