//! The user's language, as LemonLDAP::NG's portal picks it (`portal.js`, done here on the
//! server since the pages need no script): the query's `lang` (Limette's language switch) or
//! `llnglanguage` (LemonLDAP::NG's), then the `llnglanguage` cookie, then `Accept-Language` by
//! its q-values, then English; only shipped languages (`messages::codes`) count. A choice made
//! with `?lang=` (or `?llnglanguage=` with `setCookieLang=1`, as LemonLDAP::NG) is remembered in
//! the cookie (`remembered`, `cookie`), which the router sets on the page's answer.
use crate::config::Conf;
use crate::http::Request;
use crate::web::messages;

/// LemonLDAP::NG's language cookie.
pub const COOKIE: &str = "llnglanguage";
/// How long the cookie keeps a choice: LemonLDAP::NG's 3650 days.
const COOKIE_DAYS: u64 = 3650;

/// The language of the answer to `req`.
pub fn of(req: &Request) -> &'static str {
    asked(req)
        .or_else(|| req.cookie(COOKIE).and_then(|c| messages::shipped(&c)))
        .or_else(|| req.header("accept-language").and_then(accept_language))
        .unwrap_or(messages::DEFAULT)
}

/// The shipped language the query asks for, if any.
pub fn asked(req: &Request) -> Option<&'static str> {
    ["lang", "llnglanguage"]
        .iter()
        .find_map(|k| req.query_param(k))
        .and_then(|l| messages::shipped(&l))
}

/// The language the answer must remember in the cookie: a switch's `?lang=`, or LemonLDAP::NG's
/// `?llnglanguage=` with `setCookieLang=1`.
pub fn remembered(req: &Request) -> Option<&'static str> {
    let switch = req.query_param("lang").and_then(|l| messages::shipped(&l));
    let llng = || {
        (req.query_param("setCookieLang").as_deref() == Some("1"))
            .then(|| req.query_param("llnglanguage"))
            .flatten()
            .and_then(|l| messages::shipped(&l))
    };
    switch.or_else(llng)
}

/// The cookie that remembers `lang` (readable by scripts, as LemonLDAP::NG's, which sets it
/// from one: it is no secret).
pub fn cookie(conf: &Conf, lang: &str) -> String {
    let mut c = format!(
        "{COOKIE}={lang}; path=/; max-age={}; SameSite={}",
        COOKIE_DAYS * 86_400,
        conf.same_site.as_str()
    );
    if conf.secured_cookie {
        c.push_str("; Secure");
    }
    c
}

/// The shipped language an `Accept-Language` header (RFC 9110 §12.5.4) prefers: the ranges
/// by decreasing q-value (ties in their order), each matched on its primary tag; `q=0` refuses.
pub fn accept_language(header: &str) -> Option<&'static str> {
    let mut ranges: Vec<(u16, usize, &str)> = header
        .split(',')
        .enumerate()
        .filter_map(|(i, part)| {
            let mut fields = part.split(';');
            let tag = fields.next()?.trim();
            let q = fields
                .filter_map(|f| f.trim().strip_prefix("q="))
                .next()
                .map_or(Some(1000), quality)?;
            (!tag.is_empty() && q > 0).then_some((q, i, tag))
        })
        .collect();
    crate::util::sort::sort_by(&mut ranges, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranges.iter().find_map(|(_, _, tag)| match *tag {
        "*" => Some(messages::DEFAULT),
        tag => messages::shipped(tag),
    })
}

/// A q-value in thousandths (`0`, `0.5`, `1.000`); `None` when malformed.
fn quality(v: &str) -> Option<u16> {
    let (int, frac) = v.trim().split_once('.').unwrap_or((v.trim(), ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u16 = format!("{frac:0<3}").parse().ok()?;
    match int {
        "0" => Some(frac),
        "1" if frac == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;

    #[test]
    fn accept_language_follows_q_values() {
        assert_eq!(accept_language("fr-FR,fr;q=0.9,en;q=0.8"), Some("fr"));
        assert_eq!(accept_language("de, en;q=0.5, fr;q=0.7"), Some("fr"));
        assert_eq!(accept_language("en;q=0.1, fr;q=0.1"), Some("en"));
        assert_eq!(accept_language("fr;q=0, en"), Some("en"));
        assert_eq!(accept_language("de"), None);
        assert_eq!(accept_language("de, *;q=0.1"), Some("en"));
        assert_eq!(accept_language("fr;q=2, en;q=0.3"), Some("en"));
        assert_eq!(accept_language(""), None);
    }

    #[test]
    fn query_then_cookie_then_header() {
        let req = |url: &str, cookie: &str, al: &str| {
            Request::new(Method::Get, url)
                .with_header("cookie", cookie)
                .with_header("accept-language", al)
        };
        assert_eq!(of(&req("/", "", "")), "en");
        assert_eq!(of(&req("/", "", "fr")), "fr");
        assert_eq!(of(&req("/", "llnglanguage=en", "fr")), "en");
        assert_eq!(of(&req("/?lang=fr", "llnglanguage=en", "en")), "fr");
        assert_eq!(of(&req("/?llnglanguage=fr", "", "en")), "fr");
        assert_eq!(of(&req("/?lang=xx", "llnglanguage=zz", "fr")), "fr");
        assert_eq!(remembered(&req("/?lang=fr", "", "")), Some("fr"));
        assert_eq!(remembered(&req("/?llnglanguage=fr", "", "")), None);
        let llng = req("/?llnglanguage=fr&setCookieLang=1", "", "");
        assert_eq!(remembered(&llng), Some("fr"));
    }
}
