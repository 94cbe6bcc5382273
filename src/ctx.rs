//! The context every area handler gets, and the one shape of a handler:
//! `fn handle(ctx: &Ctx) -> Result<Response>`. A `Ctx` holds the application, the
//! configuration in force for this request (one snapshot, however long the request takes),
//! the request, and gives the user's language and the SSO session when there is one (looked up
//! once, when first asked). It decides nothing; the router builds it, the areas read it.
use crate::app::App;
use crate::config::Conf;
use crate::error::Result;
use crate::http::{Request, Response};
use crate::sso::{CookieState, SsoSession};
use crate::web::page::Header;
use std::cell::OnceCell;
use std::sync::Arc;

/// What an area handler is: one shape for every area.
pub type Handler = fn(&Ctx) -> Result<Response>;

/// What draws the account bar of a signed-in user's page (`account::header`, which the router
/// gives): the notifications' pages cannot import it, as its second-factor link reaches the
/// second factors, which write notifications.
pub type AccountBar = fn(&App, &Conf, &Request, &crate::storage::Session) -> Header;

/// One request's context.
pub struct Ctx<'a> {
    /// The application: stores, local settings.
    pub app: &'a Arc<App>,
    /// The configuration in force when the request was taken.
    pub conf: &'a Arc<Conf>,
    /// The request.
    pub req: &'a Request,
    /// What the request's SSO cookie names, once asked.
    session: OnceCell<CookieState>,
    account_bar: Option<AccountBar>,
}

impl<'a> Ctx<'a> {
    /// The context of `req`, answered under `conf`.
    pub fn new(app: &'a Arc<App>, conf: &'a Arc<Conf>, req: &'a Request) -> Ctx<'a> {
        Ctx {
            app,
            conf,
            req,
            session: OnceCell::new(),
            account_bar: None,
        }
    }

    /// The same context with what draws the account bar.
    pub fn with_account_bar(mut self, bar: AccountBar) -> Ctx<'a> {
        self.account_bar = Some(bar);
        self
    }

    /// The account bar of the signed-in user of the SSO session `s` (`None` when the router
    /// gave nothing to draw it).
    pub fn account_bar(&self, s: &crate::storage::Session) -> Option<Header> {
        self.account_bar
            .map(|bar| bar(self.app, self.conf, self.req, s))
    }

    /// The user's language (`web::lang::of`).
    pub fn lang(&self) -> &'static str {
        crate::web::lang::of(self.req)
    }

    /// The SSO session the request's cookie names (absent, unknown or live), looked up the
    /// first time it is asked (an expired one is deleted on sight, once).
    pub fn session(&self) -> Result<&CookieState> {
        if let Some(state) = self.session.get() {
            return Ok(state);
        }
        let id = crate::web::cookies::sso_id(self.conf, self.req);
        let state = crate::sso::from_cookie(self.app, self.conf, id.as_deref())?;
        Ok(self.session.get_or_init(|| state))
    }

    /// The live SSO session, or `Error::SignIn` (`sso::signed_in`): what a handler that needs
    /// a signed-in user starts with.
    pub fn signed_in(&self) -> Result<SsoSession> {
        crate::sso::signed_in(self.session()?)
    }

    /// The request's path below `pathPrefix` (the REST servers' paths are prefixed), or the
    /// whole path when it does not start with it.
    pub fn below_prefix(&self) -> &'a str {
        let path = self.req.path.as_str();
        path.strip_prefix(self.app.local.path_prefix.as_str())
            .unwrap_or(path)
    }
}
