//! The look from LemonLDAP::NG's skin keys, without a rebuild: the skin's files come from the
//! data folder's `static/`, the pages link them, and nothing outside that folder is served.
use crate::common::{Portal, TempDir};
use serde_json::json;

#[test]
fn the_skin_keys_change_the_pages_and_their_files_are_served() {
    let dir = TempDir::new("skin");
    let css = dir.path().join("static/acme/css");
    std::fs::create_dir_all(&css).unwrap();
    std::fs::write(css.join("styles.css"), "main{border:1px solid}").unwrap();
    std::fs::write(dir.path().join("static/acme/logo.svg"), "<svg/>").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
    let p = Portal::builder()
        .conf("portalSkin", json!("acme"))
        .conf("portalMainLogo", json!("acme/logo.svg"))
        .conf("portalSkinBackground", json!("sky.jpg"))
        .conf("showLanguages", json!(0))
        .data(dir)
        .start();
    let c = p.client();
    let html = c.get("/", &[]).text();
    for link in [
        "href=\"/static/acme/css/styles.css\"",
        "src=\"/static/acme/logo.svg\"",
        "href=\"/static/portal.css\"",
    ] {
        assert!(html.contains(link), "{link} in {html}");
    }
    assert!(!html.contains("class=\"langs\""), "showLanguages = 0");
    let r = c.get("/static/acme/css/styles.css", &[]);
    assert_eq!(
        (r.status, r.text().as_str()),
        (200, "main{border:1px solid}")
    );
    assert!(r.header("content-type").unwrap().starts_with("text/css"));
    let bg = c.get("/static/portal.css", &[]).text();
    assert!(bg.contains("/static/common/backgrounds/sky.jpg"), "{bg}");
    for bad in [
        "/static/../secret.txt",
        "/static/%2e%2e/secret.txt",
        "/static/acme/.x.css",
    ] {
        assert_eq!(c.get(bad, &[]).status, 404, "{bad}");
    }
}

#[test]
fn a_skin_file_name_that_leaves_the_folder_refuses_the_configuration() {
    // The parser's refusal is unit-tested (web::skin); here: no portal starts with it.
    let r = std::panic::catch_unwind(|| {
        Portal::builder()
            .conf("portalCustomCss", json!("../../etc/passwd"))
            .start()
    });
    assert!(
        r.is_err(),
        "the portal must refuse portalCustomCss = ../../etc/passwd"
    );
}
