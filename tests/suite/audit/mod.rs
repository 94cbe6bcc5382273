//! What the log says: no secret at the most verbose level (passwords, client secrets, codes,
//! tokens, session ids), and one audit line per security event in a stable format.
mod leak;
