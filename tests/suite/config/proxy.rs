//! The configuration proxy over HTTP: every row of the contract on the File and SQLite stores,
//! the switch, and the error references with their language files.
use super::common::config::{cli, start_on, Store};
use super::common::Portal;
use super::{assert_error, get, proxy_conf, META};
use serde_json::json;

/// Every row of the contract's configuration section, on one store.
fn contract_rows(store: Store) {
    let p = start_on(store, proxy_conf());
    // Metadata of the only configuration: integers, no neighbours.
    let m = get(&p, "/config/latest");
    assert_eq!(m.status, 200, "{}", m.text());
    assert!(m.header("cache-control").unwrap().contains("no-store"));
    let m = m.json();
    assert_eq!(m["cfgNum"], 1);
    assert!(m["cfgDate"].is_i64(), "{m}");
    for k in META {
        assert!(m.get(k).is_some(), "{k} missing in {m}");
    }
    assert!(m.get("prev").is_none() && m.get("next").is_none(), "{m}");

    // A second configuration, saved by the CLI: metadata stamped, prev/next as integers.
    let r = cli(
        &p,
        &["-yes", "1", "set", "timeout", "1234", "--log", "second one"],
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (Some(0), "Saved under number 2\n"),
        "{r:?}"
    );
    let latest = get(&p, "/config/latest").json();
    assert_eq!(latest["cfgNum"], 2);
    assert_eq!(latest["prev"], 1);
    assert!(latest.get("next").is_none());
    assert_eq!(latest["cfgLog"], "second one");
    assert_eq!(latest["cfgAuthorIP"], "127.0.0.1");
    assert!(!latest["cfgAuthor"].as_str().unwrap().is_empty());
    // As LemonLDAP::NG writes it: the release whose layout the document follows.
    assert_eq!(latest["cfgVersion"], "2.16.1");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(
        (latest["cfgDate"].as_i64().unwrap() - now).abs() < 60,
        "{latest}"
    );
    assert_eq!(get(&p, "/config/2").json(), latest);
    let first = get(&p, "/config/1").json();
    assert_eq!(
        (first["cfgNum"].clone(), first["next"].clone()),
        (json!(1), json!(2))
    );
    assert!(first.get("prev").is_none());

    // Numbers that do not name a configuration.
    assert_error(
        &get(&p, "/config/99"),
        404,
        "Configuration 99 is not available",
    );
    assert_error(
        &get(&p, "/config/99?full=1"),
        404,
        "Configuration 99 is not available",
    );
    assert_error(
        &get(&p, "/config/99/portal"),
        404,
        "Configuration 99 is not available",
    );
    assert_error(&get(&p, "/config/abc"), 400, "cfgNum must be a number");
    assert_error(&get(&p, "/config"), 400, "Missing configuration number");
    assert_error(&get(&p, "/config/"), 400, "Missing configuration number");

    // Keys, with defaults merged.
    assert_eq!(
        get(&p, "/config/latest/portal").json(),
        json!({"value": "http://127.0.0.1:8080/"})
    );
    assert_eq!(get(&p, "/config/1/timeout").json(), json!({"value": 72000}));
    assert_eq!(get(&p, "/config/2/timeout").json(), json!({"value": 1234}));
    assert_eq!(
        get(&p, "/config/latest/notificationWildcard").json(),
        json!({"value": "allusers"})
    );
    assert_error(
        &get(&p, "/config/latest/nokeyatall"),
        404,
        "Unknown key nokeyatall",
    );
    assert_error(
        &get(&p, "/config/latest/macros/nope"),
        404,
        "Unknown key macros/nope",
    );
    assert_eq!(
        get(&p, "/config/latest/macros").json(),
        json!([
            {"id": "macros/A", "title": "A", "type": "keyText", "data": "1"},
            {"id": "macros/UA", "title": "UA", "type": "keyText", "data": "$ENV{HTTP_USER_AGENT}"}
        ])
    );
    assert_eq!(
        get(&p, "/config/latest/macros/UA").json(),
        json!({"value": "$ENV{HTTP_USER_AGENT}"})
    );
    assert_error(
        &get(&p, "/config/latest/portal/x"),
        400,
        "Key portal is not a hash",
    );
    assert_eq!(
        get(&p, "/config/latest/locationRules").json(),
        json!({"value": {"127.0.0.1": {"(?#admin)^/admin": "inGroup(\"timelords\")", "default": "accept"}}})
    );
    assert_eq!(
        get(&p, "/config/latest/virtualHosts").json(),
        json!([{"id": "virtualHosts/127.0.0.1", "title": "127.0.0.1", "type": "virtualHost", "template": "virtualHost"}])
    );
    assert_eq!(
        get(&p, "/config/latest/oidcRPMetaDataNodes").json()[0]["id"],
        "oidcRPMetaDataNodes/demo"
    );
    assert_eq!(
        get(
            &p,
            "/config/latest/oidcRPMetaDataNodes/demo/oidcRPMetaDataOptionsClientID"
        )
        .json(),
        json!({"value": "demo"})
    );

    // The full document: defaults merged, sorted, 3-space indent, as an attachment.
    let full = get(&p, "/config/latest?full=1");
    assert_eq!(full.status, 200);
    assert_eq!(
        full.header("content-disposition"),
        Some("Attachment; filename=lmConf-2.json")
    );
    let text = full.text();
    assert!(
        text.starts_with("{\n   \"") && !text.starts_with("{\n    "),
        "not a 3-space indent: {text}"
    );
    let doc = full.json();
    assert_eq!(
        (doc["cfgNum"].clone(), doc["timeout"].clone()),
        (json!(2), json!(1234))
    );
    assert_eq!(doc["notificationWildcard"], "allusers");
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(
        get(&p, "/config/1?full=1").header("content-disposition"),
        Some("Attachment; filename=lmConf-1.json")
    );
    for q in ["?full", "?full=0", "?full=no"] {
        let r = get(&p, &format!("/config/latest{q}"));
        assert!(r.header("content-disposition").is_none(), "{q}");
        assert_eq!(r.json(), latest, "{q}");
    }
    // Read-only.
    let r = p.client().send(
        "POST",
        "/config/latest",
        &[("Accept", "application/json")],
        b"",
    );
    assert_eq!(r.status, 405);
}

#[test]
fn proxy_follows_the_contract_on_the_file_store() {
    contract_rows(Store::File);
}

#[test]
fn proxy_follows_the_contract_on_the_sqlite_store() {
    contract_rows(Store::Sqlite);
}

#[test]
fn proxy_is_off_unless_rest_config_server_is_set() {
    let p = Portal::start();
    assert_error(&get(&p, "/config/latest"), 404, "Not found");
    // The error references are public.
    assert_eq!(get(&p, "/error").status, 200);
}

#[test]
fn error_references_point_at_the_language_files() {
    let p = start_on(Store::File, proxy_conf());
    assert_eq!(
        get(&p, "/error/fr/5").json(),
        json!({"result": 1, "lang": "fr", "errorNum": "5", "errorMsgRef": "PE5",
               "errorsFileURL": "/static/languages/fr.json"})
    );
    let all = json!({"result": 1, "lang": "en", "errorNum": "all", "errorsFileURL": "/static/languages/en.json"});
    assert_eq!(get(&p, "/error/en").json(), all);
    assert_eq!(get(&p, "/error").json(), all);
    assert_eq!(get(&p, "/error/xx/9999").json()["errorMsgRef"], "PE9999");
    assert_eq!(get(&p, "/error/%3Cb%3E").status, 400);
    for (lang, pe5) in [
        ("en", "Wrong username or password"),
        ("fr", "Identifiant ou mot de passe incorrect"),
    ] {
        let file = get(&p, &format!("/static/languages/{lang}.json"));
        assert_eq!(file.status, 200);
        assert_eq!(file.json()["PE5"], pe5);
    }
    // The portal's own pages take their text from the same files.
    let en = get(&p, "/static/languages/en.json").json();
    let r = p
        .client()
        .post_form("/", &[("user", "dwho"), ("password", "bad")], &[]);
    let page = r.text();
    let shown = en
        .as_object()
        .unwrap()
        .iter()
        .any(|(k, v)| k.starts_with("PE") && page.contains(v.as_str().unwrap()));
    assert!(shown, "no message of en.json on the page: {page}");
}
