#!/usr/bin/env python3
"""Visits every portal page of a running Limette in headless Chromium, in English and French.

Usage: pages.py BASE_URL AXE_JS [SCREENSHOT_DIR]
For each language a user signs in with the keyboard (one wrong password first), meets the
notification form (sent once incomplete: the ticks must be kept), lands on the portal's menu
(applications, login history), opens the notification explorer and one notification, the consent
page of an OpenID Connect application (accepted), the menu with that consent, then revoked from it,
the application's logout confirmation, an error page, the portal's logout confirmation and the
signed-out page; and, signed in, the administration console's pages (status, sessions, one
session, notifications, configuration, one version, a difference, a relying party), a relying
party added through its form in English.
On every page: `lang` is the language chosen with the switch, the portal's Content-Security-Policy
reports nothing, axe-core (injected by the test) finds no serious or critical violation, and at
320 px nothing scrolls sideways. With SCREENSHOT_DIR, each page is saved at 1280 and 360 px as
<lang>-<page>-<width>.png (the whole page). Exits non-zero on any failure, naming the page.
"""
import json
import os
import sys

from chromium import browser  # noqa: E402  (first: keeps Selenium offline)

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CB = "http://127.0.0.1:19999/cb"
USERS = {"en": "dwho", "fr": "rtyler"}
failures = []


def check(cond, msg):
    """An explicit check (Python's assert is stripped under PYTHONOPTIMIZE)."""
    if not cond:
        print("pages: " + msg, file=sys.stderr)
        sys.exit(1)


def loaded(driver, action):
    """Runs `action` (a click, a key) and waits until the next document has loaded."""
    driver.execute_script("window.limetteOldPage = true")
    action()
    WebDriverWait(driver, 10, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return window.limetteOldPage === undefined && document.readyState === 'complete'"))


def go(driver, url):
    driver.get(url)
    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script("return document.readyState === 'complete'"))


AXE_RUN = """
var done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(function (r) {
  done(r.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map(function (n) { return n.target.join(' '); })};
  }));
}).catch(function (e) { done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]); });
"""


class Checker:
    def __init__(self, driver, axe, shots):
        self.driver, self.axe, self.shots = driver, axe, shots
        # axe-core is given to the browser once, to evaluate in every new document (outside
        # the page's policy, as the driver's scripts are), instead of sent with every check.
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": axe})

    def page(self, lang, name):
        d = self.driver
        where = "%s %s (%s)" % (lang, name, d.current_url)
        got = d.execute_script("return document.documentElement.lang")
        check(got == lang, where + ": lang is %r" % got)
        check(len(d.find_elements(By.TAG_NAME, "h1")) == 1, where + ": one h1")
        lines = [e.get("message", "") for e in d.get_log("browser")]
        csp = [m for m in lines if "Content Security Policy" in m or "Refused to" in m]
        check(not csp, where + ": CSP violations: " + repr(csp))
        # axe-core goes in through the driver, which the page's policy does not govern.
        if not d.execute_script("return typeof window.axe === 'object'"):
            d.execute_script(self.axe)
        d.set_script_timeout(30)
        found = d.execute_async_script(AXE_RUN)
        bad = [v for v in found if v.get("impact") in ("serious", "critical")]
        if bad:
            failures.append(where + ": " + json.dumps(bad, ensure_ascii=False))
        if self.shots:
            self.shoot("%s-%s-1280.png" % (lang, name), 1280)
        d.set_window_size(320, 800)
        wide = d.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wide > 0:
            failures.append(where + ": scrolls sideways by %d px at 320 px" % wide)
        if self.shots:
            self.shoot("%s-%s-360.png" % (lang, name), 360)
        d.set_window_size(1280, 900)
        print("checked " + where)

    def shoot(self, file, width):
        """The whole page at `width` (the window as tall as the page, at most 4000 px)."""
        d = self.driver
        d.set_window_size(width, 800)
        tall = d.execute_script("return document.documentElement.scrollHeight")
        d.set_window_size(width, max(800, min(int(tall) + 100, 4000)))
        d.save_screenshot(os.path.join(self.shots, file))

    def prove_live(self):
        """axe really runs: grey text on white added to the page is reported as serious."""
        d = self.driver
        d.execute_script(
            "var p = document.createElement('p'); p.id = 'axe-probe'; p.textContent = 'probe';"
            " p.style.color = '#bbbbbb'; p.style.background = '#ffffff';"
            " document.querySelector('main').appendChild(p);")
        d.execute_script(self.axe)
        found = d.execute_async_script(AXE_RUN)
        d.execute_script("document.getElementById('axe-probe').remove()")
        d.get_log("browser")
        check(any(v["id"] == "color-contrast" and v["impact"] == "serious" for v in found),
              "axe-core did not report a planted contrast failure: " + repr(found))


def tour(driver, c, base, lang):
    user = USERS[lang]
    driver.delete_all_cookies()
    go(driver, base + "/?lang=" + lang)
    check(driver.get_cookie("llnglanguage")["value"] == lang, "the switch is remembered")
    check(driver.execute_script("return document.activeElement.id") == "user", "autofocus")
    c.page(lang, "login")
    # Keyboard only: type, Tab, type, Enter.
    active = driver.switch_to.active_element
    active.send_keys(user)
    active.send_keys(Keys.TAB)
    driver.switch_to.active_element.send_keys("wrong")
    loaded(driver, lambda: driver.switch_to.active_element.send_keys(Keys.ENTER))
    check(driver.find_elements(By.CSS_SELECTOR, "[role=alert]"), "the error is announced")
    check(driver.find_element(By.ID, "user").get_attribute("value") == user, "user name kept")
    c.page(lang, "login-error")
    driver.find_element(By.ID, "password").send_keys(user)
    loaded(driver, lambda: driver.find_element(By.ID, "password").send_keys(Keys.ENTER))
    boxes = driver.find_elements(By.CSS_SELECTOR, "p.notifCheck input[type=checkbox]")
    check(len(boxes) >= 2, "notification form expected: " + driver.page_source[:1500])
    c.page(lang, "notification-form")
    boxes[0].click()
    loaded(driver, lambda: driver.find_element(By.CSS_SELECTOR, "form.notif button[type=submit]").click())
    boxes = driver.find_elements(By.CSS_SELECTOR, "p.notifCheck input[type=checkbox]")
    check(boxes[0].is_selected() and not boxes[1].is_selected(), "the tick is kept")
    check(driver.find_elements(By.ID, "missing"), "the missing box is named")
    c.page(lang, "notification-incomplete")
    for box in boxes:
        if not box.is_selected():
            box.click()
    loaded(driver, lambda: driver.find_element(By.CSS_SELECTOR, "form.notif button[type=submit]").click())
    check(driver.find_elements(By.ID, "connected"), "landing page expected")
    check(driver.get_cookie("lemonldap"), "SSO cookie after acceptance")
    check(driver.find_elements(By.CSS_SELECTOR, "#appslist li.application"), "the menu's applications")
    check(driver.find_elements(By.CSS_SELECTOR, "#failedLogins tbody tr"), "the failed login in the history")
    check(driver.find_elements(By.CSS_SELECTOR, "#successLogins tbody tr"), "the login in the history")
    check(not driver.find_elements(By.ID, "oidcConsents"), "no consent yet")
    c.page(lang, "landing")
    header_and_tiles(driver, c, base, lang)
    console(driver, c, base, lang)
    go(driver, base + "/mynotifications")
    c.page(lang, "explorer")
    loaded(driver, lambda: driver.find_element(By.CSS_SELECTOR, "td a.button").click())
    c.page(lang, "explorer-detail")
    go(driver, base + "/oauth2/authorize?response_type=code&client_id=app&scope=openid%20email"
       "&redirect_uri=" + CB.replace(":", "%3A").replace("/", "%2F") + "&state=s")
    check(driver.find_elements(By.ID, "consent"), "consent page: " + driver.page_source[:1500])
    c.page(lang, "consent")
    # Accepting sends the browser to the application (which does not answer here).
    driver.find_element(By.CSS_SELECTOR, "button[name=confirm][value='1']").click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CB))
    go(driver, base + "/")
    check(driver.find_elements(By.CSS_SELECTOR, "#oidcConsents tr.consent"), "the consent in the menu")
    c.page(lang, "menu-consents")
    loaded(driver, lambda: driver.find_element(By.CSS_SELECTOR, "tr.consent button").click())
    check(driver.current_url == base + "/#oidcConsents", "back to the menu: " + driver.current_url)
    check(not driver.find_elements(By.CSS_SELECTOR, "tr.consent"), "the consent is revoked")
    c.page(lang, "menu-revoked")
    go(driver, base + "/oauth2/logout?client_id=app")
    check(driver.find_elements(By.ID, "logout-confirm"), "RP logout confirmation")
    c.page(lang, "oidc-logout")
    go(driver, base + "/no/such/page")
    check(driver.find_elements(By.CSS_SELECTOR, "nav.account #header-logout"),
          "the error page of a signed-in user has the account bar")
    c.page(lang, "error")
    go(driver, base + "/?logout=1")
    check(driver.find_elements(By.ID, "logout-confirm"), "a logout link asks first")
    check(driver.get_cookie("lemonldap"), "still signed in while asked")
    c.page(lang, "logout-confirm")
    loaded(driver, lambda: driver.find_element(By.ID, "logout").click())
    check(driver.find_elements(By.CSS_SELECTOR, "[trmsg='47']"), "signed-out page")
    c.page(lang, "logged-out")


def header_and_tiles(driver, c, base, lang):
    """The account bar (skip link first, then who, the portal, the console, the sign-out) and
    the applications as tiles, filtered with the keyboard: as the user types (the page's script),
    then by the form (the server)."""
    d = driver
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    check(d.execute_script("return document.activeElement.className") == "skip",
          "the skip link comes first")
    check(d.execute_script("return getComputedStyle(document.activeElement).position") == "static",
          "the focused skip link shows")
    links = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "nav.account a")]
    check(links == [base + "/", base + "/manager/", base + "/2fregisters"],
          "portal, console, second factors: %r" % links)
    check(d.find_element(By.CSS_SELECTOR, "nav.account a[aria-current=page]").get_attribute("href")
          == base + "/", "the menu is the current page")
    check(d.find_element(By.CSS_SELECTOR, "#app-wiki img.applogo").get_attribute("src")
          .endswith("/static/common/apps/wiki.svg"), "the wiki's logo file")
    check(d.execute_script("var i = document.querySelector('#app-wiki img');"
                           " return i.complete && i.naturalWidth > 0"), "the logo loads")
    badges = d.find_elements(By.CSS_SELECTOR, "li.application .badge")
    check(len(badges) >= 10 and not d.find_elements(By.CSS_SELECTOR, "img[src$='.png']"),
          "logo names without a file show as letters")
    tops = {t.location["y"] for t in d.find_elements(By.CSS_SELECTOR, "#cat-3services a.tile")}
    check(len(tops) <= 4, "several tiles a row at 1280 px: rows at %r" % sorted(tops))
    field = d.find_element(By.ID, "appq")
    field.send_keys("mail")
    shown = [e.text for e in d.find_elements(By.CSS_SELECTOR, "li.application .appname") if e.is_displayed()]
    check(shown == ["Mail"], "filtered as the user types: %r" % shown)
    check(not d.find_element(By.ID, "cat-1tools").is_displayed(), "an emptied category hides")
    loaded(d, lambda: field.send_keys(Keys.ENTER))
    names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "li.application .appname")]
    check(names == ["Mail"], "the filter keeps the matching application: %r" % names)
    check(d.find_elements(By.CSS_SELECTOR, "#appcount[role=status]"), "the count is said")
    c.page(lang, "menu-filter")
    loaded(d, lambda: d.find_element(By.CSS_SELECTOR, "nav.account a[href$='/2fregisters']").click())
    check(d.find_element(By.CSS_SELECTOR, "nav.account a[aria-current=page]").get_attribute("href")
          .endswith("/2fregisters"), "the second factors' page is marked")
    c.page(lang, "second-factors")
    go(d, base + "/")


def console(driver, c, base, lang):
    """The administration console's pages; in English, a relying party added through its form."""
    user = USERS[lang]
    go(driver, base + "/manager/")
    check(driver.find_elements(By.ID, "mgrConfNumber"), "console status: " + driver.page_source[:1500])
    c.page(lang, "console-status")
    go(driver, base + "/manager/sessions?user=" + user)
    c.page(lang, "console-sessions")
    loaded(driver, lambda: driver.find_element(By.CSS_SELECTOR, "a[href^='/manager/sessions/']").click())
    c.page(lang, "console-session")
    go(driver, base + "/manager/notifications")
    c.page(lang, "console-notifications")
    go(driver, base + "/manager/conf")
    c.page(lang, "console-conf")
    if lang == "en":
        form = driver.find_element(By.ID, "add")
        for field, value in (("name", "console-app"), ("client_id", "console-app"),
                             ("redirect_uris", "https://console.example.com/cb")):
            form.find_element(By.NAME, field).send_keys(value)
        form.find_element(By.NAME, "flag_RequirePKCE").click()
        loaded(driver, lambda: form.find_element(By.CSS_SELECTOR, "button[type=submit]").click())
        check(driver.find_elements(By.CSS_SELECTOR, "#secret code"), "the secret shown once: "
              + driver.page_source[:1500])
        c.page(lang, "console-secret")
    nums = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#versions a")]
    check(len(nums) >= 2, "two versions at least: %r" % nums)
    go(driver, base + "/manager/conf/" + nums[0])
    c.page(lang, "console-version")
    go(driver, base + "/manager/conf/diff?from=%s&to=%s" % (nums[1], nums[0]))
    check(driver.find_elements(By.CSS_SELECTOR, "#diff tbody tr"), "a difference")
    c.page(lang, "console-diff")
    go(driver, base + "/manager/conf/rp/console-app")
    c.page(lang, "console-rp")


def main(base, axe_path, shots):
    with open(axe_path, encoding="utf-8") as f:
        axe = f.read()
    if shots:
        os.makedirs(shots, exist_ok=True)
    driver = browser("--window-size=1280,900", "--hide-scrollbars")
    try:
        c = Checker(driver, axe, shots)
        go(driver, base + "/")
        driver.set_script_timeout(30)
        c.prove_live()
        for lang in ("en", "fr"):
            tour(driver, c, base, lang)
    finally:
        driver.quit()
    if failures:
        print("pages: accessibility or layout failures:\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print("pages ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
