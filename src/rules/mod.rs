//! The rule language shared by access rules and notification conditions (built by whichever
//! of the sessions and notifications issues comes first).
