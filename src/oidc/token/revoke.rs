//! `POST /oauth2/revoke`: token revocation (RFC 7009), which LemonLDAP::NG 2.16 does not have
//! (no configuration key names its URL: it is `oauth2/revoke` beside the token endpoint). The
//! client authenticates as at the token endpoint (2.1); `token` is required, `token_type_hint`
//! only orders the search (2.1: a wrong hint widens it, an unknown one is ignored). A token of
//! *that* client is revoked: an access token alone (a JWT one by its `jti`, once its signature
//! checks out), a refresh token with its whole family, so every access token issued with it
//! dies too (2.1: SHOULD). Another client's token, an unknown, expired or already revoked one:
//! 200 and nothing done (2.2), so the answer tells nobody which tokens exist.
use crate::ctx::Ctx;
use crate::error::{Error, OAuthCode, Result};
use crate::grants::{self as store, reuse, RecordType};
use crate::http::Response;
use crate::oidc::base;
use crate::oidc::clients::client;
use crate::oidc::settings::Settings;
use crate::storage::{Kind, SessionStore};

/// What a revocation request did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revoked {
    /// An access token of the client, deleted.
    Access,
    /// A refresh token of the client, with its family.
    Refresh,
    /// Nothing: unknown, another client's, expired (RFC 7009 2.2).
    Nothing,
}

/// `/oauth2/revoke`.
pub fn handle(ctx: &Ctx) -> Result<Response> {
    let (app, req, conf) = (ctx.app.as_ref(), ctx.req, ctx.conf.as_ref());
    let p = base::params(req);
    if p.oversized() {
        return Err(Error::oauth(OAuthCode::InvalidRequest));
    }
    let oidc = conf.area::<Settings>();
    let rp = client::request(app, conf, &oidc, req, &p, "revoke")?;
    let token = p
        .get("token")
        .ok_or_else(|| Error::oauth(OAuthCode::InvalidRequest))?;
    let done = revoke(
        store::of(app),
        &oidc,
        &rp.client_id,
        token,
        p.get("token_type_hint"),
    )?;
    if done != Revoked::Nothing {
        let kind = if done == Revoked::Access {
            "access"
        } else {
            "refresh"
        };
        crate::log::audit(
            "oidc_token_revoked",
            &[("client", &rp.client_id), ("token", kind)],
        );
    }
    Ok(Response::empty(200)
        .with_header("Cache-Control", "no-store")
        .with_header("Pragma", "no-cache"))
}

/// Revokes `token` when it is a live access or refresh token issued to `client_id`.
pub fn revoke(
    db: &dyn SessionStore,
    settings: &Settings,
    client_id: &str,
    token: &str,
    hint: Option<&str>,
) -> Result<Revoked> {
    let order = if hint == Some("refresh_token") {
        [RecordType::Refresh, RecordType::Access]
    } else {
        [RecordType::Access, RecordType::Refresh]
    };
    for typ in order {
        let id = match typ {
            RecordType::Access => base::access_record_id(settings, token).unwrap_or_default(),
            _ => token.to_string(),
        };
        let Some(rec) = store::get(db, typ, &id)? else {
            continue;
        };
        // RFC 7009 2.1: the server verifies the token was issued to the client asking.
        if rec.client_id() != Some(client_id) {
            return Ok(Revoked::Nothing);
        }
        if typ == RecordType::Access {
            db.delete(Kind::Oidc, &id)?;
            return Ok(Revoked::Access);
        }
        // The refresh token and every token of its grant.
        if let Some(family) = rec.family() {
            reuse::revoke_family(db, family)?;
        }
        db.delete(Kind::Oidc, &id)?;
        return Ok(Revoked::Refresh);
    }
    Ok(Revoked::Nothing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grants::{create_as, new_id, open_family, Record};
    use serde_json::{json, Map};

    #[test]
    fn only_the_clients_own_tokens() {
        let mem = crate::storage::memory::MemorySessions::default();
        let s = Settings::default();
        let (at, at2, rt) = (new_id(), new_id(), new_id());
        let fam = open_family(
            &mem,
            &new_id(),
            &Record::default(),
            &[&at, &at2, &rt],
            60,
            None,
        );
        let rec = Record::from(Map::new())
            .with("client_id", json!("rp"))
            .with_family(&fam.unwrap());
        for (typ, id) in [
            (RecordType::Access, &at),
            (RecordType::Access, &at2),
            (RecordType::Refresh, &rt),
        ] {
            create_as(&mem, typ, id, rec.clone(), 60).unwrap();
        }
        assert_eq!(
            revoke(&mem, &s, "other", &at, None).unwrap(),
            Revoked::Nothing
        );
        assert!(store::get(&mem, RecordType::Access, &at).unwrap().is_some());
        assert_eq!(revoke(&mem, &s, "rp", &at, None).unwrap(), Revoked::Access);
        assert!(store::get(&mem, RecordType::Access, &at).unwrap().is_none());
        assert!(store::get(&mem, RecordType::Refresh, &rt)
            .unwrap()
            .is_some());
        let hint = Some("access_token");
        assert_eq!(revoke(&mem, &s, "rp", &rt, hint).unwrap(), Revoked::Refresh);
        assert!(store::get(&mem, RecordType::Access, &at2)
            .unwrap()
            .is_none());
        assert_eq!(revoke(&mem, &s, "rp", &rt, None).unwrap(), Revoked::Nothing);
        assert_eq!(
            revoke(&mem, &s, "rp", "junk", None).unwrap(),
            Revoked::Nothing
        );
    }
}
