//! What `limette config` prints, in `lemonldap-ng-cli`'s own formats
//! (`Manager/Cli.pm`, `Common/Cli.pm`): `get`'s `KEY = value` lines and its lists of a hash's
//! keys, `info`'s block with a C-library date, `save`'s JSON (keys sorted, three spaces, no
//! space after the colon, as Perl's `JSON->new->indent->canonical`), and the "Proposed
//! changes" table of `set`. Pure functions from values to text; no store, no I/O.
use crate::config::{as_i64, value_string};
use serde_json::ser::Formatter;
use serde_json::{Map, Value};
use std::io;

/// One key of `get`: `KEY = value`, or the sorted keys of a hash, or an array's values.
pub fn get_value(key: &str, value: &Value) -> String {
    match value {
        Value::Object(m) => {
            let mut out = format!("{key} has the following keys:\n");
            for k in sorted_keys(m) {
                out.push_str(&format!("   {k}\n"));
            }
            out
        }
        Value::Array(items) => {
            let mut out = format!("{key} is an array with values:\n");
            for item in items {
                match item {
                    Value::Object(m) => {
                        out.push_str("\tHash with following keys:\n");
                        for k in sorted_keys(m) {
                            out.push_str(&format!("\t\t{k}\n"));
                        }
                    }
                    Value::Array(a) => {
                        out.push_str("\tArray with following keys:\n");
                        for v in a {
                            out.push_str(&format!("\t\t{}\n", value_string(v)));
                        }
                    }
                    other => out.push_str(&format!("\tValue = {}\n", value_string(other))),
                }
            }
            out
        }
        other => format!("{key} = {}\n", value_string(other)),
    }
}

/// `info`: a blank line, then number, author, IP, date (UTC), version and log.
pub fn info(num: u64, c: &Map<String, Value>) -> String {
    let s = |k: &str| c.get(k).map(value_string).unwrap_or_default();
    let or = |k: &str, dflt: &str| Some(s(k)).filter(|v| !v.is_empty()).unwrap_or(dflt.into());
    let date = c.get("cfgDate").and_then(as_i64).unwrap_or(0);
    format!(
        "\nNum      : {num}\nAuthor   : {}\nAuthor IP: {}\nDate     : {}\nVersion  : {}\nLog      : {}\n",
        s("cfgAuthor"),
        or("cfgAuthorIP", "No IP provided"),
        ctime(date),
        s("cfgVersion"),
        or("cfgLog", "No log provided"),
    )
}

/// The "Proposed changes" table of `set` (`%-25s | %-25s | %-25s`), with its question.
pub fn proposed_changes(rows: &[(String, String, String)]) -> String {
    let line = |a: &str, b: &str, c: &str| format!("{a:<25} | {b:<25} | {c:<25}\n");
    let mut out = String::from("Proposed changes:\n");
    out.push_str(&line("Key", "Old value", "New value"));
    for (k, old, new) in rows {
        out.push_str(&line(k, old, new));
    }
    out.push_str("Confirm (N/y)? ");
    out
}

/// A document as `lemonldap-ng-cli save` prints it.
pub fn save_json(doc: &Map<String, Value>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PerlIndent::default());
    // Serializing a Value into a Vec cannot fail.
    let _ = serde::Serialize::serialize(
        &crate::config_proxy::view::sort_keys(&Value::Object(doc.clone())),
        &mut ser,
    );
    out.push(b'\n');
    out
}

/// An epoch as C's `ctime` (and Perl's scalar `localtime`) writes it, in UTC:
/// `Mon Jul 26 08:20:38 2021`.
pub fn ctime(epoch: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = epoch.div_euclid(86_400);
    let (y, m, d) = crate::util::civil_from_days(days);
    let s = epoch.rem_euclid(86_400);
    // rem_euclid(7) is in 0..7 and m in 1..=12, so both indexes exist.
    let wday = DAYS[days.rem_euclid(7) as usize];
    let month = MONTHS[(m as usize).saturating_sub(1) % 12];
    format!(
        "{wday} {month} {d:>2} {:02}:{:02}:{:02} {y}",
        s / 3600,
        (s / 60) % 60,
        s % 60
    )
}

fn sorted_keys(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    crate::util::sort::sort(&mut keys);
    keys
}

/// Perl JSON's `indent`: three spaces a level, `"key":value`, empty containers as `{}`/`[]`.
#[derive(Default)]
struct PerlIndent {
    level: usize,
    has_value: bool,
}

impl PerlIndent {
    fn newline<W: ?Sized + io::Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.level {
            w.write_all(b"   ")?;
        }
        Ok(())
    }
    fn open<W: ?Sized + io::Write>(&mut self, w: &mut W, c: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(c)
    }
    fn close<W: ?Sized + io::Write>(&mut self, w: &mut W, c: &[u8]) -> io::Result<()> {
        self.level = self.level.saturating_sub(1);
        if self.has_value {
            self.newline(w)?;
        }
        self.has_value = true;
        w.write_all(c)
    }
    fn item<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }
}

impl Formatter for PerlIndent {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b":")
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn get_prints_like_lemonldap_ng_cli() {
        assert_eq!(get_value("timeout", &json!(72000)), "timeout = 72000\n");
        assert_eq!(get_value("domain", &json!(null)), "domain = \n");
        assert_eq!(
            get_value("macros", &json!({"b": "1", "UA": "x"})),
            "macros has the following keys:\n   UA\n   b\n"
        );
        assert_eq!(
            get_value("l", &json!(["a", {"k": 1}])),
            "l is an array with values:\n\tValue = a\n\tHash with following keys:\n\t\tk\n"
        );
    }

    #[test]
    fn dates_are_c_library_dates() {
        assert_eq!(ctime(1_627_287_638), "Mon Jul 26 08:20:38 2021");
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
    }

    #[test]
    fn save_is_perl_json_indent_canonical() {
        let doc = json!({"b": {"y": [1, {}], "x": []}, "a": "t"});
        let text = String::from_utf8(save_json(doc.as_object().unwrap())).unwrap();
        assert_eq!(
            text,
            "{\n   \"a\":\"t\",\n   \"b\":{\n      \"x\":[],\n      \"y\":[\n         1,\n         {}\n      ]\n   }\n}\n"
        );
    }
}
