//! The handler endpoint (issue: protect any web application) with the real web servers in
//! front of a test application that echoes the headers it gets: nginx with the shipped
//! `conf/nginx-protect.conf` (auth_request), Caddy with `conf/Caddyfile-protect`
//! (forward_auth), Traefik's ForwardAuth protocol as its documentation states it, and the same
//! nginx configuration in front of LemonLDAP::NG's own handler (`llng`). The user's path is
//! followed as a browser follows it: no cookie, the portal's login, back with the headers of
//! `exportedHeaders`; a denied user; `skip` and `unprotect`; `logout_sso`; an expired session.
mod bad_input;
mod forward;
mod llng;
pub mod servers;

use crate::common::sessions::unb64;
use crate::common::{Portal, TempDir};
use serde_json::{json, Value};
use servers::{ask, APP_HOST};

/// The virtual host's rules, headers and options, as a LemonLDAP::NG site writes them.
pub fn site() -> [(&'static str, Value); 3] {
    [
        (
            "locationRules",
            json!({APP_HOST: {
                "^/admin": "$uid eq \"dwho\"",
                "^/deny": "deny",
                "^/static/": "skip",
                "^/public": "unprotect",
                "^/logout": "logout_sso",
                "default": "accept"
            }}),
        ),
        (
            "exportedHeaders",
            json!({APP_HOST: {"Auth-User": "$uid", "Auth-Mail": "$mail"}}),
        ),
        // The application's users reach it on port 80 (this nginx listens elsewhere).
        ("vhostOptions", json!({APP_HOST: {"vhostPort": 80}})),
    ]
}

/// What the test sends when it speaks to Limette itself: loopback is a trusted proxy (nginx,
/// Caddy), which must say whom it forwards for.
pub const XFF: (&str, &str) = ("X-Forwarded-For", "192.0.2.10");

/// Limette with the site, nginx (or Caddy) as its trusted proxy, and the test clock.
pub fn limette() -> Portal {
    let mut b = Portal::builder()
        .portal_url_matches()
        .ini("trustedProxies = 127.0.0.1")
        .test_hooks();
    for (k, v) in site() {
        b = b.conf(k, v);
    }
    b.start()
}

/// The URL a portal redirect carries in `url=` (LemonLDAP::NG's base64, percent-encoded).
pub fn url_param(location: &str) -> String {
    let enc = location
        .split("url=")
        .nth(1)
        .and_then(|r| r.split('&').next())
        .unwrap_or_else(|| panic!("no url= in {location}"));
    let b64 = enc
        .replace("%2B", "+")
        .replace("%2F", "/")
        .replace("%3D", "=");
    String::from_utf8(unb64(&b64)).unwrap()
}

/// Signs `user` in with the portal's JSON login (through a trusted proxy); the session id.
pub fn login(p: &Portal, user: &str) -> String {
    let fields = [("user", user), ("password", user)];
    let r = p
        .client()
        .post_form("/", &fields, &[("Accept", "application/json"), XFF]);
    assert_eq!(r.status, 200, "login of {user}: {}", r.text());
    r.json()["id"].as_str().unwrap().to_string()
}

/// Signs `sid` out at the portal as a browser does: the confirmation page, then its form.
fn logout(p: &Portal, sid: &str) -> u16 {
    let cookie = format!("lemonldap={sid}");
    let page = p
        .client()
        .get("/?logout=1", &[("Cookie", &cookie), XFF])
        .text();
    let token = page
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no token in {page}"));
    let fields = [("token", token)];
    p.client()
        .post_form("/?logout=1", &fields, &[("Cookie", &cookie), XFF])
        .status
}

/// Signs `user` in on the portal page a web server sent the browser to (`location`), as a
/// browser does (the form, its token and `url` field); checks the portal sends it back to
/// `back`, and returns the new session's id.
pub fn login_through(p: &Portal, location: &str, user: &str, back: &str) -> String {
    let path = location
        .strip_prefix(&p.url(""))
        .unwrap_or_else(|| panic!("{location}"));
    let page = p.client().get(path, &[XFF]).text();
    let field = |name: &str| {
        page.split(&format!("name=\"{name}\" value=\""))
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or_else(|| panic!("no {name} field in {page}"))
            .to_string()
    };
    let (url, token) = (field("url"), field("token"));
    let fields = [
        ("user", user),
        ("password", user),
        ("token", token.as_str()),
        ("url", url.as_str()),
    ];
    let r = p.client().post_form("/", &fields, &[XFF]);
    assert_eq!(r.status, 302, "{}", r.text());
    assert_eq!(r.header("location"), Some(back));
    r.cookie("lemonldap").expect("the SSO cookie")
}

#[test]
fn nginx_auth_request_protects_an_application() {
    let limette = limette();
    let (_app, app_port) = servers::echo_app();
    let dir = TempDir::new("handler-nginx");
    let port = servers::port();
    let _nginx = servers::nginx(dir.path(), port, limette.port, app_port);
    let get = |path: &str, headers: &[(&str, &str)]| ask(port, "GET", APP_HOST, path, headers);
    let why = || format!("{}\n{}", servers::logs(dir.path()), limette.log());

    // No cookie: to the portal, which signs in and sends back to the application.
    let r = get("/private?x=1", &[]);
    assert_eq!(r.status, 302, "{}", why());
    let location = r.header("location").unwrap().to_string();
    assert!(location.starts_with(&limette.url("/?url=")), "{location}");
    let back = format!("http://{APP_HOST}/private?x=1");
    assert_eq!(url_param(&location), back);
    let sid = login_through(&limette, &location, "dwho", &back);

    // Back with the cookie: the application gets the exported headers, not the SSO cookie,
    // and never a header of that name the client forged.
    let cookie = format!("theme=dark; lemonldap={sid}");
    let r = get(
        "/private?x=1",
        &[("Cookie", &cookie), ("Auth-User", "root")],
    );
    assert_eq!(r.status, 200, "{}", why());
    let seen = r.json();
    assert_eq!(seen["path"], "/private?x=1");
    assert_eq!(seen["headers"]["auth-user"], "dwho");
    assert_eq!(seen["headers"]["auth-mail"], "dwho@badwolf.org");
    assert_eq!(seen["headers"]["cookie"], "theme=dark");

    // A rule that denies: 403, the application never asked.
    let rose = login(&limette, "rtyler");
    let rose_cookie = format!("lemonldap={rose}");
    assert_eq!(get("/admin/", &[("Cookie", &rose_cookie)]).status, 403);
    assert_eq!(get("/admin/", &[("Cookie", &cookie)]).status, 200);
    assert_eq!(get("/deny", &[("Cookie", &cookie)]).status, 403);
    // nginx decodes the path it sends as X-Original-URI: a line smuggled into it never picks
    // the URI the rules see.
    let smuggled = "/admin%0D%0AX-Original-URI:%20/public";
    let r = get(smuggled, &[("Cookie", &rose_cookie)]);
    assert!(r.status != 200 && r.status != 302, "{} {}", r.status, why());

    // skip: no session looked at, no headers passed (a forged one removed).
    let r = get("/static/app.css", &[("Auth-User", "root")]);
    assert_eq!(r.status, 200, "{}", why());
    assert_eq!(r.json()["headers"].get("auth-user"), None);
    // unprotect: open without a session, the user's headers with one.
    let r = get("/public", &[("Auth-User", "root")]);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["headers"].get("auth-user"), None);
    let r = get("/public", &[("Cookie", &rose_cookie)]);
    assert_eq!(r.json()["headers"]["auth-user"], "rtyler");

    // logout_sso ends the SSO session (at once, cached or not) and goes to the portal.
    let r = get("/logout", &[("Cookie", &rose_cookie)]);
    assert_eq!(r.status, 302);
    let to = r.header("location").unwrap();
    assert!(
        to.starts_with(&limette.url("/?url=")) && to.ends_with("&logout=1"),
        "{to}"
    );
    assert_eq!(url_param(to), limette.url("/"));
    assert_eq!(get("/public", &[("Cookie", &rose_cookie)]).status, 200);
    assert_eq!(get("/private", &[("Cookie", &rose_cookie)]).status, 302);

    // A logout at the portal reaches the cached session at once.
    let other = login(&limette, "msmith");
    let other_cookie = format!("lemonldap={other}");
    assert_eq!(get("/", &[("Cookie", &other_cookie)]).status, 200);
    assert_eq!(logout(&limette, &other), 302);
    assert_eq!(get("/", &[("Cookie", &other_cookie)]).status, 302);

    // An expired session goes back to the login, even cached.
    assert_eq!(get("/", &[("Cookie", &cookie)]).status, 200);
    let r = limette.client().get("/__test/clock?advance=100000", &[XFF]);
    assert_eq!(r.status, 200);
    let r = get("/private", &[("Cookie", &cookie)]);
    assert_eq!(r.status, 302);
    assert!(r
        .header("location")
        .unwrap()
        .starts_with(&limette.url("/?url=")));
}
