#!/usr/bin/env python3
"""The users of a DBI user table in headless Chromium, in English and French: the console's
users page (/manager/users) and the menu's password tab.

Usage: users.py BASE_URL AXE_JS
The portal is configured by tests/suite/browser/users.rs: `authentication`, `userDB`,
`passwordDB` = DBI on a SQLite table that holds the administrator `admin` (password
ADMIN_PASSWORD), a password policy (8 characters, an upper-case letter, a digit, a special
character among `!-.`), `managerHost` with a rule that lets `admin` in and nobody else.
For each language the administrator signs in with the keyboard and, through the pages only,
opens the users page from the console's navigation, adds a user (first refused by the policy,
the rule's words shown; then added), searches for them, resets their password, locks and
unlocks them; a forged post without the page's token is refused and changes nothing. Then the
new user signs in, opens the menu's password tab (the policy listed before typing), is refused
a wrong old password, a password the policy refuses (the rule's words) and two that differ,
then changes it: the page says so and that their other session was ended, and the new
password signs in. Every page is checked as the portal's pages are (pages.py's Checker: `lang`,
one h1, the policy, axe-core, no sideways scroll at 320 px). Exits non-zero on any failure.
"""
import sys

from pages import Checker, check, failures, go, loaded  # noqa: E402
from console import Console, browser, http, word  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ADMIN, ADMIN_PASSWORD = "admin", "Adm1n-passw0rd"
# A password the policy refuses for each rule, with the rule's message key and value.
# (Too short is the browser's to refuse first: the field's `minlength`.)
WEAK = [("lowercase1!", "ppFewUpper", "1"),
        ("NoDigits!!", "ppFewDigit", "1"), ("NoSpecial12", "ppFewSpeChar", "1"),
        ("Forbidd3n#A!", "ppForbidden", "1")]


def keyboard_sign_in(k, lang, user, password):
    d = k.d
    d.delete_all_cookies()
    go(d, k.base + "/?lang=" + lang)
    d.find_element(By.ID, "user").send_keys(user)
    d.find_element(By.ID, "password").send_keys(password)
    loaded(d, lambda: d.find_element(By.ID, "password").send_keys(Keys.ENTER))
    check(d.find_elements(By.ID, "connected"), "%s signed in: %s" % (user, d.page_source[:800]))


def said(k):
    """The texts of the page's alerts and statuses."""
    return [e.text for e in k.d.find_elements(By.CSS_SELECTOR, "[role=alert], [role=status]")]


def filled(lang, key, n):
    return word(lang, key).replace("{n}", n)


def user_row(k, login):
    for r in k.rows("users"):
        cells = [td.text for td in r.find_elements(By.TAG_NAME, "td")]
        if cells and cells[0] == login:
            return cells
    return None


def admin_tasks(k, lang, login, password):
    """The users page: add (refused, then done), search, reset, lock, unlock."""
    d = k.d
    keyboard_sign_in(k, lang, ADMIN, ADMIN_PASSWORD)
    go(d, k.base + "/manager/?lang=" + lang)
    k.page(lang, "status")
    k.nav("/manager/users")
    k.page(lang, "users")
    check(user_row(k, ADMIN) is not None, "the administrator is listed")
    # Refused by the policy: the rule's own words, nothing added.
    k.fill("login", login)
    k.fill("newpassword", "weak")
    k.fill("confirmpassword", "weak")
    k.submit("add-user")
    k.page(lang, "users-add-refused")
    check(filled(lang, "ppTooShort", "8") in " ".join(said(k)), "the rule: %r" % said(k))
    check(user_row(k, login) is None, "nothing added")
    k.fill("login", login)
    k.fill("newpassword", password)
    k.fill("confirmpassword", password)
    k.submit("add-user")
    check(d.current_url.split("?")[0].endswith("/manager/users/" + login), d.current_url)
    check(d.find_element(By.ID, "state").text == word(lang, "mgrActive"), "active")
    check(password not in d.page_source, "the password is on the page")
    k.page(lang, "user")
    # The search finds them.
    go(d, k.base + "/manager/users")
    k.fill("search-login", login[:5])
    k.submit("search")
    k.page(lang, "users-search")
    check(user_row(k, login) is not None and user_row(k, ADMIN) is None,
          "the search: %r" % [r.text for r in k.rows("users")])
    loaded(d, d.find_element(By.LINK_TEXT, login).click)
    # Reset (first refused: the two differ), lock, unlock.
    k.fill("newpassword", password + "x")
    k.fill("confirmpassword", password + "y")
    k.submit("reset")
    k.page(lang, "user-reset-refused")
    check(word(lang, "PE34") in " ".join(said(k)), "mismatch: %r" % said(k))
    k.fill("newpassword", password)
    k.fill("confirmpassword", password)
    k.submit("reset")
    check(word(lang, "mgrPasswordReset") in said(k), "reset: %r" % said(k))
    k.page(lang, "user-reset")
    k.submit("lock")
    check(d.find_element(By.ID, "state").text == word(lang, "mgrLocked"), "locked")
    k.page(lang, "user-locked")
    status, body = http(k.base, "POST", "/", None, {"user": login, "password": password},
                        accept="application/json")
    check(status == 401, "a locked user signs in: %d %s" % (status, body))
    forged(k, login)
    k.submit("lock")
    check(d.find_element(By.ID, "state").text == word(lang, "mgrActive"), "unlocked")
    k.page(lang, "user-unlocked")
    print("checked %s users page" % lang)


def forged(k, login):
    """Posts without the page's token: 403, nothing changed."""
    sid = k.sid()
    for path, fields in (("/manager/users/" + login, {"action": "unlock"}),
                         ("/manager/users/" + login, {"action": "password",
                                                      "newpassword": "Forged-passw0rd",
                                                      "confirmpassword": "Forged-passw0rd"}),
                         ("/manager/users", {"login": "forged", "newpassword": "Forged-passw0rd",
                                             "confirmpassword": "Forged-passw0rd"})):
        status, _ = http(k.base, "POST", path, sid, fields)
        check(status == 403, "forged POST %s: %d" % (path, status))
    go(k.d, k.base + "/manager/users/" + login)
    check(k.d.find_element(By.ID, "state").text == word(lang_of(k), "mgrLocked"),
          "still locked after the forgeries")
    status, _ = http(k.base, "GET", "/manager/users/forged", sid)
    check(status == 404, "the forged user was not added: %d" % status)


def lang_of(k):
    return k.d.execute_script("return document.documentElement.lang")


def change(k, lang, old, new, confirm):
    d = k.d
    if d.find_elements(By.ID, "oldpassword"):
        k.fill("oldpassword", old)
    k.fill("newpassword", new)
    k.fill("confirmpassword", confirm)
    k.submit("formpass")


def user_tasks(k, lang, login, password):
    """The menu's password tab of the new user."""
    d = k.d
    status, _ = http(k.base, "POST", "/", None, {"user": login, "password": password},
                     accept="application/json")
    check(status == 200, "the user's other session: %d" % status)
    keyboard_sign_in(k, lang, login, password)
    rules = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#ppolicy li")]
    check(filled(lang, "ppMinSize", "8") in rules, "the policy before typing: %r" % rules)
    check(d.find_element(By.ID, "newpassword").get_attribute("minlength") == "8", "minlength")
    k.c.page(lang, "menu-password")
    change(k, lang, "wrong-old", "Good-passw0rd", "Good-passw0rd")
    check(word(lang, "PE39") in " ".join(said(k)), "wrong old password: %r" % said(k))
    k.c.page(lang, "menu-password-bad-old")
    k.fill("newpassword", "Sh0rt!")
    check(d.execute_script("return document.getElementById('newpassword').validity.tooShort"),
          "the browser refuses a password under minlength")
    for weak, key, n in WEAK:
        change(k, lang, password, weak, weak)
        check(filled(lang, key, n) in " ".join(said(k)), "%s: %r" % (weak, said(k)))
    k.c.page(lang, "menu-password-policy")
    change(k, lang, password, "Good-passw0rd", "Good-passw0rD")
    check(word(lang, "PE34") in " ".join(said(k)), "mismatch: %r" % said(k))
    change(k, lang, password, "Good-passw0rd", "Good-passw0rd")
    check(word(lang, "PE35") in " ".join(said(k)), "changed: %r" % said(k))
    others = d.find_element(By.ID, "pwdothers").text
    check(others == word(lang, "pwdOthersEnded").replace("{count}", "1"), others)
    k.c.page(lang, "menu-password-changed")
    status, _ = http(k.base, "POST", "/", None, {"user": login, "password": "Good-passw0rd"},
                     accept="application/json")
    check(status == 200, "the new password signs in: %d" % status)
    print("checked %s password tab" % lang)


def main(base, axe_path):
    with open(axe_path, encoding="utf-8") as f:
        axe = f.read()
    driver = browser()
    try:
        driver.set_script_timeout(30)
        k = Console(driver, Checker(driver, axe, None), base)
        k.admin = ADMIN
        for lang in ("en", "fr"):
            login, password = "alice-" + lang, "Alice-passw0rd." + lang
            admin_tasks(k, lang, login, password)
            user_tasks(k, lang, login, password)
    finally:
        driver.quit()
    if failures:
        print("users: accessibility or layout failures:\n" + "\n".join(failures),
              file=sys.stderr)
        sys.exit(1)
    print("users ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
