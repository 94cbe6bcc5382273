#!/usr/bin/env python3
"""The administration console (/manager/) of a running Limette in headless Chromium, in English
and French.

Usage: console.py BASE_URL AXE_JS
The portal is configured by tests/suite/browser/mod.rs: `managerHost` with rules that let dwho (a
timelord) in and refuse msmith; `hiddenAttributes` hides `mail`; `restConfigServer` is on.
For each language the administrator signs in with the keyboard and, through the pages only
(links, form fills, buttons), does every task of every page in PAGES: the status; sessions
searched, shown, deleted; notifications created (one refused), marked done, deleted; the
configuration: a relying party added, edited, given an option and a new secret (shown once),
deleted, a main key set, a refused value (its reason, nothing saved), the latest and an older
version, two differences, a rollback (main.rs reads the versions back); each deletion and the
rollback through its confirmation page, each action's message read on the next page. A
notification typed while the session ended comes back after the sign-in, sent again from
there. Each console page is
checked as the portal's pages are (pages.py's Checker: `lang`, one h1, the policy, axe-core, no
sideways scroll at 320 px). Then forged posts without the page's token (a console form whose
token was taken out, and a plain HTTP post) must be refused and change nothing; and a signed-in
user the rules refuse gets 403 on every console URL, the ones the administrator opened included,
and on every form's target. Exits non-zero on any failure, naming the page.

A new console page is one entry in PAGES: its name, its navigation link and its tasks.
"""
import datetime
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

# pages.py sets the offline environment (Selenium Manager off, no proxy) when imported.
from pages import Checker, check, failures, go, loaded  # noqa: E402
import chromium  # noqa: E402
from console_conf import conf_tasks, state  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ADMIN, TARGET, REFUSED = "dwho", "rtyler", "msmith"
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = {}
# Every console URL the administrator's pages showed, and every form target (for the refusal).
seen_urls, seen_posts = set(), set()


def word(lang, key):
    if lang not in WORDS:
        with open(os.path.join(HERE, "..", "..", "static", "languages", lang + ".json"),
                  encoding="utf-8") as f:
            WORDS[lang] = json.load(f)
    return WORDS[lang][key]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def http(base, method, path, sid, fields=None, accept="text/html"):
    """Plain HTTP (setup and forgeries only): the status and the body."""
    data = urllib.parse.urlencode(fields).encode() if fields is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Accept": accept})
    if sid:
        req.add_header("Cookie", "lemonldap=" + sid)
    try:
        with urllib.request.build_opener(NoRedirect).open(req, timeout=10) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def sign_in(base, user):
    """A session of `user` from another browser (setup): its id."""
    status, body = http(base, "POST", "/", None, {"user": user, "password": user},
                        accept="application/json")
    check(status == 200, "login of %s: %d %s" % (user, status, body))
    return json.loads(body)["id"]


class Console:
    """The administrator's browser and what the checks need."""

    def __init__(self, driver, checker, base):
        self.d, self.c, self.base = driver, checker, base
        self.admin = ADMIN

    def word(self, lang, key):
        return word(lang, key)

    def page(self, lang, name):
        d = self.d
        path = d.current_url[len(self.base):]
        check(path.startswith("/manager"), "%s %s: not a console page: %s" % (lang, name, path))
        check(not d.find_elements(By.CSS_SELECTOR, "[role=alert]")
              or name.endswith("-refused"), "%s %s: an error: %s" % (lang, name, d.page_source[:1500]))
        seen_urls.add(path.split("?")[0])
        for form in d.find_elements(By.CSS_SELECTOR, "form[method=post]"):
            target = form.get_attribute("action")[len(self.base):]
            if target.startswith("/manager"):
                seen_posts.add(target)
        self.c.page(lang, "console-" + name)

    def nav(self, href):
        link = self.d.find_element(By.CSS_SELECTOR, "nav a[href='%s']" % href)
        loaded(self.d, link.click)

    def fill(self, field_id, value):
        """Types `value` into a field (a date as the en-US widget takes it: mm dd yyyy)."""
        e = self.d.find_element(By.ID, field_id)
        e.clear()
        if e.get_attribute("type") == "date":
            if value:
                y, m, dd = value.split("-")
                e.send_keys(m + dd + y)
            check(e.get_attribute("value") == value, "date typed: %r" % e.get_attribute("value"))
        else:
            e.send_keys(value)

    def submit(self, form_id):
        loaded(self.d, self.d.find_element(
            By.CSS_SELECTOR, "form#%s button[type=submit]" % form_id).click)

    def rows(self, table):
        return self.d.find_elements(By.CSS_SELECTOR, "table#%s tbody tr" % table)

    def sid(self):
        return self.d.get_cookie("lemonldap")["value"]


def status_tasks(k, lang):
    check(k.d.find_element(By.ID, "mgrVersion").text, "the version is shown")
    shown = k.d.find_element(By.ID, "mgrConfNumber").text
    check(shown == str(state["in_force"]), "the configuration in force: %r" % shown)
    check(k.rows("health"), "the health checks are listed")


def search(k, lang, name, user="", address="", date=""):
    k.fill("user", user)
    k.fill("address", address)
    k.fill("date", date)
    k.submit("search")
    k.page(lang, name)
    return [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in k.rows("sessions")]


def sessions_tasks(k, lang):
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    # Three sessions of the target user, opened elsewhere.
    for _ in range(3):
        sign_in(k.base, TARGET)
    found = search(k, lang, "sessions-user", user=TARGET)
    check(len(found) == 3 and all(r[0] == TARGET for r in found), "by user: %r" % found)
    found = search(k, lang, "sessions-address", address="127.0.0.")
    check(len(found) >= 4 and all(r[1] == "127.0.0.1" for r in found), "by address: %r" % found)
    check(not search(k, lang, "sessions-address-none", address="10."), "no session from 10.")
    found = search(k, lang, "sessions-date", date=today)
    check(len(found) >= 4, "by date: %r" % found)
    check(not search(k, lang, "sessions-date-none", date="2001-01-01"), "no session in 2001")
    found = search(k, lang, "sessions-user-again", user=TARGET, date=today)
    check(len(found) == 3, "by user and date: %r" % found)
    # One session's attributes, the hidden ones left out.
    loaded(k.d, k.d.find_element(By.CSS_SELECTOR, "table#sessions tbody tr a").click)
    keys = [th.text for th in k.d.find_elements(By.CSS_SELECTOR, "table#attributes tbody th")]
    check("cn" in keys and "_whatToTrace" in keys, "the attributes: %r" % keys)
    check("mail" not in keys and "_password" not in keys, "secrets shown: %r" % keys)
    check("badwolf.org" not in k.d.page_source, "the hidden mail is in the page")
    k.page(lang, "session")
    k.submit("delete-session")
    check(k.d.find_element(By.ID, "question").text, "asked before deleting the session")
    check(k.d.find_elements(By.CSS_SELECTOR, "form#confirm button.danger"), "a danger button")
    k.page(lang, "session-delete-confirm")
    k.submit("confirm")
    check(len(k.rows("sessions")) == 2, "one session deleted")
    check(k.d.find_element(By.ID, "done").text, "the deletion said")
    k.page(lang, "sessions-deleted-one")
    k.submit("delete-user")
    check(TARGET in k.d.find_element(By.ID, "question").text, "asked before deleting them all")
    k.page(lang, "sessions-delete-user-confirm")
    k.submit("confirm")
    check(not k.rows("sessions"), "every session of the user deleted")
    k.page(lang, "sessions-deleted-user")
    check(not search(k, lang, "sessions-user-none", user=TARGET), "none left in the store")


def reference_of(cell):
    """The reference of a notification's cell (its title above it)."""
    return cell.find_element(By.CSS_SELECTOR, "small.reference").text


def notification_rows(k):
    """{reference: (state text, whether it can be marked done)} of the listed notifications."""
    out = {}
    for r in k.rows("notifications"):
        cells = r.find_elements(By.TAG_NAME, "td")
        out[reference_of(cells[1])] = (cells[3].text,
                              bool(r.find_elements(By.CSS_SELECTOR, "input[value=done]")))
    return out


def create(k, lang, name, reference, condition):
    for field, value in (("n-uid", TARGET), ("n-date", "2024-01-02"), ("n-reference", reference),
                         ("n-title", "Terms"), ("n-subtitle", "Version 2"),
                         ("n-text", "Please read the terms."),
                         ("n-check", "I have read them\nI accept them"),
                         ("n-condition", condition)):
        k.fill(field, value)
    k.submit("create")
    k.page(lang, name)


def act(k, reference, action):
    """Clicks the `action` button (done, delete) of a notification's row."""
    for r in k.rows("notifications"):
        if reference_of(r.find_elements(By.TAG_NAME, "td")[1]) == reference:
            loaded(k.d, r.find_element(
                By.XPATH, ".//form[input[@name='action' and @value='%s']]//button" % action).click)
            return
    check(False, "no row %s to %s" % (reference, action))


def notifications_tasks(k, lang):
    terms, privacy = "terms-" + lang, "privacy-" + lang
    # A condition the rules parser refuses: its message, nothing saved.
    create(k, lang, "notification-refused", terms, "$uid eq (")
    msg = k.d.find_element(By.ID, "msg").text
    said = word(lang, "mgrBadCondition").split("{detail}")[0]
    check(msg.startswith(said), "the parser's message, in the page's language: %r" % msg)
    kept = k.d.find_element(By.ID, "n-condition").get_attribute("value")
    check(kept == "$uid eq (", "the typed condition is kept: %r" % kept)
    check(k.d.find_element(By.ID, "n-title").get_attribute("value") == "Terms", "the title is kept")
    check(terms not in notification_rows(k), "nothing saved")
    create(k, lang, "notification-created", terms, '$uid eq "%s"' % TARGET)
    create(k, lang, "notification-created-2", privacy, "")
    rows = notification_rows(k)
    check(rows.get(terms) == (word(lang, "mgrPending"), True), "pending: %r" % rows)
    act(k, terms, "done")
    k.page(lang, "notification-done")
    rows = notification_rows(k)
    check(rows[terms][0].startswith(word(lang, "mgrAccepted")) and not rows[terms][1],
          "accepted: %r" % rows)
    check(rows[privacy] == (word(lang, "mgrPending"), True), "still pending: %r" % rows)
    # Listed by user and reference.
    k.fill("q-uid", TARGET)
    k.fill("q-reference", privacy)
    k.submit("search")
    check(list(notification_rows(k)) == [privacy], "by reference: %r" % notification_rows(k))
    k.page(lang, "notifications-search")
    act(k, privacy, "delete")
    rows = notification_rows(k)
    check(privacy not in rows and terms in rows, "deleted: %r" % rows)
    k.page(lang, "notification-deleted")


def kept_form(k, lang):
    """A notification typed while the session ended elsewhere: the post leads to the login
    form, and once signed in the same page offers the values back, editable, to send again."""
    d = k.d
    reference = "kept-" + lang
    go(d, k.base + "/manager/notifications?lang=" + lang)
    for field, value in (("n-uid", "nobody-" + lang), ("n-date", "2024-01-02"),
                         ("n-reference", reference), ("n-title", "Kept"), ("n-subtitle", "Typed long ago"),
                         ("n-text", "Two minutes of typing."), ("n-check", "I read it")):
        k.fill(field, value)
    # The administrator's session ends (from the console itself, over plain HTTP).
    sid = k.sid()
    _, body = http(k.base, "GET", "/manager/sessions/" + sid, sid)
    token = body.split('name="token" value="')[-1].split('"')[0]
    status, _ = http(k.base, "POST", "/manager/sessions/" + sid, sid,
                     {"token": token, "confirm": "yes"})
    check(status == 302, "the session ended: %d" % status)
    k.submit("create")
    check(d.find_elements(By.ID, "password"), "the login form: " + d.page_source[:1500])
    d.find_element(By.ID, "user").send_keys(ADMIN)
    d.find_element(By.ID, "password").send_keys(ADMIN)
    loaded(d, lambda: d.find_element(By.ID, "password").send_keys(Keys.ENTER))
    check(d.current_url.startswith(k.base + "/manager/notifications"), "back: " + d.current_url)
    check(d.find_elements(By.ID, "resume-form"), "the form offered back: " + d.page_source[:1500])
    values = [e.get_attribute("value") for e in d.find_elements(By.CSS_SELECTOR, "#resume-form input")]
    check(reference in values and "Two minutes of typing." in values, "kept: %r" % values)
    k.page(lang, "notification-kept")
    k.submit("resume-form")
    check(reference in notification_rows(k), "sent again: %r" % notification_rows(k))
    check(d.find_elements(By.ID, "done"), "the creation said")
    k.page(lang, "notification-kept-sent")


# The console's pages: (name, the navigation's link, the tasks on it). A new page is one entry.
PAGES = [
    ("status", "/manager/", status_tasks),
    ("sessions", "/manager/sessions", sessions_tasks),
    ("notifications", "/manager/notifications", notifications_tasks),
    ("conf", "/manager/conf", conf_tasks),
]


def admin_tour(k, lang):
    d = k.d
    d.delete_all_cookies()
    go(d, k.base + "/manager/?lang=" + lang)
    check(d.find_elements(By.ID, "password"), "the login page first: " + d.page_source[:1500])
    active = d.switch_to.active_element
    active.send_keys(ADMIN)
    active.send_keys(Keys.TAB)
    d.switch_to.active_element.send_keys(ADMIN)
    loaded(d, lambda: d.switch_to.active_element.send_keys(Keys.ENTER))
    if not d.current_url.startswith(k.base + "/manager"):
        go(d, k.base + "/manager/")
    check(d.find_elements(By.ID, "status"), "the status page: " + d.page_source[:1500])
    # The pages' script told the portal the browser's time zone (static/timezone.js).
    zone = d.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
    tz = d.get_cookie("limette_tz")
    check(tz is not None and tz["value"] == zone, "the zone cookie: %r for %r" % (tz, zone))
    for name, href, tasks in PAGES:
        k.nav(href)
        k.page(lang, name)
        tasks(k, lang)


def forgeries(k, lang):
    """Posts without the page's token change nothing."""
    d = k.d
    refused = word(lang, "errorTitle403")
    # A console form whose token was taken out, sent from the browser.
    go(d, k.base + "/manager/notifications")
    terms = "terms-" + lang
    check(terms in notification_rows(k), "the notification is there")
    d.execute_script("document.querySelectorAll('input[name=token]')"
                     ".forEach(function (e) { e.remove(); })")
    act(k, terms, "delete")
    check(d.find_element(By.TAG_NAME, "h1").text == refused, "forged delete: " + d.page_source[:800])
    go(d, k.base + "/manager/notifications")
    check(terms in notification_rows(k), "a forged delete changed nothing")
    victim = sign_in(k.base, TARGET)
    go(d, k.base + "/manager/sessions/" + victim)
    d.execute_script("document.querySelector('#delete-session input[name=token]').value = 'forged'")
    k.submit("delete-session")
    check(d.find_element(By.TAG_NAME, "h1").text == refused, "forged session delete")
    # The same forms sent over plain HTTP with the administrator's cookie and no token.
    sid = k.sid()
    for path, fields in (("/manager/sessions/" + victim, {}),
                         ("/manager/sessions", {"user": TARGET}),
                         ("/manager/notifications", {"action": "delete", "uid": TARGET,
                                                     "reference": terms}),
                         ("/manager/notifications", {"action": "create", "uid": TARGET,
                                                     "date": "2024-01-02", "reference": "forged",
                                                     "title": "t", "subtitle": "s", "text": "x",
                                                     "check": "c"}),
                         ("/manager/conf", {"action": "main", "timeout": "60",
                                            "base": str(state["in_force"]), "log": "forged"})):
        status, _ = http(k.base, "POST", path, sid, fields)
        check(status == 403, "forged POST %s %r: %d" % (path, fields, status))
    go(d, k.base + "/manager/sessions?user=" + TARGET)
    check(len(k.rows("sessions")) == 1, "the session survived the forgeries")
    go(d, k.base + "/manager/notifications")
    rows = notification_rows(k)
    check(terms in rows and "forged" not in rows, "notifications unchanged: %r" % rows)
    # The session, deleted with the page's own token this time.
    go(d, k.base + "/manager/sessions/" + victim)
    k.submit("delete-session")
    go(d, k.base + "/manager/sessions?user=" + TARGET)
    check(len(k.rows("sessions")) == 1, "asked: the session is still there")
    go(d, k.base + "/manager/sessions/" + victim)
    k.submit("delete-session")
    k.submit("confirm")
    check(not k.rows("sessions"), "the session deleted with its token")
    print("checked %s forgeries" % lang)


def refused_user(k, lang):
    """A signed-in user outside the rules: 403 on every console URL and form target."""
    d = k.d
    d.delete_all_cookies()
    go(d, k.base + "/?lang=" + lang)
    d.find_element(By.ID, "user").send_keys(REFUSED)
    d.find_element(By.ID, "password").send_keys(REFUSED)
    loaded(d, lambda: d.find_element(By.ID, "password").send_keys(Keys.ENTER))
    check(d.find_elements(By.ID, "connected"), "the refused user is signed in")
    sid = k.sid()
    urls = sorted(seen_urls | {href for _, href, _ in PAGES} | {"/manager", "/manager/status"})
    check(any(u.startswith("/manager/sessions/") for u in urls), "a session's URL: %r" % urls)
    for path in urls:
        go(d, k.base + path)
        check(d.find_element(By.TAG_NAME, "h1").text == word(lang, "errorTitle403"),
              "%s for %s: %s" % (path, REFUSED, d.page_source[:800]))
        check(not d.find_elements(By.CSS_SELECTOR, "nav[aria-label=\"%s\"]" % word(lang, "mgrConsole")),
              path + ": the console's navigation")
        status, _ = http(k.base, "GET", path, sid)
        check(status == 403, "GET %s as %s: %d" % (path, REFUSED, status))
    for path in sorted(seen_posts):
        status, _ = http(k.base, "POST", path, sid, {"action": "delete", "uid": TARGET,
                                                     "reference": "terms-" + lang})
        check(status == 403, "POST %s as %s: %d" % (path, REFUSED, status))
    print("checked %s refusals of %d URLs and %d form targets" % (lang, len(urls), len(seen_posts)))


def browser():
    """The distribution's Chromium through its chromedriver (chromium.py), in English."""
    return chromium.browser("--window-size=1280,900", "--hide-scrollbars", "--lang=en-US")


def main(base, axe_path):
    with open(axe_path, encoding="utf-8") as f:
        axe = f.read()
    driver = browser()
    try:
        driver.set_script_timeout(30)
        k = Console(driver, Checker(driver, axe, None), base)
        for lang in ("en", "fr"):
            admin_tour(k, lang)
            if lang == "en":
                k.c.prove_live()
            forgeries(k, lang)
            kept_form(k, lang)
        for lang in ("en", "fr"):
            refused_user(k, lang)
    finally:
        driver.quit()
    if failures:
        print("console: accessibility or layout failures:\n" + "\n".join(failures),
              file=sys.stderr)
        sys.exit(1)
    print("console ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
