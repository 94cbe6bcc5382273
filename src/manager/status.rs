//! The console's status page (its index): the version, the uptime, the configuration in
//! force, each store and the health path's checks, the sessions, the worker queue and the
//! counters of `crate::metrics`.
use super::Ctx;
use crate::error::Result;
use crate::http::Response;
use crate::storage::Kind;
use maud::html;

/// `GET /manager/` and `/manager/status`.
pub fn page(ctx: &Ctx) -> Result<Response> {
    let page = ctx.page();
    let health = crate::status::health::check(ctx.app, ctx.conf);
    let m = crate::metrics::summary();
    let up = crate::metrics::uptime().as_secs();
    let uptime = super::session_values::duration(&page, i64::try_from(up).unwrap_or(i64::MAX));
    let count = |kind| {
        crate::status::session_count(ctx.app, kind).map_or_else(|| "-".into(), |n| n.to_string())
    };
    let rows: Vec<(&str, String)> = vec![
        ("mgrVersion", env!("CARGO_PKG_VERSION").to_string()),
        ("mgrUptime", uptime),
        ("mgrConfNumber", ctx.conf.num.to_string()),
        ("mgrConfStore", ctx.app.confs.describe()),
        ("mgrSessionStore", ctx.app.sessions(Kind::Global).describe()),
        ("mgrNotificationStore", ctx.app.notifications.describe()),
        ("mgrSessionsGlobal", count(Kind::Global)),
        ("mgrSessionsPersistent", count(Kind::Persistent)),
        ("mgrQueue", m.queued.to_string()),
        ("mgrBusy", m.busy.to_string()),
        ("mgrConnections", m.connections.to_string()),
        ("mgrRequests", m.requests.to_string()),
        ("mgrErrors", m.errors.to_string()),
        ("mgrRefused", m.refused.to_string()),
        ("mgrLoginsOk", m.logins_ok.to_string()),
        ("mgrLoginsFailed", m.logins_failed.to_string()),
        ("mgrTokens", m.access_tokens.to_string()),
        ("mgrReloads", m.reloads.to_string()),
    ];
    let body = html! {
        h2 { (page.say("mgrNode")) } "\n"
        table id="status" { tbody {
            "\n"
            @for (key, value) in rows {
                tr { th scope="row" { (page.say(key)) } td id=(key) { (value) } } "\n"
            }
        } } "\n"
        h2 { (page.say("mgrHealth")) } "\n"
        table id="health" {
            thead { tr { th scope="col" { (page.say("mgrCheck")) } th scope="col" { (page.say("mgrResult")) } } }
            tbody {
                "\n"
                @for c in &health.checks {
                    tr {
                        td { (c.name) }
                        td class=(if c.ok() { "ok" } else { "failed" }) { (page.say(if c.ok() { "mgrOk" } else { "mgrFailed" })) }
                    } "\n"
                }
            }
        } "\n"
    };
    Ok(ctx.render("mgrStatus", body))
}
