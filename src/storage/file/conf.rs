//! Numbered configurations as files: `<dirName>/lmConf-<N>.json`, LemonLDAP::NG's layout.
use super::{create_atomic, ensure_dir, read_opt, Durability};
use crate::error::{Error, Result};
use crate::storage::ConfStore;
use serde_json::{Map, Value};
use std::fs;
use std::path::{Path, PathBuf};

/// A folder of `lmConf-N.json` files.
pub struct FileConf {
    dir: PathBuf,
}

impl FileConf {
    /// Opens (and creates) the folder.
    pub fn open(dir: &Path) -> Result<FileConf> {
        ensure_dir(dir)?;
        Ok(FileConf {
            dir: dir.to_path_buf(),
        })
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
    fn numbers(&self) -> Result<Vec<u64>> {
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
        nums.sort_unstable();
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
}
