//! A local time type, what the TZif reader and the footer's rule both answer with.

/// One local time type: its offset from UTC, in seconds, and its abbreviation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalType {
    /// Seconds east of UTC.
    pub offset: i32,
    /// The abbreviation (`CET`, `CEST`, `+03`).
    pub abbr: String,
}
