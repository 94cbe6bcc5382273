//! A real LemonLDAP::NG 2.16 node for the directory-bridge tests: a throw-away OpenLDAP `slapd`
//! with two users, the LemonLDAP::NG portal (`authentication = LDAP`, REST authentication
//! server on) under `llng-fastcgi-server`, and nginx in front, all on loopback with their files
//! in one temp folder. Every process runs in its own process group, killed on drop. Nothing
//! here is a stub: when the Debian packages are missing the test fails and names the setup
//! script that installs them.
use crate::common::{free_port, TempDir};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The users of the LDAP tree: (uid, password, cn, mail).
pub const USERS: [(&str, &str, &str, &str); 2] = [
    ("alice", "wonderland", "Alice Liddell", "alice@example.org"),
    ("bob", "canwefixit", "Bob Builder", "bob@example.org"),
];

/// Where the Debian default main configuration lives (read, never written).
const DEBIAN_CONF: &str = "/var/lib/lemonldap-ng/conf/lmConf-1.json";
/// The portal's PSGI script, which initialises the portal when loaded.
const PORTAL_PSGI: &str = "/usr/share/lemonldap-ng/portal/htdocs/index.psgi";
/// The system user the FastCGI server drops to (it refuses to run as root).
const RUN_AS: &str = "www-data";
/// How long the whole stack may take to answer its first REST call.
const READY: Duration = Duration::from_secs(90);

/// A running slapd + LemonLDAP::NG + nginx, stopped on drop.
pub struct Llng {
    procs: Vec<(&'static str, Child)>,
    /// The port nginx listens on (LemonLDAP::NG's portal URL).
    pub port: u16,
    dir: TempDir,
}

impl Llng {
    /// Starts the three servers and waits until `/proxy/getUser` answers from LDAP.
    pub fn start() -> Llng {
        Llng::start_with(json!({}))
    }

    /// [`Llng::start`] with `extra` keys in LemonLDAP::NG's configuration.
    pub fn start_with(extra: Value) -> Llng {
        require_packages();
        let dir = TempDir::new("llng");
        let (ldap_port, port) = (free_port(), free_port());
        let mut node = Llng {
            procs: Vec::new(),
            port,
            dir,
        };
        node.start_slapd(ldap_port);
        node.write_llng_files(ldap_port, &extra);
        node.spawn("llng-fastcgi-server", fastcgi_command(node.dir.path()));
        let mut nginx = Command::new("nginx");
        nginx.arg("-c").arg(node.dir.path().join("nginx.conf"));
        node.spawn("nginx", nginx);
        node.wait_ready();
        node
    }

    /// A URL on the LemonLDAP::NG node.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Everything the servers logged so far, for failure messages.
    pub fn logs(&self) -> String {
        [
            "slapd.out",
            "llng-fastcgi-server.out",
            "nginx.out",
            "nginx-error.log",
        ]
        .iter()
        .map(|f| {
            // The first lines hold the cause (a server that fails repeats its last words).
            let text = std::fs::read_to_string(self.dir.path().join(f)).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let shown = if lines.len() <= 70 {
                lines.join("\n")
            } else {
                let (head, tail) = (&lines[..50], &lines[lines.len() - 20..]);
                format!("{}\n[...]\n{}", head.join("\n"), tail.join("\n"))
            };
            format!("--- {f}\n{shown}")
        })
        .collect::<Vec<_>>()
        .join("\n")
    }

    fn start_slapd(&mut self, ldap_port: u16) {
        let d = self.dir.path();
        std::fs::create_dir_all(d.join("ldap-db")).unwrap();
        std::fs::write(d.join("slapd.conf"), slapd_conf(d)).unwrap();
        std::fs::write(d.join("tree.ldif"), tree_ldif()).unwrap();
        let out = Command::new("slapadd")
            .arg("-f")
            .arg(d.join("slapd.conf"))
            .arg("-l")
            .arg(d.join("tree.ldif"))
            .output()
            .expect("run slapadd");
        assert!(out.status.success(), "slapadd: {out:?}");
        let mut slapd = Command::new("slapd");
        slapd
            .arg("-f")
            .arg(d.join("slapd.conf"))
            .arg("-h")
            .arg(format!("ldap://127.0.0.1:{ldap_port}/"))
            .args(["-d", "0"]);
        self.spawn("slapd", slapd);
        let deadline = Instant::now() + READY;
        while TcpStream::connect(("127.0.0.1", ldap_port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "slapd never listened:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn write_llng_files(&self, ldap_port: u16, extra: &Value) {
        let d = self.dir.path();
        for sub in ["conf", "sessions/lock", "psessions/lock", "cache", "nginx"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        let mut conf = llng_conf(d, ldap_port, self.port);
        if let (Some(c), Some(more)) = (conf.as_object_mut(), extra.as_object()) {
            c.extend(more.clone());
        }
        std::fs::write(
            d.join("conf/lmConf-1.json"),
            serde_json::to_vec_pretty(&conf).unwrap(),
        )
        .unwrap();
        std::fs::write(d.join("lemonldap-ng.ini"), llng_ini(d)).unwrap();
        std::fs::write(d.join("nginx.conf"), nginx_conf(d, self.port)).unwrap();
        let owner = Command::new("chown")
            .args(["-R", &format!("{RUN_AS}:{RUN_AS}")])
            .arg(d)
            .status()
            .expect("run chown");
        assert!(owner.success(), "chown of the LemonLDAP::NG folder");
    }

    /// Spawns a server in its own process group, its output in `<name>.out`.
    fn spawn(&mut self, name: &'static str, mut cmd: Command) {
        let out = std::fs::File::create(self.dir.path().join(format!("{name}.out"))).unwrap();
        cmd.stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .process_group(0);
        let child = cmd.spawn().unwrap_or_else(|e| panic!("start {name}: {e}"));
        self.procs.push((name, child));
    }

    /// Polls the REST authentication server until it answers an unknown user from LDAP.
    fn wait_ready(&mut self) {
        let deadline = Instant::now() + READY;
        loop {
            let exited = self
                .procs
                .iter_mut()
                .find_map(|(name, c)| c.try_wait().ok().flatten().map(|s| (*name, s)));
            if let Some((name, status)) = exited {
                panic!("{name} exited ({status}):\n{}", self.logs());
            }
            if self.portal_failed() {
                panic!(
                    "LemonLDAP::NG's portal did not initialise:\n{}\n{}",
                    self.logs(),
                    self.portal_debug()
                );
            }
            let (status, body) = self.post("/proxy/getUser", &json!({"user": "nobody"}));
            if status == 200
                && serde_json::from_str::<Value>(&body).ok() == Some(json!({"result": false}))
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "LemonLDAP::NG never answered:\n{}\n{}",
                self.logs(),
                self.portal_debug()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Whether the portal answers every request with its initialisation error (it does not
    /// retry: waiting longer changes nothing).
    fn portal_failed(&self) -> bool {
        std::fs::read_to_string(self.dir.path().join("llng-fastcgi-server.out"))
            .is_ok_and(|t| t.contains("Initialization failed"))
    }

    /// At the `info` level the portal says only "Initialization failed! Enable debug logs,
    /// reload your web server and catch main error...": its initialisation runs once more in
    /// one process on the same files with debug logs, and the lines that give the reason (a
    /// missing Perl module, a bad setting) are returned.
    fn portal_debug(&self) -> String {
        let d = self.dir.path();
        let ini = llng_ini(d).replace("logLevel = info", "logLevel = debug");
        let debug_ini = d.join("lemonldap-ng-debug.ini");
        if let Err(e) = std::fs::write(&debug_ini, ini) {
            return format!("--- portal with debug logs: {e}");
        }
        let out = Command::new("perl")
            .arg("-e")
            .arg(format!("require '{PORTAL_PSGI}'"))
            .env("LLNG_DEFAULTCONFFILE", &debug_ini)
            .env("LLNG_DEFAULTLOGGER", "Lemonldap::NG::Common::Logger::Std")
            .stdin(Stdio::null())
            .output();
        let text = match out {
            Ok(o) => format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => format!("perl: {e}"),
        };
        let telling: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains("[debug]") && !l.contains("[info]"))
            .collect();
        let shown = telling.iter().rev().take(30).rev().copied();
        format!(
            "--- the portal's initialisation with debug logs (errors and warnings)\n{}",
            shown.collect::<Vec<_>>().join("\n")
        )
    }

    /// POSTs JSON to the node over HTTP/1.0 (so that nginx answers unchunked); status and body.
    pub fn post(&self, path: &str, body: &Value) -> (u16, String) {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return (0, String::new());
        };
        let body = body.to_string();
        let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
        let head = format!(
            "POST {path} HTTP/1.0\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        let mut answer = String::new();
        if s.write_all(head.as_bytes()).is_err() || s.read_to_string(&mut answer).is_err() {
            return (0, String::new());
        }
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let body = answer
            .split_once("\r\n\r\n")
            .map(|(_, b)| b)
            .unwrap_or_default();
        (status, body.to_string())
    }

    /// Stops every server now (SIGKILL to each process group), as on drop.
    pub fn stop(&mut self) {
        for (_, mut child) in self.procs.drain(..).rev() {
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Llng {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Fails, naming the install script, when a piece of the real stack is missing.
fn require_packages() {
    let missing: Vec<&str> = ["slapd", "slapadd", "nginx", "llng-fastcgi-server"]
        .into_iter()
        .filter(|b| {
            !["/usr/sbin", "/usr/bin", "/sbin"]
                .iter()
                .any(|d| Path::new(d).join(b).exists())
        })
        .collect();
    assert!(
        missing.is_empty() && Path::new(DEBIAN_CONF).exists(),
        "the real LemonLDAP::NG stack is missing ({missing:?}, {DEBIAN_CONF}): run .ci/setup.d/llng-portal.sh as root"
    );
}

fn fastcgi_command(d: &Path) -> Command {
    let mut cmd = Command::new("llng-fastcgi-server");
    cmd.env("LLNG_DEFAULTCONFFILE", d.join("lemonldap-ng.ini"))
        .env("LLNG_DEFAULTLOGGER", "Lemonldap::NG::Common::Logger::Std")
        .args(["--foreground", "-u", RUN_AS, "-g", RUN_AS, "-n", "2"])
        .arg("-s")
        .arg(d.join("llng.sock"))
        .arg("-p")
        .arg(d.join("llng.pid"));
    cmd
}

/// The Debian default main configuration, switched to LDAP with the REST servers on.
fn llng_conf(d: &Path, ldap_port: u16, port: u16) -> Value {
    let text = std::fs::read_to_string(DEBIAN_CONF).expect("read the Debian lmConf-1.json");
    let mut conf: Value = serde_json::from_str(&text).expect("parse the Debian lmConf-1.json");
    let p = |s: &str| d.join(s).display().to_string();
    let patch = json!({
        "portal": format!("http://127.0.0.1:{port}/"),
        "domain": "127.0.0.1",
        "authentication": "LDAP",
        "userDB": "Same",
        "passwordDB": "LDAP",
        "ldapServer": format!("ldap://127.0.0.1:{ldap_port}/"),
        "ldapBase": "ou=users,dc=example,dc=com",
        "managerDn": "cn=admin,dc=example,dc=com",
        "managerPassword": "adminsecret",
        "ldapExportedVars": {"uid": "uid", "cn": "cn", "mail": "mail"},
        "restAuthServer": 1,
        "notification": 0,
        "globalStorageOptions": {
            "Directory": p("sessions"),
            "LockDirectory": p("sessions/lock"),
            "generateModule": "Lemonldap::NG::Common::Apache::Session::Generate::SHA256"
        },
        "persistentStorageOptions": {"Directory": p("psessions"), "LockDirectory": p("psessions/lock")},
        "localSessionStorageOptions": {
            "cache_root": p("cache"), "cache_depth": 3, "default_expires_in": 600,
            "namespace": "lemonldap-ng-sessions"
        },
    });
    let obj = conf.as_object_mut().expect("lmConf-1.json is an object");
    obj.remove("notificationStorageOptions");
    for (k, v) in patch.as_object().unwrap() {
        obj.insert(k.clone(), v.clone());
    }
    conf
}

fn llng_ini(d: &Path) -> String {
    format!(
        "[all]\nlogLevel = info\nlogger = Lemonldap::NG::Common::Logger::Std\n\
         userLogger = Lemonldap::NG::Common::Logger::Std\ncheckTime = 1\n\
         [configuration]\ntype = File\ndirName = {conf}\nlocalStorage = Cache::FileCache\n\
         localStorageOptions = {{ 'namespace' => 'lemonldap-ng-config', 'cache_root' => '{cache}', 'cache_depth' => 3 }}\n\
         [portal]\nstaticPrefix = /static\ntemplateDir = /usr/share/lemonldap-ng/portal/templates\nlanguages = en\n\
         [handler]\nstatus = 0\n",
        conf = d.join("conf").display(),
        cache = d.join("cache").display(),
    )
}

/// nginx as Debian's `portal-nginx.conf`, on loopback, with `/proxy` open to loopback only and
/// `/closed/...` denied to all (a `/proxy` not opened to the Limette host).
fn nginx_conf(d: &Path, port: u16) -> String {
    let p = |s: &str| d.join(s).display().to_string();
    format!(
        r#"daemon off;
worker_processes 1;
user {RUN_AS};
pid {pid};
error_log {err};
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {t}/body;
  fastcgi_temp_path {t}/fastcgi;
  proxy_temp_path {t}/proxy;
  uwsgi_temp_path {t}/uwsgi;
  scgi_temp_path {t}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root /usr/share/lemonldap-ng/portal/htdocs/;
    if ($uri !~ ^/((static|javascript|favicon).*|.*\.psgi)) {{
      rewrite ^/(.*)$ /index.psgi/$1 break;
    }}
    location ~ ^(?<sc>/.*\.psgi)(?:$|/) {{
      include /etc/nginx/fastcgi_params;
      fastcgi_pass unix:{sock};
      fastcgi_param LLTYPE psgi;
      fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
      fastcgi_split_path_info ^(.*\.psgi)(/.*)$;
      fastcgi_param PATH_INFO $fastcgi_path_info;
      location ~ ^/index.psgi/proxy {{
        fastcgi_pass unix:{sock};
        allow 127.0.0.1;
        deny all;
      }}
      location ~ ^/index.psgi/closed/ {{
        deny all;
      }}
    }}
  }}
}}
"#,
        pid = p("nginx/nginx.pid"),
        err = p("nginx-error.log"),
        t = p("nginx"),
        sock = p("llng.sock"),
    )
}

fn slapd_conf(d: &Path) -> String {
    format!(
        "include /etc/ldap/schema/core.schema\ninclude /etc/ldap/schema/cosine.schema\n\
         include /etc/ldap/schema/inetorgperson.schema\nmodulepath /usr/lib/ldap\n\
         moduleload back_mdb\npidfile {pid}\ndatabase mdb\nmaxsize 10485760\n\
         suffix \"dc=example,dc=com\"\nrootdn \"cn=admin,dc=example,dc=com\"\n\
         rootpw adminsecret\ndirectory {db}\n\
         access to attrs=userPassword by anonymous auth by * none\naccess to * by * read\n",
        pid = d.join("slapd.pid").display(),
        db = d.join("ldap-db").display(),
    )
}

fn tree_ldif() -> String {
    let mut ldif = String::from(
        "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\ndc: example\n\
         o: Example\n\ndn: ou=users,dc=example,dc=com\nobjectClass: organizationalUnit\nou: users\n",
    );
    for (uid, password, cn, mail) in USERS {
        let sn = cn.split(' ').next_back().unwrap_or(cn);
        ldif.push_str(&format!(
            "\ndn: uid={uid},ou=users,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: {uid}\n\
             cn: {cn}\nsn: {sn}\nmail: {mail}\nuserPassword: {password}\n"
        ));
    }
    ldif
}
