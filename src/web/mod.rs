//! The pieces every HTML-speaking area shares, on plain values: the SSO cookie and the portal's
//! own cookies (`cookies`), the CSRF tokens of forms (`csrf`), the security headers (`headers`), the portal messages by number
//! (`messages`) and the page frame (`layout`). They know the configuration, not the areas.
pub mod cookies;
pub mod csrf;
pub mod headers;
pub mod messages;

use crate::util::html_escape;

/// Wraps a body in the page layout.
pub fn layout(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{}</title><link rel=\"stylesheet\" href=\"/static/limette.css\"></head>\n\
<body><main class=\"box\">\n{body}\n</main></body></html>\n",
        html_escape(title)
    )
}
