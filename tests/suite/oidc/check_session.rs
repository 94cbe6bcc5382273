//! OpenID Connect Session Management 1.0 as a relying party meets it: the browser-state cookie
//! `lemonldapopbs` beside the SSO cookie (readable by scripts, the SSO cookie still not), the
//! `session_state` of an authorization answer recomputed from what the check-session page's
//! script sees, the page itself (framable by the RPs' origins only, never cached), discovery,
//! and the cookie cleared by every logout. The browser itself runs the page in
//! `check_session_browser`.
use crate::common::oidc::{authorize, param, query, start_default, CB};
use crate::common::{Portal, Resp};
use base64::Engine;
use sha2::{Digest, Sha256};

/// The `Set-Cookie` line of cookie `name`.
fn set_cookie<'a>(r: &'a Resp, name: &str) -> &'a str {
    let prefix = format!("{name}=");
    r.headers_named("set-cookie")
        .into_iter()
        .find(|c| c.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {name} cookie: {:?}", r.headers))
}

fn http_only(line: &str) -> bool {
    line.split(';')
        .any(|a| a.trim().eq_ignore_ascii_case("httponly"))
}

/// Logs in with the JSON API: the session id and the browser state the answer set.
fn login(p: &Portal) -> (String, String) {
    let r = p.client().post_form(
        "/",
        &[("user", "dwho"), ("password", "dwho")],
        &[("Accept", "application/json")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let sso = set_cookie(&r, "lemonldap");
    let opbs = set_cookie(&r, "lemonldapopbs");
    assert!(http_only(sso), "the SSO cookie stays HttpOnly: {sso}");
    assert!(!http_only(opbs), "the page's script must read it: {opbs}");
    let sid = r.json()["id"].as_str().unwrap().to_string();
    let state = r.cookie("lemonldapopbs").unwrap();
    assert_eq!(state.len(), 32, "{state}");
    assert!(!state.contains(&sid) && !sid.contains(&state));
    (sid, state)
}

/// What the page's script computes: base64(sha256(client_id origin opbs salt)).salt.
fn recompute(client_id: &str, origin: &str, opbs: &str, salt: &str) -> String {
    let hash = Sha256::digest(format!("{client_id} {origin} {opbs} {salt}"));
    let b64 = base64::engine::general_purpose::STANDARD.encode(hash);
    format!("{b64}.{salt}")
}

#[test]
fn session_state_is_what_the_page_recomputes_from_the_browser_state() {
    let p = start_default();
    let (sid, opbs) = login(&p);
    let r = authorize(&p, Some(&sid), &query("rp1", ""), &[]);
    assert_eq!(r.status, 302, "{}", r.text());
    let ss = param(r.header("location").unwrap(), "session_state").expect("session_state");
    let (_, salt) = ss.rsplit_once('.').expect("hash.salt");
    assert_eq!(CB, "http://127.0.0.1:19999/cb");
    assert_eq!(ss, recompute("rp1", "http://127.0.0.1:19999", &opbs, salt));
    // From another origin, or once the browser state changed, it no longer matches.
    assert_ne!(ss, recompute("rp1", "http://127.0.0.1:20000", &opbs, salt));
    let (_, other) = login(&p);
    assert_ne!(other, opbs, "a new session, a new browser state");
    assert_ne!(ss, recompute("rp1", "http://127.0.0.1:19999", &other, salt));
    // Each answer has its own salt.
    let again = authorize(&p, Some(&sid), &query("rp1", ""), &[]);
    let ss2 = param(again.header("location").unwrap(), "session_state").unwrap();
    assert_ne!(ss, ss2);
}

#[test]
fn the_page_is_framable_by_the_relying_parties_only_and_never_cached() {
    let p = start_default();
    let c = p.client();
    let r = c.get("/oauth2/checksession.html", &[]);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    let csp = r.header("content-security-policy").unwrap();
    // Every RP of `start_default` redirects to CB: one origin.
    assert!(
        csp.contains("frame-ancestors http://127.0.0.1:19999;"),
        "{csp}"
    );
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert_eq!(r.header("x-frame-options"), None);
    assert!(r.header("cache-control").unwrap().contains("no-store"));
    let page = r.text();
    assert!(
        page.contains("<script src=\"/static/check_session.js\" data-cookie=\"lemonldapopbs\">"),
        "{page}"
    );
    assert!(!page.contains("<script>"), "no inline script: {page}");
    let js = c.get("/static/check_session.js", &[]);
    assert_eq!(js.status, 200);
    assert!(js
        .header("content-type")
        .unwrap()
        .starts_with("text/javascript"));
    assert!(js.text().contains("crypto.subtle.digest(\"SHA-256\""));
    // Other pages still refuse every framer.
    let login_page = c.get("/", &[]);
    let csp = login_page.header("content-security-policy").unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(login_page.header("x-frame-options"), Some("DENY"));
    // A page, not an endpoint to post to.
    let post = c.post_form("/oauth2/checksession.html", &[("a", "b")], &[]);
    assert_eq!(post.status, 405);
}

#[test]
fn discovery_advertises_the_page() {
    let p = start_default();
    let d = p
        .client()
        .get_json("/.well-known/openid-configuration")
        .json();
    assert_eq!(
        d["check_session_iframe"],
        p.url("/oauth2/checksession.html").as_str()
    );
}

#[test]
fn every_logout_clears_the_browser_state() {
    let p = start_default();
    let c = p.client();
    let cleared = |r: &Resp, what: &str| {
        let line = set_cookie(r, "lemonldapopbs");
        assert!(
            line.starts_with("lemonldapopbs=0;") && line.contains("expires=Wed, 21 Oct 2015"),
            "{what}: {line}"
        );
        assert!(
            set_cookie(r, "lemonldap").starts_with("lemonldap=0;"),
            "{what}"
        );
    };
    // The portal's logout.
    let (sid, _) = login(&p);
    let cookie = format!("lemonldap={sid}");
    let out = p.logout_confirmed(&sid);
    cleared(&out, "portal logout");
    // The check-session page, asked with the ended session's cookie, clears them too: the
    // browser state then no longer gives the old session_state.
    let page = c.get("/oauth2/checksession.html", &[("Cookie", &cookie)]);
    cleared(&page, "page after logout");
    // /session/my, as LemonLDAP::NG's portal script deletes the session.
    let (sid, _) = login(&p);
    let cookie = format!("lemonldap={sid}");
    let del = c.send("DELETE", "/session/my", &[("Cookie", &cookie)], b"");
    assert_eq!(del.status, 200, "{}", del.text());
    cleared(&del, "DELETE /session/my");
    // RP-initiated logout, confirmed.
    let (sid, _) = login(&p);
    let cookie = format!("lemonldap={sid}");
    let ask = c.get("/oauth2/logout", &[("Cookie", &cookie)]);
    let page = ask.text();
    let start = page.find("name=\"token\" value=\"").expect("a token") + 20;
    let token = page[start..].split('"').next().unwrap();
    let done = c.post_form(
        "/oauth2/logout",
        &[("confirm", "1"), ("token", token)],
        &[("Cookie", &cookie)],
    );
    cleared(&done, "RP-initiated logout");
    // A live session's page sets nothing.
    let (sid, _) = login(&p);
    let page = c.get(
        "/oauth2/checksession.html",
        &[("Cookie", &format!("lemonldap={sid}"))],
    );
    assert!(page.headers_named("set-cookie").is_empty());
}

#[test]
fn the_page_answers_in_a_real_browser() {
    // The RP's page is served by the script on 127.0.0.1 (another origin, the same site: the
    // browser-state cookie's SameSite=Lax lets the framed page read it), a secure context
    // where Web Crypto works. The script serves the RP's pages on ports the system picks and says which; the portal
    // is then started with the RP's redirect URI on that port, and its URL sent to the script.
    let mut script = std::process::Command::new(crate::python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/check_session.py"
        ))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the tests' python3 starts (make test builds it)");
    let mut stdout = std::io::BufReader::new(script.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    let rp_port: u16 = match first.split_whitespace().collect::<Vec<_>>()[..] {
        ["ports", rp, _other] => rp.parse().unwrap(),
        _ => {
            let out = script.wait_with_output().unwrap();
            panic!(
                "no ports from the script: {first:?}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    };
    let cb = format!("http://127.0.0.1:{rp_port}/cb");
    let p = crate::common::oidc::start(&[(
        "rp",
        crate::common::oidc::rp("rp", serde_json::json!({"RedirectUris": cb})),
    )]);
    let mut stdin = script.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, format!("{}\n", p.url("")).as_bytes()).unwrap();
    drop(stdin);
    // Standard error is read while the script runs; its few lines of standard output wait in
    // the pipe until it has ended.
    let out = script.wait_with_output().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let out = std::process::Output {
        stdout: format!("{first}{rest}").into_bytes(),
        ..out
    };
    assert!(
        out.status.success(),
        "check-session flow failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
