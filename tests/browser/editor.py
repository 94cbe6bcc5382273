#!/usr/bin/env python3
"""The console's configuration editor in headless Chromium, in English and French, by keyboard.

Usage: editor.py BASE_URL AXE_JS KEYS_JSON
The portal is configured by tests/suite/browser/editor.rs: `managerHost` with a rule that lets
dwho in, the REST configuration server on. KEYS_JSON holds, by language, an EC key pair (PEM)
to set as the OpenID Connect service's EC signing keys.
For each language the administrator signs in, opens the configuration page, and from there uses
the KEYBOARD ONLY (Tab, typing, Space, Enter; no click): the editor's link, a group's link in
the editor's navigation, a refused save (a number out of bounds: the error by its field, every
value kept), each field reached by Tab, a value typed over the old one, a check box
turned with Space, a choice picked by typing, a new row of a table, the Save button pressed
with Enter (and "Save anyway" when the page asks to confirm warnings). Ten keys of ten input
types are set (flag, table, number, text, choice, rule, JSON, URL, password, PEM), each save's
message read, and the saved configuration read back over the REST configuration server holds
every value; no page shows a secret typed. Every page is checked as the console's are (one h1,
`lang`, the policy, axe-core without serious or critical findings, no sideways scroll at 320 px).
With LIMETTE_SCREENSHOTS set (a folder), each page is saved there at 1280 and 360 px.
Exits non-zero on any failure.
"""
import json
import os
import sys

from pages import Checker, check, failures, go, loaded  # noqa: E402
from console import Console, browser, http, word  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ADMIN = "dwho"


def rule(lang):
    """The rule each language sets (each a change)."""
    return '$uid eq "%s"' % ADMIN if lang == "en" else '$uid eq "%s" or $uid eq "rtyler"' % ADMIN


def values(lang, pems):
    """What each language sets, by group: (field id, how, value)."""
    n = "en" if lang == "en" else "fr"
    return [
        ("variables", [("f-groupsBeforeMacros", "space", None),
                       ("row:k.macros", "row", ("editor_" + n, "$uid"))]),
        ("secondfactors", [("f-totp2fInterval", "type", "45" if n == "en" else "60"),
                           ("f-totp2fLabel", "type", "Code " + n.upper()),
                           ("f-webauthn2fUserVerification", "choose",
                            "required" if n == "en" else "discouraged")]),
        ("portal", [("f-portalDisplayLoginHistory", "type", rule(lang)),
                    ("f-applicationList", "type",
                     '{"1tools": {"type": "category", "catname": "Tools %s"}}' % n)]),
        ("authentication", [("f-restAuthUrl", "type", "https://rest-%s.example.com/auth" % n),
                            ("f-dbiAuthPassword", "type", "Pw-%s-secret-1" % n)]),
        ("oidc", [("f-oidcServiceEcPrivateKeySig", "type", pems[lang]["private"]),
                  ("f-oidcServiceEcPublicKeySig", "type", pems[lang]["public"]),
                  ("f-oidcServiceEcKeyIdSig", "type", "ec-" + n)]),
    ]


def keys(k):
    return ActionChains(k.d)


def tab_to(k, wanted, what, limit=800):
    """Presses Tab until the focused element is `wanted` (a predicate); returns it."""
    for _ in range(limit):
        keys(k).send_keys(Keys.TAB).perform()
        el = k.d.switch_to.active_element
        if wanted(el):
            return el
    check(False, "Tab never reached " + what + " on " + k.d.current_url)


def by_id(i):
    return lambda el: el.get_attribute("id") == i


def press_enter(k):
    loaded(k.d, lambda: keys(k).send_keys(Keys.ENTER).perform())


def type_over(k, text):
    """Selects the focused field's text and types `text` over it."""
    keys(k).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    keys(k).send_keys(Keys.DELETE).perform()
    keys(k).send_keys(text).perform()


def set_field(k, field, how, value):
    if how == "row":
        name, expr = value
        prefix = field[len("row:"):] + ".n."
        tab_to(k, lambda e: (e.get_attribute("name") or "").startswith(prefix)
                    and not e.get_attribute("value"), "the new row of " + field)
        keys(k).send_keys(name).send_keys(Keys.TAB).send_keys(expr).perform()
        return
    el = tab_to(k, by_id(field), field)
    if how == "space":
        before = el.is_selected()
        keys(k).send_keys(Keys.SPACE).perform()
        check(el.is_selected() != before, field + ": Space turned the check box")
    elif how == "choose":
        keys(k).send_keys(value).perform()
        check(el.get_attribute("value") == value, field + ": picked %r" % el.get_attribute("value"))
    else:
        type_over(k, value)


def save(k, lang, group):
    """Tab to Save, Enter; confirms warnings the same way. The saved notice's text."""
    tab_to(k, lambda e: e.tag_name == "button" and e.get_attribute("type") == "submit"
           and not e.get_attribute("name"), "Save")
    press_enter(k)
    if k.d.find_elements(By.ID, "ed-warnings"):
        k.page(lang, "editor-%s-warnings" % group)
        tab_to(k, by_id("ed-anyway"), "Save anyway")
        press_enter(k)
    found = k.d.find_elements(By.ID, "done")
    check(found, "%s %s: not saved: %s" % (lang, group, k.d.page_source[:3000]))
    k.page(lang, "editor-%s-saved" % group)
    return found[0].text


def refused(k, lang):
    """A number out of bounds and a text: refused, the error by its field, both values kept."""
    set_field(k, "f-totp2fInterval", "type", "99999")
    set_field(k, "f-totp2fLabel", "type", "Kept " + lang)
    tab_to(k, lambda e: e.tag_name == "button" and e.get_attribute("type") == "submit"
           and not e.get_attribute("name"), "Save")
    press_enter(k)
    k.page(lang, "editor-secondfactors-refused")
    field = k.d.find_element(By.ID, "fld-totp2fInterval")
    error = field.find_elements(By.CLASS_NAME, "ed-error")
    want = word(lang, "edBadInt").replace("{min}", "1").replace("{max}", "3600")
    check(error and error[0].text == want, "%s: the error by its field: %r" % (lang, field.text))
    check(k.d.find_element(By.ID, "f-totp2fInterval").get_attribute("value") == "99999"
          and k.d.find_element(By.ID, "f-totp2fLabel").get_attribute("value") == "Kept " + lang,
          "%s: the values kept" % lang)
    link = k.d.find_elements(By.CSS_SELECTOR, "#ed-errors a[href='#f-totp2fInterval']")
    check(link, "%s: the summary links to the field" % lang)


def open_editor(k, lang):
    go(k.d, k.base + "/manager/conf?lang=" + lang)
    k.page(lang, "conf")
    tab_to(k, by_id("edit-link"), "the editor's link")
    press_enter(k)
    k.page(lang, "editor")


def edit(k, lang, pems):
    open_editor(k, lang)
    for group, fields in values(lang, pems):
        href = "/manager/conf/edit?group=" + group
        tab_to(k, lambda e: (e.get_attribute("href") or "").endswith(href), "the link " + href)
        press_enter(k)
        k.page(lang, "editor-" + group)
        if group == "secondfactors":
            refused(k, lang)
        for field, how, value in fields:
            set_field(k, field, how, value)
        said = save(k, lang, group)
        for field, _, _ in fields:
            key = field.split(".")[-1] if field.startswith("row:") else field[2:]
            check(key in said, "%s %s: the message names %s: %r" % (lang, group, key, said))
        for secret in (pems[lang]["private"].splitlines()[1], "Pw-%s-secret-1" % lang):
            check(secret not in k.d.page_source, "%s %s: a secret drawn" % (lang, group))


def stored(k):
    status, body = http(k.base, "GET", "/config/latest?full=1", None, accept="application/json")
    check(status == 200, "REST configuration: %d %s" % (status, body[:300]))
    return json.loads(body)


def read_back(k, lang, pems):
    doc = stored(k)
    n = "en" if lang == "en" else "fr"
    want = {
        "groupsBeforeMacros": 1 if lang == "en" else 0,
        "totp2fInterval": 45 if lang == "en" else 60,
        "totp2fLabel": "Code " + n.upper(),
        "webauthn2fUserVerification": "required" if lang == "en" else "discouraged",
        "portalDisplayLoginHistory": rule(lang),
        "applicationList": {"1tools": {"type": "category", "catname": "Tools " + n}},
        "restAuthUrl": "https://rest-%s.example.com/auth" % n,
        "dbiAuthPassword": "Pw-%s-secret-1" % n,
        "oidcServiceEcPrivateKeySig": pems[lang]["private"].strip(),
        "oidcServiceEcPublicKeySig": pems[lang]["public"].strip(),
    }
    for key, value in want.items():
        got = doc.get(key)
        if isinstance(value, int) and isinstance(got, str):
            got = int(got)
        check(got == value, "%s: %s saved as %r, not %r" % (lang, key, got, value))
    check(doc.get("macros", {}).get("editor_" + n) == "$uid", "%s: the macro row" % lang)
    print("checked %s: ten keys read back" % lang)


def sign_in(k, lang):
    d = k.d
    d.delete_all_cookies()
    go(d, k.base + "/?lang=" + lang)
    d.find_element(By.ID, "user").send_keys(ADMIN)
    d.find_element(By.ID, "password").send_keys(ADMIN)
    loaded(d, lambda: d.find_element(By.ID, "password").send_keys(Keys.ENTER))
    check(d.get_cookie("lemonldap"), "signed in: " + d.page_source[:800])


def main(base, axe_path, pems_path):
    with open(axe_path, encoding="utf-8") as f:
        axe = f.read()
    with open(pems_path, encoding="utf-8") as f:
        pems = json.load(f)
    driver = browser()
    try:
        driver.set_script_timeout(30)
        shots = os.environ.get("LIMETTE_SCREENSHOTS")
        if shots:
            os.makedirs(shots, exist_ok=True)
        k = Console(driver, Checker(driver, axe, shots), base)
        k.admin = ADMIN
        for lang in ("en", "fr"):
            sign_in(k, lang)
            edit(k, lang, pems)
            read_back(k, lang, pems)
    finally:
        driver.quit()
    if failures:
        print("editor: accessibility or layout failures:\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print("editor ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
