//! Saving a configuration: the document is checked the way the portal would load it, stamped
//! with LemonLDAP::NG's metadata (`cfgAuthor`, `cfgAuthorIP`, `cfgDate`, `cfgLog`,
//! `cfgVersion`), then handed to the store, which alone picks the number (latest + 1,
//! atomically). Every writer (the CLI today) goes through `save_new`; the stores never stamp.
use crate::config::{cookie_domain, gate, CheckAreas, Conf, EMBEDDED_CONF};
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use serde_json::{Map, Value};

/// The metadata keys a save sets (plus `cfgNum`, set by the store).
pub const META_KEYS: [&str; 6] = [
    "cfgNum",
    "cfgAuthor",
    "cfgAuthorIP",
    "cfgDate",
    "cfgLog",
    "cfgVersion",
];

/// Who saves and why.
#[derive(Debug, Clone)]
pub struct Author {
    /// `cfgAuthor`: a user name.
    pub name: String,
    /// `cfgAuthorIP`: where the change came from.
    pub ip: String,
    /// `cfgLog`: a free text.
    pub log: String,
}

/// The value written into `cfgVersion`: the LemonLDAP::NG release whose layout the document
/// follows, as LemonLDAP::NG's own manager writes it (its tools read it to decide whether a
/// configuration needs migrating; Limette's own version means nothing to them).
pub fn version() -> &'static str {
    "2.16.1"
}

/// `conf` with the metadata of a save at `now` (the number is the store's business).
pub fn stamp(conf: &Map<String, Value>, author: &Author, now: i64) -> Map<String, Value> {
    let mut out = conf.clone();
    out.remove("cfgNum");
    out.insert("cfgAuthor".into(), Value::from(author.name.clone()));
    out.insert("cfgAuthorIP".into(), Value::from(author.ip.clone()));
    // A string of the epoch, as LemonLDAP::NG writes it (the REST metadata serves it as a number).
    out.insert("cfgDate".into(), Value::from(now.to_string()));
    out.insert("cfgLog".into(), Value::from(author.log.clone()));
    out.insert("cfgVersion".into(), Value::from(version()));
    out
}

/// Checks that `conf` would load in a portal: the same parser, the same areas' settings
/// (`areas`, the top's list) and the same start-up gate as a reload, so a document the CLI
/// accepts is never rejected by a running server, and a cookie `domain` the portal is not in
/// (`config::cookie_domain`), which a running server would take but nobody could use. The
/// message names the key.
pub fn check(conf: &Map<String, Value>, areas: CheckAreas) -> Result<()> {
    let built =
        Conf::build(conf.clone(), &Map::new(), "check", areas).map_err(Error::BadRequest)?;
    // A cookie domain the portal is not in: nobody could log in again to undo it.
    cookie_domain::check(&built.portal, built.domain.as_deref().unwrap_or(""))
        .map_err(Error::BadRequest)?;
    match gate::refusals(&built.raw).as_slice() {
        [] => Ok(()),
        refused => Err(Error::BadRequest(refused.join("; "))),
    }
}

/// Checks (as this layer knows it: the writer checks the areas' settings first, with `check`),
/// stamps and saves `conf` as a new number; returns the number.
pub fn save_new(store: &dyn ConfStore, conf: &Map<String, Value>, author: &Author) -> Result<u64> {
    check(conf, |_, _| Ok(()))?;
    store.save(&stamp(conf, author, crate::util::now()))
}

/// Seeds an empty store with the embedded default configuration (first start); true when it
/// wrote number 1. The copy written leaves `portal` out, so that it follows the listening
/// address, and carries a random `key`, so that every node sharing it agrees on its secrets.
pub fn seed_if_empty(store: &dyn ConfStore) -> Result<bool> {
    if store.latest()?.is_some() {
        return Ok(false);
    }
    store.save(&first_start(crate::util::now())?)?;
    Ok(true)
}

/// The document written at first start: the embedded default, its own random key, no
/// `portal`, and the metadata of a save that says so.
pub(crate) fn first_start(now: i64) -> Result<Map<String, Value>> {
    let mut conf = match serde_json::from_str(EMBEDDED_CONF) {
        Ok(Value::Object(m)) => m,
        _ => {
            return Err(Error::internal(
                "embedded configuration is not a JSON object",
            ))
        }
    };
    conf.remove("portal");
    conf.insert("key".into(), Value::from(crate::util::random_hex(32)));
    let author = Author {
        name: "limette".into(),
        ip: "127.0.0.1".into(),
        log: "Embedded default configuration, written at first start with a random key: \
              Demo users and a demo relying party; the portal URL follows the listening address"
            .into(),
    };
    Ok(stamp(&conf, &author, now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::file::conf::FileConf;
    use crate::storage::sqlite::conf::SqliteConf;
    use std::sync::{Arc, Barrier};

    fn author(log: &str) -> Author {
        Author {
            name: "dwho".into(),
            ip: "10.0.0.1".into(),
            log: log.into(),
        }
    }

    fn base() -> Map<String, Value> {
        match serde_json::from_str(crate::config::EMBEDDED_CONF) {
            Ok(Value::Object(m)) => m,
            _ => panic!("embedded configuration"),
        }
    }

    struct Tmp(std::path::PathBuf);
    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    fn tmp() -> Tmp {
        let p = std::env::temp_dir().join(format!("limette-save-{}", crate::util::random_hex(8)));
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }

    fn stores(dir: &Tmp) -> Vec<Arc<dyn ConfStore>> {
        vec![
            Arc::new(FileConf::open(&dir.0.join("conf")).unwrap()),
            Arc::new(SqliteConf::open(&dir.0.join("conf.db"), "lmConfig").unwrap()),
        ]
    }

    #[test]
    fn stamp_sets_every_metadata_key() {
        let c = stamp(&base(), &author("why"), 1_700_000_000);
        assert_eq!(c["cfgAuthor"], "dwho");
        assert_eq!(c["cfgAuthorIP"], "10.0.0.1");
        assert_eq!(c["cfgDate"], "1700000000");
        assert_eq!(c["cfgVersion"], "2.16.1");
        assert_eq!(c["cfgLog"], "why");
        assert_eq!(c["cfgVersion"], version());
        assert!(!c.contains_key("cfgNum"));
    }

    #[test]
    fn invalid_documents_are_refused_before_the_store() {
        let dir = tmp();
        for store in stores(&dir) {
            let mut c = base();
            c.insert("portal".into(), Value::from("not a url"));
            let e = save_new(store.as_ref(), &c, &author("x")).unwrap_err();
            assert!(e.to_string().contains("portal"), "{e}");
            assert_eq!(store.latest().unwrap(), None, "{}", store.describe());
        }
    }

    #[test]
    fn eight_concurrent_saves_get_eight_consecutive_numbers() {
        let dir = tmp();
        for store in stores(&dir) {
            save_new(store.as_ref(), &base(), &author("first")).unwrap();
            let barrier = Arc::new(Barrier::new(8));
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let (store, barrier) = (store.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        save_new(store.as_ref(), &base(), &author(&format!("thread {i}"))).unwrap()
                    })
                })
                .collect();
            let mut nums: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            crate::util::sort::sort(&mut nums);
            assert_eq!(nums, (2..=9).collect::<Vec<u64>>(), "{}", store.describe());
            assert_eq!(store.numbers().unwrap(), (1..=9).collect::<Vec<u64>>());
            let mut logs: Vec<String> = (2..=9)
                .map(|n| {
                    let c = store.load(n).unwrap();
                    assert_eq!(c["cfgNum"], n);
                    assert_eq!(c["portal"], base()["portal"]);
                    c["cfgLog"].as_str().unwrap().to_string()
                })
                .collect();
            crate::util::sort::sort(&mut logs);
            assert_eq!(
                logs,
                (0..8).map(|i| format!("thread {i}")).collect::<Vec<_>>()
            );
        }
    }
}
