//! LemonLDAP::NG's Demo accounts: dwho, rtyler, msmith; the password is the login.
use super::Directory;
use crate::config::Conf;
use crate::error::Result;
use serde_json::{json, Map, Value};

/// The demo directory.
pub struct Demo {
    level: i64,
}

impl Demo {
    /// The demo directory of a configuration. Its level is that of LemonLDAP::NG's web form
    /// modules (`Portal/Auth/_WebForm.pm`): 2 behind an `https` portal, else 1.
    pub fn from_conf(conf: &Conf) -> Demo {
        Demo {
            level: web_form_level(&conf.portal),
        }
    }
}

/// `_WebForm.pm`'s `authnLevel`: `portal =~ /^https/ ? 2 : 1`.
pub fn web_form_level(portal: &str) -> i64 {
    if portal.starts_with("https") {
        2
    } else {
        1
    }
}

const USERS: [(&str, &str); 3] = [
    ("dwho", "Doctor Who"),
    ("rtyler", "Rose Tyler"),
    ("msmith", "Mickey Smith"),
];

/// Groups of a demo user, as LemonLDAP::NG's demo module defines them.
fn groups(uid: &str) -> Vec<&'static str> {
    match uid {
        "dwho" => vec!["timelords", "users"],
        _ => vec!["earthlings", "users"],
    }
}

impl Directory for Demo {
    fn authenticate(&self, user: &str, password: &str) -> Result<bool> {
        let known = USERS.iter().any(|(u, _)| *u == user);
        Ok(known && crate::util::ct_eq(user.as_bytes(), password.as_bytes()))
    }

    fn user_info(&self, user: &str) -> Result<Option<Map<String, Value>>> {
        let Some((uid, cn)) = USERS.iter().find(|(u, _)| *u == user) else {
            return Ok(None);
        };
        let mut m = Map::new();
        m.insert("uid".into(), json!(uid));
        m.insert("cn".into(), json!(cn));
        m.insert("mail".into(), json!(format!("{uid}@badwolf.org")));
        m.insert("groups".into(), json!(groups(uid)));
        Ok(Some(m))
    }

    fn name(&self) -> &'static str {
        "Demo"
    }

    fn authn_level(&self) -> i64 {
        self.level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_accounts() {
        let demo = Demo { level: 1 };
        assert!(demo.authenticate("dwho", "dwho").unwrap());
        assert!(!demo.authenticate("dwho", "x").unwrap());
        assert!(!demo.authenticate("nobody", "nobody").unwrap());
        let u = demo.user_info("rtyler").unwrap().unwrap();
        assert_eq!(u["mail"], "rtyler@badwolf.org");
        assert_eq!(u["groups"], json!(["earthlings", "users"]));
        assert!(demo.user_info("nobody").unwrap().is_none());
    }

    #[test]
    fn the_level_follows_the_portal_scheme() {
        assert_eq!(web_form_level("http://auth.example.com/"), 1);
        assert_eq!(web_form_level("https://auth.example.com/"), 2);
    }
}
