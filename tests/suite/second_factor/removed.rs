//! A device removed from the second-factor page: the list it goes back to says so, once.
use super::{field, register, sso, start};

#[test]
fn the_list_says_a_device_was_removed_once() {
    let p = start(&[]);
    let sid = p.login("dwho");
    register(&p, &sid, "phone", 0);
    let cookie = sso(&sid);
    let page = p
        .client()
        .get("/2fregisters", &[("Cookie", &cookie)])
        .text();
    let fields = [
        ("csrf", field(&page, "csrf")),
        ("epoch", field(&page, "epoch")),
    ];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = p
        .client()
        .post_form("/2fregisters/totp/delete", &fields, &[("Cookie", &cookie)]);
    assert_eq!(r.status, 302, "{}", r.text());
    let said = r
        .cookie("limetteflash")
        .expect("the removal said on the list");
    let flash = format!("{cookie}; limetteflash={said}");
    let to = r.header("location").unwrap_or_default();
    assert!(to.ends_with("/2fregisters"), "{to}");
    let to = "/2fregisters";
    let list = p.client().get(to, &[("Cookie", &flash)]);
    assert_eq!(list.status, 200, "{}", list.text());
    assert!(
        list.text().contains("Device phone removed."),
        "{}",
        list.text()
    );
    let next = p.client().get(to, &[("Cookie", &cookie)]);
    assert!(
        !next.text().contains("Device phone removed."),
        "{}",
        next.text()
    );
}
