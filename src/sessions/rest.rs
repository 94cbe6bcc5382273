//! `/sessions/<type>/...`: LemonLDAP::NG's REST session server (enabled by
//! `restSessionServer`), with the contract's differences: secret keys omitted, 404 for unknown
//! ids and types, one key as JSON, and `PUT` with a valid `__secret` creating the session (the
//! protocol of LemonLDAP::NG's own session client). Handlers decode and encode; the decisions
//! are in the plain functions below them.
use super::{export, Settings};
use crate::app::App;
use crate::crypto::secret;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use crate::log;
use crate::storage::{check_id, Kind, Session, SessionStore};
use serde_json::{json, Map, Value};

/// Serves the REST session server; `rest` is the path without any prefix (`/sessions/...`).
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let rest = ctx.below_prefix();
    let settings = conf.area::<super::Settings>();
    let st = settings.as_ref();
    if !st.rest_server {
        return Err(Error::not_found("Not found"));
    }
    let parts: Vec<String> = rest
        .split('/')
        .skip(2) // "" and "sessions"
        .filter(|s| !s.is_empty())
        .map(crate::util::url_decode_path)
        .collect();
    let Some(kind) = parts.first() else {
        return Err(Error::bad("Bad request"));
    };
    let kind = Kind::from_rest(kind)
        .ok_or_else(|| Error::not_found("Unknown (or unconfigured) session type"))?;
    let store = app.sessions(kind);
    let id = parts.get(1).map(String::as_str);
    let key = parts.get(2).map(String::as_str);
    let value = match (req.method, id) {
        (Method::Get | Method::Head, Some(id)) => read(store, kind, id, key, st)?,
        (Method::Get | Method::Head, None) => return Err(Error::bad("ID is required")),
        (Method::Post, None) => create(store, kind, body_object(req)?, st)?,
        (Method::Put, Some(id)) => {
            let proof = Proof {
                key: &conf.crypto_key,
                tolerance: st.clock_tolerance,
                now: crate::util::now(),
            };
            update(store, kind, id, body_object(req)?, &proof)?
        }
        (Method::Put | Method::Delete, None) => return Err(Error::bad("ID is required")),
        (Method::Delete, Some(id)) => {
            let value = match kind {
                // An SSO session ends through the domain, which tells its relying parties.
                Kind::Global => end_sso(app, id)?,
                _ => delete(store, kind, id)?,
            };
            let shown: String = id.chars().take(4).collect();
            log::audit(
                "session_delete",
                &[
                    ("kind", kind.as_str()),
                    ("session", &format!("{shown}…")),
                    ("via", "rest"),
                    ("address", &req.ip()),
                ],
            );
            value
        }
        _ => return Err(Error::MethodNotAllowed),
    };
    Ok(Response::json(200, &value))
}

/// The request body as a JSON object: 400 with a clear message otherwise.
pub fn body_object(req: &Request) -> Result<Map<String, Value>> {
    if req.body.is_empty() {
        return Err(Error::bad("A JSON object is required in the body"));
    }
    match serde_json::from_slice::<Value>(&req.body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Error::bad("The body must be a JSON object")),
        Err(_) => Err(Error::bad("Malformed JSON in the body")),
    }
}

/// A stored session, or 404.
fn existing(store: &dyn SessionStore, kind: Kind, id: &str) -> Result<Session> {
    if check_id(id).is_err() {
        return Err(Error::not_found("Session Id does not exist"));
    }
    store
        .get(kind, id)?
        .ok_or_else(|| Error::not_found("Session Id does not exist"))
}

/// `GET`: the whole session, one key (`null` when missing) or `[k1,k2]`, secrets omitted.
pub fn read(
    store: &dyn SessionStore,
    kind: Kind,
    id: &str,
    key: Option<&str>,
    st: &Settings,
) -> Result<Value> {
    let s = export::without_secrets(&existing(store, kind, id)?, &st.hidden, st.export_secret);
    Ok(match key {
        None => Value::Object(s),
        Some(k) => match k.strip_prefix('[').and_then(|k| k.strip_suffix(']')) {
            Some(list) => {
                let keys: Vec<String> = list
                    .split(',')
                    .map(|k| k.trim().to_string())
                    .filter(|k| !k.is_empty())
                    .collect();
                Value::Object(export::pick(&s, &keys))
            }
            None => s.get(k).cloned().unwrap_or(Value::Null),
        },
    })
}

/// `POST`: a new session with a fresh id (64 hex for SSO, 32 for persistent).
pub fn create(
    store: &dyn SessionStore,
    kind: Kind,
    mut body: Map<String, Value>,
    st: &Settings,
) -> Result<Value> {
    body.remove("__secret");
    let (id, label) = match kind {
        Kind::Persistent => (crate::util::random_hex(16), "Persistent"),
        _ => (crate::util::random_hex(32), "SSO"),
    };
    body.insert("_session_id".into(), json!(id));
    body.insert("_session_kind".into(), json!(label));
    body.entry("_utime")
        .or_insert_with(|| json!(crate::util::now()));
    if !store.create(kind, &id, &body)? {
        return Err(Error::internal("fresh session id already taken"));
    }
    let shown = export::without_secrets(&body, &st.hidden, st.export_secret);
    Ok(json!({"result": 1, "session": shown}))
}

/// What a `__secret` is checked against: the configuration key, the tolerance and the clock.
pub struct Proof<'a> {
    /// The configuration's `key` as LemonLDAP::NG's cipher takes it (`Conf::crypto_key`:
    /// empty when the configuration has none).
    pub key: &'a str,
    /// `restClockTolerance`, seconds.
    pub tolerance: i64,
    /// Now, epoch seconds.
    pub now: i64,
}

/// `PUT`: merges keys into an existing session; with a valid `__secret`, creates it when absent
/// (LemonLDAP::NG's session client). An invalid or stale secret is refused and changes nothing.
pub fn update(
    store: &dyn SessionStore,
    kind: Kind,
    id: &str,
    mut body: Map<String, Value>,
    proof: &Proof,
) -> Result<Value> {
    check_id(id).map_err(|_| Error::not_found("Session Id does not exist"))?;
    let proven = match body.remove("__secret") {
        None => false,
        Some(v) => {
            let text = v.as_str().unwrap_or_default();
            if let Err(why) = secret::check(proof.key, text, proof.now, proof.tolerance) {
                log::warn(&format!("session {id}: __secret refused ({why:?})"));
                return Err(Error::bad("Invalid secret"));
            }
            true
        }
    };
    match store.get(kind, id)? {
        Some(mut s) => {
            s.extend(body);
            if !store.update(kind, id, &s)? {
                return Err(Error::not_found("Session Id does not exist"));
            }
        }
        None if proven => {
            body.insert("_session_id".into(), json!(id));
            store.put(kind, id, &body)?;
        }
        None => return Err(Error::not_found("Session Id does not exist")),
    }
    Ok(json!({"result": 1}))
}

/// `DELETE`: removes the session; no cookie is touched (a contract difference).
pub fn delete(store: &dyn SessionStore, kind: Kind, id: &str) -> Result<Value> {
    if check_id(id).is_err() || !store.delete(kind, id)? {
        return Err(Error::not_found("Session Id does not exist"));
    }
    Ok(json!({"result": 1}))
}

/// `DELETE` of an SSO session: `sso::end`, so the relying parties it used hear of it.
fn end_sso(app: &App, id: &str) -> Result<Value> {
    if check_id(id).is_err() || !crate::sso::end(app, id)? {
        return Err(Error::not_found("Session Id does not exist"));
    }
    Ok(json!({"result": 1}))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Mem = crate::storage::memory::MemorySessions;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    const NOW: i64 = 1_795_313_127;

    fn proof() -> Proof<'static> {
        Proof {
            key: "k",
            tolerance: 15,
            now: NOW,
        }
    }

    #[test]
    fn put_creates_only_with_a_valid_secret() {
        let m = Mem::default();
        let id = "a".repeat(64);
        let with = |secret: String| obj(json!({"uid": "x", "__secret": secret}));
        for bad in [
            secret::fresh("k", NOW - 16),
            secret::fresh("other", NOW),
            "x".into(),
        ] {
            let e = update(&m, Kind::Global, &id, with(bad), &proof()).unwrap_err();
            assert!(matches!(e, Error::BadRequest(_)));
            assert_eq!(m.get(Kind::Global, &id).unwrap(), None);
        }
        let e = update(&m, Kind::Global, &id, obj(json!({"uid": "x"})), &proof()).unwrap_err();
        assert!(matches!(e, Error::NotFound(_)));
        update(
            &m,
            Kind::Global,
            &id,
            with(secret::fresh("k", NOW + 15)),
            &proof(),
        )
        .unwrap();
        let s = m.get(Kind::Global, &id).unwrap().unwrap();
        assert_eq!(Value::Object(s), json!({"uid": "x", "_session_id": id}));
        update(&m, Kind::Global, &id, obj(json!({"cn": "c"})), &proof()).unwrap();
        assert_eq!(
            m.get(Kind::Global, &id).unwrap().unwrap()["uid"],
            "x",
            "merged"
        );
    }

    #[test]
    fn reads_hide_secrets() {
        let m = Mem::default();
        m.put(
            Kind::Global,
            "s1",
            &obj(json!({"uid": "u", "_password": "p"})),
        )
        .unwrap();
        let st = Settings {
            hidden: vec!["_password".into()],
            ..Settings::default()
        };
        let all = read(&m, Kind::Global, "s1", None, &st).unwrap();
        assert_eq!(all, json!({"uid": "u"}));
        assert_eq!(
            read(&m, Kind::Global, "s1", Some("_password"), &st).unwrap(),
            Value::Null
        );
        let two = read(&m, Kind::Global, "s1", Some("[uid, _password]"), &st).unwrap();
        assert_eq!(two, json!({"uid": "u", "_password": null}));
        assert!(matches!(
            read(&m, Kind::Global, "../s1", None, &st),
            Err(Error::NotFound(_))
        ));
    }

    #[test]
    fn create_and_delete() {
        let m = Mem::default();
        let st = Settings::default();
        let v = create(
            &m,
            Kind::Persistent,
            obj(json!({"a": 1, "__secret": "x"})),
            &st,
        )
        .unwrap();
        let id = v["session"]["_session_id"].as_str().unwrap().to_string();
        assert_eq!(id.len(), 32);
        assert!(m
            .get(Kind::Persistent, &id)
            .unwrap()
            .unwrap()
            .get("__secret")
            .is_none());
        assert_eq!(
            delete(&m, Kind::Persistent, &id).unwrap(),
            json!({"result": 1})
        );
        assert!(matches!(
            delete(&m, Kind::Persistent, &id),
            Err(Error::NotFound(_))
        ));
    }
}
