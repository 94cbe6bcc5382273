//! LemonLDAP::NG's Demo accounts: dwho, rtyler, msmith; the password is the login.
use super::Directory;
use crate::error::Result;
use serde_json::{json, Map, Value};

/// The demo directory.
pub struct Demo;

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_accounts() {
        assert!(Demo.authenticate("dwho", "dwho").unwrap());
        assert!(!Demo.authenticate("dwho", "x").unwrap());
        assert!(!Demo.authenticate("nobody", "nobody").unwrap());
        let u = Demo.user_info("rtyler").unwrap().unwrap();
        assert_eq!(u["mail"], "rtyler@badwolf.org");
        assert_eq!(u["groups"], json!(["earthlings", "users"]));
        assert!(Demo.user_info("nobody").unwrap().is_none());
    }
}
