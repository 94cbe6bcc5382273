//! The console's second-factor page: an administrator `sfManagerRule` allows lists a user's
//! devices (never a secret) and removes one, audited with the administrator's name; a user
//! the console's `locationRules` let in but `sfManagerRule` does not is refused.
use super::{builder, field, login, register, sso};
use serde_json::json;

#[test]
fn an_administrator_lists_and_removes_a_users_device() {
    let p = builder(&[
        ("sfManagerRule", json!("$uid eq \"dwho\"")),
        (
            "locationRules",
            json!({"manager.example.com": {"default": "accept"}}),
        ),
    ])
    .ini("managerHost = manager.example.com")
    .start();
    let c = p.client();
    let user = p.login("rtyler");
    register(&p, &user, "phone", 0);
    // rtyler passes the console's rules, not sfManagerRule.
    let r = c.get("/manager/2f?user=rtyler", &[("Cookie", &sso(&user))]);
    assert_eq!(r.status, 403, "{}", r.text());
    let admin = p.login("dwho");
    let page = c.get("/manager/2f?user=rtyler", &[("Cookie", &sso(&admin))]);
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(
        html.contains("<td>TOTP</td>") && html.contains("<td>phone</td>"),
        "{html}"
    );
    assert!(
        !html.contains("_secret") && !html.contains("llngcrypt"),
        "{html}"
    );
    // The form's token, after the console's navigation (whose sign-out form has its own).
    let content = html.rsplit("</nav>").next().unwrap_or(&html);
    let (token, epoch) = (field(content, "token"), field(content, "epoch"));
    let fields = [
        ("token", token.as_str()),
        ("action", "remove"),
        ("user", "rtyler"),
        ("type", "TOTP"),
        ("epoch", epoch.as_str()),
    ];
    let r = c.post_form("/manager/2f", &fields, &[("Cookie", &sso(&admin))]);
    assert_eq!(r.status, 302, "{}", r.text());
    let said = r
        .cookie("limetteflash")
        .expect("the removal said on the next page");
    let cookie = format!("{}; limetteflash={said}", sso(&admin));
    let next = c
        .get("/manager/2f?user=rtyler", &[("Cookie", &cookie)])
        .text();
    assert!(next.contains("Device phone of rtyler removed."), "{next}");
    let log = p.log();
    assert!(
        log.contains("event=second_factor_removed user=rtyler type=TOTP name=phone"),
        "{log}"
    );
    assert!(log.contains("by=admin:dwho"), "{log}");
    // Without a device, the password is enough again.
    assert_eq!(login(&c, "rtyler").status, 200);
}
