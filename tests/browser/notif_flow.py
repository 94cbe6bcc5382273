#!/usr/bin/env python3
"""Drives the notification pages of a running Limette in headless Chromium.

Usage: notif_flow.py BASE_URL SCREENSHOT.png
Logs in as dwho through the HTML form, expects the notification form, submits it with one box
unchecked (the form must come back, with no SSO cookie), then with every box checked (the SSO
cookie is set and the landing page shows the user). Exits non-zero on any failure.
"""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def main(base, shot):
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=800,900"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        driver.get(base + "/")
        driver.find_element(By.NAME, "user").send_keys("dwho")
        driver.find_element(By.NAME, "password").send_keys("dwho")
        driver.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()
        boxes = driver.find_elements(By.CSS_SELECTOR, "p.notifCheck input[type=checkbox]")
        titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "h2.notifText")]
        assert len(boxes) >= 2, "expected check boxes, page was: " + driver.page_source[:2000]
        assert titles, "expected notification titles"
        driver.save_screenshot(shot)
        assert driver.get_cookie("lemonldap") is None, "SSO cookie released too early"
        boxes[0].click()
        driver.find_element(By.CSS_SELECTOR, "form.notif button[type=submit]").click()
        assert driver.find_elements(By.CSS_SELECTOR, "form.notif"), "form must come back"
        assert driver.get_cookie("lemonldap") is None, "SSO cookie released with a box unchecked"
        for box in driver.find_elements(By.CSS_SELECTOR, "p.notifCheck input[type=checkbox]"):
            if not box.is_selected():
                box.click()
        driver.find_element(By.CSS_SELECTOR, "form.notif button[type=submit]").click()
        cookie = driver.get_cookie("lemonldap")
        assert cookie and len(cookie["value"]) == 64, "SSO cookie expected after acceptance"
        assert "Doctor Who" in driver.page_source, "landing page expected"
        print("browser flow ok")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
