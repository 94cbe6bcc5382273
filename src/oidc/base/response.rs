//! How `/oauth2/authorize` answers: which flow a `response_type` asks for (OpenID Connect Core
//! 3; OAuth 2.0 Multiple Response Type Encoding Practices: the values are a set, their order
//! does not matter), which `response_mode` carries the answer (`query` for the code flow only,
//! `fragment` by default for the others, `form_post` for all: OAuth 2.0 Form Post Response
//! Mode), and the answer itself: a redirect with the parameters in the query or the fragment,
//! or a page whose form posts them to the client. Plain values; no store, no session.
use super::params::with_params;
use crate::error::OAuthCode;
use crate::http::Response;
use crate::util;
use maud::{html, DOCTYPE};

/// The flows (OpenID Connect Core 3), as LemonLDAP::NG names them in `_oidc_grant_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `code` (3.1).
    Code,
    /// `id_token`, `id_token token` (3.2).
    Implicit,
    /// `code id_token`, `code token`, `code id_token token` (3.3).
    Hybrid,
}

impl Flow {
    /// LemonLDAP::NG's name (`getFlowType`), seen by rules as `$_oidc_grant_type`.
    pub fn as_str(self) -> &'static str {
        match self {
            Flow::Code => "authorizationcode",
            Flow::Implicit => "implicit",
            Flow::Hybrid => "hybrid",
        }
    }
}

/// What a `response_type` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResponseType {
    /// `code`
    pub code: bool,
    /// `id_token`
    pub id_token: bool,
    /// `token` (an access token from the authorization endpoint)
    pub token: bool,
}

impl ResponseType {
    /// The set of words; `None` for an unknown word, a repeated one, or a combination that is
    /// no OpenID Connect flow (`token` alone, the OAuth 2.0 implicit grant, is not one).
    pub fn parse(s: &str) -> Option<ResponseType> {
        let mut rt = ResponseType::default();
        for word in s.split(' ').filter(|w| !w.is_empty()) {
            let slot = match word {
                "code" => &mut rt.code,
                "id_token" => &mut rt.id_token,
                "token" => &mut rt.token,
                _ => return None,
            };
            if *slot {
                return None;
            }
            *slot = true;
        }
        rt.flow().map(|_| rt)
    }

    /// The flow, `None` for a combination that is none.
    pub fn flow(&self) -> Option<Flow> {
        match (self.code, self.id_token, self.token) {
            (true, false, false) => Some(Flow::Code),
            (false, true, _) => Some(Flow::Implicit),
            (true, _, _) => Some(Flow::Hybrid),
            _ => None,
        }
    }
}

/// Where the answer's parameters go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The redirect URI's query (RFC 6749 4.1.2).
    Query,
    /// The redirect URI's fragment (RFC 6749 4.2.2).
    Fragment,
    /// A form posted to the redirect URI (Form Post Response Mode 2).
    FormPost,
}

impl Mode {
    /// The mode for a flow: the one asked, or the flow's default. `query` is refused for a
    /// flow that returns tokens (Multiple Response Types 2.1: tokens never in a query);
    /// an unknown mode is refused.
    pub fn pick(flow: Flow, asked: Option<&str>) -> Result<Mode, OAuthCode> {
        match (asked, flow) {
            (None, Flow::Code) | (Some("query"), Flow::Code) => Ok(Mode::Query),
            (None, _) | (Some("fragment"), _) => Ok(Mode::Fragment),
            (Some("form_post"), _) => Ok(Mode::FormPost),
            _ => Err(OAuthCode::InvalidRequest),
        }
    }

    /// The mode an error goes back in when the request could not be read whole: the one
    /// asked if it is valid for the flow asked, else that flow's default, else the query.
    pub fn for_error(response_type: Option<&str>, asked: Option<&str>) -> Mode {
        let flow = response_type
            .and_then(ResponseType::parse)
            .and_then(|r| r.flow())
            .unwrap_or(Flow::Code);
        Mode::pick(flow, asked)
            .or_else(|_| Mode::pick(flow, None))
            .unwrap_or(Mode::Query)
    }
}

/// The answer carrying `params` to `redirect_uri` in `mode`.
pub fn deliver(redirect_uri: &str, mode: Mode, params: &[(&str, &str)]) -> Response {
    match mode {
        Mode::Query => Response::redirect(&with_params(redirect_uri, params)),
        Mode::Fragment => {
            let f = params
                .iter()
                .map(|(k, v)| format!("{k}={}", util::url_encode(v)))
                .collect::<Vec<_>>()
                .join("&");
            // A fragment in the registered URI is not allowed (RFC 6749 3.1.2); drop any.
            let base = redirect_uri.split('#').next().unwrap_or(redirect_uri);
            Response::redirect(&format!("{base}#{f}"))
        }
        Mode::FormPost => form_post(redirect_uri, params),
    }
}

/// Form Post Response Mode 2: an HTML form with the parameters, posted by a script served by
/// the portal (the pages' policy allows only its own scripts), with a button without one.
fn form_post(redirect_uri: &str, params: &[(&str, &str)]) -> Response {
    // The page lives a moment (its script posts at once): English, in the portal's stylesheet.
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "Continue" }
                link rel="stylesheet" href="/static/limette.css";
            } "\n"
            body { main class="box" {
                h1 { "Continue" } "\n"
                form method="post" action=(redirect_uri) {
                    @for (k, v) in params { input type="hidden" name=(k) value=(v); }
                    noscript { p { "Your browser does not run scripts: continue to the application." } }
                    button type="submit" { "Continue" }
                }
                script src="/static/form_post.js" {}
                "\n"
            } }
        } "\n"
    }
    .into_string();
    let mut r = Response::html(200, page);
    r.form_targets.push(redirect_uri.to_string());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_types_are_sets_of_known_words() {
        let rt = |s: &str| ResponseType::parse(s).and_then(|r| r.flow());
        assert_eq!(rt("code"), Some(Flow::Code));
        assert_eq!(rt("id_token"), Some(Flow::Implicit));
        assert_eq!(rt("token id_token"), Some(Flow::Implicit));
        assert_eq!(rt("id_token code"), Some(Flow::Hybrid));
        assert_eq!(rt("code token"), Some(Flow::Hybrid));
        assert_eq!(rt("code id_token token"), Some(Flow::Hybrid));
        for bad in ["token", "", "code code", "code foo", "none"] {
            assert_eq!(rt(bad), None, "{bad}");
        }
    }

    #[test]
    fn modes_by_flow() {
        assert_eq!(Mode::pick(Flow::Code, None), Ok(Mode::Query));
        assert_eq!(Mode::pick(Flow::Code, Some("fragment")), Ok(Mode::Fragment));
        assert_eq!(Mode::pick(Flow::Implicit, None), Ok(Mode::Fragment));
        assert_eq!(
            Mode::pick(Flow::Hybrid, Some("query")),
            Err(OAuthCode::InvalidRequest)
        );
        assert_eq!(
            Mode::pick(Flow::Hybrid, Some("form_post")),
            Ok(Mode::FormPost)
        );
        assert_eq!(
            Mode::pick(Flow::Code, Some("jwt")),
            Err(OAuthCode::InvalidRequest)
        );
        assert_eq!(
            Mode::for_error(Some("id_token"), Some("query")),
            Mode::Fragment
        );
        assert_eq!(Mode::for_error(Some("bogus"), None), Mode::Query);
    }

    #[test]
    fn answers_in_each_mode() {
        let p = [("code", "a b"), ("state", "s")];
        let r = deliver("http://rp/cb", Mode::Fragment, &p);
        assert_eq!(
            r.header("Location"),
            Some("http://rp/cb#code=a%20b&state=s")
        );
        let r = deliver("http://rp/cb?x=1", Mode::Query, &p);
        assert_eq!(
            r.header("Location"),
            Some("http://rp/cb?x=1&code=a%20b&state=s")
        );
        let r = deliver("http://rp/cb", Mode::FormPost, &[("state", "<\"x\">")]);
        let page = String::from_utf8(r.body.clone()).unwrap();
        assert!(page.contains("action=\"http://rp/cb\""));
        assert!(page.contains("value=\"&lt;&quot;x&quot;&gt;\""), "{page}");
        assert_eq!(r.form_targets, vec!["http://rp/cb".to_string()]);
    }
}
