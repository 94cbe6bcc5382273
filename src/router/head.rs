//! What the reading stage asks the router about a request from its head alone, before any
//! byte of its body is read: how large a body its path may send (413 above), and whether an
//! address rule refuses it (403, as the server it is for answers it). Neither reads the body:
//! an anonymous client never makes Limette hold megabytes, and a client outside a rule never
//! makes it read any.
use super::{area, client_https, forbidden, guarded, is_under, refusal_flavour};
use crate::app::App;
use crate::http::{Request, Response};
use crate::router::errors::to_response;

/// Largest body of the portal's and the OpenID Connect provider's forms: a login, a token
/// request with a client assertion, a consent, a registration hold a few kilobytes at most.
pub const FORM_BODY_LIMIT: u64 = 64 * 1024;

/// The largest body a request to `path` may send, decided from its head alone (413 above,
/// before any of it is read): `max` (`maxBodySize`) where a body can be large, the REST
/// session and configuration servers under `prefix` and the notification server (REST and
/// SOAP), whose callers the address rules name (and the test hooks when they are on);
/// [`FORM_BODY_LIMIT`] everywhere else, which anyone may send to: the authorization
/// endpoint's form holds a request object of 16 KiB at most (`oidc::authorize::request_object`).
pub fn body_limit(path: &str, prefix: &str, max: u64, test_hooks: bool) -> u64 {
    // The handler endpoint decides from the head alone and never reads a body.
    if is_under(path, crate::handler::PATH) {
        return 0;
    }
    let prefixed = |p: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| is_under(rest, p))
    };
    let large = prefixed("/sessions")
        || prefixed("/config")
        || is_under(path, "/notifications")
        || (test_hooks && is_under(path, "/__test"));
    if large {
        max
    } else {
        max.min(FORM_BODY_LIMIT)
    }
}

/// The refusal a request gets from its head alone, before any byte of its body is read: the
/// address rule of the server it is for (`admit_server`'s first check), answered as that
/// server answers it. None when the request may go on to have its body read.
pub fn refuse_from_head(app: &App, req: &Request) -> Option<Response> {
    let (area, _) = area(app, req)?;
    let server = guarded(req, area)?;
    if app.local.access.rule(server).allows(req.client) {
        return None;
    }
    let conf = app.conf();
    let e = forbidden(req, server);
    let mut resp = to_response(&e, req, refusal_flavour(area), Some(&conf));
    let policy = conf.area::<crate::web::headers::Policy>();
    crate::web::headers::apply(&policy, &mut resp, client_https(app, req, &conf));
    Some(resp)
}

#[cfg(test)]
mod tests {
    use super::{body_limit, FORM_BODY_LIMIT};

    #[test]
    fn bodies_are_large_only_where_they_can_be() {
        let max = 8 << 20;
        for large in ["/sessions/global", "/config", "/notifications/dwho"] {
            assert_eq!(body_limit(large, "", max, false), max, "{large}");
        }
        assert_eq!(body_limit("/p/sessions/global", "/p", max, false), max);
        assert_eq!(
            body_limit("/sessions/global", "/p", max, false),
            FORM_BODY_LIMIT
        );
        for small in [
            "/",
            "/oauth2/token",
            "/oauth2/revoke",
            "/oauth2/par",
            "/oauth2/authorize",
            "/oauth2/",
            "/notifback",
            "/sessionsx",
            "/session/my",
        ] {
            assert_eq!(
                body_limit(small, "", max, false),
                FORM_BODY_LIMIT,
                "{small}"
            );
        }
        assert_eq!(body_limit("/", "", 1024, false), 1024);
        assert_eq!(body_limit("/__test/big", "", max, false), FORM_BODY_LIMIT);
        assert_eq!(body_limit("/__test/big", "", max, true), max);
        assert_eq!(body_limit("/lmauth", "", max, true), 0);
        assert_eq!(body_limit("/lmauth/forward", "", max, true), 0);
    }
}
