//! `/notifications`, the notification server: REST/JSON with the default format, SOAP/XML
//! (`soap.rs`) with `oldNotifFormat`. Off (404) unless `notificationServer` is on; each REST
//! method has its own switch (405 when off). The handler decodes the path and method and calls
//! one of the domain functions below, which take a store and plain values and never see HTTP.
//! Shapes follow LemonLDAP::NG (`{"result":...}`), status codes follow the contract.
pub use super::audit::{audit_delete, audit_insert};
use super::model::parse_json;
pub use super::store::insert_all;
use super::store::{NotificationStore, Record};
use super::Settings;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Response};
use serde_json::{json, Map, Value};

/// Serves `/notifications` and everything under it.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let settings = conf.area::<super::Settings>();
    let s = settings.as_ref();
    if !s.server {
        return Err(Error::not_found("Not found"));
    }
    let store = app.notifications.as_ref();
    if s.old_format {
        return super::soap::handle(store, req);
    }
    let segs = req.segments_after("/notifications");
    let result = rest(store, s, req.method, &segs, &req.body)?;
    let count = result.as_u64().unwrap_or(0).to_string();
    match (req.method, segs.as_slice()) {
        (Method::Post, _) => audit_insert(&count, "rest", &req.ip()),
        (Method::Delete, [uid, reference]) => {
            audit_delete(uid, reference, &count, "rest", &req.ip())
        }
        _ => {}
    }
    Ok(Response::json(200, &json!({ "result": result })))
}

/// One REST call, decoded: the `result` value to answer, or the error. Each method has its
/// own switch (405 when off).
pub fn rest(
    store: &dyn NotificationStore,
    s: &Settings,
    method: Method,
    segs: &[String],
    body: &[u8],
) -> Result<Value> {
    let allowed = |on: bool| {
        if on {
            Ok(())
        } else {
            Err(Error::MethodNotAllowed)
        }
    };
    match (method, segs) {
        (Method::Post, []) => {
            allowed(s.server_post)?;
            if body.is_empty() {
                return Err(Error::LengthRequired);
            }
            Ok(json!(insert_json(store, body, &s.default_cond)?))
        }
        (Method::Get | Method::Head, _) => {
            allowed(s.server_get)?;
            list(store, s, segs)
        }
        (Method::Delete, [uid, reference]) => {
            allowed(s.server_delete)?;
            Ok(json!(delete(store, uid, reference)?))
        }
        (Method::Delete, _) => {
            allowed(s.server_delete)?;
            let uid = segs.first().map(String::as_str).unwrap_or("");
            Err(Error::bad(format!(
                "Missing parameters -> uid: {uid} / ref: "
            )))
        }
        _ => Err(Error::MethodNotAllowed),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notifications::store::open_choice;
    use crate::notifications::StorageChoice;

    fn store() -> (std::sync::Arc<dyn NotificationStore>, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("limette-nsrv-{}", crate::util::random_hex(4)));
        let choice = StorageChoice::Sqlite {
            path: dir.join("n.db"),
            table: "notifications".into(),
        };
        (open_choice(&choice).unwrap(), dir)
    }

    #[test]
    fn switches_and_shapes() {
        let (st, dir) = store();
        let mut s = Settings::default();
        let one = br#"{"uid":"u","date":"2024-01-01","reference":"R","title":"T"}"#;
        assert_eq!(
            rest(st.as_ref(), &s, Method::Post, &[], one).unwrap(),
            json!(1)
        );
        assert!(matches!(
            rest(st.as_ref(), &s, Method::Get, &[], b""),
            Err(Error::MethodNotAllowed)
        ));
        assert!(matches!(
            rest(st.as_ref(), &s, Method::Post, &[], b""),
            Err(Error::LengthRequired)
        ));
        s.server_get = true;
        s.server_delete = true;
        s.sent_attributes = vec!["reference".into(), "title".into(), "text".into()];
        let segs = ["u".to_string(), "R".to_string()];
        let got = rest(st.as_ref(), &s, Method::Get, &segs, b"").unwrap();
        assert_eq!(got, json!([{"reference":"R"},{"title":"T"}]));
        match rest(st.as_ref(), &s, Method::Delete, &segs[..1], b"") {
            Err(Error::BadRequest(m)) => assert_eq!(m, "Missing parameters -> uid: u / ref: "),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            rest(st.as_ref(), &s, Method::Delete, &segs, b"").unwrap(),
            json!(1)
        );
        assert!(matches!(
            rest(st.as_ref(), &s, Method::Delete, &segs, b""),
            Err(Error::NotFound(_))
        ));
        assert!(matches!(
            rest(st.as_ref(), &s, Method::Put, &[], b"{}"),
            Err(Error::MethodNotAllowed)
        ));
        let _ = std::fs::remove_dir_all(dir);
    }
}
