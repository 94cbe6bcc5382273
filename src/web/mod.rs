//! The pieces every HTML-speaking area shares, on plain values: the SSO cookie and the portal's
//! own cookies (`cookies`), the CSRF tokens of forms (`csrf`), the security headers (`headers`), the portal messages by number
//! (`messages`) and the page frame (`layout`). They know the configuration, not the areas.
pub mod cookies;
pub mod csrf;
pub mod headers;
pub mod messages;

use crate::util::html_escape;

/// Hidden iframes that load the front-channel logout URLs of relying parties (OpenID Connect
/// Front-Channel Logout 1.0, section 4), for the page that ends a session. The page must allow
/// their origins in `frame-src` (`Response::with_frame_sources`).
pub fn logout_frames(urls: &[String]) -> String {
    urls.iter()
        .map(|u| {
            format!(
                "<iframe class=\"logout-frame\" hidden title=\"logout\" src=\"{}\"></iframe>\n",
                html_escape(u)
            )
        })
        .collect()
}

/// Wraps a body in the page layout.
pub fn layout(title: &str, body: &str) -> String {
    layout_head(title, "", body)
}

/// A page that goes on to `url` by itself after `seconds` (a `refresh` meta: no script, which
/// the pages' `script-src` would refuse inline) and shows a link to it meanwhile.
pub fn layout_then(title: &str, body: &str, seconds: u32, url: &str) -> String {
    let url = html_escape(url);
    let head = format!("<meta http-equiv=\"refresh\" content=\"{seconds};url={url}\">");
    let body =
        format!("{body}\n<p><a class=\"button\" id=\"continue\" href=\"{url}\">Continue</a></p>");
    layout_head(title, &head, &body)
}

fn layout_head(title: &str, head: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{head}\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{}</title><link rel=\"stylesheet\" href=\"/static/limette.css\"></head>\n\
<body><main class=\"box\">\n{body}\n</main></body></html>\n",
        html_escape(title)
    )
}
