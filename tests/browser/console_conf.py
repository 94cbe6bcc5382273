"""The configuration tasks of the console's browser test (console.py's PAGES entry `conf`),
through the pages only: a relying party added (its secret shown once), edited, given an option
and a new secret, deleted; a main key set with a log message; a value the checks refuse (the
reason shown, nothing saved); the latest version and an older one; the difference of two; a
rollback to the older one (a new number, the old content). Each page gets the console's checks
(`k.page`). main.rs reads the versions saved back over HTTP and finds their audit lines.
"""
import re

from pages import check, loaded
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

# The configuration in force (the status page shows it; the configuration tasks save new ones).
state = {"in_force": 1}
# The log of each configuration form, by language and action: main.rs finds them in the saved
# versions (`cfgLog`) and in the audit lines, in this order, `{num}` being the version the
# language's tasks started from.
CONF_LOGS = {
    "en": (("add", "Add rp-en for the team"), ("edit", "Rename rp-en"),
           ("option", "Raise rp-en's authentication level"), ("secret", "Rotate rp-en's secret"),
           ("delete", "Remove rp-en"), ("main", "Shorter sessions"),
           ("rollback", "Back to configuration {num}")),
    "fr": (("add", "Ajout de rp-fr"), ("edit", "Renommer rp-fr"),
           ("option", "Niveau d'authentification de rp-fr"),
           ("secret", "Nouveau secret pour rp-fr"), ("delete", "Suppression de rp-fr"),
           ("main", "Sessions plus courtes, délai réduit"),
           ("rollback", "Retour à la configuration {num}")),
}


def meta(k, field):
    """A `cfg*` field of the version the page shows."""
    return k.d.find_element(By.CSS_SELECTOR, "table.meta td.%s" % field).text


def key_values(k):
    """{path: value} of a version's keys."""
    out = {}
    for r in k.rows("keys"):
        cells = r.find_elements(By.TAG_NAME, "td")
        out[cells[0].text] = cells[1].text
    return out


def saved(k):
    """The number of the "Saved as N" notice (the secret's answer, or the message said once on
    the page after a save): its last number."""
    found = k.d.find_elements(By.CSS_SELECTOR, "#saved, #done")
    check(found, "no saved notice: " + k.d.page_source[:1500])
    return int(re.findall(r"\d+", found[0].text)[-1])


def confirm(k, lang, name, needle):
    """The confirmation page a destructive form leads to: it says what will happen (`needle`),
    its button is a danger one, nothing is done until it is pressed; then pressed."""
    question = k.d.find_element(By.ID, "question").text
    check(needle in question, "the question: %r" % question)
    check(k.d.find_elements(By.CSS_SELECTOR, "form#confirm button.danger"), "a danger button")
    check(k.d.find_elements(By.ID, "cancel"), "a way back")
    k.page(lang, name)
    k.submit("confirm")


def versions(k):
    return [int(a.text) for a in k.d.find_elements(By.CSS_SELECTOR, "#versions a")]


def open_version(k, num):
    """From the configuration page, a version through its link."""
    k.nav("/manager/conf")
    loaded(k.d, k.d.find_element(By.CSS_SELECTOR, "#versions a[href='/manager/conf/%d']" % num).click)


def compare(k, lang, name, old, new):
    """From the configuration page, the difference of two versions through the form."""
    k.nav("/manager/conf")
    Select(k.d.find_element(By.ID, "d-from")).select_by_visible_text(str(old))
    Select(k.d.find_element(By.ID, "d-to")).select_by_visible_text(str(new))
    k.submit("compare")
    k.page(lang, name)
    return [[td.text for td in r.find_elements(By.TAG_NAME, "td")] for r in k.rows("diff")]


def open_rp(k, rp):
    k.nav("/manager/conf")
    loaded(k.d, k.d.find_element(By.CSS_SELECTOR, "table#rps a[href='/manager/conf/rp/%s']" % rp).click)


def conf_tasks(k, lang):
    logs = dict(CONF_LOGS[lang])
    rp, opt = "rp-" + lang, "oidcRPMetaDataOptions/rp-%s/oidcRPMetaDataOptions" % lang
    base = int(meta(k, "cfgNum"))
    check(base == state["in_force"] and versions(k)[0] == base, "the latest: %d" % base)

    def saved_as(num, what):
        got = saved(k)
        check(got == num, "%s saved as %d, not %d" % (what, got, num))
        state["in_force"] = got

    # A relying party added through the form: its secret shown once.
    for field, value in (("add-name", rp), ("add-client_id", rp + "-client"),
                         ("add-display_name", "App " + lang),
                         ("add-redirect_uris", "https://%s.example.com/cb" % rp),
                         ("add-log", logs["add"])):
        k.fill(field, value)
    k.d.find_element(By.ID, "add-RequirePKCE").click()
    k.submit("add")
    k.page(lang, "conf-added")
    saved_as(base + 1, "add")
    first = k.d.find_element(By.CSS_SELECTOR, "#secret code").text
    check(len(first) >= 16, "the secret shown once: %r" % first)
    check(meta(k, "cfgAuthor") == k.admin and meta(k, "cfgLog") == logs["add"], "the author, the log")
    # Its page: the secret is not there; its options edited, then one option set.
    open_rp(k, rp)
    k.page(lang, "conf-rp")
    check(first not in k.d.page_source, "the secret shown again")
    k.fill("edit-display_name", "Renamed " + lang)
    k.fill("edit-log", logs["edit"])
    k.submit("edit")
    k.page(lang, "conf-rp-edited")
    saved_as(base + 2, "edit")
    check(k.d.find_element(By.ID, "edit-display_name").get_attribute("value") == "Renamed " + lang,
          "the new display name")
    Select(k.d.find_element(By.ID, "o-key")).select_by_visible_text("AuthnLevel")
    k.fill("o-value", "2")
    k.fill("option-log", logs["option"])
    k.submit("option")
    k.page(lang, "conf-rp-option")
    saved_as(base + 3, "option")
    # A new secret, shown once, on the answer itself.
    k.fill("secret-log", logs["secret"])
    k.submit("secret")
    k.page(lang, "conf-rp-secret")
    saved_as(base + 4, "secret")
    again = k.d.find_element(By.CSS_SELECTOR, "#secret code").text
    check(len(again) >= 16 and again != first, "a new secret: %r" % again)
    # The latest version: the edits there, no secret, nothing to roll back to.
    open_version(k, base + 4)
    k.page(lang, "conf-version-latest")
    keys = key_values(k)
    check(keys.get(opt + "DisplayName") == "Renamed " + lang and keys.get(opt + "AuthnLevel") == "2",
          "the edits in the latest version: %r" % {p: v for p, v in keys.items() if rp in p})
    check(keys.get(opt + "ClientSecret") == k.word(lang, "mgrSecretHidden"), "the secret hidden")
    check(first not in k.d.page_source and again not in k.d.page_source, "a secret in the version")
    check(not k.d.find_elements(By.ID, "rollback"), "a rollback to the latest")
    check(meta(k, "cfgLog") == logs["secret"] and meta(k, "cfgAuthor") == k.admin, "its metadata")
    # The difference of the new secret: it changed, neither value shown.
    rows = compare(k, lang, "conf-diff-secret", base + 3, base + 4)
    hidden = k.word(lang, "mgrSecretHidden")
    check(rows == [[opt + "ClientSecret", k.word(lang, "mgrChanged"), hidden, hidden]],
          "the secret's difference: %r" % rows)
    check(first not in k.d.page_source and again not in k.d.page_source, "a secret in the diff")
    # Deleted.
    open_rp(k, rp)
    k.fill("delete-log", logs["delete"])
    k.submit("delete")
    confirm(k, lang, "conf-rp-delete-confirm", rp)
    k.page(lang, "conf-rp-deleted")
    saved_as(base + 5, "delete")
    check(not k.d.find_elements(By.CSS_SELECTOR, "table#rps a[href='/manager/conf/rp/%s']" % rp),
          "the relying party is gone")
    # A main key, with a log message.
    old_timeout = k.d.find_element(By.ID, "m-timeout").get_attribute("value")
    new_timeout = {"en": "36000", "fr": "54000"}[lang]
    check(old_timeout and old_timeout != new_timeout, "the timeout: %r" % old_timeout)
    k.fill("m-timeout", new_timeout)
    k.fill("main-log", logs["main"])
    k.submit("main")
    k.page(lang, "conf-main")
    saved_as(base + 6, "main")
    check(meta(k, "cfgLog") == logs["main"] and meta(k, "cfgAuthor") == k.admin, "the main save")
    check(k.d.find_element(By.ID, "m-timeout").get_attribute("value") == new_timeout, "timeout")
    # A value the checks refuse: the reason shown, nothing saved.
    k.fill("m-portal", "not a url")
    k.fill("main-log", "refused " + lang)
    k.submit("main")
    k.page(lang, "conf-main-refused")
    msg = k.d.find_element(By.ID, "msg").text
    check("portal" in msg, "the reason: %r" % msg)
    check(not k.d.find_elements(By.ID, "saved"), "a refusal says saved")
    check(int(meta(k, "cfgNum")) == base + 6 and versions(k)[0] == base + 6, "nothing saved")
    check(k.d.find_element(By.ID, "m-portal").get_attribute("value") != "not a url", "the portal")
    # An older version, then the difference between it and the latest.
    open_version(k, base)
    k.page(lang, "conf-version-old")
    check(int(meta(k, "cfgNum")) == base, "the old version's number")
    keys = key_values(k)
    check(keys.get("timeout") == old_timeout and not any(rp in p for p in keys),
          "the old version's keys: timeout %r" % keys.get("timeout"))
    # (The first relying party added may also have brought the signing keys it needs.)
    rows = compare(k, lang, "conf-diff", base, base + 6)
    check(["timeout", k.word(lang, "mgrChanged"), old_timeout, new_timeout] in rows
          and not any(rp in r[0] for r in rows), "the difference: %r" % rows)
    # Rolled back to the older version: a new number with the old settings.
    open_version(k, base)
    k.fill("rollback-log", logs["rollback"].format(num=base))
    k.submit("rollback")
    confirm(k, lang, "conf-rollback-confirm", str(base))
    k.page(lang, "conf-rolledback")
    saved_as(base + 7, "rollback")
    check(meta(k, "cfgLog") == logs["rollback"].format(num=base), "the rollback's log")
    check(k.d.find_element(By.ID, "m-timeout").get_attribute("value") == old_timeout, "rolled back")
    # The settings are the old ones; the signing keys stay those in force (the old version may
    # predate them: then the only rows are keys that the rollback kept).
    rows = compare(k, lang, "conf-diff-none", base, base + 7)
    settings = [r for r in rows if not (r[0].startswith("oidcService") and r[0].endswith("Sig"))]
    check(not settings and (rows or k.d.find_elements(By.ID, "nodiff")),
          "the same settings: %r" % rows)
