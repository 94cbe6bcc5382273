"""The distribution's headless Chromium through its chromedriver, offline, as every browser
test starts it. Importing this module first also keeps Selenium off the network: it never
looks for a driver there (the distribution's is named below), and no proxy from the
environment stands between Selenium and that driver on loopback."""
import os

os.environ["SE_OFFLINE"] = "true"
for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
    os.environ.pop(var, None)
os.environ["no_proxy"] = os.environ["NO_PROXY"] = "*"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def browser(*extra):
    """A new browser with `extra` flags (window size, language), its console log kept.
    Offline: with no proxy and no name resolving but 127.0.0.1, it reaches nothing but the
    servers of the test."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for flag in FLAGS + extra:
        opts.add_argument(flag)
    opts.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    opts.add_argument("--no-proxy-server")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
