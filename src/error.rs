//! The crate errors: `Error`, the request error, typed by what the caller must do about it;
//! and, apart from it, the start-up errors: `ConfError` (a configuration file or store at fault,
//! naming the file and the key) and `StartError` (why the portal cannot start).
//!
//! Every module's failure ends up as one of these variants, the server's own refusals
//! (`Reject`) included; `router::errors` is the only place that turns them into HTTP. Messages in `BadRequest`, `NotFound`, `Conflict` are
//! shown to the client and must never hold internal detail (paths, parser traces); the
//! `Storage`, `Upstream` and `Internal` texts go to the log only.
use std::fmt;

/// Portal error numbers (`Portal/Main/Constants.pm`), serialized as their decimal string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortalCode {
    /// PE_OK
    Ok = 0,
    /// PE_SESSIONEXPIRED: the cookie names no live session.
    SessionExpired = 1,
    /// PE_FORMEMPTY: an empty user or password.
    FormEmpty = 2,
    /// PE_BADCREDENTIALS
    BadCredentials = 5,
    /// PE_FIRSTACCESS: no session and no credentials yet.
    FirstAccess = 9,
    /// PE_ERROR: generic error (missing field, directory failure, bad request).
    Error = 24,
    /// PE_MALFORMEDUSER: the login name does not match `userControl`.
    MalformedUser = 40,
    /// PE_NOTIFICATION: the user must accept notifications first.
    Notification = 36,
    /// PE_NOTOKEN: the HTML form came without its CSRF token.
    NoToken = 81,
    /// PE_TOKENEXPIRED: the CSRF token is stale or unknown.
    TokenExpired = 82,
    /// PE_UNAUTHORIZEDPARTNER: the relying party's rule refuses this user.
    UnauthorizedPartner = 84,
    /// PE_OIDC_SERVICE_NOT_ALLOWED: `issuerDBOpenIDConnectRule` refuses this user.
    OidcServiceNotAllowed = 90,
    /// PE_BADOTP: a wrong second-factor code.
    BadOtp = 96,
    /// PE_NO_SECOND_FACTORS: a service needs a second factor the user has none of.
    NoSecondFactors = 103,
    /// PE_WAIT: the brute-force lock refuses the login for some seconds more.
    Wait = 86,
    /// PE_UPGRADESESSION: the session's authentication level is below the RP's.
    UpgradeSession = 102,
    /// PE_UNKNOWNPARTNER: unknown OIDC client.
    UnknownPartner = 107,
    /// PE_UNAUTHORIZEDURL: redirect URI not registered.
    UnauthorizedUrl = 108,
}

impl PortalCode {
    /// The wire form: the number as a string (`"5"`).
    pub fn as_str(self) -> String {
        (self as u16).to_string()
    }
}

/// OAuth 2.0 error codes of the token and authorization endpoints (RFC 6749 4.1.2.1, 5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthCode {
    /// RFC 6749 5.2
    InvalidRequest,
    /// RFC 6749 5.2
    InvalidClient,
    /// RFC 6749 5.2
    InvalidGrant,
    /// RFC 6749 5.2
    UnauthorizedClient,
    /// RFC 6749 5.2
    UnsupportedGrantType,
    /// RFC 6749 5.2
    InvalidScope,
    /// RFC 6749 4.1.2.1
    UnsupportedResponseType,
    /// RFC 6749 4.1.2.1
    AccessDenied,
    /// OpenID Connect Core 3.1.2.6
    LoginRequired,
    /// OpenID Connect Core 3.1.2.6
    ConsentRequired,
    /// RFC 6750 3.1
    InvalidToken,
    /// OpenID Connect Core 3.1.2.6: the `request_uri` is not registered or does not answer.
    InvalidRequestUri,
    /// OpenID Connect Core 3.1.2.6: the request object is malformed or its signature fails.
    InvalidRequestObject,
    /// RFC 6749 5.2 (server_error is 4.1.2.1)
    ServerError,
    /// RFC 6749 4.1.2.1: too busy now (every `request_uri` fetcher, or the client's share of
    /// them, is in use).
    TemporarilyUnavailable,
}

impl OAuthCode {
    /// The exact protocol string.
    pub fn as_str(self) -> &'static str {
        match self {
            OAuthCode::InvalidRequest => "invalid_request",
            OAuthCode::InvalidClient => "invalid_client",
            OAuthCode::InvalidGrant => "invalid_grant",
            OAuthCode::UnauthorizedClient => "unauthorized_client",
            OAuthCode::UnsupportedGrantType => "unsupported_grant_type",
            OAuthCode::InvalidScope => "invalid_scope",
            OAuthCode::UnsupportedResponseType => "unsupported_response_type",
            OAuthCode::AccessDenied => "access_denied",
            OAuthCode::LoginRequired => "login_required",
            OAuthCode::ConsentRequired => "consent_required",
            OAuthCode::InvalidToken => "invalid_token",
            OAuthCode::InvalidRequestUri => "invalid_request_uri",
            OAuthCode::InvalidRequestObject => "invalid_request_object",
            OAuthCode::ServerError => "server_error",
            OAuthCode::TemporarilyUnavailable => "temporarily_unavailable",
        }
    }
}

/// One of the server's own refusals, made before any handler runs (at the door, from a head
/// that does not parse, on a missed deadline): the status and the text of the `error` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reject {
    /// 400, 408, 413, 429, 501, 503 or 505.
    pub status: u16,
    /// What the client is told.
    pub msg: &'static str,
}

impl Reject {
    /// A 400 with its message.
    pub const fn bad(msg: &'static str) -> Reject {
        Reject { status: 400, msg }
    }
}

/// A request that needs a signed-in user and has none: what its login form shows and sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignIn {
    /// The portal error shown (first access, or a cookie naming no live session).
    pub code: PortalCode,
    /// The URL the form comes back to once signed in (`None`: the portal's own form).
    pub back: Option<String>,
    /// The request's SSO cookie is cleared (it names no session, or a fresh login is asked).
    pub clear: bool,
    /// The id of a live session a fresh login sets aside, ended once the new one exists.
    pub aside: Option<String>,
}

/// Everything that can go wrong while serving a request or running a command.
#[derive(Debug)]
pub enum Error {
    /// 400: the request is malformed; the text is shown.
    BadRequest(String),
    /// 401 for REST clients: not authenticated; the text is shown.
    Unauthenticated(String),
    /// 401 asking for HTTP basic credentials (`WWW-Authenticate: Basic`): the REST servers'
    /// `restUser`/`restPassword` were missing or wrong; the text is shown.
    BasicRequired(String),
    /// 403: authenticated but not allowed.
    Forbidden(String),
    /// 404: unknown resource; the text is shown.
    NotFound(String),
    /// 405: the path exists but not with this method.
    MethodNotAllowed,
    /// 405: the path answers only these methods (the `Allow` header, e.g. `POST`).
    OnlyMethods(&'static str),
    /// 409: duplicate or already-accepted resource.
    Conflict(String),
    /// 411: a body is required.
    LengthRequired,
    /// A portal error answered in LemonLDAP::NG's `{"result":0,"error":"N"}` shape.
    Portal { code: PortalCode, status: u16 },
    /// The user must sign in first: the portal's login form (HTML), or its portal error with
    /// the SSO challenge (JSON).
    SignIn(Box<SignIn>),
    /// An OAuth error answered as JSON `{"error":code}` (token, introspection endpoints).
    /// `basic` asks for `WWW-Authenticate: Basic` (401 after Basic credentials).
    OAuth {
        code: OAuthCode,
        status: u16,
        basic: bool,
    },
    /// RFC 6750 bearer-token failure: 401 with `WWW-Authenticate: Bearer ...`.
    /// `None` means no token was sent at all (plain `Bearer` challenge).
    Bearer(Option<OAuthCode>),
    /// A SOAP call failed: answered as a SOAP 1.1 Fault with this faultstring.
    SoapFault { client: bool, message: String },
    /// A remote service (directory bridge, REST store) failed; logged, shown generically.
    Upstream(String),
    /// A storage backend failed; logged, shown generically.
    Storage(String),
    /// 503: a storage backend is out of reach for now (a database stopped or restarting, a
    /// statement over its timeout); logged, shown generically, worth retrying.
    Unavailable(String),
    /// A bug or an unexpected state; logged, shown generically.
    Internal(String),
    /// The server's own refusal of a connection or a request (`server`), before any handler:
    /// always JSON, whatever the client accepts.
    Refused(Reject),
}

impl Error {
    /// Shorthand for a bad request with a message.
    pub fn bad(msg: impl Into<String>) -> Error {
        Error::BadRequest(msg.into())
    }
    /// Shorthand for an unknown resource.
    pub fn not_found(msg: impl Into<String>) -> Error {
        Error::NotFound(msg.into())
    }
    /// Shorthand for a storage failure.
    pub fn storage(msg: impl fmt::Display) -> Error {
        Error::Storage(msg.to_string())
    }
    /// Shorthand for an internal failure.
    pub fn internal(msg: impl fmt::Display) -> Error {
        Error::Internal(msg.to_string())
    }
    /// A portal error with its HTTP status.
    pub fn portal(code: PortalCode, status: u16) -> Error {
        Error::Portal { code, status }
    }
    /// An OAuth error at HTTP 400.
    pub fn oauth(code: OAuthCode) -> Error {
        Error::OAuth {
            code,
            status: 400,
            basic: false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadRequest(m) => write!(f, "bad request: {m}"),
            Error::Unauthenticated(m) => write!(f, "not authenticated: {m}"),
            Error::BasicRequired(m) => write!(f, "basic credentials required: {m}"),
            Error::Forbidden(m) => write!(f, "forbidden: {m}"),
            Error::NotFound(m) => write!(f, "not found: {m}"),
            Error::MethodNotAllowed => write!(f, "method not allowed"),
            Error::OnlyMethods(m) => write!(f, "method not allowed (only {m})"),
            Error::Conflict(m) => write!(f, "conflict: {m}"),
            Error::LengthRequired => write!(f, "length required"),
            Error::Portal { code, status } => {
                write!(f, "portal error {} ({status})", code.as_str())
            }
            Error::SignIn(s) => write!(f, "sign in first (portal error {})", s.code.as_str()),
            Error::OAuth { code, status, .. } => {
                write!(f, "oauth error {} ({status})", code.as_str())
            }
            Error::Bearer(c) => write!(
                f,
                "bearer error {}",
                c.map(|c| c.as_str()).unwrap_or("none")
            ),
            Error::SoapFault { message, .. } => write!(f, "soap fault: {message}"),
            Error::Upstream(m) => write!(f, "upstream failed: {m}"),
            Error::Storage(m) => write!(f, "storage failed: {m}"),
            Error::Unavailable(m) => write!(f, "storage unavailable: {m}"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
            Error::Refused(r) => write!(f, "refused: {} ({})", r.msg, r.status),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Storage(format!("io: {e}"))
    }
}

/// The crate result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A configuration error: which file, which key, what is wrong.
#[derive(Debug)]
pub struct ConfError {
    /// The file (or `embedded default`).
    pub file: String,
    /// The key or section at fault; empty when the whole file is (it cannot be read).
    pub key: String,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for ConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            return write!(f, "{}: {}", self.file, self.msg);
        }
        write!(f, "{}: {}: {}", self.file, self.key, self.msg)
    }
}

/// Why the portal cannot start.
#[derive(Debug)]
pub enum StartError {
    /// A file or store cannot be read or opened.
    Conf(ConfError),
    /// The configuration names what Limette does not implement: one line per key.
    Refused(Vec<String>),
}

impl From<ConfError> for StartError {
    fn from(e: ConfError) -> StartError {
        StartError::Conf(e)
    }
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Conf(e) => write!(f, "limette: {e}"),
            StartError::Refused(lines) => {
                let lines: Vec<String> = lines.iter().map(|l| format!("error: {l}")).collect();
                f.write_str(&lines.join("\n"))
            }
        }
    }
}
