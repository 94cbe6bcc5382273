//! `macros` and `groups` at login, seen as a user sees them: the session's attributes through
//! the REST session server, `inGroup(...)` and `$ENV{...}` through `/mysession`, and one log
//! line for an expression outside the supported subset.
use super::common::sessions::{b64, builder, cookie};
use super::common::Portal;
use super::JSON;
use serde_json::{json, Value};

/// LemonLDAP::NG's Debian default `_whatToTrace` macro.
const WHAT_TO_TRACE: &str = "$_auth eq 'SAML' ? lc($_user.'@'.$_idpConfKey) : $_auth eq \
     'OpenIDConnect' ? lc($_user.'@'.$_oidc_OP) : lc($_user)";

fn portal() -> Portal {
    builder()
        .conf("whatToTrace", json!("_whatToTrace"))
        .conf("multiValuesSeparator", json!(", "))
        .conf(
            "macros",
            json!({
                "UA": "$ENV{HTTP_USER_AGENT}",
                "_whatToTrace": WHAT_TO_TRACE,
                "address": "\"$uid\\@example.com\"",
                "shout": "uc($cn)",
                "vehicle": "$ENV{HTTP_USER_AGENT} =~ /tardis/i ? 'time machine' : 'other'",
                "encoded": "encode_base64($uid)"
            }),
        )
        .conf(
            "groups",
            json!({
                "admins": "$uid eq 'rtyler'",
                "travellers": "$vehicle eq 'time machine' and inGroup('earthlings')",
                "broken": "$uid eq"
            }),
        )
        .conf(
            "locationRules",
            json!({
                "test1.example.com": {
                    "^/admin": "inGroup(\"admins\")",
                    "^/travel": "inGroup(\"travellers\")",
                    "^/agent": "$ENV{HTTP_USER_AGENT} =~ /^Tardis/",
                    "default": "accept"
                }
            }),
        )
        .start()
}

/// Logs in through the JSON API with that User-Agent; returns the session id.
fn login(p: &Portal, user: &str, agent: &str) -> String {
    let r = p.client().post_form(
        "/",
        &[("user", user), ("password", user)],
        &[JSON, ("User-Agent", agent)],
    );
    assert_eq!(r.status, 200, "login of {user}: {}", r.text());
    r.json()["id"].as_str().unwrap().to_string()
}

/// The session as the REST session server returns it.
fn session(p: &Portal, id: &str) -> Value {
    let r = p.client().get_json(&format!("/sessions/global/{id}"));
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// `/mysession/?authorizationfor=<url>` for the session, sent with that User-Agent.
fn allowed(p: &Portal, id: &str, url: &str, agent: &str) -> i64 {
    let path = format!(
        "/mysession/?authorizationfor={}",
        limette::util::url_encode(&b64(url.as_bytes()))
    );
    let r = p.client().get(
        &path,
        &[JSON, ("Cookie", &cookie(id)), ("User-Agent", agent)],
    );
    assert_eq!(r.status, 200, "{url}: {}", r.text());
    r.json()["result"].as_i64().unwrap()
}

#[test]
fn macros_and_groups_are_evaluated_at_login() {
    let p = portal();
    let rose = login(&p, "rtyler", "Tardis/2.0 (TARDIS)");
    let s = session(&p, &rose);
    assert_eq!(s["UA"], "Tardis/2.0 (TARDIS)");
    assert_eq!(s["_whatToTrace"], "rtyler");
    assert_eq!(s["address"], "rtyler@example.com");
    assert_eq!(s["shout"], "ROSE TYLER");
    assert_eq!(s["vehicle"], "time machine");
    assert_eq!(s["groups"], "earthlings, users, admins, travellers");
    let mut h: Vec<&String> = s["hGroups"].as_object().unwrap().keys().collect();
    h.sort();
    assert_eq!(h, ["admins", "earthlings", "travellers", "users"]);
    assert_eq!(s["hGroups"]["admins"], json!({"name": "admins"}));
    assert!(s.get("encoded").is_none(), "outside the subset: unset");
    assert!(
        !s.to_string().contains("encode_base64"),
        "never stored as text"
    );

    let dwho = login(&p, "dwho", "curl/8.0");
    let s = session(&p, &dwho);
    assert_eq!(s["UA"], "curl/8.0");
    assert_eq!(s["vehicle"], "other");
    assert_eq!(
        s["groups"], "timelords, users",
        "no local group holds for dwho"
    );
    let r = p
        .client()
        .get("/mysession/?whoami", &[JSON, ("Cookie", &cookie(&dwho))]);
    assert_eq!(
        r.json(),
        json!({"result": "dwho"}),
        "the macro names the user"
    );

    let admin = "http://test1.example.com/admin/x";
    assert_eq!(allowed(&p, &rose, admin, "any"), 1);
    assert_eq!(
        allowed(&p, &dwho, admin, "any"),
        0,
        "timelords are not admins"
    );
    assert_eq!(
        allowed(&p, &rose, "http://test1.example.com/travel", "any"),
        1
    );
    assert_eq!(
        allowed(&p, &dwho, "http://test1.example.com/travel", "any"),
        0
    );
    let agent = "http://test1.example.com/agent";
    assert_eq!(
        allowed(&p, &dwho, agent, "Tardis/3"),
        1,
        "$ENV is the asking request's"
    );
    assert_eq!(allowed(&p, &dwho, agent, "curl/8.0"), 0);

    let log = p.log();
    for key in ["macros/encoded", "groups/broken"] {
        assert_eq!(
            log.matches(key).count(),
            1,
            "{key} logged once at load:\n{log}"
        );
    }
}
