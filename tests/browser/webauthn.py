#!/usr/bin/env python3
"""Registers a security key and signs in with it, in headless Chromium's virtual authenticator
(WebDriver's WebAuthn extension: CTAP2), in English and French.

Usage: webauthn.py BASE_URL AXE_JS UV
BASE_URL names the portal by `localhost` (an IP address is no WebAuthn relying party id); the
portal has webauthn2fActivation and webauthn2fSelfRegistration on, and
webauthn2fUserVerification = UV (`required` or `discouraged`): the authenticator verifies the
user when UV is `required`, not otherwise.
For each language (en: dwho, fr: rtyler): sign in with the password (no device yet), register a
key on /2fregisters/webauthn (the page checked first), see it listed; sign out. Sign in again:
the check page, first with an authenticator that does not hold the key (the page says the
browser failed; checked), then with the key: signed in. The same key made a resident (discoverable)
credential holding the user handle the registration gave: signed in again, the handle checked by
the portal (a handle of another account is refused). The key's counter set back below the portal's: refused (a possible clone). With UV
`required`, the same key on an authenticator without user verification fails in the browser.
On every page checked: `lang`, one h1, no Content-Security-Policy report, axe-core finds no
serious or critical violation. Exits non-zero on any failure, naming the step.
"""
import json
import os
import sys

import chromium  # noqa: E402  (first: keeps Selenium offline)
from pages import Checker, check, failures, go, loaded  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.virtual_authenticator import (  # noqa: E402
    Credential, VirtualAuthenticatorOptions)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

USERS = {"en": ("dwho", "dwho"), "fr": ("rtyler", "rtyler")}


def browser():
    """`chromium.browser`, with `localhost` resolved too (the portal's name here)."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for flag in chromium.FLAGS + ("--window-size=1280,900", "--hide-scrollbars"):
        opts.add_argument(flag)
    opts.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost")
    opts.add_argument("--no-proxy-server")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def authenticator(driver, verifies, creds=()):
    """Replaces the browser's virtual authenticator by a new one holding `creds`."""
    try:
        driver.remove_virtual_authenticator()
    except Exception:  # noqa: BLE001  (none yet)
        pass
    driver.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=VirtualAuthenticatorOptions.Protocol.CTAP2,
        transport=VirtualAuthenticatorOptions.Transport.USB,
        has_resident_key=True, has_user_verification=verifies,
        is_user_consenting=True, is_user_verified=verifies))
    for c in creds:
        driver.add_credential(c)


def sign_in(driver, base, lang):
    user, password = USERS[lang]
    driver.delete_all_cookies()
    go(driver, base + "/?lang=" + lang)
    driver.find_element(By.ID, "user").send_keys(user)
    driver.find_element(By.ID, "password").send_keys(password)
    loaded(driver, lambda: driver.find_element(By.CSS_SELECTOR, "form.login button").click())


def signed_in(driver):
    return bool(driver.find_elements(By.ID, "logout"))


def status_text(driver):
    return driver.find_element(By.ID, "webauthn-status").text


def wait_status(driver, what):
    WebDriverWait(driver, 10).until(lambda d: status_text(d) == what)


def register(driver, c, base, lang):
    go(driver, base + "/2fregisters/webauthn")
    c.page(lang, "webauthn-register")
    marked = driver.find_element(By.CSS_SELECTOR, "[data-webauthn=create]")
    request = json.loads(marked.get_attribute("data-request"))
    check(request["rp"]["name"] and request["user"]["name"] == USERS[lang][0],
          lang + ": the creation options name the user: " + repr(request))
    name = driver.find_element(By.ID, "keyName")
    name.clear()
    name.send_keys("Key " + lang)
    loaded(driver, lambda: driver.find_element(By.ID, "register").click())
    body = driver.find_element(By.TAG_NAME, "main").text
    check("Key " + lang in body, lang + ": the new key is listed: " + body)
    c.page(lang, "webauthn-registered")
    creds = driver.get_credentials()
    check(len(creds) == 1 and creds[0].rp_id == "localhost", lang + ": one credential made")
    return request["user"]["id"], creds[0]


def check_page(driver, c, base, lang, cred, verifies):
    """The check page with an authenticator that holds no key (the browser fails; the page
    checked), then with the key: signed in."""
    authenticator(driver, verifies)
    sign_in(driver, base, lang)
    check(driver.find_elements(By.CSS_SELECTOR, "[data-webauthn=get]"), lang + ": check page")
    failed = driver.find_element(By.CSS_SELECTOR, "[data-webauthn=get]").get_attribute(
        "data-msg-failed")
    wait_status(driver, failed)
    c.page(lang, "webauthn-check")
    authenticator(driver, verifies, creds=[cred])
    loaded(driver, lambda: driver.find_element(By.ID, "verify").click())
    check(signed_in(driver), lang + ": signed in with the key: " + driver.page_source[:2000])
    return driver.get_credentials()[0]


def login_with(driver, base, lang, verifies, cred):
    """Signs in with `cred` on an authenticator; whether it ended signed in."""
    authenticator(driver, verifies, creds=[cred])
    sign_in(driver, base, lang)
    WebDriverWait(driver, 10).until(
        lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-webauthn=get]"))
    return signed_in(driver)


def run_language(driver, c, base, lang, uv):
    verifies = uv == "required"
    authenticator(driver, verifies)
    sign_in(driver, base, lang)
    check(signed_in(driver), lang + ": no device yet, the password is enough")
    handle, cred = register(driver, c, base, lang)
    cred = check_page(driver, c, base, lang, cred, verifies)
    check(cred.sign_count > 0, lang + ": the key counts its signatures")
    # The same key as a resident credential, holding the user handle.
    resident = Credential.create_resident_credential(
        cred._id, "localhost", decode(handle), cred._private_key, cred.sign_count)
    check(login_with(driver, base, lang, verifies, resident), lang + ": resident key signs in")
    # The same key holding another account's handle: refused.
    other = Credential.create_resident_credential(
        cred._id, "localhost", os.urandom(64), cred._private_key, cred.sign_count + 50)
    check(not login_with(driver, base, lang, verifies, other), lang + ": another user handle")
    # A counter set back: the portal refuses (the page shows the login form with an error).
    back = Credential.create_non_resident_credential(cred._id, "localhost", cred._private_key, 0)
    check(not login_with(driver, base, lang, verifies, back), lang + ": a counter set back")
    check(driver.find_elements(By.ID, "msg"), lang + ": the refusal is shown")
    if verifies:
        again = Credential.create_non_resident_credential(
            cred._id, "localhost", cred._private_key, cred.sign_count + 100)
        # The browser itself refuses: the page says so, nothing is signed in.
        authenticator(driver, False, creds=[again])
        sign_in(driver, base, lang)
        marked = driver.find_element(By.CSS_SELECTOR, "[data-webauthn=get]")
        wait_status(driver, marked.get_attribute("data-msg-failed"))
        check(not signed_in(driver), lang + ": a key that does not verify the user")
    print("webauthn %s (%s) ok" % (lang, uv))


def decode(b64):
    import base64
    return base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4))


def main(base, axe_path, uv):
    with open(axe_path, encoding="utf-8") as f:
        axe = f.read()
    driver = browser()
    try:
        c = Checker(driver, axe, None)
        go(driver, base + "/")
        driver.set_script_timeout(30)
        for lang in ("en", "fr"):
            run_language(driver, c, base, lang, uv)
    finally:
        driver.quit()
    if failures:
        print("webauthn: accessibility failures:\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print("webauthn ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
