//! The same nginx configuration (the shipped `conf/nginx-protect.conf`, unchanged but for its
//! ports) in front of LemonLDAP::NG 2.16's own handler and of Limette, both reading the same
//! rules, headers and sessions (the File session store Limette writes, which LemonLDAP::NG's
//! `Apache::Session::File` reads): for each request and cookie the two answers must agree
//! (status, the portal's `url=`, the headers the application gets).
//!
//! LemonLDAP::NG's handler is `Lemonldap::NG::Handler::Server::Nginx`, the class its FastCGI
//! server runs for nginx, served here over HTTP by `plackup`: a three-line PSGI wrapper gives
//! it from the request's headers what nginx's FastCGI parameters would (`X_ORIGINAL_URI`,
//! `REQUEST_URI`, the client's address), so that one nginx file serves both.
use super::servers::{self, ask, APP_HOST};
use super::{limette, login, site};
use crate::common::{free_port, TempDir};
use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// LemonLDAP::NG's handler behind the PSGI wrapper.
const WRAPPER: &str = r#"use strict;
use Lemonldap::NG::Handler::Server::Nginx;
my $app = Lemonldap::NG::Handler::Server::Nginx->run( {} );
sub {
    my $env = shift;
    $env->{X_ORIGINAL_URI} = $env->{REQUEST_URI} = $env->{HTTP_X_ORIGINAL_URI};
    $env->{REMOTE_ADDR} = $env->{HTTP_X_FORWARDED_FOR} if $env->{HTTP_X_FORWARDED_FOR};
    $env->{SERVER_PORT} = $env->{HTTP_X_FORWARDED_PORT} if $env->{HTTP_X_FORWARDED_PORT};
    return $app->($env);
}
"#;

/// Starts LemonLDAP::NG's handler on `port` with the site's rules, Limette's portal and
/// sessions.
fn llng_handler(d: &Path, port: u16, portal: &str, sessions: &Path) -> servers::Proc {
    let debian = std::fs::read_to_string("/var/lib/lemonldap-ng/conf/lmConf-1.json")
        .expect("LemonLDAP::NG's Debian configuration (.ci/setup.d/llng-portal.sh)");
    let mut conf: serde_json::Map<String, Value> = serde_json::from_str(&debian).unwrap();
    for (k, v) in site() {
        conf.insert(k.into(), v);
    }
    std::fs::create_dir_all(d.join("conf")).unwrap();
    std::fs::create_dir_all(d.join("locks")).unwrap();
    let patch = json!({
        "cfgNum": 1, "portal": portal, "cookieName": "lemonldap", "securedCookie": 0,
        "globalStorage": "Apache::Session::File",
        "globalStorageOptions": {"Directory": sessions, "LockDirectory": d.join("locks")},
        "localSessionStorage": "", "whatToTrace": "uid", "timeout": 72000
    });
    for (k, v) in patch.as_object().unwrap() {
        conf.insert(k.clone(), v.clone());
    }
    let file = d.join("conf/lmConf-1.json");
    std::fs::write(file, serde_json::to_vec(&Value::Object(conf)).unwrap()).unwrap();
    let ini = format!(
        "[all]\nlogLevel = warn\n[configuration]\ntype = File\ndirName = {}\n[handler]\nstatus = 0\n",
        d.join("conf").display()
    );
    std::fs::write(d.join("lemonldap-ng.ini"), ini).unwrap();
    std::fs::write(d.join("handler.psgi"), WRAPPER).unwrap();
    let out = std::fs::File::create(d.join("llng.out")).unwrap();
    let mut cmd = Command::new("plackup");
    cmd.args(["-s", "HTTP::Server::PSGI", "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .args(["-E", "deployment", "--no-default-middleware"])
        .arg(d.join("handler.psgi"))
        .env("LLNG_DEFAULTCONFFILE", d.join("lemonldap-ng.ini"))
        .env("LLNG_DEFAULTLOGGER", "Lemonldap::NG::Common::Logger::Std")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .process_group(0);
    let mut proc = servers::Proc(cmd.spawn().expect("plackup (libplack-perl)"));
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        let said = || std::fs::read_to_string(d.join("llng.out")).unwrap_or_default();
        if let Ok(Some(s)) = proc.0.try_wait() {
            panic!("LemonLDAP::NG's handler exited ({s}):\n{}", said());
        }
        assert!(
            Instant::now() < deadline,
            "LemonLDAP::NG's handler never listened:\n{}",
            said()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    proc
}

/// What a user sees of one answer: status, the portal URL it is sent to (the URL it carries
/// decoded, the web server's own port written `PORT`: each handler has its own nginx), the
/// headers the application got from the handler.
fn seen(port: u16, path: &str, cookie: Option<&str>) -> Value {
    let cookie = cookie.map(|c| format!("lemonldap={c}"));
    let mut h = vec![("Auth-User", "forged")];
    if let Some(c) = &cookie {
        h.push(("Cookie", c));
    }
    let (host, path) = path.split_once(' ').unwrap_or((APP_HOST, path));
    let r = ask(port, "GET", host, path, &h);
    let app = if r.status == 200 {
        r.json()["headers"].clone()
    } else {
        Value::Null
    };
    let location = r.header("location").map(|l| {
        let back = super::url_param(l).replace(&format!(":{port}/"), ":PORT/");
        let (portal, rest) = l.split_once("?url=").unwrap_or((l, ""));
        let tail = rest.split_once('&').map_or("", |(_, t)| t);
        format!("{portal} {back} {tail}")
    });
    json!({
        "status": r.status,
        "location": location,
        "auth-user": app.get("auth-user"),
        "auth-mail": app.get("auth-mail"),
    })
}

#[test]
fn the_same_nginx_configuration_answers_alike_with_lemonldap_ng_s_handler() {
    let limette = limette();
    let (_app, app_port) = servers::echo_app();
    let dir = TempDir::new("handler-llng");
    let llng_port = free_port();
    let sessions = limette.data().join("sessions");
    let _llng = llng_handler(dir.path(), llng_port, &limette.url("/"), &sessions);
    let (ours, theirs) = (dir.path().join("ours"), dir.path().join("theirs"));
    std::fs::create_dir_all(&ours).unwrap();
    std::fs::create_dir_all(&theirs).unwrap();
    let (our_port, their_port) = (free_port(), free_port());
    let _n1 = servers::nginx(&ours, our_port, limette.port, app_port);
    let _n2 = servers::nginx(&theirs, their_port, llng_port, app_port);

    let dwho = login(&limette, "dwho");
    let rose = login(&limette, "rtyler");
    let cases: [(&str, Option<&str>); 11] = [
        ("/private?x=1", None),
        ("/private?x=1", Some(&dwho)),
        ("/admin/", Some(&dwho)),
        ("/admin/", Some(&rose)),
        ("/deny", Some(&dwho)),
        ("/static/a.css", None),
        ("/public", None),
        ("/public", Some(&rose)),
        ("other.example.com /", None),
        ("other.example.com /", Some(&dwho)),
        (
            "/private",
            Some("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
        ),
    ];
    for (path, cookie) in cases {
        let (a, b) = (seen(their_port, path, cookie), seen(our_port, path, cookie));
        assert_eq!(
            a,
            b,
            "{path} with {cookie:?}: LemonLDAP::NG (left) and Limette (right) differ\n{}\n{}",
            std::fs::read_to_string(dir.path().join("llng.out")).unwrap_or_default(),
            servers::logs(&theirs)
        );
    }
    // logout_sso: the same redirect (LemonLDAP::NG asked first: it leaves the session to the
    // portal, Limette ends it).
    let (a, b) = (
        seen(their_port, "/logout", Some(&rose)),
        seen(our_port, "/logout", Some(&rose)),
    );
    assert_eq!(a, b);
}
