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
        let bytes = read_opt(&self.path(num))?
            .ok_or_else(|| Error::not_found(format!("Configuration {num} is not available")))?;
        match serde_json::from_slice(&bytes) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(Error::storage(format!(
                "lmConf-{num}.json is not a JSON object"
            ))),
            Err(e) => Err(Error::storage(format!("lmConf-{num}.json: {e}"))),
        }
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
