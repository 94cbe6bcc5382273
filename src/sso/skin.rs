//! LemonLDAP::NG's `portalSkinRules` (`Portal/Main/Display.pm`, `getSkin`): rules, tried in
//! the order of their texts, each naming the skin of the pages whose user matches it; the user
//! is the session's attributes, or for a visitor without one the address (`ipAddr`) and the URL
//! the login leads to (`_url`). A rule that does not parse is logged and left out, as
//! LemonLDAP::NG does. Limette's skins are stylesheets (`web::skin`): a skin whose stylesheet
//! is missing costs a failed stylesheet request, where LemonLDAP::NG tries the next rule.
use crate::config::AreaSettings;
use crate::rules::Rule;
use crate::storage::Session;
use serde_json::{json, Map, Value};

/// The compiled skin rules of one configuration.
#[derive(Debug, Clone, Default)]
pub struct SkinRules {
    rules: Vec<(Rule, String)>,
}

impl AreaSettings for SkinRules {
    fn from_conf(raw: &Map<String, Value>) -> Result<SkinRules, String> {
        let Some(Value::Object(m)) = raw.get("portalSkinRules") else {
            return Ok(SkinRules::default());
        };
        let mut texts: Vec<(&String, &Value)> = m.iter().collect();
        crate::util::sort::sort_by(&mut texts, |a, b| a.0.cmp(b.0));
        let mut rules = Vec::new();
        for (text, skin) in texts {
            let skin = crate::config::value_string(skin).trim().to_string();
            if !crate::web::skin::is_name(&skin) {
                return Err(format!(
                    "portalSkinRules: {skin:?} is not a skin name (letters, digits, '-', '_')"
                ));
            }
            match Rule::parse(text) {
                Ok(rule) => rules.push((rule, skin)),
                Err(e) => crate::log::error(&format!("skin rule {text:?} is left out: {e}")),
            }
        }
        Ok(SkinRules { rules })
    }
}

impl SkinRules {
    /// The skin of the first rule the user matches: a session's attributes, else the visitor's
    /// address and the URL the login leads to.
    pub fn choose(&self, session: Option<&Session>, ip: &str, url: Option<&str>) -> Option<String> {
        if self.rules.is_empty() {
            return None;
        }
        let visitor;
        let attrs = match session {
            Some(s) => s,
            None => {
                let mut m = Map::new();
                m.insert("ipAddr".into(), json!(ip));
                m.insert("_url".into(), json!(url.unwrap_or("")));
                visitor = m;
                &visitor
            }
        };
        self.rules
            .iter()
            .find(|(rule, _)| rule.eval(attrs))
            .map(|(_, skin)| skin.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_matching_rule_in_text_order_wins() {
        let mut raw = Map::new();
        raw.insert(
            "portalSkinRules".into(),
            json!({"$uid eq \"dwho\"": "tardis", "$ipAddr =~ /^10\\./": "intranet", "$x eq (": "broken"}),
        );
        let r = SkinRules::from_conf(&raw).unwrap();
        let dwho: Session = json!({"uid": "dwho", "ipAddr": "192.0.2.9"})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(r.choose(Some(&dwho), "", None).as_deref(), Some("tardis"));
        assert_eq!(
            r.choose(None, "10.1.2.3", None).as_deref(),
            Some("intranet")
        );
        assert_eq!(r.choose(None, "192.0.2.1", None), None);
        raw.insert("portalSkinRules".into(), json!({"1": "../x"}));
        assert!(SkinRules::from_conf(&raw).is_err());
    }
}
