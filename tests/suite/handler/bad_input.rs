//! The handler endpoint asked directly, as nginx asks it, and with what it must refuse: a peer
//! outside `handlerAllowFrom`, a body, a question without its headers, an unknown virtual host;
//! the nginx shape of its answers (LemonLDAP::NG's `Headername<i>`/`Headervalue<i>`); a rule
//! outside the rules language (its virtual host denies everything, `config check` names it);
//! a `vhostType` other than Main (start-up refused, naming it).
use super::servers::APP_HOST;
use super::{limette, login, url_param, XFF};
use crate::common::config::cli;
use crate::common::{self, default_conf, Portal, TempDir};
use serde_json::{json, Value};

/// `/lmauth` asked as nginx's `auth_request` does, for `uri`.
fn lmauth(p: &Portal, host: &str, uri: &str, cookie: Option<&str>) -> common::Resp {
    let mut h = vec![("Host", host), ("X-Original-URI", uri), XFF];
    let cookie = cookie.map(|c| format!("lemonldap={c}; theme=dark"));
    if let Some(c) = &cookie {
        h.push(("Cookie", c));
    }
    super::servers::ask(p.port, "GET", host, "/lmauth", &h[1..])
}

#[test]
fn the_nginx_shape_of_the_answers() {
    let p = limette();
    let r = lmauth(&p, APP_HOST, "/x?y=1", None);
    assert_eq!(r.status, 401);
    assert_eq!(
        url_param(r.header("location").unwrap()),
        format!("http://{APP_HOST}/x?y=1")
    );
    let sid = login(&p, "dwho");
    let r = lmauth(&p, &format!("{APP_HOST}:8443"), "/x", Some(&sid));
    assert_eq!(r.status, 200, "{}", p.log());
    let h = |n: &str| r.header(n).map(str::to_string);
    assert_eq!(h("lm-remote-user").as_deref(), Some("dwho"));
    // Sorted by name: Auth-Mail, then Auth-User.
    assert_eq!(h("headername1").as_deref(), Some("Auth-Mail"));
    assert_eq!(h("headervalue1").as_deref(), Some("dwho@badwolf.org"));
    assert_eq!(h("headername2").as_deref(), Some("Auth-User"));
    assert_eq!(h("headervalue2").as_deref(), Some("dwho"));
    assert_eq!(h("auth-user").as_deref(), Some("dwho"));
    assert_eq!(h("cookie").as_deref(), Some("theme=dark"));
    assert_eq!(r.body.len(), 0);
    // skip: nginx is told which headers to drop.
    let r = lmauth(&p, APP_HOST, "/static/a", None);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("deleteheader1"), Some("Auth-Mail"));
    assert_eq!(r.header("deleteheader2"), Some("HTTP_AUTH_MAIL"));
    // An unknown virtual host: the login first, then refused.
    assert_eq!(lmauth(&p, "other.example.com", "/", None).status, 401);
    assert_eq!(lmauth(&p, "other.example.com", "/", Some(&sid)).status, 403);
}

#[test]
fn what_the_endpoint_refuses() {
    let p = limette();
    // No X-Original-URI: the web server's configuration is incomplete.
    let r = super::servers::ask(p.port, "GET", APP_HOST, "/lmauth", &[XFF]);
    assert_eq!(r.status, 400, "{}", r.text());
    // A body is never read: refused from the head.
    let r = p.client().send(
        "POST",
        "/lmauth",
        &[("X-Original-URI", "/"), XFF],
        b"user=dwho",
    );
    assert_eq!(r.status, 413);
    // Only the web servers of handlerAllowFrom may ask.
    let closed = Portal::builder()
        .ini("handlerAllowFrom = 192.0.2.1")
        .conf("locationRules", json!({APP_HOST: {"default": "accept"}}))
        .start();
    let r = lmauth(&closed, APP_HOST, "/", None);
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(r.text().contains("handlerAllowFrom"), "{}", r.text());
    // Loopback by default, and no trusted proxy needed to ask.
    let open = Portal::builder()
        .conf("locationRules", json!({APP_HOST: {"default": "accept"}}))
        .start();
    let r = super::servers::ask(
        open.port,
        "GET",
        APP_HOST,
        "/lmauth",
        &[("X-Original-URI", "/")],
    );
    assert_eq!(r.status, 401, "{}", r.text());
}

#[test]
fn a_rule_outside_the_language_closes_its_virtual_host_and_is_named() {
    let p = Portal::builder()
        .ini("trustedProxies = 127.0.0.1")
        .conf(
            "locationRules",
            json!({
                APP_HOST: {"^/open": "accept", "^/perl": "$uid =~ /x/ && system('id')", "default": "accept"},
                "fine.example.com": {"default": "accept"}
            }),
        )
        .start();
    let sid = login(&p, "dwho");
    assert_eq!(lmauth(&p, APP_HOST, "/open", Some(&sid)).status, 403);
    assert_eq!(lmauth(&p, "fine.example.com", "/", Some(&sid)).status, 200);
    let run = cli(&p, &["check"]);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains(&format!("locationRules/{APP_HOST}/^/perl")))
        .unwrap_or_else(|| panic!("{}{}", run.stdout, run.stderr));
    assert!(line.contains("denies every request"), "{line}");
}

#[test]
fn other_handler_types_refuse_start_up_by_name() {
    let dir = TempDir::new("handler-type");
    let conf_dir = dir.path().join("conf");
    std::fs::create_dir_all(&conf_dir).unwrap();
    let mut conf = default_conf();
    conf.insert(
        "locationRules".into(),
        json!({APP_HOST: {"default": "accept"}}),
    );
    conf.insert(
        "vhostOptions".into(),
        json!({APP_HOST: {"vhostType": "CDA"}}),
    );
    std::fs::write(
        conf_dir.join("lmConf-1.json"),
        serde_json::to_vec(&Value::Object(conf)).unwrap(),
    )
    .unwrap();
    let ini = dir.path().join("limette.ini");
    let sessions = dir.path().join("sessions");
    std::fs::write(
        &ini,
        format!(
            "[configuration]\ntype = File\ndirName = {}\n[portal]\nlisten = 127.0.0.1:0\n\
             globalStorage = File\nglobalStorageOptions = {{\"Directory\": \"{}\"}}\n",
            conf_dir.display(),
            sessions.display()
        ),
    )
    .unwrap();
    let o = common::command(&ini, dir.path(), &[]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("vhostOptions/{APP_HOST}/vhostType = CDA")),
        "{err}"
    );
}

/// LemonLDAP::NG's own example virtual hosts (its Debian configuration's rules and headers)
/// with every option the endpoint reads: `config check` has nothing to say about them.
#[test]
fn config_check_accepts_a_site_s_virtual_hosts() {
    let debian = std::fs::read_to_string("/var/lib/lemonldap-ng/conf/lmConf-1.json")
        .expect("LemonLDAP::NG's Debian configuration (.ci/setup.d/llng-portal.sh)");
    let debian: Value = serde_json::from_str(&debian).unwrap();
    let options = json!({
        "test1.example.com": {"vhostAliases": "t1.example.com", "vhostHttps": 1, "vhostPort": 443,
                              "vhostAuthnLevel": 1, "vhostMaintenance": 0, "vhostType": "Main"},
        "test2.example.com": {"vhostHttps": -1, "vhostPort": -1}
    });
    let p = Portal::builder()
        .conf("locationRules", debian["locationRules"].clone())
        .conf("exportedHeaders", debian["exportedHeaders"].clone())
        .conf("vhostOptions", options)
        .conf("handlerInternalCache", json!(15))
        .start();
    let run = cli(&p, &["check"]);
    let handler_keys = [
        "locationRules/",
        "denies every request",
        "exportedHeaders",
        "vhostOptions",
        "handlerInternalCache",
    ];
    let said: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| handler_keys.iter().any(|k| l.contains(k)))
        .collect();
    assert!(said.is_empty(), "{said:?}\n{}", run.stdout);
    assert_ne!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
}
