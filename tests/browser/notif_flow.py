#!/usr/bin/env python3
"""Drives the notification pages of a running Limette in headless Chromium.

Usage: notif_flow.py BASE_URL SCREENSHOT.png
Logs in as dwho through the HTML form, expects the notification form, submits it with one box
unchecked (the form must come back, with no SSO cookie), then with every box checked (the SSO
cookie is set and the landing page shows the user). Every page must pass under the portal's
Content-Security-Policy: the browser's console must report no violation (and, to prove the
console is read, an inline style added at the end must be reported). Exits non-zero on any
failure.
"""
import sys

from chromium import browser  # noqa: E402  (first: keeps Selenium offline)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def check(cond, msg):
    """An explicit check (Python's assert is stripped under PYTHONOPTIMIZE)."""
    if not cond:
        print("browser flow failed: " + msg, file=sys.stderr)
        sys.exit(1)


def submit(driver, css):
    """Clicks a submit button and waits until the next page has loaded.

    The old page's window is marked first (a new document gets a new window object), so even a
    page that comes back at the same URL counts. While the browser swaps documents, Chromium may
    answer with errors about nodes that no longer belong to the document: those are retried until
    the deadline.
    """
    driver.execute_script("window.limetteOldPage = true")
    driver.find_element(By.CSS_SELECTOR, css).click()
    WebDriverWait(driver, 10, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return window.limetteOldPage === undefined && document.readyState === 'complete'"))


def csp_violations(driver):
    """The console lines since the last call that report a Content-Security-Policy violation."""
    lines = [entry.get("message", "") for entry in driver.get_log("browser")]
    return [m for m in lines if "Content Security Policy" in m or "Refused to" in m]


def no_violation(driver, where):
    found = csp_violations(driver)
    check(not found, where + ": CSP violations in the console: " + repr(found))


def main(base, shot):
    driver = browser("--window-size=800,900")
    try:
        driver.get(base + "/")
        check(driver.execute_script(
            "return getComputedStyle(document.querySelector('main')).maxWidth") != "none",
            "the stylesheet must apply under the policy")
        no_violation(driver, "login form")
        driver.find_element(By.NAME, "user").send_keys("dwho")
        driver.find_element(By.NAME, "password").send_keys("dwho")
        submit(driver, "form.login button[type=submit]")
        boxes = driver.find_elements(By.CSS_SELECTOR, "p.notifCheck input[type=checkbox]")
        titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "h2.notifText")]
        check(len(boxes) >= 2, "expected check boxes, page was: " + driver.page_source[:2000])
        check(titles, "expected notification titles")
        no_violation(driver, "notification form")
        driver.save_screenshot(shot)
        check(driver.get_cookie("lemonldap") is None, "SSO cookie released too early")
        boxes[0].click()
        submit(driver, "form.notif button[type=submit]")
        check(driver.find_elements(By.CSS_SELECTOR, "form.notif"), "form must come back")
        no_violation(driver, "notification form again")
        check(driver.get_cookie("lemonldap") is None, "SSO cookie released with a box unchecked")
        for box in driver.find_elements(By.CSS_SELECTOR, "p.notifCheck input[type=checkbox]"):
            if not box.is_selected():
                box.click()
        submit(driver, "form.notif button[type=submit]")
        check("Doctor Who" in driver.page_source, "landing page expected")
        cookie = driver.get_cookie("lemonldap")
        check(cookie and len(cookie["value"]) == 64, "SSO cookie expected after acceptance")
        no_violation(driver, "landing page")
        # The console is really read: an inline style, which the policy refuses, is reported.
        driver.execute_script(
            "var s = document.createElement('style'); s.textContent = 'body{color:red}';"
            " document.head.appendChild(s);")
        WebDriverWait(driver, 5).until(lambda d: csp_violations(d))
        print("browser flow ok")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
