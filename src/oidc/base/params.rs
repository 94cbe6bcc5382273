//! The parameters of a request to the provider's endpoints, decoded once (`params`: the form
//! body on POST, the query otherwise) and bounded (`Params::oversized`), and the one way a
//! URI gets parameters appended (`with_params`). Plain values; no settings, no store.
use crate::http::{Method, Request};
use crate::util;

/// The request's parameters: the form body on POST, the query otherwise (POST works as GET
/// for the endpoints that accept both). The first value of a name wins.
pub fn params(req: &Request) -> Params {
    let pairs = if req.method == Method::Post && req.is_form() {
        req.form()
    } else {
        req.query_pairs()
    };
    Params(pairs)
}

/// Longest value of any OAuth or OpenID Connect parameter: an ID token hint, a PKCE
/// challenge or a registered URI fits in a few kilobytes; a longer value is refused with
/// `invalid_request` before anything is looked up or stored.
pub const MAX_PARAM: usize = 4096;
/// Longest `state` and `nonce`: echoed in redirects and stored with every code and token.
pub const MAX_ECHOED: usize = 1024;
/// Longest parameter name.
const MAX_NAME: usize = 64;

/// Decoded request parameters.
#[derive(Debug, Clone, Default)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// Whether any name or value is over its bound ([`MAX_PARAM`], [`MAX_ECHOED`] for `state`
    /// and `nonce`).
    pub fn oversized(&self) -> bool {
        self.0.iter().any(|(k, v)| {
            let max = match k.as_str() {
                "state" | "nonce" => MAX_ECHOED,
                _ => MAX_PARAM,
            };
            k.len() > MAX_NAME || v.len() > max
        })
    }

    /// `state`, when it is within its bound (an oversized one is never echoed).
    pub fn state(&self) -> Option<&str> {
        self.get("state").filter(|s| s.len() <= MAX_ECHOED)
    }

    /// First value of a name; an empty value counts as absent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
    /// The parameters re-encoded as a query string, without the names in `drop`.
    pub fn to_query(&self, drop: &[&str]) -> String {
        self.0
            .iter()
            .filter(|(k, _)| !drop.contains(&k.as_str()))
            .map(|(k, v)| format!("{}={}", util::url_encode(k), util::url_encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// `uri` with parameters appended (`?` or `&` as needed).
pub fn with_params(uri: &str, params: &[(&str, &str)]) -> String {
    let q = params
        .iter()
        .map(|(k, v)| format!("{k}={}", util::url_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    if q.is_empty() {
        return uri.to_string();
    }
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{q}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_parameters() {
        assert_eq!(
            with_params("http://x/cb", &[("code", "a b")]),
            "http://x/cb?code=a%20b"
        );
        assert_eq!(
            with_params("http://x/cb?k=1", &[("state", "s")]),
            "http://x/cb?k=1&state=s"
        );
        let p = Params(vec![
            ("a".into(), "1".into()),
            ("prompt".into(), "login".into()),
            ("a".into(), "2".into()),
        ]);
        assert_eq!(p.get("a"), Some("1"));
        assert!(!p.oversized());
        assert_eq!(p.to_query(&["prompt"]), "a=1&a=2");
    }
}
