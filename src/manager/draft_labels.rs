//! What a console form kept across a sign-in (`draft`) is called when it comes back: by the
//! path it was posted to, which form it was (its button's words) and, for each field, the
//! label that form gave it in the page's language (the notifications', users', sessions' and
//! configuration forms' message keys; the editor's `k.<key>` fields under the catalogue's
//! labels), or hidden when it is the form's own workings (`action`, `base`, the editor's view).
//! A field it does not know keeps its name. Templates draw; this only names.
use crate::config::catalogue::{self, Entry, Input};
use crate::web::Page;

/// Which console form a kept one was, by the path it was posted to: what its fields are called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `/manager/notifications`: create, mark done, delete.
    Notifications,
    /// `/manager/sessions` (every session of a user) or `/manager/sessions/<id>` (`one`).
    Sessions { one: bool },
    /// `/manager/2f`: a device removed.
    SecondFactors,
    /// `/manager/users` (add) or `/manager/users/<login>` (`one`: reset, lock, unlock).
    Users { one: bool },
    /// `/manager/conf`: add a relying party, the main keys, rotate, roll back.
    Conf,
    /// `/manager/conf/rp/<name>`: its form, one option, a new secret, deletion.
    Rp,
    /// `/manager/conf/edit`: the editor's `k.<key>` fields.
    Editor,
    /// Any other path: its fields under their names.
    Other,
}

/// How a kept field shows again.
pub enum Look {
    /// Carried, not shown: the form's own workings.
    Hidden,
    /// A ticked check box, with its label.
    Check(String),
    /// A text input (a text area for a long value), with its label.
    Text(String),
}

/// The relying-party form's fields and their labels (`conf_forms::rp_form`).
const RP_FIELDS: [(&str, &str); 6] = [
    ("name", "mgrRpName"),
    ("client_id", "mgrClientId"),
    ("display_name", "mgrDisplayName"),
    ("redirect_uris", "mgrRedirectUris"),
    ("post_logout_uris", "mgrPostLogoutUris"),
    ("id_alg", "mgrIdAlg"),
];

impl Form {
    /// The form posted to `path`.
    pub fn of(path: &str) -> Form {
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        match segs.as_slice() {
            ["manager", "notifications"] => Form::Notifications,
            ["manager", "sessions", rest @ ..] => Form::Sessions {
                one: !rest.is_empty(),
            },
            ["manager", "2f", ..] => Form::SecondFactors,
            ["manager", "users", rest @ ..] => Form::Users {
                one: !rest.is_empty(),
            },
            ["manager", "conf"] => Form::Conf,
            ["manager", "conf", "rp", _] => Form::Rp,
            ["manager", "conf", "edit"] => Form::Editor,
            _ => Form::Other,
        }
    }

    /// The label the original form gave field `name`, in the page's language; an unknown
    /// field keeps its name.
    pub fn look(self, page: &Page, name: &str) -> Look {
        let said = |key: &str| Look::Text(page.raw(key));
        let hidden = match self {
            Form::Editor => matches!(name, "group" | "q" | "shown" | "rp"),
            Form::SecondFactors => matches!(name, "type" | "epoch"),
            _ => false,
        };
        if hidden || matches!(name, "action" | "base") {
            return Look::Hidden;
        }
        if name == "log" {
            return said("mgrLogMsg");
        }
        match (self, name) {
            (Form::Notifications, _) => {
                match super::notifications::FIELDS.iter().find(|f| f.0 == name) {
                    Some(f) => said(f.1),
                    None => Look::Text(name.to_string()),
                }
            }
            (Form::Sessions { .. } | Form::SecondFactors, "user") => said("mgrUser"),
            (Form::Users { .. }, "login") => said("mgrLogin"),
            (Form::Conf | Form::Rp, _) => conf_look(page, name),
            (Form::Editor, _) => editor_look(page, name),
            _ => Look::Text(name.to_string()),
        }
    }

    /// The message naming what the form does (its button's words) and the values it is
    /// filled with, when the form's fields tell.
    pub fn action_word(
        self,
        fields: &[(String, String)],
    ) -> Option<(&'static str, Vec<(&'static str, String)>)> {
        let get = |k: &str| fields.iter().find(|f| f.0 == k).map(|f| f.1.clone());
        let action = get("action").unwrap_or_default();
        let key = match (self, action.as_str()) {
            (Form::Notifications, "create") => "mgrCreate",
            (Form::Notifications, "done") => "mgrMarkDone",
            (Form::Notifications, "delete") => "mgrDelete",
            (Form::Sessions { one: true }, _) => "mgrDeleteSession",
            (Form::Sessions { one: false }, _) => "mgrDeleteAllOf",
            (Form::Users { one: false }, _) => "mgrAddUser",
            (Form::Users { one: true }, "password") => "mgrResetPassword",
            (Form::Users { one: true }, "lock") => "mgrLock",
            (Form::Users { one: true }, "unlock") => "mgrUnlock",
            (Form::Conf, "add") => "mgrAddRp",
            (Form::Conf, "main") => "mgrMainKeys",
            (Form::Conf, "rotate") => "mgrRotateKeys",
            (Form::Conf, "rollback") => "mgrRollback",
            (Form::Rp, "option") => "mgrSetOption",
            (Form::Rp, "secret") => "mgrNewSecret",
            (Form::Rp, "delete") => "mgrDeleteRp",
            _ => return None,
        };
        let fill = [("user", get("user")), ("num", get("num"))];
        Some((
            key,
            fill.into_iter()
                .filter_map(|(k, v)| Some((k, v?)))
                .collect(),
        ))
    }
}

/// A field of the configuration page's forms: the relying party's, its flags, one option,
/// the main keys (their labels in the editor's catalogue), the version rolled back to.
fn conf_look(page: &Page, name: &str) -> Look {
    if let Some((_, key)) = RP_FIELDS.iter().find(|f| f.0 == name) {
        return Look::Text(page.raw(key));
    }
    if let Some(flag) = name.strip_prefix("flag_") {
        return Look::Check(flag.to_string());
    }
    let key = match name {
        "key" => "mgrOption",
        "value" => "mgrValue",
        "num" => "mgrConfNum",
        _ => match catalogue::get(name) {
            Some(e) => return Look::Text(e.text(page.lang).label.to_string()),
            None => return Look::Text(name.to_string()),
        },
    };
    Look::Text(page.raw(key))
}

/// A field of the editor: `k.<key>` under the key's label in the catalogue (a check box for an
/// on/off key), a table's row `k.<key>.n.<i>` or `.v.<i>` as the table labels it.
fn editor_look(page: &Page, name: &str) -> Look {
    let Some((entry, row)) = editor_field(name) else {
        return Look::Text(name.to_string());
    };
    let label = entry.text(page.lang).label;
    match row {
        Some((part, i)) => {
            let word = page.raw(if part == "n" { "edName" } else { "edValue" });
            Look::Text(format!("{label} — {word} {}", i + 1))
        }
        None if entry.input == Input::Bool => Look::Check(label.to_string()),
        None => Look::Text(label.to_string()),
    }
}

/// The catalogue entry of an editor field, and the table row (`n` or `v`, index) it is one of.
pub fn editor_field(name: &str) -> Option<(&'static Entry, Option<(&str, usize)>)> {
    let rest = name.strip_prefix("k.")?;
    let mut parts = rest.splitn(3, '.');
    let key = parts.next()?;
    let entry = catalogue::get(key)?;
    let row = match (parts.next(), parts.next()) {
        (None, _) => None,
        (Some(part @ ("n" | "v")), Some(i)) => Some((part, i.parse().ok()?)),
        _ => return None,
    };
    Some((entry, row))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Conf;
    use crate::http::{Method, Request};
    use serde_json::json;

    #[test]
    fn kept_fields_are_labelled_as_their_form_labels_them() {
        let text = |l: Look| match l {
            Look::Text(t) => format!("text {t}"),
            Look::Check(t) => format!("check {t}"),
            Look::Hidden => "hidden".into(),
        };
        let conf = Conf::of_json(json!({"cfgNum": 1, "portal": "http://p/"}));
        let req = Request::new(Method::Get, "/manager/");
        let page = Page::new(&conf, &req);
        let look = |path: &str, name: &str| text(Form::of(path).look(&page, name));
        assert_eq!(look("/manager/notifications", "title"), "text Title");
        assert_eq!(
            look("/manager/notifications", "check"),
            "text Check boxes (one a line)"
        );
        assert_eq!(look("/manager/notifications", "action"), "hidden");
        assert_eq!(look("/manager/conf", "client_id"), "text Client ID");
        assert_eq!(look("/manager/conf", "flag_Public"), "check Public");
        assert_eq!(look("/manager/conf", "base"), "hidden");
        assert_eq!(look("/manager/conf/rp/app", "key"), "text Option");
        assert_eq!(look("/manager/conf/edit", "shown"), "hidden");
        assert_eq!(
            look("/manager/conf/edit", "k.passwordPolicyMinSize"),
            "text Minimal size"
        );
        assert_eq!(
            look("/manager/conf/edit", "k.showLanguages"),
            "check Show languages"
        );
        assert_eq!(
            look("/manager/conf/edit", "k.portalSkinRules.v.1"),
            "text Skin rules — Value 2"
        );
        assert_eq!(
            look("/manager/conf/edit", "k.noSuchKey"),
            "text k.noSuchKey"
        );
        assert_eq!(look("/manager/users", "attr-mail"), "text attr-mail");
    }
}
