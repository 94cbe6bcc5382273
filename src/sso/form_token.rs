//! The login form's token is good for one login attempt, as LemonLDAP::NG's one-time token
//! (`Lib/OneTimeToken.pm`, deleted once read). The token's MAC and age are checked first
//! (`web::csrf`, no store touched for a forged or stale one); then its first use is recorded
//! in the session store (`Kind::Pending`, named by a hash of the token), created only if
//! absent: of two requests presenting the same token, exactly one gets through, whichever
//! instance they reach when instances share the store. The record lives as long as the token
//! could still pass its age check, then the purge removes it. Pages that show the form only
//! compute a MAC: a page view writes nothing.
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::storage::Kind;
use crate::util;
use serde_json::json;
use sha2::{Digest, Sha256};

/// Spends a token whose MAC and age were checked (`web::csrf::check`): `true` for its first
/// use, `false` when it was used before.
pub fn spend(app: &App, conf: &Conf, token: &str) -> Result<bool> {
    let id = util::hex(&Sha256::digest(format!("formtoken:{token}").as_bytes()));
    let mut rec = serde_json::Map::new();
    rec.insert("_type".into(), json!("formToken"));
    // The age check accepts an epoch up to 5 s ahead: keep the record past that too.
    let exp = util::now() + crate::web::csrf::lifetime(conf) + 10;
    rec.insert("_exp".into(), json!(exp));
    app.sessions(Kind::Pending).create(Kind::Pending, &id, &rec)
}
