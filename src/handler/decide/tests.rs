//! The decisions, LemonLDAP::NG's handler's answers for the same rules.
use super::*;
use crate::config::AreaSettings;
use serde_json::{json, Value};

fn settings() -> Settings {
    let Value::Object(raw) = json!({
        "locationRules": {
            "app.example.com": {
                "^/admin": "inGroup(\"admins\")",
                "^/deny": "deny",
                "^/public": "unprotect",
                "^/static": "skip",
                "^/bye": "logout_sso https://bye.example.com/",
                "^/strong(?#AuthnLevel=3)": "accept",
                "default": "accept"
            },
            "leveled.example.com": {"default": "accept"},
            "down.example.com": {"default": "accept"},
            "broken.example.com": {"^/x": "$uid eq", "default": "accept"}
        },
        "exportedHeaders": {
            "app.example.com": {"Auth-User": "$uid", "Auth-Mail": "$mail", "Auth-Empty": ""}
        },
        "vhostOptions": {
            "leveled.example.com": {"vhostAuthnLevel": 2},
            "down.example.com": {"vhostMaintenance": 1},
            "app.example.com": {"vhostAliases": "alias.example.com"}
        },
        "customToTrace": "mail"
    }) else {
        unreachable!()
    };
    Settings::from_conf(&raw).unwrap()
}

fn user(uid: &str, groups: &str, mail: &str) -> Arc<SsoSession> {
    let Value::Object(m) = json!({
        "_session_id": "s", "uid": uid, "groups": groups, "hGroups": {},
        "mail": mail, "authenticationLevel": 1
    }) else {
        unreachable!()
    };
    Arc::new(SsoSession::from(m))
}

/// The verdict for `host` + `uri` with or without a session, as a short word.
fn ask(s: &Settings, host: &str, uri: &str, who: Option<Arc<SsoSession>>) -> String {
    let env = Env::empty();
    let ask = Ask { host, uri, env };
    let mut asked = false;
    let v = decide(
        s,
        &ask,
        || {
            asked = true;
            Ok(who)
        },
        0,
    )
    .unwrap();
    let word = match v {
        Verdict::Grant(g) => format!("grant:{}", g.user),
        Verdict::Open(_) => "open".into(),
        Verdict::Login => "login".into(),
        Verdict::Logout(_, to) => format!("logout:{}", to.unwrap_or_default()),
        Verdict::Forbidden(_) => "forbidden".into(),
        Verdict::Maintenance => "maintenance".into(),
    };
    if !asked {
        return format!("{word} (no session read)");
    }
    word
}

#[test]
fn rules_in_llng_order() {
    let s = settings();
    let dwho = || Some(user("dwho", "admins; users", "d@x"));
    let rtyler = || Some(user("rtyler", "users", "r@x"));
    let cases = [
        ("app.example.com", "/", dwho(), "grant:dwho"),
        ("app.example.com:8080", "/", dwho(), "grant:dwho"),
        ("ALIAS.example.com", "/", dwho(), "grant:dwho"),
        ("app.example.com", "/", None, "login"),
        ("app.example.com", "/admin/x", dwho(), "grant:dwho"),
        ("app.example.com", "/admin/x", rtyler(), "forbidden"),
        ("app.example.com", "/deny", dwho(), "forbidden"),
        ("app.example.com", "/public", None, "open"),
        ("app.example.com", "/public", rtyler(), "grant:rtyler"),
        (
            "app.example.com",
            "/static/x",
            dwho(),
            "open (no session read)",
        ),
        (
            "app.example.com",
            "/bye",
            dwho(),
            "logout:https://bye.example.com/",
        ),
        ("app.example.com", "/bye", None, "login"),
        ("app.example.com", "/strong", dwho(), "forbidden"),
        ("leveled.example.com", "/", dwho(), "forbidden"),
        (
            "down.example.com",
            "/",
            dwho(),
            "maintenance (no session read)",
        ),
        (
            "broken.example.com",
            "/",
            dwho(),
            "forbidden (no session read)",
        ),
        ("unknown.example.com", "/", dwho(), "forbidden"),
        ("unknown.example.com", "/", None, "login"),
    ];
    for (host, uri, who, want) in cases {
        assert_eq!(ask(&s, host, uri, who), want, "{host}{uri}");
    }
}

#[test]
fn headers_are_evaluated_and_control_characters_refused() {
    let s = settings();
    let ask = Ask {
        host: "app.example.com",
        uri: "/",
        env: Env::empty(),
    };
    let v = decide(&s, &ask, || Ok(Some(user("dwho", "", "d@x"))), 0).unwrap();
    let g = match v {
        Verdict::Grant(g) => g,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        g,
        Granted {
            user: "dwho".into(),
            custom: Some("d@x".into()),
            headers: vec![
                ("Auth-Empty".into(), String::new()),
                ("Auth-Mail".into(), "d@x".into()),
                ("Auth-User".into(), "dwho".into()),
            ],
        }
    );
    for bad in ["d@x\r\nX-Admin: 1", "d@x\n", "a\u{7f}b", "tab\there"] {
        let v = decide(&s, &ask, || Ok(Some(user("dwho", "", bad))), 0).unwrap();
        assert!(matches!(v, Verdict::Forbidden(_)), "{bad:?}: {v:?}");
    }
    let v = decide(&s, &ask, || Ok(Some(user("dw\rho", "", "m"))), 0).unwrap();
    assert!(matches!(v, Verdict::Forbidden(_)), "{v:?}");
}
