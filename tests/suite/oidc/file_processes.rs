//! Single use across processes on the File store: two Limette processes whose session
//! storage is one folder, the same code redeemed at both at the same moment, gives tokens to
//! exactly one; the others get `invalid_grant`.
use super::oauth_err;
use crate::common::oidc::{basic, code, rp, CB, SECRET};
use crate::common::{Portal, TempDir};
use serde_json::json;
use std::sync::{Arc, Barrier};

#[test]
fn a_code_redeemed_at_two_processes_on_one_file_store_is_redeemed_once() {
    let shared = TempDir::new("oidc-file-shared");
    let options = format!(
        "globalStorageOptions = {{\"Directory\": \"{}\"}}",
        shared.path().display()
    );
    let rps = json!({"rp1": rp("rp1", json!({}))});
    let start = || {
        Portal::builder()
            .portal_url_matches()
            .conf("oidcRPMetaDataOptions", rps.clone())
            .ini(&options)
            .start()
    };
    let (a, b) = (start(), start());
    let sid = a.login("dwho");
    assert!(
        shared.path().join(&sid).is_file(),
        "the SSO session is a file of the shared folder"
    );
    for round in 0..10 {
        let c = code(&a, &sid, "rp1", "");
        let clients = [a.client(), b.client(), a.client(), b.client()];
        let barrier = Arc::new(Barrier::new(clients.len()));
        let handles: Vec<_> = clients
            .into_iter()
            .map(|client| {
                let (c, barrier) = (c.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let auth = basic("rp1", SECRET);
                    let f = [
                        ("grant_type", "authorization_code"),
                        ("code", c.as_str()),
                        ("redirect_uri", CB),
                    ];
                    barrier.wait();
                    client.post_form("/oauth2/token", &f, &[("Authorization", &auth)])
                })
            })
            .collect();
        let answers: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("redeeming thread"))
            .collect();
        let winners: Vec<_> = answers.iter().filter(|r| r.status == 200).collect();
        assert_eq!(winners.len(), 1, "round {round}: {answers:?}");
        assert!(winners[0].json()["access_token"].is_string());
        for r in answers.iter().filter(|r| r.status != 200) {
            assert_eq!(
                oauth_err(r),
                (400, "invalid_grant".into(), None),
                "round {round}"
            );
        }
    }
}
