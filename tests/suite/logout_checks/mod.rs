//! The logout profiles' own conformance checks (tests/conformance/checks/*.py: Front-Channel,
//! Back-Channel, Session Management and RP-Initiated Logout 1.0, run by `make conformance`
//! beside the OpenID Foundation's tool) against this build's binary: each script passes as
//! Limette is, and each feature it names switched off (`--switch-off`) makes the checks of
//! that feature FAIL and the script exit non-zero, so no check can pass for want of trying.
//! The Front-Channel and Session Management scripts run headless Chromium.
use crate::python;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Runs `script` with `switches` switched off: (exit success, PASSED ids, FAILED ids).
fn run(script: &str, switches: &[&str]) -> (bool, BTreeSet<String>, BTreeSet<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/checks")
        .join(script);
    let mut cmd = Command::new(python::python());
    cmd.arg(&path)
        .arg("--limette")
        .arg(env!("CARGO_BIN_EXE_limette"));
    for s in switches {
        cmd.arg("--switch-off").arg(s);
    }
    let out = cmd.output().expect("run the check script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (mut passed, mut failed) = (BTreeSet::new(), BTreeSet::new());
    for line in stdout.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        assert!(
            words.len() >= 5 && words[0] == "RESULT",
            "{script}: not a RESULT line: {line}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        match words[3] {
            "PASSED" => passed.insert(words[2].to_string()),
            "FAILED" => failed.insert(words[2].to_string()),
            v => panic!("{script}: verdict {v} in {line}"),
        };
    }
    (out.status.success(), passed, failed)
}

/// The script passes every check; then each switch makes at least `fails` FAIL. The runs are
/// independent (each starts its own Limette and relying parties on ports of its own), so they
/// run at once: the checks mostly wait on browsers and servers.
fn passes_then_fails(script: &str, expect_passed: &[&str], switched: &[(&str, &[&str])]) {
    let (whole, runs) = std::thread::scope(|scope| {
        let whole = scope.spawn(|| run(script, &[]));
        let runs: Vec<_> = switched
            .iter()
            .map(|(switch, _)| scope.spawn(move || run(script, &[switch])))
            .collect();
        let runs: Vec<_> = runs
            .into_iter()
            .map(|r| r.join().expect("a check run"))
            .collect();
        (whole.join().expect("the whole check run"), runs)
    });
    let (ok, passed, failed) = whole;
    assert!(ok && failed.is_empty(), "{script}: FAILED {failed:?}");
    for id in expect_passed {
        assert!(
            passed.contains(*id),
            "{script}: no check {id} in {passed:?}"
        );
    }
    for ((switch, fails), (ok, _, failed)) in switched.iter().zip(runs) {
        assert!(!ok, "{script} --switch-off {switch} exited 0");
        for id in *fails {
            assert!(
                failed.contains(*id),
                "{script} --switch-off {switch}: {id} did not fail (FAILED: {failed:?})"
            );
        }
    }
}

#[test]
fn back_channel_checks_pass_and_fail_with_the_feature_off() {
    let posted: &[&str] = &["bc-hs-post", "bc-es-post", "delivery-does-not-hold-logout"];
    passes_then_fails(
        "backchannel_logout.py",
        &[
            "bc-hs-signed",
            "bc-es-signed",
            "bc-hs-events",
            "bc-hs-no-nonce",
            "bc-hs-sid-when-required",
            "unused-rp-not-told",
        ],
        &[
            ("logout-url", posted),
            ("front-type", posted),
            ("session-required", &["bc-hs-sid-when-required"]),
        ],
    );
}

#[test]
fn rp_initiated_checks_pass_and_fail_with_the_feature_off() {
    passes_then_fails(
        "rp_initiated_logout.py",
        &[
            "unregistered-uri-no-redirect",
            "forged-hint-refused",
            "no-hint-asks",
        ],
        &[
            (
                "post-logout-uri",
                &[
                    "hint-redirects-with-state",
                    "no-hint-confirmed-redirects-with-state",
                ],
            ),
            (
                "bypass-confirm",
                &["hint-redirects-with-state", "hint-ends-session"],
            ),
        ],
    );
}

#[test]
fn front_channel_checks_pass_and_fail_with_the_feature_off() {
    let frames: &[&str] = &[
        "fc-sid-rendered-in-iframe",
        "fc-plain-rendered-in-iframe",
        "rp-initiated-frames-then-redirect",
    ];
    passes_then_fails(
        "frontchannel_logout.py",
        &["unused-rp-not-rendered", "fc-sid-sid"],
        &[
            ("logout-url", frames),
            ("back-type", frames),
            ("session-required", &["fc-sid-iss", "fc-sid-sid"]),
        ],
    );
}

#[test]
fn session_management_checks_pass_and_fail_with_the_feature_off() {
    passes_then_fails(
        "session_management.py",
        &[
            "session_state-in-authorization-response",
            "iframe-not-framed-by-other-origin",
        ],
        &[(
            "rp-origin",
            &["iframe-unchanged", "iframe-changed-after-logout"],
        )],
    );
}
