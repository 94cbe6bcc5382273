"""Verdicts of the conformance run, and its summary.

A test's verdict is the tool's own `RESULT` line in its log: PASSED; WARNING, kept with the
tool's reason; anything else (ERROR, PARTIAL RESULT, no result) FAILED. Two exceptions, both
written down beside the tests they concern:
- not_applicable.json: an optional feature Limette does not offer, with the spec's words that
  make it optional. The test is not run.
- screenshots.json: tests the tool cannot finish itself, where the certification asks for a
  screenshot of the page the OP showed (an error page, the logout page) or a count of login
  forms. The driver judges those from the page Limette showed, by the rule written there.
"""
import glob
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
NOT_APPLICABLE = {k: v for k, v in json.load(open(os.path.join(HERE, "not_applicable.json")))
                  .items() if not k.startswith("_")}
SCREENSHOTS = {k: v for k, v in json.load(open(os.path.join(HERE, "screenshots.json")))
               .items() if not k.startswith("_")}
# Tests the tool cannot judge (its pinned oic lacks the logout messages, or it crashes on the
# answer): run all the same, and when the tool does not pass them, their verdict is left to the
# project's own checks of the same spec sections (run.sh runs them after the tool).
OWN_CHECKS = {k: v for k, v in json.load(open(os.path.join(HERE, "own_checks.json")))
              .items() if not k.startswith("_")}
LOGGED_OUT = re.compile(r"logged out|signed out|log out|logout|déconnect", re.I)


def tool_result(tool_work, test_id):
    """The tool's RESULT for the test (first line, reasons) and its log file, or (None, ...)."""
    files = glob.glob(os.path.join(tool_work, "log", "**", test_id + ".txt"), recursive=True)
    if not files:
        return None, "", ""
    log = max(files, key=os.path.getmtime)
    text = open(log).read()
    m = re.search(r"^RESULT: (.*)", text, re.M | re.S)
    if not m:
        return "?", "", log
    lines = [ln.strip() for ln in m.group(1).strip().split("\n") if ln.strip()]
    return lines[0], " | ".join(lines[1:]), log


def judge(tool_work, test_id, end, browser):
    """(result, detail): result is passed, WARNING, FAILED; detail says why."""
    res, why, log = tool_result(tool_work, test_id)
    rule = SCREENSHOTS.get(test_id)
    where = " (log: {})".format(log.split("/target/", 1)[-1]) if log else ""
    if rule:
        ok, said = by_rule(rule, res, end, browser)
        if ok:
            return "passed", "judged by the driver: " + said
        return "FAILED", "judged by the driver: {}; tool: {} {}{}".format(
            said, res or "no result", why, where)
    if res in ("PASSED", "OK"):
        return "passed", ""
    if res == "WARNING":
        return "WARNING", why or "the tool gives no reason"
    return "FAILED", "{}: {} [{}]{}".format(res or "no result", why, end, where)


def op_error_page(end):
    """Limette stopped the flow at one of its own error pages (4xx, no form to go on)."""
    return end.kind == "op page" and 400 <= end.status < 500


def by_rule(rule, res, end, browser):
    expect = rule["expect"]
    if expect == "error":
        if op_error_page(end):
            return True, "Limette showed an error page ({} at {})".format(
                end.status, end.url.split("?")[0])
        return False, "expected Limette's error page, browsing ended {}".format(end)
    if expect == "error or tool":
        if op_error_page(end):
            return True, "Limette showed an error page ({})".format(end.status)
        if res in ("PASSED", "OK"):
            return True, "the tool got an answer and passed it"
        return False, "neither an error page nor the tool's PASSED ({})".format(end)
    if expect == "logout page":
        if end.kind == "op page" and end.status == 200 and LOGGED_OUT.search(end.text):
            return True, "Limette showed its logout page"
        if res in ("PASSED", "OK"):
            return True, "the tool passed it"
        return False, "expected Limette's logout page, browsing ended {}".format(end)
    if expect == "logins":
        n = rule["logins"]
        if res not in ("PASSED", "OK"):
            return False, "the tool's verdict is {}".format(res)
        if browser.logins != n:
            return False, "{} login forms, expected {}".format(browser.logins, n)
        return True, "tool PASSED, {} login form(s) as expected".format(n)
    raise ValueError("unknown rule " + expect)


def write_summary(path, rows, seconds, applicable_ok):
    """summary.md: counts per run (response type, static or registered client) and algorithm,
    per certification profile and algorithm, then every test not plainly passed."""
    counts, order = {}, []
    for r in rows:
        key = (r["profile"], r["client"])
        if key not in counts:
            counts[key] = {}
            order.append(key)
        counts[key][r["result"]] = counts[key].get(r["result"], 0) + 1
    kinds = ["passed", "WARNING", "FAILED", "not applicable", "own check"]
    tot = {k: sum(c.get(k, 0) for c in counts.values()) for k in kinds}
    out = ["# Conformance: OpenID Foundation OP test tool (oidctest 0.8.2) against Limette", "",
           "{} tests in {:.0f} s: {}. {}".format(
               len(rows), seconds, ", ".join("{} {}".format(tot[k], k) for k in kinds),
               "Every applicable test passes." if applicable_ok else
               "Some applicable tests do not pass."), "",
           "| profile | client | " + " | ".join(kinds) + " |",
           "|---|---|" + "---|" * len(kinds)]
    for key in order:
        out.append("| {} | {} | ".format(*key) + " | ".join(
            str(counts[key].get(k, 0)) for k in kinds) + " |")
    groups = {}
    for r in rows:
        c = groups.setdefault((r["group"], r["client"]), {})
        c[r["result"]] = c.get(r["result"], 0) + 1
    out += ["", "By the certification profile a test belongs to (its definition's `usage`):", "",
            "| profile | client | " + " | ".join(kinds) + " |", "|---|---|" + "---|" * len(kinds)]
    for key in sorted(groups):
        out.append("| {} | {} | ".format(*key) + " | ".join(
            str(groups[key].get(k, 0)) for k in kinds) + " |")
    for kind in ("FAILED", "WARNING", "not applicable", "own check"):
        sel = [r for r in rows if r["result"] == kind]
        if not sel:
            continue
        out += ["", "## {} ({})".format(kind, len(sel)), ""]
        for r in sel:
            out.append("- `{}` {} {}: {}".format(r["test"], r["profile"], r["client"],
                                                 r["detail"].replace("\n", " ")))
    judged = [r for r in rows if r["detail"].startswith("judged by the driver")]
    if judged:
        out += ["", "## Judged by the driver from Limette's page (screenshots.json)", ""]
        for r in judged:
            out.append("- `{}` {} {}: {} ({})".format(
                r["test"], r["profile"], r["client"], r["result"], r["detail"]))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return out
