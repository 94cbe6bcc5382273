//! Numbered configurations as files: `<dirName>/lmConf-<N>.json`, LemonLDAP::NG's layout.
use super::{create_atomic, ensure_dir, read_opt, Durability};
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use serde_json::{Map, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// A folder of `lmConf-N.json` files.
pub struct FileConf {
    dir: PathBuf,
    /// The numbers last read, with the folder's modification time then; kept only when that
    /// time was well past (see `numbers`).
    listing: Mutex<Option<(SystemTime, Vec<u64>)>>,
}

/// How old the folder's last change must be for a listing read after it to be kept: file
/// times come from a coarse clock, and a change in the same tick as the one a listing was
/// read for would go unseen by the time check.
const SETTLE: Duration = Duration::from_secs(1);

impl FileConf {
    /// Opens (and creates) the folder.
    pub fn open(dir: &Path) -> Result<FileConf> {
        ensure_dir(dir)?;
        Ok(FileConf {
            dir: dir.to_path_buf(),
            listing: Mutex::new(None),
        })
    }

    fn read_numbers(&self) -> Result<Vec<u64>> {
        let rd = fs::read_dir(&self.dir)
            .map_err(|e| Error::storage(format!("{}: {e}", self.dir.display())))?;
        let mut nums: Vec<u64> = rd
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_prefix("lmConf-")?
                    .strip_suffix(".json")?
                    .parse()
                    .ok()
            })
            .collect();
        crate::util::sort::sort(&mut nums);
        Ok(nums)
    }

    fn path(&self, num: u64) -> PathBuf {
        self.dir.join(format!("lmConf-{num}.json"))
    }

    fn read(&self, num: u64) -> Result<Vec<u8>> {
        read_opt(&self.path(num))?
            .ok_or_else(|| Error::not_found(format!("Configuration {num} is not available")))
    }
}

fn not_object(num: u64) -> Error {
    Error::storage(format!("lmConf-{num}.json is not a JSON object"))
}

/// The `cfg*` fields of a configuration document (a JSON object; other fields are skipped).
struct CfgFields(Map<String, Value>);

impl<'de> serde::Deserialize<'de> for CfgFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = CfgFields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<CfgFields, A::Error> {
                let mut out = Map::new();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key.starts_with("cfg") {
                        out.insert(key.into_owned(), map.next_value()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(CfgFields(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

impl ConfStore for FileConf {
    /// The folder is listed again only when its modification time moved since the kept
    /// listing, or changed less than [`SETTLE`] before it was read. The configuration
    /// proxy and the reload loop ask for the numbers on every poll, and a configuration
    /// folder changes a few times a day: a `stat` replaces a directory read (which, in the
    /// static build, is also a map and an unmap of memory by the C library).
    fn numbers(&self) -> Result<Vec<u64>> {
        let mtime = fs::metadata(&self.dir).and_then(|m| m.modified()).ok();
        if let (Some(m), Ok(kept)) = (mtime, self.listing.lock()) {
            if let Some((_, nums)) = kept.as_ref().filter(|(at, _)| *at == m) {
                return Ok(nums.clone());
            }
        }
        let read_at = SystemTime::now();
        let nums = self.read_numbers()?;
        let settled = mtime.filter(|m| read_at.duration_since(*m).is_ok_and(|d| d > SETTLE));
        if let Ok(mut kept) = self.listing.lock() {
            *kept = settled.map(|m| (m, nums.clone()));
        }
        Ok(nums)
    }

    fn load(&self, num: u64) -> Result<Map<String, Value>> {
        let bytes = self.read(num)?;
        match serde_json::from_slice(&bytes) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(not_object(num)),
            Err(e) => Err(Error::storage(format!("lmConf-{num}.json: {e}"))),
        }
    }

    /// The file is still read and checked whole, but only the `cfg*` fields become values:
    /// the others are skipped without being built.
    fn load_cfg_fields(&self, num: u64) -> Result<Map<String, Value>> {
        let bytes = self.read(num)?;
        let fields: CfgFields = serde_json::from_slice(&bytes).map_err(|e| {
            if e.classify() == serde_json::error::Category::Data {
                not_object(num)
            } else {
                Error::storage(format!("lmConf-{num}.json: {e}"))
            }
        })?;
        Ok(fields.0)
    }

    fn save(&self, conf: &Map<String, Value>) -> Result<u64> {
        // Claim the next free number by creating its file atomically; a concurrent saver that
        // lost the race simply tries the number after.
        let first = self.latest()?.unwrap_or(0) + 1;
        for num in first..first + 1000 {
            let mut c = conf.clone();
            c.insert("cfgNum".into(), Value::from(num));
            let bytes = serde_json::to_vec_pretty(&c).map_err(Error::internal)?;
            if create_atomic(&self.path(num), &bytes, Durability::Synced)? {
                return Ok(num);
            }
        }
        Err(Error::storage("could not claim a configuration number"))
    }

    fn remove(&self, num: u64) -> Result<bool> {
        super::remove_opt(&self.path(num))
    }

    fn describe(&self) -> String {
        format!("File {}", self.dir.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cfg_fields_are_read_alone_and_the_document_still_checked() {
        let dir = std::env::temp_dir().join(format!("limette-conf-{}", crate::util::random_hex(6)));
        let store = FileConf::open(&dir).unwrap();
        let doc = r#"{"cfgNum":3,"cfgAuthor":"dwho","cfgLog":"a \"log\"","portal":"http://x/","locationRules":{"a":{"b":[1,2]}},"cfgDate":"1700000000"}"#;
        std::fs::write(store.path(3), doc).unwrap();
        let fields = store.load_cfg_fields(3).unwrap();
        let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
        assert_eq!(keys, ["cfgNum", "cfgAuthor", "cfgLog", "cfgDate"]);
        assert_eq!(fields["cfgLog"], "a \"log\"");
        assert_eq!(store.load(3).unwrap()["portal"], "http://x/");
        std::fs::write(store.path(4), "[1]").unwrap();
        assert!(matches!(store.load_cfg_fields(4), Err(Error::Storage(_))));
        std::fs::write(store.path(5), r#"{"cfgNum":5,"x":"#).unwrap();
        assert!(matches!(store.load_cfg_fields(5), Err(Error::Storage(_))));
        assert!(matches!(store.load_cfg_fields(6), Err(Error::NotFound(_))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn set_folder_time(dir: &Path, t: SystemTime) {
        fs::File::open(dir).unwrap().set_modified(t).unwrap();
    }

    #[test]
    fn the_listing_is_kept_only_while_the_folder_is_settled_and_unchanged() {
        let dir = std::env::temp_dir().join(format!("limette-conf-{}", crate::util::random_hex(6)));
        let store = FileConf::open(&dir).unwrap();
        std::fs::write(store.path(1), "{}").unwrap();
        let old = SystemTime::now() - Duration::from_secs(10);
        set_folder_time(&dir, old);
        assert_eq!(store.numbers().unwrap(), [1]);
        assert!(
            store.listing.lock().unwrap().is_some(),
            "a settled listing is kept"
        );
        // A new file moves the folder's time: seen at once.
        std::fs::write(store.path(2), "{}").unwrap();
        assert_eq!(store.numbers().unwrap(), [1, 2]);
        assert_eq!(store.latest().unwrap(), Some(2));
        // Read just after a change, the listing is not kept: a change in the same clock tick
        // (the folder's time set back to the same value here) is still seen.
        let recent = fs::metadata(&dir).unwrap().modified().unwrap();
        assert!(store.listing.lock().unwrap().is_none());
        std::fs::write(store.path(3), "{}").unwrap();
        set_folder_time(&dir, recent);
        assert_eq!(store.numbers().unwrap(), [1, 2, 3]);
        // Settled again, kept again; a removal by another process moves the time too.
        set_folder_time(&dir, old);
        assert_eq!(store.numbers().unwrap(), [1, 2, 3]);
        std::fs::remove_file(store.path(3)).unwrap();
        assert_eq!(
            store.numbers().unwrap(),
            [1, 2],
            "the removal moved the time"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
