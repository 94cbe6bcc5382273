//! The real servers of the handler tests, each on loopback with its files in a temp folder and
//! killed (its process group) on drop: the protected test application (tests/handler/
//! echo_app.py, which echoes the headers it got), nginx with the shipped
//! `conf/nginx-protect.conf` and Caddy with the shipped `conf/Caddyfile-protect` (only their
//! ports changed), and a raw client that sends the `Host` a browser of the application sends.
use crate::common::free_port;
use crate::common::http::{read_response, Resp};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The application's virtual host, as its users' browsers name it.
pub const APP_HOST: &str = "app.example.com";

/// A server process, killed with its process group on drop.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The echo application; its port.
pub fn echo_app() -> (Proc, u16) {
    let mut child = Command::new(crate::python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/handler/echo_app.py"
        ))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .expect("start the echo application");
    let mut line = String::new();
    let out = child.stdout.take().expect("its stdout");
    BufReader::new(out)
        .read_line(&mut line)
        .expect("its first line");
    let port = line
        .trim()
        .strip_prefix("listening ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("echo app said {line:?}"));
    (Proc(child), port)
}

/// Replaces each `from` of the shipped file, which must be there once, by `to`.
fn adapt(shipped: &str, file: &str, edits: &[(&str, String)]) -> String {
    edits.iter().fold(shipped.to_string(), |text, (from, to)| {
        assert_eq!(
            text.matches(from).count(),
            1,
            "{file} no longer has `{from}` once: update this test"
        );
        text.replace(from, to)
    })
}

/// nginx serving the shipped `conf/nginx-protect.conf`, asking the handler endpoint at
/// `handler` (a port) for the application at `app`.
pub fn nginx(d: &Path, port: u16, handler: u16, app: u16) -> Proc {
    let site = adapt(
        include_str!("../../../conf/nginx-protect.conf"),
        "conf/nginx-protect.conf",
        &[
            ("listen 80;", format!("listen 127.0.0.1:{port};")),
            (
                "server 127.0.0.1:8080;",
                format!("server 127.0.0.1:{handler};"),
            ),
            (
                "proxy_pass http://127.0.0.1:8081;",
                format!("proxy_pass http://127.0.0.1:{app};"),
            ),
        ],
    );
    let p = |f: &str| d.join(f).display().to_string();
    std::fs::create_dir_all(d.join("temp")).unwrap();
    std::fs::write(d.join("site.conf"), site).unwrap();
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
    let mut cmd = Command::new("nginx");
    cmd.arg("-p").arg(d).arg("-e").arg(d.join("error.log"));
    cmd.arg("-c").arg(d.join("nginx.conf"));
    spawn(d, "nginx", cmd, port)
}

/// Caddy serving the shipped `conf/Caddyfile-protect` on `port`.
pub fn caddy(d: &Path, port: u16, handler: u16, app: u16) -> Proc {
    let file = adapt(
        include_str!("../../../conf/Caddyfile-protect"),
        "conf/Caddyfile-protect",
        &[
            (
                "http://app.example.com {",
                format!("{{\n\tadmin off\n}}\n\nhttp://{APP_HOST}:{port} {{\n\tbind 127.0.0.1"),
            ),
            (
                "forward_auth 127.0.0.1:8080 {",
                format!("forward_auth 127.0.0.1:{handler} {{"),
            ),
            (
                "reverse_proxy 127.0.0.1:8081",
                format!("reverse_proxy 127.0.0.1:{app}"),
            ),
        ],
    );
    std::fs::write(d.join("Caddyfile"), file).unwrap();
    let mut cmd = Command::new("caddy");
    cmd.args(["run", "--adapter", "caddyfile", "--config"])
        .arg(d.join("Caddyfile"));
    cmd.env("HOME", d)
        .env("XDG_DATA_HOME", d)
        .env("XDG_CONFIG_HOME", d);
    spawn(d, "caddy", cmd, port)
}

fn spawn(d: &Path, name: &str, mut cmd: Command, port: u16) -> Proc {
    let out = std::fs::File::create(d.join(format!("{name}.out"))).unwrap();
    cmd.stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .process_group(0);
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("start {name} (.ci/setup.d/handler.sh installs it): {e}"));
    let mut proc = Proc(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    let said = || logs(d);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = proc.0.try_wait() {
            panic!("{name} exited ({status}):\n{}", said());
        }
        assert!(
            Instant::now() < deadline,
            "{name} never listened:\n{}",
            said()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    proc
}

/// What the servers of folder `d` logged.
pub fn logs(d: &Path) -> String {
    ["nginx.out", "error.log", "caddy.out"]
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(d.join(f)).ok()?;
            Some(format!("--- {f}\n{text}"))
        })
        .collect()
}

/// A request to the web server at `port` as the application's users send it: `Host` is the
/// application's name (`host`), the other headers as given.
pub fn ask(port: u16, method: &str, host: &str, path: &str, headers: &[(&str, &str)]) -> Resp {
    send(port, method, host, path, headers, b"")
}

/// [`ask`] with a body.
pub fn send(
    port: u16,
    method: &str,
    host: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Resp {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    read_response(&mut BufReader::new(s), method == "HEAD").expect("read response")
}

/// A port free right now.
pub fn port() -> u16 {
    free_port()
}
