//! The audit lines of changes to the notification store, written alike by the REST server
//! (`server`), the SOAP server (`soap`), the console and the command line. It owns the lines'
//! names and fields, not the changes (`store`).

/// The audit line of an insert: how many, through what (`rest`, `soap`, `cli`), from where.
pub fn audit_insert(count: &str, via: &str, address: &str) {
    let fields = [("count", count), ("via", via), ("address", address)];
    crate::log::audit("notification_insert", &fields);
}

/// The audit line of a deletion.
pub fn audit_delete(uid: &str, reference: &str, count: &str, via: &str, address: &str) {
    let fields = [
        ("uid", uid),
        ("reference", reference),
        ("count", count),
        ("via", via),
        ("address", address),
    ];
    crate::log::audit("notification_delete", &fields);
}
