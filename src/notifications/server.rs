//! `/notifications`, the notification server: REST/JSON with the default format, SOAP/XML
//! (`soap.rs`) with `oldNotifFormat`. Off (404) unless `notificationServer` is on; each REST
//! method has its own switch (405 when off). The handler decodes the path and method and calls
//! one of the domain functions below, which take a store and plain values and never see HTTP.
//! Shapes follow LemonLDAP::NG (`{"result":...}`), status codes follow the contract.
use super::model::{parse_json, Notification};
use super::store::{NotificationStore, Record};
use super::Settings;
use crate::app::App;
use crate::config::Conf;
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use serde_json::{json, Map, Value};

/// Serves `/notifications` and everything under it.
pub fn handle(app: &App, req: &Request, conf: &Conf) -> Result<Response> {
    let s = &conf.notifications;
    if !s.server {
        return Err(Error::not_found("Not found"));
    }
    let store = app.notifications.as_ref();
    if s.old_format {
        return super::soap::handle(store, req);
    }
    let segs = req.segments_after("/notifications");
    let allowed = |on: bool| {
        if on {
            Ok(())
        } else {
            Err(Error::MethodNotAllowed)
        }
    };
    let result = match (req.method, segs.as_slice()) {
        (Method::Post, []) => {
            allowed(s.server_post)?;
            if req.body.is_empty() {
                return Err(Error::LengthRequired);
            }
            json!(insert_json(store, &req.body, &s.default_cond)?)
        }
        (Method::Get | Method::Head, _) => {
            allowed(s.server_get)?;
            list(store, s, &segs)?
        }
        (Method::Delete, [uid, reference]) => {
            allowed(s.server_delete)?;
            json!(delete(store, uid, reference)?)
        }
        (Method::Delete, _) => {
            allowed(s.server_delete)?;
            let uid = segs.first().map(String::as_str).unwrap_or("");
            return Err(Error::bad(format!(
                "Missing parameters -> uid: {uid} / ref: "
            )));
        }
        _ => return Err(Error::MethodNotAllowed),
    };
    Ok(Response::json(200, &json!({ "result": result })))
}

/// Validates every notification of a JSON body, then stores them all in one step.
pub fn insert_json(
    store: &dyn NotificationStore,
    body: &[u8],
    default_cond: &str,
) -> Result<usize> {
    let list = parse_json(body, default_cond)?;
    insert_all(store, &list)
}

/// Stores validated notifications, all or nothing.
pub fn insert_all(store: &dyn NotificationStore, list: &[Notification]) -> Result<usize> {
    let records: Vec<Record> = list.iter().map(Record::new).collect();
    store.insert(&records)
}

/// Deletes one notification; 404 when there is none.
pub fn delete(store: &dyn NotificationStore, uid: &str, reference: &str) -> Result<usize> {
    match store.delete(uid, reference)? {
        0 => Err(Error::not_found(format!(
            "No notification {reference} for {uid}"
        ))),
        n => Ok(n),
    }
}

/// The GET answers: wildcard list, `_allPending_`, `_allExisting_`, a user's list, or one
/// notification's attributes.
pub fn list(store: &dyn NotificationStore, s: &Settings, segs: &[String]) -> Result<Value> {
    let keys = |records: Vec<Record>| -> Value {
        records
            .into_iter()
            .map(|r| json!({"uid": r.uid, "reference": r.reference}))
            .collect()
    };
    Ok(match segs {
        [] => keys(
            store
                .all_pending()?
                .into_iter()
                .filter(|r| r.uid == s.wildcard)
                .collect(),
        ),
        [all] if all == "_allPending_" => keys(store.all_pending()?),
        [all] if all == "_allExisting_" => keys(store.all()?),
        [uid] => keys(store.pending_for(uid, &s.wildcard, None)?),
        [uid, reference] => attributes(store, uid, reference, &s.sent_attributes)?,
        _ => return Err(Error::not_found("Not found")),
    })
}

/// One notification as LemonLDAP::NG sends it: an array of one-key objects in the order of
/// `notificationServerSentAttributes`, absent attributes left out.
pub fn attributes(
    store: &dyn NotificationStore,
    uid: &str,
    reference: &str,
    names: &[String],
) -> Result<Value> {
    let rec = store
        .get(uid, reference)?
        .ok_or_else(|| Error::not_found(format!("No notification {reference} for {uid}")))?;
    let n = rec
        .notification()
        .map_err(|e| Error::storage(format!("stored notification {uid}/{reference}: {e}")))?;
    Ok(names
        .iter()
        .filter_map(|name| {
            let v = n.attribute(name)?;
            let mut m = Map::new();
            m.insert(name.clone(), v);
            Some(Value::Object(m))
        })
        .collect())
}
