//! Ciphers of the wire protocols, on plain bytes and text: `secret`, LemonLDAP::NG's `__secret`
//! (`Common/Crypto.pm`), which the REST session server checks and the REST session store sends.
//! The primitives they stand on (randomness, constant-time comparison) are in `util`.
pub mod secret;
