//! The forward-auth shape (`/lmauth/forward`): the real Caddy with the shipped
//! `conf/Caddyfile-protect` in front of the test application, and Traefik's ForwardAuth
//! protocol as its documentation describes it (Traefik is not in the distribution): a `GET` to
//! the address with the original request's headers and `X-Forwarded-Method`, `-Proto`,
//! `-Host`, `-Uri`, `-For`; a 2xx answer lets the request through with `authResponseHeaders`,
//! any other is the client's answer.
use super::servers::{self, ask, APP_HOST};
use super::{limette, login, login_through, url_param};
use crate::common::TempDir;

#[test]
fn caddy_forward_auth_protects_an_application() {
    let limette = limette();
    let (_app, app_port) = servers::echo_app();
    let dir = TempDir::new("handler-caddy");
    let port = servers::port();
    let _caddy = servers::caddy(dir.path(), port, limette.port, app_port);
    let get = |path: &str, headers: &[(&str, &str)]| ask(port, "GET", APP_HOST, path, headers);
    let why = || format!("{}\n{}", servers::logs(dir.path()), limette.log());

    let r = get("/private?x=1", &[]);
    assert_eq!(r.status, 302, "{}", why());
    let location = r.header("location").unwrap().to_string();
    let back = format!("http://{APP_HOST}/private?x=1");
    assert_eq!(url_param(&location), back);
    let sid = login_through(&limette, &location, "dwho", &back);

    let cookie = format!("lemonldap={sid}");
    let r = get(
        "/private?x=1",
        &[("Cookie", &cookie), ("Auth-User", "root")],
    );
    assert_eq!(r.status, 200, "{}", why());
    let seen = r.json();
    assert_eq!(seen["path"], "/private?x=1");
    assert_eq!(seen["headers"]["auth-user"], "dwho");
    assert_eq!(seen["headers"]["lm-remote-user"], "dwho");

    // A form posted to the application: the body goes to the application, never to Limette.
    let form = [
        ("Cookie", cookie.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    let r = servers::send(port, "POST", APP_HOST, "/form", &form, b"a=1");
    assert_eq!(r.status, 200, "{}", why());
    assert_eq!(r.json()["method"], "POST");

    let rose = format!("lemonldap={}", login(&limette, "rtyler"));
    assert_eq!(
        get("/admin/", &[("Cookie", &rose)]).status,
        403,
        "{}",
        why()
    );
    let r = get("/static/a.css", &[("Auth-User", "root")]);
    assert_eq!(r.status, 200, "{}", why());
    // Removed, or set empty by forward_auth's copy: never the forged value.
    let forged = r.json()["headers"].get("auth-user").cloned();
    assert!(
        forged.is_none() || forged == Some(serde_json::json!("")),
        "{forged:?}"
    );
    let r = get("/logout", &[("Cookie", &rose)]);
    assert_eq!(r.status, 302);
    assert!(r.header("location").unwrap().ends_with("&logout=1"));
    assert_eq!(get("/", &[("Cookie", &rose)]).status, 302);
}

#[test]
fn traefik_forward_auth_protocol() {
    let limette = limette();
    let traefik = |uri: &str, cookie: Option<&str>| {
        let cookie = cookie.map(|c| format!("lemonldap={c}"));
        let mut h = vec![
            ("X-Forwarded-Method", "GET"),
            ("X-Forwarded-Proto", "http"),
            ("X-Forwarded-Host", APP_HOST),
            ("X-Forwarded-Uri", uri),
            ("X-Forwarded-For", "192.0.2.7"),
            ("Accept", "text/html"),
        ];
        if let Some(c) = &cookie {
            h.push(("Cookie", c));
        }
        let address = format!("127.0.0.1:{}", limette.port);
        ask(limette.port, "GET", &address, "/lmauth/forward", &h)
    };
    let r = traefik("/private?x=%2F", None);
    assert_eq!(r.status, 302);
    let location = r.header("location").unwrap();
    assert!(location.starts_with(&limette.url("/?url=")), "{location}");
    assert_eq!(
        url_param(location),
        format!("http://{APP_HOST}/private?x=%2F")
    );

    let dwho = login(&limette, "dwho");
    let r = traefik("/", Some(&dwho));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("auth-user"), Some("dwho"));
    assert_eq!(r.header("headername1"), None, "the nginx shape only");
    // The client's URI is canonicalized before the rules see it, as LemonLDAP::NG does.
    let rose = login(&limette, "rtyler");
    for sneaky in ["/admin", "/x/../admin/", "//admin", "/%61dmin", "/./admin"] {
        assert_eq!(traefik(sneaky, Some(&rose)).status, 403, "{sneaky}");
    }
    assert_eq!(traefik("/%ff", Some(&rose)).status, 400);
    // skip: 200 with each header Traefik copies present and empty (Traefik removes what the
    // client sent under those names and copies these).
    let r = traefik("/static/x", None);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("auth-user"), Some(""));
    assert_eq!(r.header("lm-remote-user"), Some(""));
    // logout_sso: 302 to the portal's logout, then the session is gone.
    let r = traefik("/logout", Some(&rose));
    assert_eq!(r.status, 302);
    assert!(r.header("location").unwrap().ends_with("&logout=1"));
    assert_eq!(traefik("/", Some(&rose)).status, 302);
}
