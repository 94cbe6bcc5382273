//! How the console's session page shows one value of a session, readable rather than raw:
//! epochs and `YYYYMMDDHHMMSS` stamps as dates, lengths of time as durations ("2 h 15 min"),
//! multi-valued attributes (`groups`, `; `-separated), `hGroups` and JSON lists as lists, the
//! second-factor devices as type, name and date (never their secrets), the login history and
//! the consents as dated entries. `classify` decides on plain values; `markup` writes it. The
//! secret keys are removed before (`sessions::export::without_secrets`), as today.
use crate::config::{as_i64, value_string};
use crate::web::Page;
use maud::{html, Markup};
use serde_json::Value;

/// What a value is, for showing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// An instant (seconds since the epoch).
    Date(i64),
    /// A length of time, in seconds.
    Duration(i64),
    /// Several values.
    List(Vec<String>),
    /// Dated entries: the instant and what happened (`10.0.0.1`, `TOTP "phone"`).
    Dated(Vec<(i64, String)>),
    /// Anything else, as text.
    Text(String),
}

/// The separator of multi-valued attributes (LemonLDAP::NG's `multiValuesSeparator` default).
const SEPARATOR: &str = "; ";

/// How `key`'s value `v` is shown.
pub fn classify(key: &str, v: &Value) -> Shown {
    let lower = key.to_ascii_lowercase();
    if lower.contains("timeout") || lower.ends_with("ttl") || lower.ends_with("duration") {
        if let Some(n) = as_i64(v).filter(|n| (0..100_000_000).contains(n)) {
            return Shown::Duration(n);
        }
    }
    if is_date_key(&lower) {
        if let Some(t) = instant(v) {
            return Shown::Date(t);
        }
    }
    match key {
        "_2fDevices" => return devices(v),
        "_loginHistory" => return history(v),
        "_oidcConsents" => return consents(v),
        "hGroups" => {
            if let Value::Object(m) = v {
                return Shown::List(m.keys().cloned().collect());
            }
        }
        _ => {}
    }
    match v {
        Value::Array(a) => Shown::List(a.iter().map(value_string).collect()),
        Value::String(s) if s.contains(SEPARATOR) => {
            Shown::List(s.split(SEPARATOR).map(str::to_string).collect())
        }
        other => Shown::Text(value_string(other)),
    }
}

/// The value as markup of `page` (dates in the page's zone and language).
pub fn markup(page: &Page, shown: &Shown) -> Markup {
    match shown {
        Shown::Date(t) => page.time_markup(*t),
        Shown::Duration(s) => html! { (duration(page, *s)) },
        Shown::List(items) => html! { ul.values { @for i in items { li { (i) } } } },
        Shown::Dated(items) => html! {
            ul.values { @for (t, what) in items { li { (page.time_markup(*t)) " – " (what) } } }
        },
        Shown::Text(t) => html! { (t) },
    }
}

/// A length of time in its two largest units, in the page's language ("2 h 15 min").
pub fn duration(page: &Page, secs: i64) -> String {
    let units = [
        (86_400, "durationDays"),
        (3600, "durationHours"),
        (60, "durationMinutes"),
        (1, "durationSeconds"),
    ];
    let mut left = secs.max(0);
    let mut parts = Vec::new();
    for (size, key) in units {
        let n = left / size;
        if n > 0 && parts.len() < 2 {
            parts.push(page.say_fill(key, &[("n", &n.to_string())]).0);
            left -= n * size;
        } else if !parts.is_empty() {
            break;
        }
    }
    match parts.is_empty() {
        true => page.say_fill("durationSeconds", &[("n", "0")]).0,
        false => parts.join(" "),
    }
}

/// Keys that hold an instant: LemonLDAP::NG's `_utime`, `_lastSeen`, `_lastAuthnUTime`,
/// `_startTime`, `_updateTime`, and others named alike.
fn is_date_key(lower: &str) -> bool {
    lower.ends_with("time")
        || lower.ends_with("_lastseen")
        || lower.ends_with("_exp")
        || lower.ends_with("expiresat")
        || lower.ends_with("eol")
}

/// An epoch (nine to eleven digits) or a `YYYYMMDDHHMMSS` stamp (UTC).
fn instant(v: &Value) -> Option<i64> {
    let text = value_string(v);
    let t = text.trim();
    if !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match t.len() {
        9..=11 => t.parse().ok(),
        14 => {
            let n = |a: usize, b: usize| t[a..b].parse::<u32>().ok();
            let (y, mo, d) = (n(0, 4)?, n(4, 6)?, n(6, 8)?);
            let (h, mi, s) = (n(8, 10)?, n(10, 12)?, n(12, 14)?);
            let valid =
                (1..=12).contains(&mo) && (1..=31).contains(&d) && h < 24 && mi < 60 && s < 61;
            valid.then(|| {
                crate::util::days_from_civil(i64::from(y), mo, d) * 86_400
                    + i64::from(h * 3600 + mi * 60 + s)
            })
        }
        _ => None,
    }
}

/// A JSON list, given as an array or as its text.
fn json_list(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(a) => Some(a.clone()),
        Value::String(s) => match serde_json::from_str(s) {
            Ok(Value::Array(a)) => Some(a),
            _ => None,
        },
        _ => None,
    }
}

/// The devices as type, name and registration date: nothing else of them (their secrets).
fn devices(v: &Value) -> Shown {
    let Ok(list) = crate::second_factor::devices::parse(Some(v)) else {
        return Shown::Text(String::new());
    };
    Shown::Dated(
        list.iter()
            .map(|d| (d.epoch(), format!("{} “{}”", d.kind(), d.name())))
            .collect(),
    )
}

/// LemonLDAP::NG's `_loginHistory`: `successLogin` and `failedLogin`, each a list of
/// `{_utime, ipAddr, error}`.
fn history(v: &Value) -> Shown {
    let mut out = Vec::new();
    for (kind, mark) in [("successLogin", "✓"), ("failedLogin", "✗")] {
        for e in v.get(kind).and_then(json_list).unwrap_or_default() {
            if let Some(t) = e.get("_utime").and_then(as_i64) {
                let ip = e.get("ipAddr").map(value_string).unwrap_or_default();
                out.push((t, format!("{mark} {ip}")));
            }
        }
    }
    crate::util::sort::sort_by_key(&mut out, |e| std::cmp::Reverse(e.0));
    Shown::Dated(out)
}

/// `_oidcConsents`: a list of `{rp, epoch, scope}`.
fn consents(v: &Value) -> Shown {
    let Some(list) = json_list(v) else {
        return Shown::Text(value_string(v));
    };
    Shown::Dated(
        list.iter()
            .filter_map(|c| {
                let t = c.get("epoch").and_then(as_i64)?;
                let rp = c.get("rp").map(value_string).unwrap_or_default();
                let scope = c.get("scope").map(value_string).unwrap_or_default();
                Some((t, format!("{rp}: {scope}")))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dates_durations_and_lists_are_recognised() {
        assert_eq!(
            classify("_utime", &json!(1_709_629_622)),
            Shown::Date(1_709_629_622)
        );
        assert_eq!(
            classify("_lastSeen", &json!("1709629622")),
            Shown::Date(1_709_629_622)
        );
        assert_eq!(
            classify("_startTime", &json!("20240305090702")),
            Shown::Date(1_709_629_622)
        );
        assert_eq!(
            classify("_updateTime", &json!("20241305090702")),
            Shown::Text("20241305090702".into())
        );
        assert_eq!(
            classify("_sessionTimeout", &json!(8100)),
            Shown::Duration(8100)
        );
        assert_eq!(
            classify("groups", &json!("admins; users")),
            Shown::List(vec!["admins".into(), "users".into()])
        );
        assert_eq!(
            classify("hGroups", &json!({"admins": {"name": "admins"}})),
            Shown::List(vec!["admins".into()])
        );
        assert_eq!(
            classify("uid", &json!("20240305090702")),
            Shown::Text("20240305090702".into())
        );
        assert_eq!(classify("mail", &json!("a@b")), Shown::Text("a@b".into()));
    }

    #[test]
    fn devices_show_no_secret() {
        let v =
            json!(r#"[{"type":"TOTP","name":"phone","epoch":1709629622,"_secret":"JBSWY3DP"}]"#);
        let shown = classify("_2fDevices", &v);
        assert_eq!(
            shown,
            Shown::Dated(vec![(1_709_629_622, "TOTP “phone”".into())])
        );
        assert!(!format!("{shown:?}").contains("JBSWY3DP"));
    }

    #[test]
    fn history_and_consents_are_dated_entries() {
        let h = json!({"successLogin": [{"_utime": 20, "ipAddr": "10.0.0.1"}], "failedLogin": [{"_utime": 30, "ipAddr": "10.0.0.2", "error": 5}]});
        assert_eq!(
            classify("_loginHistory", &h),
            Shown::Dated(vec![(30, "✗ 10.0.0.2".into()), (20, "✓ 10.0.0.1".into())])
        );
        let c = json!(r#"[{"rp":"app","epoch":1709629622,"scope":"openid email"}]"#);
        assert_eq!(
            classify("_oidcConsents", &c),
            Shown::Dated(vec![(1_709_629_622, "app: openid email".into())])
        );
    }

    #[test]
    fn durations_read_in_both_languages() {
        let conf = crate::config::Conf::of_json(json!({"cfgNum": 1, "portal": "http://p/"}));
        let req = crate::http::Request::new(crate::http::Method::Get, "/?lang=fr");
        let fr = Page::new(&conf, &req);
        assert_eq!(duration(&fr, 8100), "2 h 15 min");
        assert_eq!(duration(&fr, 90_000), "1 j 1 h");
        assert_eq!(duration(&fr, 0), "0 s");
        let en = Page::new(
            &conf,
            &crate::http::Request::new(crate::http::Method::Get, "/"),
        );
        assert_eq!(duration(&en, 86_400 * 2 + 59), "2 d");
        assert_eq!(duration(&en, 61), "1 min 1 s");
    }
}
