"""The user's browser for the conformance run: what a person does by hand with the tool.

One Browser plays one test: it starts the test at the tool, follows redirects, fills Limette's
login form with the conformance user, submits consent, logout-confirmation and form_post forms,
loads the hidden iframes of a page (front-channel logout) and follows a `refresh` meta, hands a
fragment answer to the tool's `authz_post` (as the tool's page script does), and on a tool
"Note" page does what the note asks (drops Limette's cookies, waits a second for `max_age=1`)
or has the operator do it (rotate Limette's signing keys) before following its "continue" link. It stops when the tool shows its result page, or on a
Limette page with nothing left to follow: that page is what a person would screenshot, and the
driver judges it (judge.py).
"""
import html.parser
import re
import time
import urllib.parse

import requests

USER, PASSWORD = "dwho", "dwho"
TOOL_COOKIE = "session_id"  # CherryPy's session: the tool's, never Limette's
MAX_STEPS = 60


class Page(html.parser.HTMLParser):
    """The forms, iframes, links and `refresh` meta of a page."""

    def __init__(self, text):
        super().__init__()
        self.forms, self.iframes, self.links, self.refresh = [], [], [], None
        self.in_bar = False  # inside the account bar of a signed-in page (its sign-out form)
        self.feed(text)

    def handle_endtag(self, tag):
        if tag == "nav":
            self.in_bar = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "nav" and "account" in (a.get("class") or "").split():
            self.in_bar = True
        if tag == "form":
            self.forms.append({"action": a.get("action") or "", "method":
                               (a.get("method") or "get").lower(), "fields": {},
                               "bar": self.in_bar})
        elif tag in ("input", "button", "select", "textarea") and self.forms and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.forms[-1]["fields"].setdefault(a["name"], a.get("value") or "")
        elif tag == "iframe" and a.get("src"):
            self.iframes.append(a["src"])
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            m = re.search(r"url\s*=\s*['\"]?([^'\"]+)", a.get("content") or "", re.I)
            if m:
                self.refresh = m.group(1).strip()


class End:
    """Where a test's browsing stopped: at the tool's result, or at a Limette page."""

    def __init__(self, kind, status=0, url="", text="", seen=None):
        self.kind, self.status, self.url, self.text = kind, status, url, text
        self.seen = seen or []  # (status, url) of every Limette page on the way

    def __str__(self):
        if self.kind == "tool":
            return "done at the tool"
        return "{} {} at {}: {}".format(self.kind, self.status, self.url.split("?")[0],
                                         re.sub(r"\s+", " ", strip_tags(self.text))[:200])


def strip_tags(text):
    return re.sub(r"<[^>]*>", " ", re.sub(r"(?s)<(script|style)[^>]*>.*?</\1>", " ", text))


class Browser:
    """One test's browser: a cookie jar shared by the tool and Limette, as a real browser's."""

    def __init__(self, tool_base, log=None, on_note=None):
        self.on_note = on_note or (lambda _text: None)
        self.s = requests.Session()
        self.s.verify = False  # the TLS front's certificate is made for the run
        self.tool = tool_base
        self.log = log or (lambda *_: None)
        self.logins = 0  # how many times Limette showed its login form
        self.login_hints = []  # the user field's value on each login form

    def drop_op_cookies(self):
        """"Remove any cookies you may have received from the OpenID Provider"."""
        for c in list(self.s.cookies):
            if c.name != TOOL_COOKIE:
                self.s.cookies.clear(c.domain, c.path, c.name)

    def get(self, url):
        return self.s.get(url, allow_redirects=False, timeout=90,
                              verify=False)

    def run(self, test_id):
        url, method, data = self.tool + test_id, "get", None
        seen = []
        for _ in range(MAX_STEPS):
            r = self.s.request(method, url, data=data, allow_redirects=False, timeout=90,
                              verify=False)
            self.log("{} {} -> {}".format(method.upper(), url, r.status_code))
            method, data = "get", None
            if r.status_code in (301, 302, 303, 307, 308) and "Location" in r.headers:
                loc = urllib.parse.urljoin(url, r.headers["Location"])
                if loc.startswith(self.tool + "display"):
                    return End("tool", seen=seen)
                if loc.startswith(self.tool) and "#" in loc:
                    # the tool's page script posts the fragment to authz_post
                    head, frag = loc.split("#", 1)
                    self.get(head)
                    url, method, data = self.tool + "authz_post", "post", {"fragment": frag}
                    continue
                url = loc
                continue
            page = Page(r.text)
            if url.startswith(self.tool):
                nxt = self.on_tool_page(r, page)
                if nxt is None:
                    return End("tool page", r.status_code, url, r.text, seen)
                url = nxt
                continue
            seen.append((r.status_code, url))
            for src in page.iframes:  # front-channel logout frames, loaded as a browser does
                self.follow_frame(urllib.parse.urljoin(url, src))
            form = self.pick_form(page)
            if form is not None:
                url = urllib.parse.urljoin(url, form["action"] or url)
                method, data = form["method"], form["fields"]
                continue
            if page.refresh:
                url = urllib.parse.urljoin(url, page.refresh)
                continue
            return End("op page", r.status_code, url, r.text, seen)
        return End("too many steps", 0, url, "", seen)

    def on_tool_page(self, r, page):
        """The tool's Note: do what it asks, then its "continue"; else stop here."""
        nxt = [h for h in page.links if "continue?path=" in h]
        if not nxt:
            return None
        text = strip_tags(r.text).lower()
        time.sleep(1.1)  # a person reads the note: never two logins in the same second
        if "cookies" in text:
            self.drop_op_cookies()
        if "wait at least one second" in text:
            time.sleep(1.5)
        self.on_note(text)  # what the operator does: rotate the OP's keys
        return urllib.parse.urljoin(r.url, nxt[0].replace("&amp;", "&"))

    def pick_form(self, page):
        login = [f for f in page.forms if "password" in f["fields"]]
        if login:
            f = login[0]
            self.logins += 1
            self.login_hints.append(f["fields"].get("user", ""))
            f["fields"].update({"user": USER, "password": PASSWORD})
            return f
        # The page's own form, never the account bar's sign-out (a user does not sign out to
        # give consent).
        forms = [f for f in page.forms if not f["bar"]]
        return forms[0] if forms else None

    def follow_frame(self, url):
        """An iframe's document, with its redirects, as the browser loads it beside the page."""
        for _ in range(5):
            try:
                r = self.get(url)
            except requests.RequestException as e:
                self.log("iframe {}: {}".format(url, e))
                return
            self.log("iframe GET {} -> {}".format(url, r.status_code))
            if r.status_code in (301, 302, 303, 307, 308) and "Location" in r.headers:
                url = urllib.parse.urljoin(url, r.headers["Location"])
                continue
            return
