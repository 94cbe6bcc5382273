//! The relying parties as clients of the provider: how one authenticates at the token,
//! introspection, revocation and PAR endpoints (`client`: secrets, private-key and
//! client-secret JWT assertions in `assertion`), its keys fetched from its `jwks_uri`
//! (`rp_jwks`, and `keys_first`, which fetches them off the request path before an endpoint
//! needs them), dynamic registration (`register`), and the console's editor of an RP's
//! options (`rp_edit`). It imports `base`, `settings`, `keys` and `discovery`, never the
//! endpoints' folders that use it (`authorize`, `token`).
pub mod assertion;
pub mod client;
pub mod keys_first;
pub mod register;
pub mod rp_edit;
pub mod rp_jwks;
