//! The console never shows a secret again: a relying party added or removed between two
//! versions appears in the difference with its client secret hidden, as do a secret changed
//! in place and one inside a version's page; the pages are read over a real connection.
use super::conf::{latest, stored, submit};
use super::manager::{console, get};

/// The relying party `app`'s client secret in the latest version.
fn secret_of(p: &crate::common::Portal) -> String {
    let doc = stored(p, None);
    doc["oidcRPMetaDataOptions"]["app"]["oidcRPMetaDataOptionsClientSecret"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_relying_party_added_changed_or_removed_shows_no_secret() {
    let p = console().start();
    let admin = p.login("dwho");
    let before = latest(&p);
    let add = [
        ("action", "add"),
        ("name", "app"),
        ("client_id", "app-client"),
        ("redirect_uris", "https://app.example.com/cb"),
        ("id_alg", "HS256"),
    ];
    assert_eq!(submit(&p, &admin, "/manager/conf", &add).status, 200);
    let (added, first) = (latest(&p), secret_of(&p));
    // Added whole: the new RP is listed, its secret hidden.
    let diff = |from: u64, to: u64| {
        let r = get(
            &p,
            &admin,
            &format!("/manager/conf/diff?from={from}&to={to}"),
        );
        assert_eq!(r.status, 200);
        r.text()
    };
    let d = diff(before, added);
    assert!(d.contains("app-client"), "{d}");
    assert!(!d.contains(&first), "the new RP's secret in the diff: {d}");
    // Changed in place.
    let r = submit(&p, &admin, "/manager/conf/rp/app", &[("action", "secret")]);
    assert_eq!(r.status, 200);
    let (changed, second) = (latest(&p), secret_of(&p));
    let d = diff(added, changed);
    assert!(!d.contains(&first) && !d.contains(&second), "{d}");
    // Removed whole, and the whole way back (removed from the newer's point of view).
    let delete = [("action", "delete"), ("confirm", "yes")];
    let r = submit(&p, &admin, "/manager/conf/rp/app", &delete);
    assert_eq!(r.status, 302, "{}", r.text());
    let removed = latest(&p);
    for d in [
        diff(changed, removed),
        diff(removed, changed),
        diff(added, before),
    ] {
        assert!(d.contains("app-client"), "{d}");
        assert!(!d.contains(&first) && !d.contains(&second), "{d}");
    }
    // A version's page.
    let page = get(&p, &admin, &format!("/manager/conf/{changed}")).text();
    assert!(
        page.contains("app-client") && !page.contains(&second),
        "{page}"
    );
}
