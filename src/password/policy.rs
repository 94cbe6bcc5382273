//! LemonLDAP::NG 2.16's password policy (`Password/Base.pm`, `checkPasswordQuality`), typed
//! from its keys once per configuration: `passwordPolicyMinSize`, `passwordPolicyMinLower`,
//! `passwordPolicyMinUpper`, `passwordPolicyMinDigit`, `passwordPolicyMinSpeChar` and
//! `passwordPolicySpecialChar` (`__ALL__`, the default: any character other than a letter or
//! a digit counts as special and none is forbidden; otherwise the special characters allowed,
//! every other non-word character being forbidden). The rules are checked in LemonLDAP::NG's
//! order and the first broken one is the answer, with LemonLDAP::NG's portal error (29, 28,
//! 100, 101) and a rule of its own (`Broken`), so that the page names the rule.
//!
//! Counts are of characters (LemonLDAP::NG 2.16 counts the bytes of the UTF-8 form, which
//! only differs for passwords outside ASCII: docs/users.md says how). Digits and word
//! characters are ASCII ones, as Perl's `\d` and `\w` read a byte string; lower and upper case
//! are Unicode's properties, as `\p{lowercase}` and `\p{uppercase}`. No HTTP here.
use crate::config::{int_setting, value_string};
use serde_json::{Map, Value};

/// The policy's values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// `passwordPolicyMinSize`.
    pub min_size: usize,
    /// `passwordPolicyMinLower`.
    pub min_lower: usize,
    /// `passwordPolicyMinUpper`.
    pub min_upper: usize,
    /// `passwordPolicyMinDigit`.
    pub min_digit: usize,
    /// `passwordPolicyMinSpeChar`.
    pub min_special: usize,
    /// `passwordPolicySpecialChar`.
    pub special: Special,
}

/// `passwordPolicySpecialChar`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Special {
    /// `__ALL__`: any character but an ASCII letter or digit is special; none is forbidden.
    #[default]
    All,
    /// Only these special characters are allowed (sorted, each once); any character other
    /// than them and ASCII letters, digits and `_` is forbidden. Empty: none allowed.
    Only(Vec<char>),
}

/// A rule the password breaks, with the value the rule asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Broken {
    /// Shorter than `passwordPolicyMinSize`.
    Size(usize),
    /// Fewer lower-case letters than `passwordPolicyMinLower`.
    Lower(usize),
    /// Fewer upper-case letters than `passwordPolicyMinUpper`.
    Upper(usize),
    /// Fewer digits than `passwordPolicyMinDigit`.
    Digit(usize),
    /// Fewer special characters than `passwordPolicyMinSpeChar`.
    Special(usize),
    /// This many characters outside `passwordPolicySpecialChar` and the word characters.
    Forbidden(usize),
}

impl Broken {
    /// The key of its message in the language files (`{n}`: the value the rule asks for, or
    /// the count of characters not allowed), and that value.
    pub fn message(self) -> (&'static str, usize) {
        match self {
            Broken::Size(n) => ("ppTooShort", n),
            Broken::Lower(n) => ("ppFewLower", n),
            Broken::Upper(n) => ("ppFewUpper", n),
            Broken::Digit(n) => ("ppFewDigit", n),
            Broken::Special(n) => ("ppFewSpeChar", n),
            Broken::Forbidden(n) => ("ppForbidden", n),
        }
    }

    /// LemonLDAP::NG's portal error for it: PE_PP_PASSWORD_TOO_SHORT (29),
    /// PE_PP_INSUFFICIENT_PASSWORD_QUALITY (28), PE_PP_NOT_ALLOWED_CHARACTER(S) (100, 101).
    pub fn code(self) -> u16 {
        match self {
            Broken::Size(_) => 29,
            Broken::Lower(_) | Broken::Upper(_) | Broken::Digit(_) | Broken::Special(_) => 28,
            Broken::Forbidden(1) => 100,
            Broken::Forbidden(_) => 101,
        }
    }
}

impl Policy {
    /// The policy of a configuration; an integer key that is not one is refused by name.
    pub fn from_conf(raw: &Map<String, Value>) -> Result<Policy, String> {
        let int = |key: &str| -> Result<usize, String> {
            let n = int_setting(raw, key)?.unwrap_or(0).max(0);
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        };
        let special = match raw.get("passwordPolicySpecialChar").map(value_string) {
            None => Special::All,
            Some(s) if s == "__ALL__" => Special::All,
            Some(s) => {
                let mut chars: Vec<char> = s.chars().collect();
                crate::util::sort::sort(&mut chars);
                chars.dedup();
                Special::Only(chars)
            }
        };
        Ok(Policy {
            min_size: int("passwordPolicyMinSize")?,
            min_lower: int("passwordPolicyMinLower")?,
            min_upper: int("passwordPolicyMinUpper")?,
            min_digit: int("passwordPolicyMinDigit")?,
            min_special: int("passwordPolicyMinSpeChar")?,
            special,
        })
    }

    /// Whether any rule is set (LemonLDAP::NG's `isPP`: without one, the form says the user is
    /// free to choose).
    pub fn is_set(&self) -> bool {
        self.min_size + self.min_lower + self.min_upper + self.min_digit + self.min_special > 0
            || matches!(&self.special, Special::Only(c) if !c.is_empty())
    }

    /// `checkPasswordQuality`: the first rule `password` breaks, in LemonLDAP::NG's order.
    pub fn check(&self, password: &str) -> Result<(), Broken> {
        let count = |f: fn(&char) -> bool| password.chars().filter(f).count();
        if self.min_size > 0 && password.chars().count() < self.min_size {
            return Err(Broken::Size(self.min_size));
        }
        if self.min_lower > 0 && count(|c| c.is_lowercase()) < self.min_lower {
            return Err(Broken::Lower(self.min_lower));
        }
        if self.min_upper > 0 && count(|c| c.is_uppercase()) < self.min_upper {
            return Err(Broken::Upper(self.min_upper));
        }
        if self.min_digit > 0 && count(char::is_ascii_digit) < self.min_digit {
            return Err(Broken::Digit(self.min_digit));
        }
        let allowed = match &self.special {
            // `[\W_]`: anything but an ASCII letter or digit; nothing is forbidden.
            Special::All => {
                let special = count(|c| !c.is_ascii_alphanumeric());
                if self.min_special > 0 && special < self.min_special {
                    return Err(Broken::Special(self.min_special));
                }
                return Ok(());
            }
            Special::Only(allowed) => allowed,
        };
        // An empty list is false in Perl: the count is skipped, every special is forbidden.
        if self.min_special > 0 && !allowed.is_empty() {
            let special = password.chars().filter(|c| allowed.contains(c)).count();
            if special < self.min_special {
                return Err(Broken::Special(self.min_special));
            }
        }
        let is_word = |c: &char| c.is_ascii_alphanumeric() || *c == '_';
        let forbidden = password
            .chars()
            .filter(|c| !allowed.contains(c) && !is_word(c))
            .count();
        match forbidden {
            0 => Ok(()),
            n => Err(Broken::Forbidden(n)),
        }
    }

    /// The special characters allowed as the form lists them (each once, sorted, a space
    /// written `<space>` as LemonLDAP::NG's `speChars` does); `None` with `__ALL__`.
    pub fn allowed_specials(&self) -> Option<String> {
        let Special::Only(chars) = &self.special else {
            return None;
        };
        let shown: Vec<String> = chars
            .iter()
            .map(|c| match c.is_whitespace() {
                true => "<space>".to_string(),
                false => c.to_string(),
            })
            .collect();
        Some(shown.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(v: Value) -> Policy {
        Policy::from_conf(v.as_object().unwrap()).unwrap()
    }

    #[test]
    fn defaults_allow_anything() {
        let p = policy(json!({}));
        assert!(!p.is_set());
        assert_eq!(p.check(""), Ok(()));
        assert_eq!(p.check("é \u{1F600}"), Ok(()));
    }

    #[test]
    fn each_rule_in_order() {
        let p = policy(json!({
            "passwordPolicyMinSize": 8, "passwordPolicyMinLower": 2,
            "passwordPolicyMinUpper": "1", "passwordPolicyMinDigit": 1,
            "passwordPolicyMinSpeChar": 1
        }));
        assert!(p.is_set());
        assert_eq!(p.check("Ab1!"), Err(Broken::Size(8)));
        assert_eq!(p.check("ABCDEFG1!"), Err(Broken::Lower(2)));
        assert_eq!(p.check("abcdefg1!"), Err(Broken::Upper(1)));
        assert_eq!(p.check("abcdefgH!"), Err(Broken::Digit(1)));
        assert_eq!(p.check("abcdefgH1"), Err(Broken::Special(1)));
        assert_eq!(p.check("abcdefgH1_"), Ok(()), "`_` is special in [\\W_]");
        assert_eq!(p.check("abcdefgH1 "), Ok(()));
        assert_eq!(Broken::Size(8).code(), 29);
        assert_eq!(Broken::Digit(1).code(), 28);
    }

    #[test]
    fn a_list_of_specials_allows_only_them() {
        let p = policy(json!({"passwordPolicySpecialChar": "!$!", "passwordPolicyMinSpeChar": 2}));
        assert_eq!(p.allowed_specials().as_deref(), Some("! $"));
        assert_eq!(p.check("ab!c"), Err(Broken::Special(2)));
        assert_eq!(p.check("ab!c$"), Ok(()));
        assert_eq!(p.check("ab!c$#"), Err(Broken::Forbidden(1)));
        assert_eq!(p.check("ab!c$#%"), Err(Broken::Forbidden(2)));
        assert_eq!(Broken::Forbidden(1).code(), 100);
        assert_eq!(Broken::Forbidden(2).code(), 101);
        assert_eq!(p.check("a_b!$"), Ok(()), "`_` is a word character");
    }

    #[test]
    fn an_empty_list_forbids_every_special() {
        let p = policy(json!({"passwordPolicySpecialChar": "", "passwordPolicyMinSpeChar": 3}));
        assert!(p.is_set(), "MinSpeChar is set");
        assert_eq!(
            p.check("abc"),
            Ok(()),
            "the count is skipped, as Perl's false list"
        );
        assert_eq!(p.check("a-c"), Err(Broken::Forbidden(1)));
        assert_eq!(p.check("é"), Err(Broken::Forbidden(1)), "\\w is ASCII");
        let space = policy(json!({"passwordPolicySpecialChar": " -"}));
        assert_eq!(space.allowed_specials().as_deref(), Some("<space> -"));
    }

    #[test]
    fn unicode_letters_have_their_case_digits_are_ascii() {
        let p = policy(json!({"passwordPolicyMinLower": 1, "passwordPolicyMinUpper": 1}));
        assert_eq!(p.check("éÉ"), Ok(()));
        let d = policy(json!({"passwordPolicyMinDigit": 1}));
        assert_eq!(d.check("١٢٣"), Err(Broken::Digit(1)));
        let size = policy(json!({"passwordPolicyMinSize": 3}));
        assert_eq!(
            size.check("éé"),
            Err(Broken::Size(3)),
            "characters, not bytes"
        );
    }

    #[test]
    fn a_value_that_is_no_integer_is_refused_by_name() {
        let e = Policy::from_conf(
            json!({"passwordPolicyMinSize": "eight"})
                .as_object()
                .unwrap(),
        );
        assert_eq!(
            e.unwrap_err(),
            "passwordPolicyMinSize = eight is not an integer"
        );
        assert_eq!(policy(json!({"passwordPolicyMinSize": -3})).min_size, 0);
    }
}
