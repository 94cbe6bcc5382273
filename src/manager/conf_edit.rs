//! The configuration forms' posts: add a relying party, edit one, set one of its options,
//! give it a new secret (shown once, on the answer itself: a secret never goes into a URL,
//! so that answer is the one page the console does not redirect after), delete it; a few main
//! keys; new signing keys; roll back to an older version. Each builds the whole new document
//! from the latest, refuses when another version was saved since the form was drawn, and
//! saves through `storage::save::save_new` after the same checks as `limette config set`
//! (`cfgAuthor`: the administrator, `cfgAuthorIP`: their address, `cfgLog`: the form's text or
//! a summary). A refusal shows its reason above the form and saves nothing; a save is an
//! audit line, and the running server takes it up at once (`oidc::keygen::reload`), and the
//! next page says what was saved (`web::flash`). Deleting a relying party and rolling back
//! ask first: the post shows what will happen and saves only when it comes back confirmed.
use super::conf::{self, latest};
use super::conf_forms::MAIN_KEYS;
use super::{alert, done, Ctx};
use crate::error::{Error, Result};
use crate::http::Response;
use crate::oidc::keys::{self, KeyKind};
use crate::oidc::rp_edit::{self, Form};
use crate::storage::save::{self, Author, META_KEYS};
use crate::util::url_encode;
use crate::web::flash::Said;
use maud::{html, Markup};
use serde_json::{Map, Value};

/// What an action made of the document: the summary (`cfgLog` by default) and a secret to
/// show once (the relying party's name and the secret).
type Edited = std::result::Result<(String, Option<(String, String)>), String>;

/// `POST /manager/conf`: `add`, `main`, `rotate`, `rollback`.
pub fn post(ctx: &Ctx) -> Result<Response> {
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default().trim().to_string();
    let (num, mut doc) = latest(ctx)?;
    let action = form("action");
    if action == "rollback" && !ctx.confirmed() {
        return Ok(ask(ctx, "/manager/conf", &["action", "base", "num", "log"]));
    }
    let edited: Edited = match fresh(ctx, num) {
        Err(msg) => Err(msg),
        Ok(()) => match action.as_str() {
            "add" => {
                let name = form("name");
                rp_edit::add(&mut doc, &name, &rp_form(ctx))
                    .and_then(|s| rp_edit::loads(&mut doc, &name).map(|()| s))
                    .map(|s| (format!("Added relying party {name}"), s.map(|s| (name, s))))
            }
            "main" => main_keys(ctx, &mut doc).map(|s| (s, None)),
            "rotate" => {
                crate::oidc::keygen::rotate(&mut doc, crate::util::now()).map(|s| (s, None))
            }
            "rollback" => rollback(ctx, &mut doc).map(|s| (s, None)),
            _ => return Err(Error::bad("Unknown action")),
        },
    };
    finish(ctx, &action, &doc, edited, "/manager/conf", &|top| {
        conf::index(ctx, top)
    })
}

/// `POST /manager/conf/rp/<name>`: `edit`, `option`, `secret`, `delete`.
pub fn post_rp(ctx: &Ctx, name: &str) -> Result<Response> {
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default();
    let (num, mut doc) = latest(ctx)?;
    let action = form("action");
    if action == "delete" && !ctx.confirmed() {
        let to = format!("/manager/conf/rp/{}", url_encode(name));
        return Ok(ask(ctx, &to, &["action", "base", "log"]));
    }
    let with = |s: Option<String>| s.map(|s| (name.to_string(), s));
    let edited: Edited = match fresh(ctx, num) {
        Err(msg) => Err(msg),
        Ok(()) => match action.as_str() {
            "edit" => rp_edit::edit(&mut doc, name, &rp_form(ctx))
                .map(|s| (format!("Edited relying party {name}"), with(s))),
            "option" => {
                let key = form("key");
                rp_edit::set_option(&mut doc, name, &key, &form("value"))
                    .map(|()| (format!("Set option {key} of relying party {name}"), None))
            }
            "secret" => rp_edit::new_secret(&mut doc, name).map(|s| {
                (
                    format!("New secret for relying party {name}"),
                    with(Some(s)),
                )
            }),
            "delete" => rp_edit::delete(&mut doc, name)
                .map(|()| (format!("Deleted relying party {name}"), None)),
            _ => return Err(Error::bad("Unknown action")),
        },
    };
    // Every RP left must still load as it did (the deleted one aside).
    let edited = match edited {
        Ok(e) if action != "delete" => rp_edit::loads(&mut doc, name).map(|()| e),
        other => other,
    };
    let back = if action == "delete" {
        "/manager/conf".to_string()
    } else {
        format!("/manager/conf/rp/{}", url_encode(name))
    };
    finish(ctx, &action, &doc, edited, &back, &|top| {
        if action == "delete" {
            conf::index(ctx, top)
        } else {
            conf::rp_page(ctx, name, top)
        }
    })
}

/// Saves what an action made, or shows why not: `page` draws the form's page with a message.
fn finish(
    ctx: &Ctx,
    action: &str,
    doc: &Map<String, Value>,
    edited: Edited,
    back: &str,
    page: &dyn Fn(Markup) -> Result<Response>,
) -> Result<Response> {
    let refused = |why: String| {
        ctx.audit(
            "manager_conf_refused",
            &[("action", action), ("reason", &why)],
        );
        page(alert(&ctx.page(), &why))
    };
    let (summary, secret) = match edited {
        Ok(e) => e,
        Err(why) => return refused(why),
    };
    let log = Some(ctx.req.form_param("log").unwrap_or_default())
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .unwrap_or(summary);
    let num = match save_doc(ctx, doc, &log)? {
        Ok(num) => num,
        Err(why) => return refused(why),
    };
    ctx.audit(
        "manager_conf_save",
        &[("action", action), ("num", &num.to_string()), ("log", &log)],
    );
    crate::oidc::keygen::reload(ctx.app)?;
    match secret {
        None => Ok(done(ctx, back, said(ctx, action, num))),
        Some((rp, secret)) => {
            let p = ctx.page();
            let top = html! {
                p id="saved" role="status" { (p.say_fill("mgrSaved", &[("num", &num.to_string())])) } "\n"
                div id="secret" role="status" {
                    p { (p.say_fill("mgrSecretOnce", &[("rp", &rp)])) }
                    p { code { (secret) } }
                } "\n"
            };
            Ok(page(top)?.with_header("Cache-Control", "no-store"))
        }
    }
}

/// What the next page says of a save as `num`.
fn said(ctx: &Ctx, action: &str, num: u64) -> Said {
    let num = num.to_string();
    let rp = ctx.req.path.rsplit('/').next().unwrap_or_default();
    let rp = crate::util::url_decode_path(rp);
    let old = ctx.req.form_param("num").unwrap_or_default();
    match action {
        "add" => {
            Said::new("mgrRpAdded").with("rp", &ctx.req.form_param("name").unwrap_or_default())
        }
        "delete" => Said::new("mgrRpDeleted").with("rp", &rp),
        "rotate" => Said::new("mgrKeysRotated"),
        "rollback" => Said::new("mgrRolledBack").with("old", &old),
        "main" => Said::new("mgrMainSaved"),
        _ => Said::new("mgrRpSaved").with("rp", &rp),
    }
    .with("num", &num)
}

/// The page that asks before a deletion or a roll back: what will happen, and the same form
/// (its `fields`) to post again, confirmed.
fn ask(ctx: &Ctx, action: &str, fields: &[&str]) -> Response {
    let page = ctx.page();
    let values: Vec<(&str, String)> = fields
        .iter()
        .map(|k| (*k, ctx.req.form_param(k).unwrap_or_default()))
        .collect();
    let kept: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let rp = ctx.req.path.rsplit('/').next().unwrap_or_default();
    let rp = crate::util::url_decode_path(rp);
    let (question, button, cancel) = match ctx.req.form_param("num") {
        None => {
            let q = page.say_fill("mgrConfirmRpDelete", &[("rp", &rp)]);
            (
                q,
                "mgrDeleteRp",
                format!("/manager/conf/rp/{}", url_encode(&rp)),
            )
        }
        Some(num) => {
            let q = page.say_fill("mgrConfirmRollback", &[("num", &num)]);
            (
                q,
                "mgrRollback",
                format!("/manager/conf/{}", url_encode(&num)),
            )
        }
    };
    ctx.confirm(html! { p { (question) } }, action, &kept, button, &cancel)
}

/// The checks of `limette config set`, then the save; the reason of a refusal.
fn save_doc(
    ctx: &Ctx,
    doc: &Map<String, Value>,
    log: &str,
) -> Result<std::result::Result<u64, String>> {
    let author = Author {
        name: ctx.admin.trace(),
        ip: ctx.req.ip(),
        log: log.to_string(),
    };
    let checked = save::check(doc, ctx.app.areas())
        .and_then(|()| save::save_new(ctx.app.confs.as_ref(), doc, &author));
    match checked {
        Ok(num) => Ok(Ok(num)),
        Err(Error::BadRequest(why)) => Ok(Err(why)),
        Err(e) => Err(e),
    }
}

/// Refuses a form drawn from another version than the latest (someone saved since).
fn fresh(ctx: &Ctx, latest: u64) -> std::result::Result<(), String> {
    match ctx
        .req
        .form_param("base")
        .and_then(|b| b.parse::<u64>().ok())
    {
        Some(b) if b == latest => Ok(()),
        _ => Err(format!(
            "configuration {latest} was saved after this page was drawn: reload it and try again"
        )),
    }
}

fn rp_form(ctx: &Ctx) -> Form {
    let form = |k: &str| ctx.req.form_param(k).unwrap_or_default();
    Form {
        client_id: form("client_id"),
        display_name: form("display_name"),
        redirect_uris: form("redirect_uris"),
        post_logout_uris: form("post_logout_uris"),
        id_alg: form("id_alg"),
        flags: rp_edit::FLAGS
            .iter()
            .filter(|f| form(&format!("flag_{f}")) == "1")
            .map(|f| f.to_string())
            .collect(),
    }
}

/// The main keys of the form; the summary names those that changed.
fn main_keys(ctx: &Ctx, doc: &mut Map<String, Value>) -> std::result::Result<String, String> {
    let mut changed = Vec::new();
    for key in MAIN_KEYS {
        let value = ctx
            .req
            .form_param(key)
            .unwrap_or_default()
            .trim()
            .to_string();
        let new = match (key, value.as_str()) {
            (_, "") => None,
            ("timeout", v) => {
                Some(Value::from(v.parse::<u64>().map_err(|_| {
                    format!("timeout: {v:?} is not a number of seconds")
                })?))
            }
            (_, v) => Some(Value::from(v)),
        };
        let old = doc.get(key).map(crate::config::value_string);
        if old == new.as_ref().map(crate::config::value_string) {
            continue;
        }
        changed.push(key);
        match new {
            Some(v) => doc.insert(key.to_string(), v),
            None => doc.remove(key),
        };
    }
    if changed.is_empty() {
        return Err("nothing changed".into());
    }
    Ok(format!("Set {}", changed.join(", ")))
}

/// The document of the version the form names, as the new one.
fn rollback(ctx: &Ctx, doc: &mut Map<String, Value>) -> std::result::Result<String, String> {
    let num = ctx
        .req
        .form_param("num")
        .and_then(|n| n.parse::<u64>().ok())
        .ok_or("num: a configuration number")?;
    let mut old = crate::config_proxy::view::load(ctx.app.confs.as_ref(), num, false)
        .map_err(|e| e.to_string())?;
    for k in META_KEYS {
        old.remove(k);
    }
    // The signing keys are not a setting to roll back: tokens signed with today's keys are
    // alive at the relying parties, which must still find them. The latest version's keys
    // (and retired keys) stay; only the settings go back.
    let material = KeyKind::ALL
        .iter()
        .flat_map(|k| k.conf_keys())
        .chain([keys::RETIRED]);
    for k in material {
        match doc.get(k) {
            Some(v) => old.insert(k.to_string(), v.clone()),
            None => old.remove(k),
        };
    }
    *doc = old;
    Ok(format!(
        "Rolled back to configuration {num} (signing keys kept)"
    ))
}
