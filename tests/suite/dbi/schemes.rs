//! Every hash family, both ways, against LemonLDAP::NG 2.16's own DBI code run now
//! (`tests/fixtures/dbi/llng-vectors.pl`): what its password module writes logs in on the
//! real Limette server, and what `limette users add` writes passes its `check_password`.
//! The families: clear text, the static mode's hexadecimal digests, the dynamic `{md5}` ..
//! `{sha512}`, the salted `{smd5}` .. `{ssha512}`, crypt `$1$`, `$5$`, `$6$`, and the static
//! `ENCRYPT` (crypt strings checked by the database).
use super::{login, perl_vectors, stored, Site};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// LemonLDAP::NG's vectors: (case, its configuration, password, stored value).
fn vectors() -> Vec<(String, Map<String, Value>, String, String)> {
    perl_vectors("make", "")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["case"].as_str().unwrap().to_string(),
                v["conf"].as_object().unwrap().clone(),
                v["password"].as_str().unwrap().to_string(),
                v["stored"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn limette_checks_what_lemonldap_ng_writes() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 46);
    // One server per mode: every dynamic case shares the lists, each static hash has its own.
    let mut modes: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (_, conf, _, _)) in vectors.iter().enumerate() {
        let mode = format!(
            "{}-{}",
            conf["dbiDynamicHashEnabled"], conf["dbiAuthPasswordHash"]
        );
        modes.entry(mode).or_default().push(i);
    }
    assert_eq!(modes.len(), 7, "{modes:?}");
    for members in modes.values() {
        let conf = &vectors[members[0]].1;
        let site = Site::sqlite(Value::Object(conf.clone()));
        site.ok(&["db", "init"], "");
        let c = rusqlite::Connection::open(&site.db).unwrap();
        for i in members {
            let (case, _, _, value) = &vectors[*i];
            c.execute(
                "INSERT INTO users (login, password) VALUES (?1, ?2)",
                [&format!("{case}-{i}"), value],
            )
            .unwrap();
        }
        let p = site.start();
        for i in members {
            let (case, _, password, value) = &vectors[*i];
            let user = format!("{case}-{i}");
            let (status, body, _) = login(&p, &user, password);
            assert_eq!(status, 200, "{case}: {value}: {body}");
            assert_eq!(login(&p, &user, &format!("{password}!")).0, 401, "{case}");
        }
    }
}

#[test]
fn lemonldap_ng_checks_what_limette_writes() {
    let mut lines = String::new();
    let mut cases = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (case, conf, _, _) in vectors() {
        if !seen.insert(case.clone()) {
            continue;
        }
        let site = Site::sqlite(Value::Object(conf));
        site.ok(&["db", "init"], "");
        let passwords = ["secret", "p\u{e4}ss w\u{f6}rd"];
        for (i, password) in passwords.iter().enumerate() {
            site.ok(
                &["users", "add", &format!("u{i}")],
                &format!("{password}\n"),
            );
        }
        for ((_, value), password) in stored(&site.db).into_iter().zip(passwords) {
            let value = value.unwrap();
            let line = json!({"case": case, "password": password, "stored": value});
            lines.push_str(&format!("{line}\n"));
            cases.push((case.clone(), value));
        }
    }
    assert_eq!(cases.len(), 46);
    let verdicts: Vec<String> = perl_vectors("check", &lines)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(verdicts.len(), cases.len());
    for ((case, value), verdict) in cases.iter().zip(&verdicts) {
        assert_eq!(verdict, "1", "LemonLDAP::NG refused {case}: {value}");
    }
    // The opposite: a wrong password, and an argon2id hash, which LemonLDAP::NG cannot check.
    let site = Site::sqlite(json!({"dbiDynamicHashNewPasswordScheme": "argon2id"}));
    site.ok(&["db", "init"], "");
    site.ok(&["users", "add", "a"], "secret\n");
    let argon = stored(&site.db)[0].1.clone().unwrap();
    assert!(argon.starts_with("$argon2id$v=19$"), "{argon}");
    let (_, value) = &cases[cases.len() - 2];
    let refused = [
        json!({"case": cases[cases.len() - 2].0, "password": "secret!", "stored": value}),
        json!({"case": "dynamic-ssha512", "password": "secret", "stored": argon}),
    ];
    let lines: String = refused.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(perl_vectors("check", &lines), "0\n0\n");
}
