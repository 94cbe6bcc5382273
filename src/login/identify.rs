//! Identify, the pipeline's first step: who claims to log in, as each entry point hands it
//! over (the portal form, a JSON login, the OpenID Connect password grant, a REST-authenticated
//! call), checked as LemonLDAP::NG's `extractFormInfo` does: the form's one-time token, a
//! non-empty name and password, `userControl`, the length caps. It does not ask the directory
//! (`authenticate` does).
use crate::app::App;
use crate::config::Conf;
use crate::error::{PortalCode, Result};
use crate::web::csrf;

/// Longest login name: with `userControl`, what makes a name well-formed (PE_MALFORMEDUSER
/// above); no directory is asked about a longer one, and it never reaches a session.
pub const MAX_USER: usize = 255;
/// Longest password handed to a directory (PE_BADCREDENTIALS above, as a wrong one).
pub const MAX_PASSWORD: usize = 4096;

/// A login name and password, as an entry point read them.
#[derive(Clone, Copy)]
pub struct Credentials<'a> {
    /// The login name, untrimmed.
    pub user: &'a str,
    /// The password.
    pub password: &'a str,
}

/// The name to authenticate (trimmed), or the portal error and status refusing it.
pub fn check(conf: &Conf, c: Credentials) -> std::result::Result<String, (PortalCode, u16)> {
    let user = c.user.trim().to_string();
    if user.is_empty() || c.password.is_empty() {
        return Err((PortalCode::FormEmpty, 401));
    }
    if user.len() > MAX_USER || !user_allowed(conf, &user) {
        return Err((PortalCode::MalformedUser, 401));
    }
    if c.password.len() > MAX_PASSWORD {
        return Err((PortalCode::BadCredentials, 401));
    }
    Ok(user)
}

/// The login form's token, checked and spent (LemonLDAP::NG's `extractFormInfo`): none is
/// PE_NOTOKEN (81); a forged, stale or already used one is PE_TOKENEXPIRED (82). The page
/// answering either carries a new token.
pub fn refuse_token(app: &App, conf: &Conf, token: Option<String>) -> Result<Option<PortalCode>> {
    Ok(match csrf::check(conf, token.as_deref()) {
        Err(csrf::Refusal::Missing) => Some(PortalCode::NoToken),
        Err(csrf::Refusal::Expired) => Some(PortalCode::TokenExpired),
        Ok(()) => {
            let token = token.unwrap_or_default();
            (!crate::sso::form_token::spend(app, conf, &token)?).then_some(PortalCode::TokenExpired)
        }
    })
}

/// LemonLDAP::NG's `userControl`: the login name must match the pattern (unanchored, as Perl's
/// `=~`). A pattern that does not compile refuses everybody; the start-up gate refuses it first.
pub fn user_allowed(conf: &Conf, user: &str) -> bool {
    let directory = conf.area::<crate::directory::Settings>();
    directory
        .user_control
        .as_ref()
        .is_some_and(|re| re.is_match(user))
}
