//! Unit tests of the notification model.
use super::*;

#[test]
fn one_json_object_with_lists_and_extra_keys() {
    let body = br#"{"uid":"rtyler","date":"2024-01-06 12:34:56","reference":"MY_REF","title":"T","check":["a","b"],"foo":1}"#;
    let n = parse_json(body, "").unwrap();
    assert_eq!(n.len(), 1);
    let n = &n[0];
    assert_eq!(
        (n.uid.as_str(), n.date.as_str(), n.reference.as_str()),
        ("rtyler", "2024-01-06", "MY-REF")
    );
    assert_eq!(n.check, vec!["a", "b"]);
    let doc: Value = serde_json::from_str(&n.to_document()).unwrap();
    assert_eq!(doc["foo"], 1);
    assert_eq!(doc["condition"], "");
    assert_eq!(from_json_document(&n.to_document()).unwrap(), *n);
}

#[test]
fn required_keys_in_llng_order() {
    let e = parse_json(br#"{"title":"x"}"#, "").unwrap_err();
    assert_eq!(e.0, "Attribute date is missing");
    let e = parse_json(br#"{"date":"2024-01-01","reference":"R"}"#, "").unwrap_err();
    assert_eq!(e.0, "Attribute uid is missing");
    let e = parse_json(br#"{"date":"2024-01-01","uid":"u"}"#, "").unwrap_err();
    assert_eq!(e.0, "Attribute reference is missing");
}

#[test]
fn bad_json_and_empty_array_are_bad_requests() {
    for body in [&b"{"[..], b"[]", b"3", b"[1]"] {
        assert_eq!(parse_json(body, "").unwrap_err().0, "Bad request");
    }
}

#[test]
fn impossible_dates_are_refused() {
    assert_eq!(parse_date("2024-02-29").as_deref(), Some("2024-02-29"));
    assert_eq!(
        parse_date("2024-01-06T10:00:00").as_deref(),
        Some("2024-01-06")
    );
    for d in [
        "2023-02-29",
        "2024-13-45",
        "2024-00-10",
        "24-01-01",
        "2024/01/01",
        "abcd-ef-gh",
    ] {
        assert_eq!(parse_date(d), None, "{d}");
    }
}

#[test]
fn long_keys_and_path_characters_are_refused() {
    let long = "x".repeat(256);
    let body = format!(r#"{{"uid":"{long}","date":"2024-01-01","reference":"R"}}"#);
    assert!(parse_json(body.as_bytes(), "")
        .unwrap_err()
        .0
        .contains("longer than 255"));
    let body = br#"{"uid":"../etc","date":"2024-01-01","reference":"R"}"#;
    assert!(parse_json(body, "").is_err());
    let ok = format!(
        r#"{{"uid":"{}","date":"2024-01-01","reference":"R"}}"#,
        "y".repeat(255)
    );
    assert!(parse_json(ok.as_bytes(), "").is_ok());
}

#[test]
fn default_condition_is_appended() {
    let n = parse_json(
        br#"{"uid":"u","date":"2024-01-01","reference":"R","condition":"$a"}"#,
        "$b",
    )
    .unwrap();
    assert_eq!(n[0].condition, "($a) and ($b)");
    let n = parse_json(br#"{"uid":"u","date":"2024-01-01","reference":"R"}"#, "$b").unwrap();
    assert_eq!(n[0].condition, "$b");
}

#[test]
fn xml_document_with_repeats_and_inline_markup() {
    let doc = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?><root><notification uid="rtyler" date="2024-01-02" reference="XMLA"><title>XML <b>title</b></title><text>a</text><text>b</text><check>c1</check><check>c2</check></notification><notification uid="allusers" date="2024-01-02" ref="XMLALL" condition="$uid eq 'x'"><text>for all</text></notification></root>"#;
    let list = parse_xml(doc).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].title, vec!["XML title"]);
    assert_eq!(list[0].text, vec!["a", "b"]);
    assert_eq!(list[0].check, vec!["c1", "c2"]);
    assert_eq!(list[1].reference, "XMLALL");
    assert_eq!(list[1].condition, "$uid eq 'x'");
    let back = Notification::from_document(&list[0].to_document()).unwrap();
    assert_eq!(back, list[0]);
    assert!(list[0]
        .to_document()
        .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root><notification "));
}

#[test]
fn xml_errors() {
    assert!(parse_xml("not xml").is_err());
    assert!(parse_xml("<root/>")
        .unwrap_err()
        .0
        .contains("No notification"));
    let e = parse_xml(r#"<root><notification uid="u" reference="R"/></root>"#).unwrap_err();
    assert_eq!(e.0, "Attribute date is missing");
    let bomb = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><root>&lol2;</root>"#;
    assert!(parse_xml(bomb).unwrap_err().0.contains("DOCTYPE"));
    assert!(parse_xml(
        r#"<root><notification uid="u" date="2024-01-01" reference="R">&ext;</notification></root>"#
    )
    .is_err());
}

#[test]
fn display_strips_markup_and_escapes() {
    assert_eq!(
        maud::html! { (strip_tags("a <b>bold</b> & \"q\"")) }.into_string(),
        "a bold &amp; &quot;q&quot;"
    );
    assert_eq!(strip_tags("<script>x</script>y"), "xy");
}

#[test]
fn attributes_for_the_server() {
    let n = &parse_json(
        br#"{"uid":"u","date":"2024-01-01","reference":"R","check":"one","title":"T"}"#,
        "",
    )
    .unwrap()[0];
    assert_eq!(n.attribute("check"), Some(Value::from(vec!["one"])));
    assert_eq!(n.attribute("title"), Some(Value::from("T")));
    assert_eq!(n.attribute("subtitle"), None);
}
