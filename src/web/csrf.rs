//! CSRF tokens of the HTML forms: `<epoch>.<nonce>.<HMAC-SHA256(key, "csrf:" epoch ":" nonce)>`,
//! valid for `formTimeout` seconds, the random nonce making every token issued distinct. The
//! MAC needs no store, so a forged or stale token is refused before any store is touched; the
//! login form's token is also single use, which the login records in the session store
//! (`sso::form_token`). JSON clients need none (as LemonLDAP::NG's `requireToken`).
//! A form that acts for a signed-in user (the OIDC consent) binds its token to the session
//! and the action (`issue_for`/`check_for`), so that a token shown to one user is worthless in
//! another user's request. The forms of a signed-in user's own pages (the console, the menu,
//! the sign-out button) are good while the session lives (`check_session_bound`): the token
//! proves the form came from this session's page, and a page left open keeps working.
use crate::config::Conf;
use crate::util;
use hmac::{Hmac, Mac};
use sha2::Sha256;

fn mac(key: &str, epoch: i64, nonce: &str, binding: &str) -> String {
    let mut m = match Hmac::<Sha256>::new_from_slice(key.as_bytes()) {
        Ok(m) => m,
        Err(_) => return String::new(), // HMAC accepts any key length
    };
    m.update(format!("csrf:{epoch}:{nonce}").as_bytes());
    if !binding.is_empty() {
        m.update(b":");
        m.update(binding.as_bytes());
    }
    util::hex(&m.finalize().into_bytes())
}

/// A fresh token.
pub fn issue(conf: &Conf) -> String {
    issue_for(conf, "")
}

/// A fresh token valid only with the same `binding` (say, a session id and what the form does).
pub fn issue_for(conf: &Conf, binding: &str) -> String {
    let now = util::now();
    let nonce = util::random_hex(8);
    format!("{now}.{nonce}.{}", mac(&conf.key, now, &nonce, binding))
}

/// How long a token lives: `formTimeout` (LemonLDAP::NG's default 120), at least 10 seconds.
pub fn lifetime(conf: &Conf) -> i64 {
    conf.form_timeout.unwrap_or(120).max(10)
}

/// Why a token was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No token in the form.
    Missing,
    /// Malformed, forged or too old.
    Expired,
}

/// Checks a token (MAC in constant time, then age).
pub fn check(conf: &Conf, token: Option<&str>) -> Result<(), Refusal> {
    check_for(conf, token, "")
}

/// Checks a token issued by [`issue_for`] with this `binding`, no older than [`lifetime`].
pub fn check_for(conf: &Conf, token: Option<&str>, binding: &str) -> Result<(), Refusal> {
    let age = util::now() - signed_epoch(conf, token, binding)?;
    if !(-5..=lifetime(conf)).contains(&age) {
        return Err(Refusal::Expired);
    }
    Ok(())
}

/// Checks a token issued by [`issue_for`] for a `binding` that names a session (its id and
/// the form's action): good as long as that session lives, whatever the token's age, so that
/// a page left open keeps its forms (the console, the menu, the sign-out button). The session
/// bounds it: a token of an ended or another session does not verify.
pub fn check_session_bound(conf: &Conf, token: Option<&str>, binding: &str) -> Result<(), Refusal> {
    let age = util::now() - signed_epoch(conf, token, binding)?;
    if age < -5 {
        return Err(Refusal::Expired);
    }
    Ok(())
}

/// Whether a token is this binding's own but older than [`lifetime`]: a genuine form left
/// open too long, which the page says before asking again (a forged or foreign token is not
/// stale, it is refused).
pub fn is_stale(conf: &Conf, token: Option<&str>, binding: &str) -> bool {
    signed_epoch(conf, token, binding).is_ok_and(|epoch| util::now() - epoch > lifetime(conf))
}

/// The epoch of a token whose MAC verifies (in constant time) for `binding`.
fn signed_epoch(conf: &Conf, token: Option<&str>, binding: &str) -> Result<i64, Refusal> {
    let token = token.filter(|t| !t.is_empty()).ok_or(Refusal::Missing)?;
    let mut parts = token.splitn(3, '.');
    let (Some(epoch), Some(nonce), Some(sig)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(Refusal::Expired);
    };
    // A nonce is what `issue_for` makes (16 hex): nothing of it can pass for a binding.
    if nonce.len() != 16 || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Refusal::Expired);
    }
    let epoch: i64 = epoch.parse().map_err(|_| Refusal::Expired)?;
    let expected = mac(&conf.key, epoch, nonce, binding);
    if !util::ct_eq(expected.as_bytes(), sig.as_bytes()) {
        return Err(Refusal::Expired);
    }
    Ok(epoch)
}
