//! Portal messages by error number and by key, from the language files served at
//! `/static/languages/<lang>.json` (the same files LemonLDAP::NG's `/error` points to), and
//! dates written as the language writes them (`date_time`). Pages take the language as a
//! parameter; [`DEFAULT`] is the one a request gets until it says otherwise.
use serde_json::Value;
use std::sync::OnceLock;

/// The English language file.
pub const EN: &str = include_str!("../../static/languages/en.json");
/// The French language file.
pub const FR: &str = include_str!("../../static/languages/fr.json");

/// The language of a request that names none.
pub const DEFAULT: &str = "en";

fn parsed(lang: &str) -> &'static Value {
    static EN_V: OnceLock<Value> = OnceLock::new();
    static FR_V: OnceLock<Value> = OnceLock::new();
    match lang {
        "fr" => FR_V.get_or_init(|| serde_json::from_str(FR).unwrap_or(Value::Null)),
        _ => EN_V.get_or_init(|| serde_json::from_str(EN).unwrap_or(Value::Null)),
    }
}

/// The message of portal error `num` (`PE<num>`) in `lang`, English as fallback.
pub fn text(lang: &str, num: u16) -> String {
    lookup(lang, &format!("PE{num}")).unwrap_or_else(|| format!("Error {num}"))
}

/// Any message key (`PE5`, `gotNewMessages`, ...) in `lang`, English as fallback.
pub fn lookup(lang: &str, key: &str) -> Option<String> {
    parsed(lang)
        .get(key)
        .or_else(|| parsed("en").get(key))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A message key in `lang`, its key itself when no language has it (so a missing text shows
/// as its name rather than as nothing).
pub fn word(lang: &str, key: &str) -> String {
    lookup(lang, key).unwrap_or_else(|| key.to_string())
}

/// A message with its `%s` replaced by `arg` (LemonLDAP::NG's `trspan="key,arg"`).
pub fn with_arg(lang: &str, key: &str, arg: &str) -> String {
    word(lang, key).replacen("%s", arg, 1)
}

/// An instant (seconds since the epoch) as `lang` writes a date and time, in UTC: the
/// language's `dateTimeFormat` with `%d` (day, two digits), `%e` (day), `%m` (month, two
/// digits), `%B` (month name from `monthNames`, comma-separated), `%Y`, `%H`, `%M`, `%S`; the
/// format says "UTC" itself.
pub fn date_time(lang: &str, epoch: i64) -> String {
    let (y, mo, d) = crate::util::civil_from_days(epoch.div_euclid(86_400));
    let secs = epoch.rem_euclid(86_400);
    let months = word(lang, "monthNames");
    let month_name = months
        .split(',')
        .nth(mo.saturating_sub(1) as usize)
        .map(str::trim)
        .unwrap_or("")
        .to_string();
    let format = lookup(lang, "dateTimeFormat").unwrap_or_else(|| "%Y-%m-%d %H:%M:%S UTC".into());
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str(&format!("{d:02}")),
            Some('e') => out.push_str(&d.to_string()),
            Some('m') => out.push_str(&format!("{mo:02}")),
            Some('B') => out.push_str(&month_name),
            Some('Y') => out.push_str(&format!("{y:04}")),
            Some('H') => out.push_str(&format!("{:02}", secs / 3600)),
            Some('M') => out.push_str(&format!("{:02}", (secs / 60) % 60)),
            Some('S') => out.push_str(&format!("{:02}", secs % 60)),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// An instant as an HTML `datetime` value (`YYYY-MM-DDTHH:MM:SSZ`).
pub fn iso_date_time(epoch: i64) -> String {
    let t = crate::util::timestamp14(epoch);
    let part = |a: usize, b: usize| t.get(a..b).unwrap_or("00").to_string();
    format!(
        "{}-{}-{}T{}:{}:{}Z",
        part(0, 4),
        part(4, 6),
        part(6, 8),
        part(8, 10),
        part(10, 12),
        part(12, 14)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_each_language() {
        // 2024-03-05 09:07:02 UTC
        let t = 1_709_629_622;
        assert_eq!(date_time("en", t), "5 March 2024, 09:07 UTC");
        assert_eq!(date_time("fr", t), "5 mars 2024, 09:07 UTC");
        assert_eq!(date_time("xx", t), "5 March 2024, 09:07 UTC");
        assert_eq!(iso_date_time(t), "2024-03-05T09:07:02Z");
    }

    #[test]
    fn messages_with_an_argument() {
        assert_eq!(
            with_arg("fr", "oidcConsent", "Mon appli"),
            "L'application Mon appli voudrait :"
        );
        assert_eq!(word("en", "noSuchKey"), "noSuchKey");
    }
}
