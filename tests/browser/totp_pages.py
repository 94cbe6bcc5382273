#!/usr/bin/env python3
"""The TOTP pages of a running Limette in headless Chromium, in English and French.

Usage: totp_pages.py BASE_URL AXE_JS
For each language a user signs in with a password (no device yet), opens the second-factor
manager, which goes straight to the TOTP registration page (QR code as SVG, the secret as
text), types a code pyotp computes from the shown secret and a name, lands on the list of
devices; then signs in again and meets the code form, answered with the next step's code, and
lands on the portal's menu. Each page passes the checks of pages.py (the language, the portal's
Content-Security-Policy, axe-core without serious or critical violation, nothing scrolling
sideways at 320 px); the pages carry no script of their own. Exits non-zero on any failure.
"""
import sys
import time

import pyotp
from pages import Checker, check, failures, go, loaded  # noqa: E402  (imports chromium first)
from chromium import browser  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

USERS = {"en": "dwho", "fr": "rtyler"}


def sign_in(driver, base, lang):
    user = USERS[lang]
    go(driver, base + "/?lang=" + lang)
    driver.find_element(By.ID, "user").send_keys(user)
    driver.find_element(By.ID, "password").send_keys(user)
    loaded(driver, lambda: driver.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click())


def tour(driver, c, base, lang):
    driver.delete_all_cookies()
    sign_in(driver, base, lang)
    check(driver.find_elements(By.ID, "sfa"), lang + ": the menu links the manager")
    loaded(driver, lambda: driver.find_element(By.ID, "sfa").click())
    check("/2fregisters/totp" in driver.current_url, "straight to TOTP: " + driver.current_url)
    check(driver.find_elements(By.CSS_SELECTOR, "#qrcode svg"), "the QR code as SVG")
    # No script of its own (every page loads the frame's time zone script).
    own = [e for e in driver.find_elements(By.CSS_SELECTOR, "script")
           if not (e.get_attribute("src") or "").endswith("/static/timezone.js")]
    check(not own, "no script on the page")
    c.page(lang, "totp-register")
    secret = driver.find_element(By.ID, "secret").text.replace(" ", "")
    totp = pyotp.TOTP(secret)
    driver.find_element(By.ID, "code").send_keys(totp.at(time.time()))
    driver.find_element(By.ID, "TOTPName").send_keys("Phone " + lang)
    loaded(driver, lambda: driver.find_element(By.ID, "register").click())
    check(driver.find_elements(By.ID, "sf-devices"), "the device is listed: " + driver.page_source[:800])
    c.page(lang, "2fregisters")
    driver.delete_all_cookies()
    sign_in(driver, base, lang)
    check(driver.find_elements(By.ID, "sf-check"), "the code form: " + driver.page_source[:800])
    c.page(lang, "totp-check")
    # The registration's code is spent: the next step's (the window holds one step each side).
    driver.find_element(By.ID, "code").send_keys(totp.at(time.time() + 30))
    loaded(driver, lambda: driver.find_element(By.ID, "verify").click())
    check(driver.find_elements(By.ID, "connected"), "signed in: " + driver.page_source[:800])


def main(base, axe_path):
    with open(axe_path, encoding="utf-8") as f:
        axe = f.read()
    driver = browser("--window-size=1280,900", "--hide-scrollbars")
    try:
        c = Checker(driver, axe, None)
        for lang in ("en", "fr"):
            tour(driver, c, base, lang)
    finally:
        driver.quit()
    if failures:
        print("totp pages: accessibility or layout failures:\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print("totp pages ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
