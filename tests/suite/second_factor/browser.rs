//! The TOTP pages in a real headless Chromium, in English and French, axe-core clean, with no
//! script of their own (tests/browser/totp_pages.py).
use super::start;

#[test]
fn the_totp_pages_in_both_languages() {
    let p = start(&[]);
    let axe = std::env::var("LIMETTE_AXE").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/target/axe/node_modules/axe-core/axe.min.js"
        )
        .into()
    });
    assert!(
        std::path::Path::new(&axe).is_file(),
        "no axe-core at {axe}: run `make test-tools`"
    );
    let out = std::process::Command::new(crate::python::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/totp_pages.py"
        ))
        .arg(p.url(""))
        .arg(&axe)
        .output()
        .expect("the tests' python3 starts");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "{stdout}\n{stderr}\nserver log:\n{}",
        p.log()
    );
    assert!(stdout.contains("totp pages ok"), "{stdout}");
}
