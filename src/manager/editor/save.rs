//! The editor's save, `POST /manager/conf/edit`, in order, each refusal drawing the same page
//! with every typed value and saving nothing:
//! 1. the form was drawn from the latest version (else: say which one came since);
//! 2. each field shown, as typed, is of its input's type (the error beside the field);
//! 3. the new document passes the checks of `limette config set` (`storage::save::check`: it
//!    parses, its areas' settings parse, the start-up gate, the cookie domain that would lock
//!    everybody out), and `config check` finds no new error in it;
//! 4. the console's own rule (`locationRules` of `managerHost`) still lets the administrator
//!    in to save again;
//! 5. what `config check` would newly warn about is shown, and saved only once confirmed;
//!
//! then the save (`storage::save::save_new`, `cfgAuthor`/`cfgAuthorIP`/`cfgLog`), an audit
//! line, and a redirect to the page saying what was saved.
use super::typed::{from_doc, from_form, wanted, Bad, Draft};
use super::{draw, latest, Outcome, View};
use crate::config::catalogue::Entry;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::findings::{findings, Level};
use crate::http::Response;
use crate::manager::{alert, done, Ctx};
use crate::storage::save::{self, Author};
use crate::web::flash::Said;
use crate::web::Page;
use maud::html;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// `POST /manager/conf/edit`: checks and saves the keys of the form's view.
pub fn post(ctx: &Ctx) -> Result<Response> {
    let form: HashMap<String, String> = ctx.req.form().into_iter().rev().collect();
    let view = View::of(ctx);
    let (num, mut doc) = latest(ctx)?;
    let page = ctx.page();
    // Only the keys the form showed: a search's matches may differ from one language to the
    // next, and a key the form did not show must not read as emptied.
    let shown: Vec<&str> = form
        .get("shown")
        .map_or(Vec::new(), |s| s.split(',').collect());
    let entries: Vec<_> = view
        .entries(page.lang)
        .into_iter()
        .filter(|e| shown.contains(&e.key))
        .collect();
    let drafts: HashMap<&'static str, Draft> = entries
        .iter()
        .map(|e| (e.key, from_form(e, &form)))
        .collect();
    let mut scoped = view
        .scope(&doc)
        .ok_or_else(|| Error::not_found("No such relying party"))?;
    let mut out = Outcome::default();
    let base = form.get("base").and_then(|b| b.parse::<u64>().ok());
    if base != Some(num) {
        out.top = Some(alert(
            &page,
            &fill(&page, "edStale", &[("num", &num.to_string())]),
        ));
        let drafts = rebase(ctx, base, &view, &entries, drafts, &scoped);
        return refuse(ctx, &view, num, &doc, &drafts, out);
    }
    let current = doc.clone();
    let changed = apply(&page, &entries, &drafts, &mut scoped, &mut out.errors);
    view.unscope(&mut doc, scoped);
    if out.errors.is_empty() && changed.is_empty() {
        out.top = Some(html! { p.message id="msg" role="status" { (page.say("edNothing")) } });
        return draw(ctx, &view, num, &current, &drafts, &out);
    }
    if out.errors.is_empty() {
        match checked(ctx, &doc, &entries) {
            Ok(warnings) => out.warnings = warnings,
            Err(errors) => out.errors = errors,
        }
    }
    if !out.errors.is_empty() {
        return refuse(ctx, &view, num, &current, &drafts, out);
    }
    if !out.warnings.is_empty() && form.get("confirm").map(String::as_str) != Some("1") {
        return draw(ctx, &view, num, &current, &drafts, &out);
    }
    let saved = store(ctx, &doc, &form, &changed)?;
    let said = Said::new("edSaved")
        .with("num", &saved.to_string())
        .with("keys", &changed.join(", "));
    Ok(done(ctx, &view.href(""), said))
}

/// The page again with the refusal, and its audit line.
fn refuse(
    ctx: &Ctx,
    view: &View,
    num: u64,
    doc: &Map<String, Value>,
    drafts: &HashMap<&'static str, Draft>,
    out: Outcome,
) -> Result<Response> {
    let why: Vec<&str> = out.errors.iter().map(|(_, m)| m.as_str()).collect();
    let why = if why.is_empty() {
        "stale form".to_string()
    } else {
        why.join("; ")
    };
    ctx.audit(
        "manager_conf_refused",
        &[("action", "editor"), ("reason", &why)],
    );
    draw(ctx, view, num, doc, drafts, &out)
}

/// The drafts of a form drawn from version `base`, over the latest document: what the person
/// changed on the form stays, every other field shows the latest value (so that saving again
/// changes only what they typed, not what another save did since).
fn rebase(
    ctx: &Ctx,
    base: Option<u64>,
    view: &View,
    entries: &[&'static Entry],
    mut drafts: HashMap<&'static str, Draft>,
    latest: &Map<String, Value>,
) -> HashMap<&'static str, Draft> {
    let drawn = base
        .and_then(|b| ctx.app.confs.load(b).ok())
        .and_then(|d| view.scope(&d))
        .unwrap_or_else(|| latest.clone());
    for e in entries {
        if drafts.get(e.key) == Some(&from_doc(e, &drawn)) {
            drafts.insert(e.key, from_doc(e, latest));
        }
    }
    drafts
}

/// Puts each field that changed into `doc`; the keys changed. A field left as drawn is not
/// read again (a stored value the editor would not take stays as it is); an empty secret
/// keeps the stored one.
fn apply(
    page: &Page,
    entries: &[&'static Entry],
    drafts: &HashMap<&'static str, Draft>,
    doc: &mut Map<String, Value>,
    errors: &mut Vec<(Option<&'static str>, String)>,
) -> Vec<&'static str> {
    let mut changed = Vec::new();
    for e in entries {
        let Some(draft) = drafts.get(e.key) else {
            continue;
        };
        let new = match wanted(e, draft, doc) {
            Ok(Some(new)) => new,
            Ok(None) => continue,
            Err(bad) => {
                errors.push((Some(e.key), say_bad(page, &bad)));
                continue;
            }
        };
        let before = doc.get(e.key).cloned();
        match new {
            Some(v) => doc.insert(e.key.to_string(), v),
            None => doc.remove(e.key),
        };
        if doc.get(e.key) != before.as_ref() {
            changed.push(e.key);
        }
    }
    changed
}

/// A typed refusal, in the page's language.
fn say_bad(page: &Page, bad: &Bad) -> String {
    match bad {
        Bad::Int { min, max } => fill(
            page,
            "edBadInt",
            &[("min", &min.to_string()), ("max", &max.to_string())],
        ),
        Bad::Url => page.raw("edBadUrl"),
        Bad::Rule(why) => fill(
            page,
            "edBadRule",
            &[("why", &super::said::text(page.lang, why))],
        ),
        Bad::Select => page.raw("edBadSelect"),
        Bad::Json(why) => fill(page, "edBadJson", &[("why", why)]),
        Bad::Pem => page.raw("edBadPem"),
        Bad::Row(n) => fill(page, "edBadRow", &[("n", &n.to_string())]),
    }
}

type Found = Vec<(Option<&'static str>, String)>;

/// Steps 3 to 5: the errors (by the key they name), else the new warnings.
fn checked(
    ctx: &Ctx,
    doc: &Map<String, Value>,
    entries: &[&'static Entry],
) -> std::result::Result<Vec<String>, Found> {
    let about = |msg: &str| -> Option<&'static str> {
        entries
            .iter()
            .filter(|e| names(msg, e.key))
            .max_by_key(|e| e.key.len())
            .map(|e| e.key)
    };
    let one = |msg: String| vec![(about(&msg), msg)];
    match save::check(doc, ctx.app.areas()) {
        Ok(()) => {}
        Err(Error::BadRequest(why)) => return Err(one(why)),
        Err(e) => return Err(one(e.to_string())),
    }
    let local = &ctx.app.local;
    let (built, _) = crate::log::collect(|| {
        Conf::build(doc.clone(), &local.overrides, "check", ctx.app.areas())
    });
    let new = built.map_err(one)?;
    if !super::super::allows(ctx.app, &new, ctx.req, &ctx.admin, "/confs/edit") {
        let rules = entries.iter().find(|e| e.key == "locationRules");
        return Err(vec![(rules.map(|e| e.key), ctx.page().raw("edLockout"))]);
    }
    let before: Vec<String> = findings(local, ctx.conf)
        .into_iter()
        .map(|f| f.message)
        .collect();
    let fresh: Vec<_> = findings(local, &new)
        .into_iter()
        .filter(|f| !before.contains(&f.message))
        .collect();
    let errors: Found = fresh
        .iter()
        .filter(|f| f.level == Level::Error)
        .map(|f| (about(&f.key).or(about(&f.message)), f.message.clone()))
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(fresh.into_iter().map(|f| f.message).collect())
}

/// Whether a message is about `key`: it begins with the key's name, then a separator.
fn names(msg: &str, key: &str) -> bool {
    msg.strip_prefix(key)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':', '=', '/', ',']))
}

/// Saves `doc` (the checks passed) with its metadata; its number.
fn store(
    ctx: &Ctx,
    doc: &Map<String, Value>,
    form: &HashMap<String, String>,
    changed: &[&str],
) -> Result<u64> {
    let log = form
        .get("log")
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| format!("Set {} (editor)", changed.join(", ")));
    let author = Author {
        name: ctx.admin.trace(),
        ip: ctx.req.ip(),
        log: log.clone(),
    };
    let num = save::save_new(ctx.app.confs.as_ref(), doc, &author)?;
    ctx.audit(
        "manager_conf_save",
        &[
            ("action", "editor"),
            ("num", &num.to_string()),
            ("log", &log),
        ],
    );
    crate::oidc::keygen::reload(ctx.app)?;
    Ok(num)
}

/// The text of `key` with its placeholders filled, unescaped (a template escapes it).
fn fill(page: &Page, key: &str, values: &[(&str, &str)]) -> String {
    page.say_fill(key, values).0
}
