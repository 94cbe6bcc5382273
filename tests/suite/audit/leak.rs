//! Every flow at `logLevel = debug`, then the log is searched for each secret the flows
//! handled. A secret counts as leaked when it appears whole, or when its first 12 characters
//! do (the log cuts long ids to a short prefix, never to 12 characters).
use crate::common::oidc::{self, *};
use crate::common::{Portal, Resp};
use serde_json::json;

const WRONG_PASSWORD: &str = "Guess-91ab-Cheshire";
const RS_SECRET: &str = "rs-client-Secret-55d0";
const CONF_KEY: &str = "Conf-Key-0b7e4c2a9d";

fn portal() -> Portal {
    let dir = stub_directory(Stub::Good);
    oidc::builder(&[
        ("rp1", rp("rp1", json!({"RefreshToken": 1}))),
        (
            "rs",
            rp(
                "rs",
                json!({"ClientSecret": RS_SECRET, "IDTokenSignAlg": "RS256",
                       "AccessTokenJWT": 1, "AccessTokenSignAlg": "RS256",
                       "UserInfoSignAlg": "RS256", "RefreshToken": 1}),
            ),
        ),
    ])
    .log_level("debug")
    .conf("key", json!(CONF_KEY))
    .conf("authentication", json!("REST"))
    .conf("userDB", json!("REST"))
    .conf("restAuthUrl", json!(format!("{dir}/auth")))
    .conf("restUserDBUrl", json!(format!("{dir}/user")))
    .conf("restSessionServer", json!(1))
    .conf("restConfigServer", json!(1))
    .conf("notificationServer", json!(1))
    .conf("notificationServerGET", json!(1))
    .conf("notificationServerDELETE", json!(1))
    .start()
}

fn login(p: &Portal, password: &str) -> Resp {
    p.client().post_form(
        "/",
        &[("user", "alice"), ("password", password)],
        &[("Accept", "application/json")],
    )
}

/// The code flow of `client` (secret `secret`) for the session `sid`, a userinfo call, an
/// introspection and a refresh; every token and code it saw.
fn oidc_flow(p: &Portal, sid: &str, client: &str, secret: &str) -> Vec<String> {
    let code = oidc::code(p, sid, client, "");
    let r = token(
        p,
        Some((client, secret)),
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", CB),
        ],
    );
    assert_eq!(r.status, 200, "token: {}", r.text());
    let t = r.json();
    let access = t["access_token"].as_str().unwrap().to_string();
    let refresh = t["refresh_token"].as_str().unwrap().to_string();
    let id_token = t["id_token"].as_str().unwrap().to_string();
    let bearer = format!("Bearer {access}");
    let r = p
        .client()
        .get("/oauth2/userinfo", &[("Authorization", &bearer)]);
    assert_eq!(r.status, 200, "userinfo: {}", r.text());
    let auth = basic(client, secret);
    let r = p.client().post_form(
        "/oauth2/introspect",
        &[("token", &access)],
        &[("Authorization", &auth)],
    );
    assert_eq!(r.json()["active"], json!(true), "introspect: {}", r.text());
    let r = token(
        p,
        Some((client, secret)),
        &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
    );
    assert_eq!(r.status, 200, "refresh: {}", r.text());
    let again = r.json()["access_token"].as_str().unwrap().to_string();
    vec![code, access, refresh, id_token, again]
}

#[test]
fn no_secret_reaches_the_log_at_the_most_verbose_level() {
    let p = portal();
    let r = login(&p, WRONG_PASSWORD);
    assert_eq!(r.status, 401, "{}", r.text());
    let r = login(&p, STUB_PASSWORD);
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.json()["id"].as_str().unwrap().to_string();
    let cookie = format!("lemonldap={sid}");
    let r = p
        .client()
        .get("/", &[("Cookie", &cookie), ("Accept", "application/json")]);
    assert_eq!(r.status, 200);

    let mut secrets: Vec<String> = vec![
        STUB_PASSWORD.into(),
        WRONG_PASSWORD.into(),
        SECRET.into(),
        RS_SECRET.into(),
        sid.clone(),
    ];
    secrets.extend(oidc_flow(&p, &sid, "rp1", SECRET));
    secrets.extend(oidc_flow(&p, &sid, "rs", RS_SECRET));

    // The REST servers, from the loopback address they allow by default.
    let c = p.client();
    assert_eq!(c.get_json(&format!("/sessions/global/{sid}")).status, 200);
    let r = c.get_json("/config/latest?full=1");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["key"], json!(CONF_KEY), "the full configuration");
    secrets.push(CONF_KEY.into());
    let note = json!({"uid": "rtyler", "date": "2024-01-02", "reference": "LEAK1", "text": "t"});
    let r = c.send_json("POST", "/notifications", &note);
    assert_eq!(r.json(), json!({"result": 1}), "{}", r.text());

    // A second session, deleted over REST; then the first one logs out.
    let r = login(&p, STUB_PASSWORD);
    let other = r.json()["id"].as_str().unwrap().to_string();
    let r = c.send(
        "DELETE",
        &format!("/sessions/global/{other}"),
        &[("Accept", "application/json")],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    secrets.push(other);
    let r = c.get(
        "/?logout=1",
        &[("Cookie", &cookie), ("Accept", "application/json")],
    );
    assert!(r.status < 400, "logout: {}", r.status);

    let log = p.log();
    // The log was written at debug level and names the user: it is the log we mean to read.
    assert!(log.lines().count() >= 20, "a verbose log:\n{log}");
    assert!(
        log.contains("alice"),
        "the user is named in the log:\n{log}"
    );
    let leaked: Vec<&String> = secrets
        .iter()
        .filter(|s| {
            let prefix: String = s.chars().take(12).collect();
            log.contains(s.as_str()) || (s.len() > 12 && log.contains(&prefix))
        })
        .collect();
    assert!(leaked.is_empty(), "secrets in the log: {leaked:?}\n{log}");
}
