//! Devices older than their factor's `<prefix>2fTTL` are removed at login (LemonLDAP::NG's
//! engine, `run`), and with `sfRemovedMsgRule` holding for the user, a notification tells
//! them (`sfRemovedUseNotif`: reference `sfRemovedNotifRef-<epoch>`, `sfRemovedNotifTitle`,
//! `sfRemovedNotifMsg` with `_removedSF_` and `_nameSF_` replaced), which the notifications
//! hold then shows before the login ends. LemonLDAP::NG's other way, an information page,
//! is not implemented: the settings refuse the rule without `sfRemovedUseNotif`.
use super::devices::{self, Device};
use super::settings::Settings;
use crate::app::App;
use crate::error::Result;
use crate::storage::Session;
use serde_json::json;

/// Removes the user's expired devices; the devices left. Tells the user when asked to.
pub fn expire(app: &App, settings: &Settings, s: &Session, trace: &str) -> Result<Vec<Device>> {
    let now = crate::util::now();
    let old = |d: &Device| {
        settings
            .module_of_kind(d.kind())
            .and_then(|m| m.ttl)
            .is_some_and(|ttl| now - d.epoch() > ttl)
    };
    let (left, removed) = devices::update(app, trace, |list| {
        let (gone, kept): (Vec<Device>, Vec<Device>) = list.drain(..).partition(|d| old(d));
        *list = kept;
        (!gone.is_empty(), (list.clone(), gone))
    })?;
    if !removed.is_empty() {
        let names: Vec<String> = removed.iter().map(Device::name).collect();
        let shown: String = trace.chars().filter(|c| !c.is_control()).take(64).collect();
        crate::log::notice(&format!(
            "{} expired second factor(s) of {shown} removed",
            removed.len()
        ));
        tell(app, settings, s, trace, &names.join("; "), removed.len())?;
    }
    Ok(left)
}

/// The notification of removed devices, when `sfRemovedMsgRule` holds for the user.
fn tell(
    app: &App,
    settings: &Settings,
    s: &Session,
    trace: &str,
    names: &str,
    n: usize,
) -> Result<()> {
    let Some(r) = settings.removed.as_ref().filter(|r| r.rule.eval(s)) else {
        return Ok(());
    };
    let now = crate::util::now();
    let text = r
        .message
        .replacen("_removedSF_", &n.to_string(), 1)
        .replacen("_nameSF_", names, 1);
    let doc = json!([{
        "uid": trace,
        "date": crate::util::date10(now),
        "title": r.title,
        "reference": format!("{}-{now}", r.reference),
        "text": text,
    }]);
    let body = doc.to_string();
    match crate::notifications::model::parse_json(body.as_bytes(), "") {
        Ok(list) => {
            crate::notifications::store::insert_all(app.notifications.as_ref(), &list)?;
        }
        Err(e) => crate::log::error(&format!("the notification of removed devices: {}", e.0)),
    }
    Ok(())
}
