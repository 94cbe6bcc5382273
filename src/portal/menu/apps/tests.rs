//! The menu's applications against LemonLDAP::NG's `Menu.pm` rules: display modes, rules,
//! order, empty categories, logos.
use super::*;
use serde_json::json;

fn list() -> Value {
    json!({
        "default": {"catname": "Default category", "type": "category"},
        "1sample": {
            "type": "category", "catname": "Sample applications", "order": 2,
            "test1": {"type": "application", "options": {
                "name": "Application Test 1", "uri": "http://test1.example.com:8080/",
                "description": "A simple application", "logo": "demo.png", "display": "auto"}},
            "admin": {"type": "application", "order": -1, "options": {
                "name": "Admin", "uri": "http://test1.example.com/admin/", "display": "auto",
                "logo": "https://cdn.example.com/a.png"}},
            "hidden": {"type": "application", "options": {
                "uri": "http://test1.example.com/", "display": "off"}},
            "always": {"type": "application", "options": {
                "uri": "http://nowhere.example.com/", "display": "on"}},
            "ruled": {"type": "application", "options": {
                "uri": "http://nowhere.example.com/", "display": "$uid eq \"rtyler\""}},
            "partner": {"type": "application", "options": {
                "uri": "http://test1.example.com/", "display": "sp: myrp"}},
            "broken": {"type": "application", "options": {
                "uri": "http://test1.example.com/", "display": "$uid eq"}}
        },
        "0nested": {
            "type": "category", "catname": "Outer", "order": 1,
            "inner": {"type": "category", "catname": "Inner",
                "doc": {"type": "application", "options": {"uri": "https://test1.example.com/doc"}}}
        },
        "stray": {"type": "application", "options": {"uri": "http://test1.example.com/", "display": "on"}}
    })
}

fn attrs(uid: &str) -> Map<String, Value> {
    let Value::Object(m) = json!({"uid": uid}) else {
        unreachable!()
    };
    m
}

/// dwho may reach test1 but not its /admin; rtyler reaches /admin too.
fn names(uid: &str) -> Vec<(String, Vec<String>)> {
    let reach = |url: &str| {
        url.starts_with("http://test1.example.com/") && (uid == "rtyler" || !url.contains("/admin"))
            || url.starts_with("https://test1.example.com/")
    };
    let mut out = Vec::new();
    fn walk(c: &Category, out: &mut Vec<(String, Vec<String>)>) {
        out.push((
            c.name.clone(),
            c.apps.iter().map(|a| a.name.clone()).collect(),
        ));
        for s in &c.categories {
            walk(s, out);
        }
    }
    for c in visible(&list(), &attrs(uid), Env::empty(), &reach) {
        walk(&c, &mut out);
    }
    out
}

#[test]
fn each_user_sees_what_the_rules_allow() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        names("dwho"),
        vec![
            ("Outer".to_string(), vec![]),
            ("Inner".to_string(), s(&["doc"])),
            (
                "Sample applications".to_string(),
                s(&["always", "Application Test 1"])
            ),
        ]
    );
    assert_eq!(
        names("rtyler")[2].1,
        s(&["Admin", "always", "ruled", "Application Test 1"]),
        "order -1 first, then by key"
    );
}

#[test]
fn an_empty_category_is_dropped_and_logos_must_be_absolute() {
    let none = |_: &str| false;
    let cats = visible(&list(), &attrs("dwho"), Env::empty(), &none);
    assert_eq!(cats.len(), 1, "only the category with 'always' is left");
    assert_eq!(cats[0].apps[0].id, "always");
    let all = |_: &str| true;
    let cats = visible(&list(), &attrs("dwho"), Env::empty(), &all);
    let sample = cats.iter().find(|c| c.id == "1sample").unwrap();
    let logo = |id: &str| {
        sample
            .apps
            .iter()
            .find(|a| a.id == id)
            .unwrap()
            .logo
            .clone()
    };
    assert_eq!(
        logo("admin").as_deref(),
        Some("https://cdn.example.com/a.png")
    );
    assert_eq!(
        logo("test1"),
        None,
        "a file name of LemonLDAP::NG's static files"
    );
    let test1 = sample.apps.iter().find(|a| a.id == "test1").unwrap();
    assert_eq!(test1.tooltip, "Application Test 1");
    assert_eq!(test1.logo_file.as_deref(), Some("demo.png"));
    let admin = sample.apps.iter().find(|a| a.id == "admin").unwrap();
    assert_eq!(admin.logo_file, None, "a URL is no file name");
}

#[test]
fn the_filter_keeps_names_and_descriptions_that_match() {
    let all = |_: &str| true;
    let cats = visible(&list(), &attrs("dwho"), Env::empty(), &all);
    let total = count(&cats);
    assert!(total > 2, "{cats:?}");
    assert_eq!(count(&matching(cats.clone(), "  ")), total, "blank: all");
    let simple = matching(cats.clone(), "SIMPLE application");
    let ids: Vec<&str> = simple
        .iter()
        .flat_map(|c| c.apps.iter().map(|a| a.id.as_str()))
        .collect();
    assert_eq!(ids, ["test1"], "by description, any case: {simple:?}");
    assert!(
        matching(cats, "no such thing").is_empty(),
        "empty categories go"
    );
}

#[test]
fn the_port_is_left_to_the_host_rules() {
    assert_eq!(
        without_port("http://test1.example.com:8080/x?y").as_deref(),
        Some("http://test1.example.com/x?y")
    );
    assert_eq!(without_port("ftp://a/"), None);
    assert_eq!(without_port("/relative"), None);
    assert!(visible(&json!("not a list"), &attrs("x"), Env::empty(), &|_| true).is_empty());
}
