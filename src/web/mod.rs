//! The pieces every HTML-speaking area shares, on plain values: the SSO cookie and the portal's
//! own cookies (`cookies`), the CSRF tokens of forms (`csrf`), what an action did, said once
//! on the next page (`flash`), the security headers (`headers`),
//! the portal's words in every shipped language (`messages`), the user's language (`lang`), the
//! look from the configuration (`skin`) and the frame of every page (`page::Page`). They know
//! the configuration, not the areas. Every page is a compile-time `maud` template, which
//! escapes every value it is given; the portal's words render as `page::Word`.
pub mod cookies;
pub mod csrf;
pub mod flash;
pub mod headers;
pub mod lang;
pub mod messages;
pub mod page;
pub mod skin;
pub mod zone;

pub use page::Page;

use maud::{html, Markup};

/// Hidden iframes that load the front-channel logout URLs of relying parties (OpenID Connect
/// Front-Channel Logout 1.0, section 4), for the page that ends a session. The page must allow
/// their origins in `frame-src` (`Response::with_frame_sources`).
pub fn logout_frames(urls: &[String]) -> Markup {
    html! {
        @for u in urls {
            iframe class="logout-frame" hidden title="logout" src=(u) {} "\n"
        }
    }
}
