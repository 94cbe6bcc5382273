//! TLS through a front terminator, as docs/security.md tells an administrator to run it: the
//! distribution's nginx with the shipped `conf/nginx-tls.conf` (only its names, paths and
//! ports changed), a throw-away CA and server certificate made with openssl, in front of a
//! Limette with `portal = https://...`, `securedCookie = 1` and `trustedProxies = 127.0.0.1`.
//! A client that trusts only that CA (Python requests, in the tests' virtual environment)
//! logs in, follows the redirect after login and completes an OpenID Connect code flow over
//! https (tests/tls/https_flow.py). Nothing here skips: without nginx or openssl the test
//! fails and names the setup script that installs them.
use crate::common;
use crate::python;

use common::oidc::{rp, SECRET};
use common::{free_port, Portal, TempDir};
use serde_json::json;
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The relying party's redirect URI (never called: the client reads the code from the
/// redirect).
const CB: &str = "https://rp.example.com/cb";

#[test]
fn login_and_code_flow_over_https_behind_nginx() {
    require(&["nginx", "openssl"]);
    let tls = TempDir::new("tls");
    let port = free_port();
    let portal = format!("https://127.0.0.1:{port}/");
    // Not `oidc::builder`: its portal URL is Limette's own http address.
    let limette = Portal::builder()
        .conf("portal", json!(portal))
        .conf(
            "oidcRPMetaDataOptions",
            json!({"rp1": rp("rp1", json!({"RedirectUris": CB}))}),
        )
        .conf(
            "oidcRPMetaDataExportedVars",
            json!({"rp1": {"email": "mail", "name": "cn", "preferred_username": "uid"}}),
        )
        .conf("securedCookie", json!(1))
        .conf("strictTransportSecurityMax_Age", json!(600))
        .ini("trustedProxies = 127.0.0.1")
        .start();
    certificates(tls.path());
    let _nginx = Nginx::start(tls.path(), port, limette.port);

    let out = Command::new(python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/tls/https_flow.py"
        ))
        .arg(&portal)
        .arg(tls.path().join("ca.pem"))
        .args(["rp1", SECRET, CB])
        .output()
        .expect("the tests' python3 starts (make test builds it)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("TLS OK"),
        "https flow failed:\n{stdout}\n{}\n--- nginx\n{}\n--- limette\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(tls.path().join("error.log")).unwrap_or_default(),
        limette.log()
    );
}

/// Fails, naming the setup script, when a tool is missing (a missing tool is a failed test).
fn require(tools: &[&str]) {
    let missing: Vec<&&str> = tools
        .iter()
        .filter(|t| {
            !["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
                .iter()
                .any(|d| Path::new(d).join(t).exists())
        })
        .collect();
    assert!(
        missing.is_empty(),
        "missing {missing:?}: run .ci/setup.d/tls.sh as root (or `make test`)"
    );
}

/// A throw-away CA (`ca.pem`) and a server certificate for 127.0.0.1 signed by it
/// (`server.pem`, `server.key`), valid for a day.
fn certificates(d: &Path) {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(d)
            .output()
            .expect("run openssl");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    openssl(
        &[
            &["req", "-x509", "-days", "1", "-subj", "/CN=Limette test CA"][..],
            &ec,
            &["-keyout", "ca.key", "-out", "ca.pem"],
            &["-addext", "basicConstraints=critical,CA:TRUE"],
            &["-addext", "keyUsage=critical,keyCertSign,cRLSign"],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req", "-subj", "/CN=127.0.0.1"][..],
            &ec,
            &["-keyout", "server.key", "-out", "server.csr"],
        ]
        .concat(),
    );
    std::fs::write(
        d.join("server.ext"),
        "subjectAltName = IP:127.0.0.1\nbasicConstraints = CA:FALSE\n\
         keyUsage = critical,digitalSignature\nextendedKeyUsage = serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-days",
        "1",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-extfile",
        "server.ext",
        "-out",
        "server.pem",
    ]);
}

/// nginx on loopback with its own prefix, pid and logs in the temp folder, serving the
/// shipped snippet; killed (its process group) on drop.
struct Nginx(Child);

impl Nginx {
    fn start(d: &Path, port: u16, upstream: u16) -> Nginx {
        let shipped = include_str!("../../../conf/nginx-tls.conf");
        let p = |f: &str| d.join(f).display().to_string();
        let site = [
            ("listen 443 ssl;", format!("listen 127.0.0.1:{port} ssl;")),
            (
                "ssl_certificate     /etc/ssl/certs/auth.example.com.pem;",
                format!("ssl_certificate {};", p("server.pem")),
            ),
            (
                "ssl_certificate_key /etc/ssl/private/auth.example.com.key;",
                format!("ssl_certificate_key {};", p("server.key")),
            ),
            (
                "proxy_pass http://127.0.0.1:8080;",
                format!("proxy_pass http://127.0.0.1:{upstream};"),
            ),
        ]
        .iter()
        .fold(shipped.to_string(), |text, (from, to)| {
            assert_eq!(
                text.matches(from).count(),
                1,
                "conf/nginx-tls.conf no longer has `{from}` once: update this test"
            );
            text.replace(from, to)
        });
        std::fs::write(d.join("site.conf"), site).unwrap();
        std::fs::create_dir_all(d.join("temp")).unwrap();
        let main = format!(
            "daemon off;\nworker_processes 1;\npid {pid};\nerror_log {err};\n\
             events {{ worker_connections 64; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {t}/body;\n  \
             proxy_temp_path {t}/proxy;\n  fastcgi_temp_path {t}/fastcgi;\n  \
             uwsgi_temp_path {t}/uwsgi;\n  scgi_temp_path {t}/scgi;\n  include {site};\n}}\n",
            pid = p("nginx.pid"),
            err = p("error.log"),
            t = p("temp"),
            site = p("site.conf"),
        );
        std::fs::write(d.join("nginx.conf"), main).unwrap();
        let out = std::fs::File::create(d.join("nginx.out")).unwrap();
        let mut cmd = Command::new("nginx");
        cmd.arg("-p")
            .arg(d)
            .arg("-e")
            .arg(d.join("error.log"))
            .arg("-c")
            .arg(d.join("nginx.conf"))
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .process_group(0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("start nginx (.ci/setup.d/tls.sh installs it): {e}"));
        let mut nginx = Nginx(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        let said = || {
            format!(
                "{}\n{}",
                std::fs::read_to_string(d.join("nginx.out")).unwrap_or_default(),
                std::fs::read_to_string(d.join("error.log")).unwrap_or_default()
            )
        };
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            // An nginx that refused its configuration has exited: its own words, at once.
            if let Ok(Some(status)) = nginx.0.try_wait() {
                panic!("nginx exited ({status}):\n{}", said());
            }
            assert!(
                Instant::now() < deadline,
                "nginx never listened:\n{}",
                said()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        nginx
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
