//! Notification server over HTTP: every row of the contract's rules, on File and SQLite
//! storage; the SOAP server with envelopes captured from SOAP::Lite (tests/fixtures/soap); the
//! 10,000-element array; entity bombs; the CLI.
use crate::common;

mod cli;
mod rest;
mod soap;

use common::{Client, Resp};
use serde_json::{json, Value};

pub fn post(c: &Client, body: &Value) -> Resp {
    c.send_json("POST", "/notifications", body)
}

pub fn refa() -> Value {
    json!({"uid":"rtyler","date":"2024-01-01","reference":"REFA","title":"Title A","subtitle":"Sub A",
           "text":"Text A","check":["I agree","I am sure"]})
}

pub fn note(uid: &str, reference: &str) -> Value {
    json!({"uid": uid, "date": "2024-01-02", "reference": reference, "text": "t"})
}

pub fn keys(r: &Resp) -> Vec<String> {
    let mut v: Vec<String> = r.json()["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no result list: {}", r.text()))
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o["uid"].as_str().unwrap(),
                o["reference"].as_str().unwrap()
            )
        })
        .collect();
    v.sort();
    v
}

pub fn error(r: &Resp) -> String {
    r.json()["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error: {}", r.text()))
        .to_string()
}
