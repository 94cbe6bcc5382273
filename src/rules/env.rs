//! The request environment expressions read as `$ENV{NAME}`: request headers under their
//! CGI names (`User-Agent` is `HTTP_USER_AGENT`) and `REMOTE_ADDR`, as LemonLDAP::NG's PSGI
//! environment holds them. Built from plain values, so this module knows no HTTP type.
use std::collections::BTreeMap;

/// Request variables by CGI name.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

/// The environment where no request is at hand: every `$ENV{...}` is undefined.
static EMPTY: Env = Env {
    vars: BTreeMap::new(),
};

impl Env {
    /// The empty environment.
    pub fn empty() -> &'static Env {
        &EMPTY
    }

    /// The environment of a request: its headers (name, value) and the client address.
    /// A repeated header is joined with `", "`, as a CGI gateway does; `Content-Type` and
    /// `Content-Length` are not `HTTP_*` variables in CGI, so they are left out.
    pub fn from_request<'a>(
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
        remote_addr: &str,
    ) -> Env {
        let mut vars: BTreeMap<String, String> = BTreeMap::new();
        for (name, value) in headers {
            let lower = name.to_ascii_lowercase();
            if lower == "content-type" || lower == "content-length" {
                continue;
            }
            let key = format!("HTTP_{}", name.to_ascii_uppercase().replace('-', "_"));
            vars.entry(key)
                .and_modify(|v| {
                    v.push_str(", ");
                    v.push_str(value);
                })
                .or_insert_with(|| value.to_string());
        }
        vars.insert("REMOTE_ADDR".into(), remote_addr.to_string());
        Env { vars }
    }

    /// A variable, `None` when the request did not carry it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::Env;

    #[test]
    fn cgi_names() {
        let env = Env::from_request(
            [
                ("user-agent", "Mozilla/5.0"),
                ("X-Forwarded-For", "10.0.0.1"),
                ("x-forwarded-for", "10.0.0.2"),
                ("content-type", "text/plain"),
            ],
            "127.0.0.1",
        );
        assert_eq!(env.get("HTTP_USER_AGENT"), Some("Mozilla/5.0"));
        assert_eq!(env.get("HTTP_X_FORWARDED_FOR"), Some("10.0.0.1, 10.0.0.2"));
        assert_eq!(env.get("HTTP_CONTENT_TYPE"), None);
        assert_eq!(env.get("REMOTE_ADDR"), Some("127.0.0.1"));
        assert_eq!(Env::empty().get("REMOTE_ADDR"), None);
    }
}
