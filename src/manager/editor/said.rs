//! The editor's findings in the page's language. The checks of a save (`storage::save::check`,
//! `config check`'s findings) write English, which the audit line, the log and `limette config
//! check` keep as it is; a page says each with its `srv…` pattern (`messages::translate`),
//! the key names, values and rule texts inside left verbatim, and the refused keys' notes
//! from `refused`'s table. Its tests (`said_tests`) feed it the real checks' messages, so
//! that a message whose English changes without its pattern fails there rather than showing
//! English on a French page.
use crate::web::messages::translate;

/// A check's message in `lang`.
pub fn text(lang: &str, msg: &str) -> String {
    let mut msg = msg.to_string();
    if lang != crate::web::messages::DEFAULT {
        for (en, fr) in super::refused::FR {
            let (from, to) = (format!("({en} is not"), format!("({fr} is not"));
            if msg.contains(&from) {
                msg = msg.replace(&from, &to);
            }
        }
    }
    translate(lang, &msg)
}
