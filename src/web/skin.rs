//! The look of the pages from LemonLDAP::NG's keys, read at every configuration (no rebuild):
//! `portalSkin` (`bootstrap`, LemonLDAP::NG's default, is Limette's own look; another name adds
//! that skin's stylesheet `<skin>/css/styles.css`: Limette reads no templates), `portalMainLogo`
//! and `portalFavicon` (LemonLDAP::NG's defaults stand for Limette's own logo), `portalSkinBackground`
//! (a picture of `common/backgrounds/`, through the generated `/static/portal.css` as LemonLDAP::NG's
//! `portal.css`), `portalCustomCss` (one more stylesheet) and `showLanguages` (the language switch).
//! File names are relative to `/static/`, as LemonLDAP::NG's `staticPrefix`: the files the
//! portal does not carry itself are served from the `static` folder of its data directory
//! (`portal::assets`). A name that could leave that folder or break out of an attribute is
//! refused, naming the key. The skin rules (`portalSkinRules`) need the rule engine: see
//! `sso::skin`.
use crate::config::{value_string, AreaSettings};
use serde_json::{Map, Value};

/// The built-in skin's name (LemonLDAP::NG's default skin).
pub const BUILT_IN: &str = "bootstrap";
/// Limette's own logo and icon, standing for LemonLDAP::NG's default logo and favicon.
pub const OWN_LOGO: &str = "/static/limette.svg";

/// The skin settings of one configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skin {
    /// `portalSkin`.
    pub skin: String,
    /// The logo's URL (`portalMainLogo`); `None`: no logo.
    pub logo: Option<String>,
    /// The favicon's URL (`portalFavicon`).
    pub favicon: String,
    /// `portalSkinBackground`: the picture under `common/backgrounds/`.
    pub background: Option<String>,
    /// The URL of `portalCustomCss`.
    pub custom_css: Option<String>,
    /// `showLanguages`.
    pub show_languages: bool,
}

impl Default for Skin {
    fn default() -> Skin {
        Skin {
            skin: BUILT_IN.into(),
            logo: Some(OWN_LOGO.into()),
            favicon: OWN_LOGO.into(),
            background: None,
            custom_css: None,
            show_languages: true,
        }
    }
}

impl AreaSettings for Skin {
    fn from_conf(raw: &Map<String, Value>) -> Result<Skin, String> {
        let text = |k: &str| {
            raw.get(k)
                .map(value_string)
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        // An absent key is LemonLDAP::NG's default; an empty one is none.
        let file = |k: &str, llng_default: &str| -> Result<Option<String>, String> {
            if raw.get(k).is_none() && !llng_default.is_empty() {
                return Ok(Some(OWN_LOGO.into()));
            }
            match text(k) {
                v if v.is_empty() => Ok(None),
                v if v == llng_default => Ok(Some(OWN_LOGO.into())),
                v => static_path(&v)
                    .map(|p| Some(format!("/static/{p}")))
                    .ok_or_else(|| refused(k, &v)),
            }
        };
        let skin = match text("portalSkin") {
            s if s.is_empty() => BUILT_IN.to_string(),
            s if is_name(&s) => s,
            s => return Err(refused("portalSkin", &s)),
        };
        let background = match text("portalSkinBackground") {
            b if b.is_empty() => None,
            b => Some(static_path(&b).ok_or_else(|| refused("portalSkinBackground", &b))?),
        };
        let show = raw
            .get("showLanguages")
            .map_or(true, |v| crate::config::truthy(Some(v)));
        Ok(Skin {
            skin,
            logo: file("portalMainLogo", "common/logos/logo_llng_400px.png")?,
            favicon: file("portalFavicon", "common/favicon.ico")?
                .unwrap_or_else(|| OWN_LOGO.into()),
            background,
            custom_css: file("portalCustomCss", "")?,
            show_languages: show,
        })
    }
}

impl Skin {
    /// The stylesheet of a skin other than the built-in one.
    pub fn stylesheet(skin: &str) -> Option<String> {
        (skin != BUILT_IN && is_name(skin)).then(|| format!("/static/{skin}/css/styles.css"))
    }

    /// The generated `/static/portal.css` (LemonLDAP::NG's `portal.css`): the background.
    pub fn portal_css(&self) -> String {
        let mut css = String::from("/* Limette portal CSS */\n");
        if let Some(b) = &self.background {
            css.push_str(&format!(
                "html,body{{background:url(\"/static/common/backgrounds/{b}\") no-repeat center fixed;background-size:cover}}\n"
            ));
        }
        css
    }
}

fn refused(key: &str, v: &str) -> String {
    format!("{key} = {v:?} is not supported (expected a file name relative to /static/: letters, digits, '.', '-', '_' and '/')")
}

/// A skin name: LemonLDAP::NG's `^[\w\-]+$`.
pub fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A relative path under `/static/` that stays there: segments of letters, digits, `.`, `-`
/// and `_`, none empty or starting with a dot (no `..`, no hidden file); a leading `/static/`
/// or `/` is dropped.
pub fn static_path(v: &str) -> Option<String> {
    let v = v.strip_prefix("/static/").unwrap_or(v);
    let v = v.strip_prefix('/').unwrap_or(v);
    let ok = !v.is_empty()
        && v.len() <= 256
        && v.split('/').all(|seg| {
            !seg.is_empty()
                && !seg.starts_with('.')
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        });
    ok.then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn skin(v: Value) -> Result<Skin, String> {
        let mut raw = crate::config::defaults::defaults();
        for (k, v) in v.as_object().unwrap() {
            raw.insert(k.clone(), v.clone());
        }
        Skin::from_conf(&raw)
    }

    #[test]
    fn lemonldap_ngs_defaults_give_the_own_look() {
        let s = skin(json!({"portalMainLogo": "common/logos/logo_llng_400px.png",
                            "portalFavicon": "common/favicon.ico"}))
        .unwrap();
        assert_eq!(s, Skin::default());
        assert_eq!(s.portal_css(), "/* Limette portal CSS */\n");
    }

    #[test]
    fn keys_change_the_look() {
        let s = skin(
            json!({"portalSkin": "acme", "portalMainLogo": "acme/logo.png",
            "portalFavicon": "/static/acme/icon.png", "portalSkinBackground": "sky.jpg",
            "portalCustomCss": "acme/extra.css", "showLanguages": 0}),
        )
        .unwrap();
        assert_eq!(s.logo.as_deref(), Some("/static/acme/logo.png"));
        assert_eq!(s.favicon, "/static/acme/icon.png");
        assert_eq!(s.custom_css.as_deref(), Some("/static/acme/extra.css"));
        assert!(!s.show_languages);
        assert!(s
            .portal_css()
            .contains("/static/common/backgrounds/sky.jpg"));
        assert_eq!(
            Skin::stylesheet("acme").as_deref(),
            Some("/static/acme/css/styles.css")
        );
        assert_eq!(Skin::stylesheet("bootstrap"), None);
        assert_eq!(skin(json!({"portalMainLogo": ""})).unwrap().logo, None);
    }

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        for (k, v) in [
            ("portalMainLogo", "../secret.png"),
            ("portalCustomCss", "a/.hidden.css"),
            ("portalFavicon", "x\" onload=\"y"),
            ("portalSkinBackground", "a b.jpg"),
            ("portalSkin", "../x"),
            ("portalCustomCss", "https://cdn.example/x.css"),
        ] {
            let e = skin(json!({ k: v })).unwrap_err();
            assert!(e.starts_with(k), "{e}");
        }
    }
}
