//! The decisions of the login flow, on plain values: which notifications a new session must
//! see, and whether a posted form accepts all of them.
use super::model::Notification;
use crate::rules::Rule;
use crate::storage::Session;
use serde_json::{Map, Value};

/// Key of an accepted reference in the persistent session.
pub fn accepted_key(reference: &str) -> String {
    format!("notification_{reference}")
}

/// The notifications to show: date reached (`today` is `YYYY-MM-DD`), condition true for the
/// session (a condition that does not parse is logged and hides the notification), reference
/// not yet accepted in the persistent session; sorted by date then reference, one per
/// reference.
pub fn due(
    candidates: Vec<Notification>,
    session: &Session,
    persistent: &Map<String, Value>,
    today: &str,
) -> Vec<Notification> {
    let mut out: Vec<Notification> = candidates
        .into_iter()
        .filter(|n| n.date.as_str() <= today)
        .filter(|n| !persistent.contains_key(&accepted_key(&n.reference)))
        .filter(|n| condition_holds(n, session))
        .collect();
    crate::util::sort::sort_by(&mut out, |a, b| {
        (a.date.as_str(), a.reference.as_str()).cmp(&(b.date.as_str(), b.reference.as_str()))
    });
    out.dedup_by(|a, b| a.reference == b.reference);
    out
}

fn condition_holds(n: &Notification, session: &Session) -> bool {
    let cond = n.condition.trim();
    if cond.is_empty() {
        return true;
    }
    match Rule::parse(cond) {
        Ok(rule) => rule.eval(session),
        Err(e) => {
            crate::log::error(&format!(
                "notification {}: condition does not parse: {e}",
                n.reference
            ));
            false
        }
    }
}

/// True when the form names every shown notification (`reference1x<i>`) and checks every one
/// of its boxes (`check1x<i>x<j>` = `accepted`).
pub fn all_accepted(shown: &[Notification], form: &[(String, String)]) -> bool {
    shown.iter().all(|n| named(n, form)) && ticked(shown, form).iter().flatten().all(|t| *t)
}

/// For each shown notification, which of its boxes the form ticked (found by reference, so a
/// renumbered form counts): what an incomplete form shows again, ticks kept.
pub fn ticked(shown: &[Notification], form: &[(String, String)]) -> Vec<Vec<bool>> {
    let get = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    shown
        .iter()
        .map(|n| {
            let index = form.iter().find_map(|(k, v)| {
                let i = k.strip_prefix("reference1x")?;
                (v == &n.reference).then(|| i.to_string())
            });
            (1..=n.check.len())
                .map(|j| {
                    index
                        .as_ref()
                        .is_some_and(|i| get(&format!("check1x{i}x{j}")) == Some("accepted"))
                })
                .collect()
        })
        .collect()
}

fn named(n: &Notification, form: &[(String, String)]) -> bool {
    form.iter()
        .any(|(k, v)| k.starts_with("reference1x") && v == &n.reference)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn notif(uid: &str, date: &str, reference: &str, cond: &str, checks: usize) -> Notification {
        let doc = json!({
            "uid": uid, "date": date, "reference": reference, "condition": cond,
            "title": "t", "check": (0..checks).map(|i| format!("c{i}")).collect::<Vec<_>>()
        });
        super::super::model::from_json_document(&doc.to_string()).unwrap()
    }

    fn session(uid: &str) -> Session {
        json!({"uid": uid, "_whatToTrace": uid})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn due_filters_and_sorts() {
        let list = vec![
            notif("dwho", "2024-01-02", "B", "", 1),
            notif("allusers", "2024-01-01", "Z", "$uid eq \"dwho\"", 0),
            notif("allusers", "2024-01-01", "Y", "$uid eq \"rtyler\"", 0),
            notif("dwho", "2099-01-01", "FUTURE", "", 0),
            notif("dwho", "2024-01-01", "DONE", "", 0),
            notif("dwho", "2024-01-01", "BROKEN", "$uid eq (", 0),
        ];
        let persistent = json!({"notification_DONE": 1}).as_object().unwrap().clone();
        let refs: Vec<String> = due(list, &session("dwho"), &persistent, "2024-06-01")
            .into_iter()
            .map(|n| n.reference)
            .collect();
        assert_eq!(refs, vec!["Z", "B"]);
    }

    #[test]
    fn every_box_of_every_notification_must_be_checked() {
        let shown = vec![
            notif("dwho", "2024-01-01", "A", "", 2),
            notif("allusers", "2024-01-01", "B", "", 0),
        ];
        let f = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        let all = f(&[
            ("reference1x1", "A"),
            ("check1x1x1", "accepted"),
            ("check1x1x2", "accepted"),
            ("reference1x2", "B"),
        ]);
        assert!(all_accepted(&shown, &all));
        let partial = f(&[
            ("reference1x1", "A"),
            ("check1x1x1", "accepted"),
            ("reference1x2", "B"),
        ]);
        assert!(!all_accepted(&shown, &partial));
        assert_eq!(
            ticked(&shown, &partial),
            vec![vec![true, false], Vec::<bool>::new()]
        );
        let missing_ref = f(&[
            ("reference1x1", "A"),
            ("check1x1x1", "accepted"),
            ("check1x1x2", "accepted"),
        ]);
        assert!(!all_accepted(&shown, &missing_ref));
        let renumbered = f(&[
            ("reference1x2", "A"),
            ("check1x2x1", "accepted"),
            ("check1x2x2", "accepted"),
            ("reference1x1", "B"),
        ]);
        assert!(all_accepted(&shown, &renumbered));
        let wrong_value = f(&[
            ("reference1x1", "A"),
            ("check1x1x1", "on"),
            ("check1x1x2", "accepted"),
            ("reference1x2", "B"),
        ]);
        assert!(!all_accepted(&shown, &wrong_value));
    }
}
