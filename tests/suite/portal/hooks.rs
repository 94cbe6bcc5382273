//! The debug routes (`/__test/...`: a slow answer, a panic, a large answer, the clock moved
//! forward) exist only when `LIMETTE_TEST_HOOKS=1`: any other start answers 404, as for any
//! unknown path, and its clock stays put.
use crate::common::{clock, Portal};

const ROUTES: [&str; 4] = [
    "/__test/sleep?ms=1",
    "/__test/panic",
    "/__test/big?n=10",
    "/__test/clock?advance=100000",
];

fn assert_all_404(p: &Portal, why: &str) {
    for path in ROUTES {
        for method in ["GET", "POST"] {
            let r = p.client().send(method, path, &[], b"");
            assert_eq!(r.status, 404, "{why}: {method} {path}: {}", r.text());
        }
    }
}

#[test]
fn debug_routes_are_off_by_default() {
    let p = Portal::start();
    assert_all_404(&p, "no LIMETTE_TEST_HOOKS");
    // The clock route did nothing: a fresh session is still there.
    let sid = p.login("dwho");
    let r = p
        .client()
        .get("/", &[super::JSON, ("Cookie", &format!("lemonldap={sid}"))]);
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn debug_routes_need_exactly_one() {
    for value in ["0", "", "true", "yes"] {
        let p = Portal::builder().env("LIMETTE_TEST_HOOKS", value).start();
        assert_all_404(&p, &format!("LIMETTE_TEST_HOOKS={value:?}"));
    }
}

#[test]
fn debug_routes_answer_with_test_hooks() {
    let p = Portal::builder().test_hooks().start();
    let r = p.client().get("/__test/sleep?ms=1", &[]);
    assert_eq!((r.status, r.json()["slept"].as_i64()), (200, Some(1)));
    let r = p.client().get("/__test/big?n=10", &[]);
    assert_eq!((r.status, r.text()), (200, "x".repeat(10)));
    assert_eq!(clock::advance(&p, 5), 5);
    assert_eq!(clock::advance(&p, 7), 12);
    let r = p.client().get("/__test/nothing", &[]);
    assert_eq!(r.status, 404);
}
