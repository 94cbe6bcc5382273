//! THE table of what Limette does with each LemonLDAP::NG configuration key: honoured, ignored
//! (harmless), or refused (ignoring it would change who gets in or what they get). `config
//! check`, the start-up gate and the generated document "Using an existing LemonLDAP::NG
//! configuration" all read this one table, so they cannot drift. Relying-party options have
//! their own table of the same shape in `oidc::options`.

use serde_json::Value;

/// What Limette does with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Read and honoured as LemonLDAP::NG documents it (values it cannot honour are refused by
    /// the code that reads the key).
    Implemented,
    /// Not read. Harmless to ignore (cosmetic, or for a page Limette does not have): `config
    /// check` warns when the value differs from LemonLDAP::NG's default.
    Ignored,
    /// Not implemented, and ignoring it would widen access or change what users get: a value
    /// other than LemonLDAP::NG's default refuses start-up (for a relying-party option: the
    /// relying party is disabled).
    Refused,
}

/// One key of the table.
#[derive(Debug, Clone, Copy)]
pub struct KeyInfo {
    /// LemonLDAP::NG's key name.
    pub key: &'static str,
    /// What Limette does with it.
    pub support: Support,
    /// A short note for the generated document (what is supported, why refused).
    pub note: &'static str,
}

impl KeyInfo {
    const fn new(key: &'static str, support: Support, note: &'static str) -> KeyInfo {
        KeyInfo { key, support, note }
    }
}

use Support::{Ignored, Implemented, Refused};

/// Keys Limette reads and honours. Module and storage keys accept only the values the start-up
/// gate (`config::gate`) lists; other keys refuse values they cannot honour where they are read.
pub const IMPLEMENTED: &[KeyInfo] = &[
    KeyInfo::new("authentication", Implemented, "Demo, REST, DBI"),
    KeyInfo::new("userDB", Implemented, "Same, Demo, REST, DBI"),
    KeyInfo::new(
        "passwordDB",
        Implemented,
        "Demo, REST, Null (no password change), DBI (with authentication = DBI)",
    ),
    KeyInfo::new(
        "registerDB",
        Implemented,
        "Demo, Null (Limette has no registration page)",
    ),
    KeyInfo::new(
        "globalStorage",
        Implemented,
        "Apache::Session::File, ::Browseable::File, SQLite (DBI:SQLite), ::Browseable::PgJSON (DBI:Pg), REST",
    ),
    KeyInfo::new(
        "globalStorageOptions",
        Implemented,
        "Directory, DataSource, UserName, Password, TableName (PgJSON), baseUrl, user, password",
    ),
    KeyInfo::new("persistentStorage", Implemented, "as globalStorage"),
    KeyInfo::new(
        "persistentStorageOptions",
        Implemented,
        "as globalStorageOptions",
    ),
    KeyInfo::new(
        "notificationStorage",
        Implemented,
        "File, DBI with a DBI:SQLite or DBI:Pg chain",
    ),
    KeyInfo::new(
        "notificationStorageOptions",
        Implemented,
        "dirName, dbiChain, dbiTable, dbiUser, dbiPassword",
    ),
    KeyInfo::new("cfgNum", Implemented, "configuration metadata"),
    KeyInfo::new("cfgAuthor", Implemented, "configuration metadata"),
    KeyInfo::new("cfgAuthorIP", Implemented, "configuration metadata"),
    KeyInfo::new("cfgDate", Implemented, "configuration metadata"),
    KeyInfo::new("cfgLog", Implemented, "configuration metadata"),
    KeyInfo::new("cfgVersion", Implemented, "configuration metadata"),
    KeyInfo::new(
        "portal",
        Implemented,
        "the portal URL: issuer, links, cookie",
    ),
    KeyInfo::new("domain", Implemented, "cookie domain"),
    KeyInfo::new("cookieName", Implemented, "SSO cookie name"),
    KeyInfo::new(
        "securedCookie",
        Implemented,
        "0 or 1; 2 and 3 (double cookie) refused",
    ),
    KeyInfo::new("timeout", Implemented, "SSO session lifetime"),
    KeyInfo::new("timeoutActivity", Implemented, "inactivity timeout"),
    KeyInfo::new("whatToTrace", Implemented, "attribute naming the user"),
    KeyInfo::new(
        "key",
        Implemented,
        "shared secret of the REST session protocol",
    ),
    KeyInfo::new(
        "hiddenAttributes",
        Implemented,
        "attributes hidden by the REST session server",
    ),
    KeyInfo::new("exportedAttr", Implemented, "attributes of /session/my"),
    KeyInfo::new(
        "exportedVars",
        Implemented,
        "attributes exported by the directory",
    ),
    KeyInfo::new(
        "demoExportedVars",
        Implemented,
        "attributes of the Demo directory",
    ),
    KeyInfo::new(
        "macros",
        Implemented,
        "evaluated at login with the rules language; see config check",
    ),
    KeyInfo::new(
        "groups",
        Implemented,
        "evaluated at login with the rules language; see config check",
    ),
    KeyInfo::new(
        "portalUserAttr",
        Implemented,
        "the account name a WebAuthn registration gives the authenticator when webauthnDisplayNameAttr is empty (the menu names the user by cn)",
    ),
    KeyInfo::new(
        "groupsBeforeMacros",
        Implemented,
        "groups computed before the macros, which may then read them",
    ),
    KeyInfo::new(
        "multiValuesSeparator",
        Implemented,
        "separator of multi-valued attributes",
    ),
    KeyInfo::new(
        "locationRules",
        Implemented,
        "access rules of the handler endpoint (/lmauth), /mysession and redirect targets",
    ),
    KeyInfo::new(
        "exportedHeaders",
        Implemented,
        "headers the handler endpoint sends the application",
    ),
    KeyInfo::new(
        "vhostOptions",
        Implemented,
        "vhostAuthnLevel, vhostHttps, vhostPort, vhostMaintenance, vhostAliases; vhostType Main only, vhostAccessToTrace refused",
    ),
    KeyInfo::new(
        "handlerInternalCache",
        Implemented,
        "seconds the handler endpoint answers a session from memory (300 at most)",
    ),
    KeyInfo::new("customToTrace", Implemented, "Lm-Remote-Custom of the handler endpoint"),
    KeyInfo::new("https", Implemented, "scheme of the handler's redirect URLs"),
    KeyInfo::new("port", Implemented, "port of the handler's redirect URLs"),
    KeyInfo::new("maintenance", Implemented, "the handler endpoint answers 503"),
    KeyInfo::new(
        "sameSite",
        Implemented,
        "Strict, Lax, None (with securedCookie = 1); empty means Lax",
    ),
    KeyInfo::new("httpOnly", Implemented, "HttpOnly on the SSO cookie"),
    KeyInfo::new("cspDefault", Implemented, "default-src of the pages' CSP"),
    KeyInfo::new("cspImg", Implemented, "img-src of the pages' CSP"),
    KeyInfo::new("cspStyle", Implemented, "style-src of the pages' CSP"),
    KeyInfo::new("cspFont", Implemented, "font-src of the pages' CSP"),
    KeyInfo::new("cspConnect", Implemented, "connect-src of the pages' CSP"),
    KeyInfo::new("cspScript", Implemented, "script-src of the pages' CSP"),
    KeyInfo::new(
        "cspFormAction",
        Implemented,
        "form-action of the pages' CSP, plus the origin the form leads to",
    ),
    KeyInfo::new(
        "cspFrameAncestors",
        Implemented,
        "frame-ancestors of the pages' CSP",
    ),
    KeyInfo::new(
        "portalAntiFrame",
        Implemented,
        "frame-ancestors 'none' and X-Frame-Options: DENY",
    ),
    KeyInfo::new(
        "strictTransportSecurityMax_Age",
        Implemented,
        "Strict-Transport-Security with an https portal URL",
    ),
    KeyInfo::new(
        "userControl",
        Implemented,
        "pattern a login name must match",
    ),
    KeyInfo::new(
        "oidcServiceIgnoreScopeForClaims",
        Implemented,
        "every mapped claim released",
    ),
    KeyInfo::new(
        "requireToken",
        Implemented,
        "single-use token on the HTML login form",
    ),
    KeyInfo::new(
        "loginHistoryEnabled",
        Implemented,
        "login history in the persistent session (_loginHistory)",
    ),
    KeyInfo::new(
        "applicationList",
        Implemented,
        "the menu's applications: categories, display auto (locationRules) / on / off / a rule; \
logos only as absolute URLs; sp: rules hide the application",
    ),
    KeyInfo::new(
        "portalDisplayOrder",
        Implemented,
        "the menu's tabs in order: Appslist, ChangePassword (with passwordDB = DBI), LoginHistory, \
OidcConsents, Logout",
    ),
    KeyInfo::new(
        "portalDisplayAppslist",
        Implemented,
        "rule: the menu's applications tab",
    ),
    KeyInfo::new(
        "portalDisplayLoginHistory",
        Implemented,
        "rule: the menu's login history tab (with loginHistoryEnabled)",
    ),
    KeyInfo::new(
        "portalDisplayOidcConsents",
        Implemented,
        "rule: the menu's tab of relying parties consented to, each revocable",
    ),
    KeyInfo::new(
        "portalDisplayLogout",
        Implemented,
        "rule: the menu's logout button",
    ),
    KeyInfo::new(
        "portalDisplayChangePassword",
        Implemented,
        "rule: the menu's password tab (with passwordDB = DBI)",
    ),
    KeyInfo::new(
        "portalRequireOldPassword",
        Implemented,
        "rule: the password change asks the old password (checked under the brute-force lock)",
    ),
    KeyInfo::new(
        "passwordPolicyActivation",
        Implemented,
        "rule: the password policy applies to the user",
    ),
    KeyInfo::new(
        "passwordPolicyMinSize",
        Implemented,
        "policy: minimal length (characters)",
    ),
    KeyInfo::new(
        "passwordPolicyMinLower",
        Implemented,
        "policy: minimal lower-case letters",
    ),
    KeyInfo::new(
        "passwordPolicyMinUpper",
        Implemented,
        "policy: minimal upper-case letters",
    ),
    KeyInfo::new(
        "passwordPolicyMinDigit",
        Implemented,
        "policy: minimal digits",
    ),
    KeyInfo::new(
        "passwordPolicyMinSpeChar",
        Implemented,
        "policy: minimal special characters",
    ),
    KeyInfo::new(
        "passwordPolicySpecialChar",
        Implemented,
        "policy: the special characters allowed (__ALL__: any)",
    ),
    KeyInfo::new(
        "successLoginNumber",
        Implemented,
        "successful logins kept in the history",
    ),
    KeyInfo::new(
        "failedLoginNumber",
        Implemented,
        "failed logins kept in the history; at least bruteForceProtectionMaxFailed",
    ),
    KeyInfo::new(
        "bruteForceProtection",
        Implemented,
        "login lock after failures, counted in the login history (requires loginHistoryEnabled)",
    ),
    KeyInfo::new(
        "bruteForceProtectionMaxFailed",
        Implemented,
        "failures before the lock",
    ),
    KeyInfo::new(
        "bruteForceProtectionTempo",
        Implemented,
        "lock duration, seconds",
    ),
    KeyInfo::new(
        "bruteForceProtectionMaxAge",
        Implemented,
        "window in which failures count, seconds",
    ),
    KeyInfo::new(
        "bruteForceProtectionIncrementalTempo",
        Implemented,
        "lock growing with the failures",
    ),
    KeyInfo::new(
        "bruteForceProtectionLockTimes",
        Implemented,
        "the incremental lock's steps, seconds",
    ),
    KeyInfo::new(
        "bruteForceProtectionMaxLockTime",
        Implemented,
        "longest incremental lock, seconds",
    ),
    KeyInfo::new(
        "formTimeout",
        Implemented,
        "age limit of the login form token",
    ),
    KeyInfo::new("restSessionServer", Implemented, "REST session server"),
    KeyInfo::new("restConfigServer", Implemented, "REST configuration server"),
    KeyInfo::new(
        "portalStatus",
        Implemented,
        "`/portalStatus` (its `storage` counts; no handler status daemon)",
    ),
    KeyInfo::new(
        "restExportSecretKeys",
        Implemented,
        "secret keys in REST session answers",
    ),
    KeyInfo::new(
        "restClockTolerance",
        Implemented,
        "age limit of a REST __secret",
    ),
    KeyInfo::new(
        "restAuthUrl",
        Implemented,
        "REST directory bridge: authentication",
    ),
    KeyInfo::new(
        "restUserDBUrl",
        Implemented,
        "REST directory bridge: user data",
    ),
    KeyInfo::new(
        "restTimeout",
        Implemented,
        "Limette's: seconds a REST directory call may take (10)",
    ),
    KeyInfo::new(
        "restAuthnLevel",
        Implemented,
        "authentication level of the REST module",
    ),
    KeyInfo::new(
        "dbiAuthChain",
        Implemented,
        "DBI user table: dbi:SQLite:dbname=PATH or dbi:Pg:... (other drivers refused)",
    ),
    KeyInfo::new("dbiAuthUser", Implemented, "DBI: PostgreSQL role"),
    KeyInfo::new("dbiAuthPassword", Implemented, "DBI: PostgreSQL password"),
    KeyInfo::new("dbiAuthTable", Implemented, "DBI: login and password table"),
    KeyInfo::new("dbiUserTable", Implemented, "DBI: attribute table"),
    KeyInfo::new("dbiAuthLoginCol", Implemented, "DBI: login column"),
    KeyInfo::new("dbiAuthPasswordCol", Implemented, "DBI: password column"),
    KeyInfo::new(
        "dbiAuthPasswordHash",
        Implemented,
        "DBI static hash: empty, MD5, SHA, SHA1, SHA224..SHA512 (hex), ENCRYPT",
    ),
    KeyInfo::new(
        "dbiDynamicHashEnabled",
        Implemented,
        "DBI: scheme read from the stored value",
    ),
    KeyInfo::new(
        "dbiDynamicHashValidSchemes",
        Implemented,
        "DBI: md5, sha, sha1, sha224, sha256, sha384, sha512",
    ),
    KeyInfo::new(
        "dbiDynamicHashValidSaltedSchemes",
        Implemented,
        "DBI: s + a digest, unixcrypt1, unixcrypt5, unixcrypt6, argon2id",
    ),
    KeyInfo::new(
        "dbiDynamicHashNewPasswordScheme",
        Implemented,
        "DBI: a valid scheme, or argon2id (Limette only)",
    ),
    KeyInfo::new(
        "dbiExportedVars",
        Implemented,
        "DBI: session attributes from columns",
    ),
    KeyInfo::new(
        "dbiMailCol",
        Implemented,
        "DBI: mail column (read by LemonLDAP::NG's code, not its manager)",
    ),
    KeyInfo::new("dbiAuthnLevel", Implemented, "DBI authentication level"),
    KeyInfo::new("userPivot", Implemented, "DBI: login column of the user table"),
    KeyInfo::new(
        "issuerDBOpenIDConnectActivation",
        Implemented,
        "the OpenID Connect provider",
    ),
    KeyInfo::new("issuerDBOpenIDConnectPath", Implemented, "^/oauth2/ only"),
    KeyInfo::new(
        "oidcRPMetaDataOptions",
        Implemented,
        "relying parties: options checked one by one",
    ),
    KeyInfo::new(
        "oidcRPMetaDataExportedVars",
        Implemented,
        "claims of each relying party",
    ),
    KeyInfo::new(
        "oidcRPMetaDataMacros",
        Implemented,
        "per relying party: name -> expression, read by its claims",
    ),
    KeyInfo::new(
        "oidcRPMetaDataScopeRules",
        Implemented,
        "per relying party: scope -> rule granting it",
    ),
    KeyInfo::new(
        "oidcRPMetaDataOptionsExtraClaims",
        Implemented,
        "per relying party: scope -> the claims it releases",
    ),
    KeyInfo::new(
        "issuerDBOpenIDConnectRule",
        Implemented,
        "who may use the provider (a refused user gets portal error 90)",
    ),
    KeyInfo::new(
        "oidcServiceMetaDataIssuer",
        Implemented,
        "the issuer (an http(s) URL); unset: the portal URL",
    ),
    KeyInfo::new(
        "oidcServiceAllowDynamicRegistration",
        Implemented,
        "dynamic registration at /oauth2/register (RFC 7591), open to anyone: off by default",
    ),
    KeyInfo::new(
        "oidcServiceDynamicRegistrationRate",
        Implemented,
        "Limette's: registrations a minute from one address (5)",
    ),
    KeyInfo::new(
        "oidcServiceDynamicRegistrationMaxClients",
        Implemented,
        "Limette's: most self-registered relying parties (100)",
    ),
    KeyInfo::new(
        "oidcServiceDynamicRegistrationMaxSize",
        Implemented,
        "Limette's: largest registration request, in bytes (8192)",
    ),
    KeyInfo::new(
        "oidcServiceDynamicRegistrationKeptVersions",
        Implemented,
        "Limette's: configuration versions made by registrations that are kept (10)",
    ),
    KeyInfo::new(
        "oidcServiceDynamicRegistrationExportedVars",
        Implemented,
        "claims given to a registered relying party",
    ),
    KeyInfo::new(
        "oidcServiceDynamicRegistrationExtraClaims",
        Implemented,
        "extra claims given to a registered relying party",
    ),
    KeyInfo::new(
        "oidcServiceAllowOnlyDeclaredScopes",
        Implemented,
        "scopes an RP does not declare are dropped",
    ),
    KeyInfo::new(
        "oidcServiceAuthorizationCodeExpiration",
        Implemented,
        "code lifetime",
    ),
    KeyInfo::new(
        "oidcServiceAccessTokenExpiration",
        Implemented,
        "access token lifetime",
    ),
    KeyInfo::new(
        "oidcServiceIDTokenExpiration",
        Implemented,
        "ID token lifetime",
    ),
    KeyInfo::new(
        "oidcServiceOfflineSessionExpiration",
        Implemented,
        "refresh token lifetime",
    ),
    KeyInfo::new(
        "oidcServiceAllowAuthorizationCodeFlow",
        Implemented,
        "the code flow (0: response_type=code is refused)",
    ),
    KeyInfo::new(
        "oidcServiceAllowImplicitFlow",
        Implemented,
        "the implicit flow (id_token, id_token token)",
    ),
    KeyInfo::new(
        "oidcServiceAllowHybridFlow",
        Implemented,
        "the hybrid flow (code id_token, code token, code id_token token)",
    ),
    KeyInfo::new(
        "oidcServicePrivateKeySig",
        Implemented,
        "RSA signing key (PEM, PKCS#1 or PKCS#8): RS256, RS384, RS512; generated when an RP needs it",
    ),
    KeyInfo::new(
        "oidcServicePublicKeySig",
        Implemented,
        "its public key (informative: the JWKS is derived from the private key)",
    ),
    KeyInfo::new("oidcServiceKeyIdSig", Implemented, "its kid"),
    KeyInfo::new(
        "oidcServiceEcPrivateKeySig",
        Implemented,
        "Limette: P-256 signing key (PEM, PKCS#8) for ES256; generated when an RP needs it",
    ),
    KeyInfo::new("oidcServiceEcPublicKeySig", Implemented, "Limette: its public key"),
    KeyInfo::new("oidcServiceEcKeyIdSig", Implemented, "Limette: its kid"),
    KeyInfo::new(
        "oidcServiceEdPrivateKeySig",
        Implemented,
        "Limette: Ed25519 signing key (PEM, PKCS#8) for EdDSA; generated when an RP needs it",
    ),
    KeyInfo::new("oidcServiceEdPublicKeySig", Implemented, "Limette: its public key"),
    KeyInfo::new("oidcServiceEdKeyIdSig", Implemented, "Limette: its kid"),
    KeyInfo::new(
        "oidcServiceRetiredKeysSig",
        Implemented,
        "Limette: public keys retired by config rotate-keys, published until their tokens expire",
    ),
    KeyInfo::new("notification", Implemented, "notifications at login"),
    KeyInfo::new(
        "notificationsExplorer",
        Implemented,
        "the explorer of accepted notifications",
    ),
    KeyInfo::new(
        "notificationsMaxRetrieve",
        Implemented,
        "explorer list length",
    ),
    KeyInfo::new(
        "notificationWildcard",
        Implemented,
        "the uid of notifications for all",
    ),
    KeyInfo::new(
        "notificationServer",
        Implemented,
        "the notification server (REST and SOAP)",
    ),
    KeyInfo::new("notificationServerPOST", Implemented, "insert"),
    KeyInfo::new("notificationServerGET", Implemented, "list and read"),
    KeyInfo::new("notificationServerDELETE", Implemented, "delete"),
    KeyInfo::new(
        "notificationServerSentAttributes",
        Implemented,
        "attributes sent by GET",
    ),
    KeyInfo::new(
        "notificationDefaultCond",
        Implemented,
        "default display condition",
    ),
    KeyInfo::new("oldNotifFormat", Implemented, "XML notifications"),
    KeyInfo::new(
        "showLanguages",
        Implemented,
        "the language switch on every page (?lang=, remembered in the llnglanguage cookie)",
    ),
    KeyInfo::new(
        "portalSkin",
        Implemented,
        "bootstrap is Limette's own look; another skin adds its <skin>/css/styles.css (no templates)",
    ),
    KeyInfo::new(
        "portalSkinRules",
        Implemented,
        "rules choosing the skin, on the session or the visitor's ipAddr and _url",
    ),
    KeyInfo::new(
        "portalMainLogo",
        Implemented,
        "a file under /static/ (the data folder's static/); the default is Limette's logo",
    ),
    KeyInfo::new(
        "portalFavicon",
        Implemented,
        "a file under /static/; the default is Limette's icon",
    ),
    KeyInfo::new(
        "portalSkinBackground",
        Implemented,
        "a picture of /static/common/backgrounds/, through /static/portal.css",
    ),
    KeyInfo::new(
        "portalCustomCss",
        Implemented,
        "one more stylesheet under /static/",
    ),
    KeyInfo::new(
        "portalTimezone",
        Implemented,
        "Limette's own: the IANA time zone of the pages' dates when the browser does not tell its own (default UTC)",
    ),
    KeyInfo::new("fileNameSeparator", Implemented, "notification file names"),
    KeyInfo::new(
        "sfRequired",
        Implemented,
        "a user without a second factor registers one before the session exists",
    ),
    KeyInfo::new(
        "sfOnlyUpgrade",
        Implemented,
        "the factor asked only when a service needs a higher level",
    ),
    KeyInfo::new(
        "sfManagerRule",
        Implemented,
        "who lists and removes devices in the console",
    ),
    KeyInfo::new("sfLoginTimeout", Implemented, "second-factor step"),
    KeyInfo::new("sfRegisterTimeout", Implemented, "registration"),
    KeyInfo::new("max2FDevices", Implemented, "devices a user may hold"),
    KeyInfo::new("max2FDevicesNameLength", Implemented, "device names"),
    KeyInfo::new("totp2fActivation", Implemented, "second factor: TOTP"),
    KeyInfo::new(
        "totp2fKey",
        Implemented,
        "later versions' key encrypting TOTP secrets; unset: key",
    ),
    KeyInfo::new("totp2fSelfRegistration", Implemented, "TOTP registration"),
    KeyInfo::new("totp2fAuthnLevel", Implemented, "level after TOTP"),
    KeyInfo::new("totp2fLabel", Implemented, "TOTP"),
    KeyInfo::new("totp2fLogo", Implemented, "TOTP"),
    KeyInfo::new("totp2fIssuer", Implemented, "TOTP"),
    KeyInfo::new("totp2fInterval", Implemented, "TOTP: 1 to 3600 seconds"),
    KeyInfo::new("totp2fRange", Implemented, "TOTP: 0 to 10 steps"),
    KeyInfo::new("totp2fDigits", Implemented, "TOTP: 6 to 10 digits"),
    KeyInfo::new("totp2fUserCanRemoveKey", Implemented, "TOTP"),
    KeyInfo::new(
        "totp2fEncryptSecret",
        Implemented,
        "TOTP secrets as LemonLDAP::NG encrypts them",
    ),
    KeyInfo::new("totp2fTTL", Implemented, "TOTP devices' lifetime"),
    KeyInfo::new(
        "sfRemovedMsgRule",
        Implemented,
        "told by a notification only (sfRemovedUseNotif = 1); else refused",
    ),
    KeyInfo::new("sfRemovedUseNotif", Implemented, "see sfRemovedMsgRule"),
    KeyInfo::new("sfRemovedNotifRef", Implemented, "see sfRemovedMsgRule"),
    KeyInfo::new("sfRemovedNotifTitle", Implemented, "see sfRemovedMsgRule"),
    KeyInfo::new("sfRemovedNotifMsg", Implemented, "see sfRemovedMsgRule"),
    KeyInfo::new(
        "oidcServiceMetaDataAuthnContext",
        Implemented,
        "the acr of ID tokens by authentication level",
    ),
    KeyInfo::new("webauthn2fActivation", Implemented, "second factor: WebAuthn"),
    KeyInfo::new("webauthn2fSelfRegistration", Implemented, "WebAuthn registration"),
    KeyInfo::new("webauthn2fAuthnLevel", Implemented, "level after WebAuthn"),
    KeyInfo::new("webauthn2fLabel", Implemented, "WebAuthn"),
    KeyInfo::new("webauthn2fLogo", Implemented, "WebAuthn"),
    KeyInfo::new(
        "webauthn2fUserVerification",
        Implemented,
        "WebAuthn: discouraged, preferred or required",
    ),
    KeyInfo::new("webauthn2fUserCanRemoveKey", Implemented, "WebAuthn"),
    KeyInfo::new("webauthnRpName", Implemented, "WebAuthn: the name browsers show"),
    KeyInfo::new(
        "webauthnDisplayNameAttr",
        Implemented,
        "WebAuthn: the account's display name",
    ),
];

/// Keys Limette does not implement and whose absence would widen access or change what users
/// get: any value but LemonLDAP::NG's default refuses start-up.
pub const REFUSED: &[KeyInfo] = &[
    KeyInfo::new(
        "grantSessionRules",
        Refused,
        "rules that refuse a session at login",
    ),
    KeyInfo::new("singleSession", Refused, "one session per user"),
    KeyInfo::new("singleIP", Refused, "one address per user"),
    KeyInfo::new("singleUserByIP", Refused, "one user per address"),
    KeyInfo::new(
        "captcha_login_enabled",
        Refused,
        "captcha on the login form",
    ),
    KeyInfo::new("checkHIBP", Refused, "password leak check"),
    KeyInfo::new("crowdsec", Refused, "address ban list"),
    KeyInfo::new("customPlugins", Refused, "portal plugins"),
    KeyInfo::new(
        "adaptativeAuthenticationLevelRules",
        Refused,
        "changes authentication levels",
    ),
    KeyInfo::new("portalForceAuthn", Refused, "forced re-authentication"),
    KeyInfo::new(
        "portalForceAuthnInterval",
        Refused,
        "forced re-authentication",
    ),
    KeyInfo::new("sfExtra", Refused, "extra second-factor modules"),
    KeyInfo::new("utotp2fActivation", Refused, "second factor: TOTP or U2F"),
    KeyInfo::new("u2fActivation", Refused, "second factor: U2F"),
    KeyInfo::new("yubikey2fActivation", Refused, "second factor: Yubikey"),
    KeyInfo::new("mail2fActivation", Refused, "second factor: mail"),
    KeyInfo::new("ext2fActivation", Refused, "second factor: external"),
    KeyInfo::new("rest2fActivation", Refused, "second factor: REST"),
    KeyInfo::new("radius2fActivation", Refused, "second factor: Radius"),
    KeyInfo::new("password2fActivation", Refused, "second factor: password"),
    KeyInfo::new("issuerDBSAMLActivation", Refused, "SAML identity provider"),
    KeyInfo::new("issuerDBCASActivation", Refused, "CAS server"),
    KeyInfo::new("issuerDBOpenIDActivation", Refused, "OpenID 2 provider"),
    KeyInfo::new("issuerDBGetActivation", Refused, "GET issuer"),
    KeyInfo::new(
        "issuerDBSAMLRule",
        Refused,
        "rule of the SAML identity provider",
    ),
    KeyInfo::new("issuerDBCASRule", Refused, "rule of the CAS server"),
    KeyInfo::new(
        "cda",
        Refused,
        "cross-domain authentication: the handler endpoint has no CDA exchange; protect applications under the SSO cookie's domain",
    ),
    KeyInfo::new("cookieExpiration", Refused, "persistent SSO cookie"),
    KeyInfo::new("impersonationRule", Refused, "impersonation"),
    KeyInfo::new("contextSwitchingRule", Refused, "context switching"),
    KeyInfo::new("stayConnected", Refused, "stay-connected devices"),
    KeyInfo::new(
        "disablePersistentStorage",
        Refused,
        "Limette always keeps persistent sessions (consents, devices, notifications done)",
    ),
];

/// LemonLDAP::NG 2.16's keys with their type and default, as its manager and
/// `Common/Conf/DefaultValues.pm` define them (dumped from those modules; one key a line). The
/// build makes a sorted table of it (`LLNG_KEY_TABLE`); the program holds no copy of the file.
#[cfg(test)]
const LLNG_KEYS: &str = include_str!("llng-2.16-keys.json");

include!(concat!(env!("OUT_DIR"), "/llng_keys.rs"));

/// One key of LemonLDAP::NG 2.16: its manager type and its default, if it has one.
#[derive(Debug, Clone)]
pub struct LlngKey {
    /// The key's name.
    pub name: &'static str,
    /// The manager's type name (`bool`, `int`, `text`, `PerlModule`, ...); `text` when the
    /// table gives none.
    pub kind: &'static str,
    /// The default value as JSON text, when LemonLDAP::NG defines one.
    default: Option<&'static str>,
}

impl LlngKey {
    /// The default value, when LemonLDAP::NG defines one.
    pub fn default(&self) -> Option<Value> {
        serde_json::from_str(self.default?).ok()
    }
}

/// Every key LemonLDAP::NG 2.16 knows, in the program's constants: looked up by a binary
/// search, nothing parsed or held in memory (a map of them was 160 KB for the life of the
/// process).
pub struct LlngKeys(&'static [(&'static str, &'static str, Option<&'static str>)]);

impl LlngKeys {
    /// The key named `key`, if LemonLDAP::NG 2.16 knows it.
    pub fn get(&self, key: &str) -> Option<LlngKey> {
        let i = self.0.binary_search_by(|(k, _, _)| (*k).cmp(key)).ok()?;
        let (name, kind, default) = self.0[i];
        Some(LlngKey {
            name,
            kind,
            default,
        })
    }

    /// The names of every key, sorted (for any lifetime: they are the program's constants).
    pub fn keys<'a>(&self) -> impl Iterator<Item = &'a str> {
        self.0.iter().map(|(k, _, _)| *k)
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Never: the table is LemonLDAP::NG's whole list.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Whether the value of `key` (a top-level key or the last segment of a nested one) is a
/// secret that no page, finding or listing may show: LemonLDAP::NG's `password` and
/// `RSAPrivateKey` types, and any key named as a password, a secret or a private key.
pub fn is_secret(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    llng_keys()
        .get(key)
        .is_some_and(|k| k.kind == "password" || k.kind.starts_with("RSAPrivate"))
        || lower.contains("password")
        || lower.contains("secret")
        || lower.contains("privatekey")
        || lower.ends_with("pwd")
        || key == "totp2fKey"
}

/// Every key LemonLDAP::NG 2.16 knows.
pub fn llng_keys() -> &'static LlngKeys {
    static KEYS: LlngKeys = LlngKeys(LLNG_KEY_TABLE);
    &KEYS
}

/// What Limette does with a main-configuration key: `None` for a key LemonLDAP::NG 2.16 does
/// not know either (a typo, or a newer version's key).
pub fn support(key: &str) -> Option<KeyInfo> {
    if let Some(k) = IMPLEMENTED.iter().chain(REFUSED).find(|k| k.key == key) {
        return Some(*k);
    }
    llng_keys()
        .get(key)
        .map(|k| KeyInfo::new(k.name, Ignored, "not read by Limette"))
}

/// True when `value` means the same as LemonLDAP::NG's default for `key` (an absent default
/// is "off": `0`, empty text, empty hash). Numbers and their decimal text compare equal.
pub fn is_default(key: &str, value: &Value) -> bool {
    let default = llng_keys().get(key).and_then(|k| k.default());
    same(value, default.as_ref())
}

fn same(value: &Value, default: Option<&Value>) -> bool {
    match (value, default) {
        (v, None) | (v, Some(Value::Null)) => is_off(v),
        (Value::Object(a), Some(Value::Object(b))) => a == b,
        (Value::Array(a), Some(Value::Array(b))) => a == b,
        (a, Some(b)) => scalar(a) == scalar(b) || (is_off(a) && is_off(b)),
    }
}

/// `null`, `0`, `""`, `{}`, `[]`: what an unset key means.
pub fn is_off(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => matches!(s.trim(), "" | "0"),
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
    }
}

fn scalar(v: &Value) -> String {
    super::value_string(v).trim().to_string()
}

/// The known key closest to `key` (for "did you mean"), when one is close enough.
pub fn closest<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = key.to_ascii_lowercase();
    known
        .map(|k| (distance(&lower, &k.to_ascii_lowercase()), k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance (short keys only: both under a few dozen characters).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Whether Limette reads and honours the main-configuration key `key`: a key of the table of
/// honoured keys (`IMPLEMENTED`) or of the defaults table (`config::defaults`), which every key
/// Limette adds has its default in. `config set` accepts exactly these when the stored
/// configuration lacks them.
pub fn is_honoured(key: &str) -> bool {
    IMPLEMENTED.iter().any(|k| k.key == key)
        || crate::config::defaults::defaults().contains_key(key)
}

/// The value an honoured key has when nothing sets it, for reading a new value with the right
/// type: LemonLDAP::NG's default when it has one, else the empty value of its manager type (`0`
/// for `bool` and `int`, `{}` for the containers, `""` for the rest). `None`: not honoured.
pub fn unset_value(key: &str) -> Option<Value> {
    if !is_honoured(key) {
        return None;
    }
    if let Some(v) = crate::config::defaults::defaults().get(key) {
        return Some(v.clone());
    }
    let Some(k) = llng_keys().get(key) else {
        return Some(Value::String(String::new()));
    };
    Some(match (k.default(), k.kind) {
        (Some(v), _) => v,
        (None, "bool" | "int" | "trool") => Value::from(0),
        (None, kind) if kind.ends_with("Container") => Value::Object(Default::default()),
        (None, _) => Value::String(String::new()),
    })
}

/// Whether the value of `key` is a rule or a flag (LemonLDAP::NG's `boolOrExpr`): text, even
/// when the value it replaces is the number `1`.
pub fn is_rule_or_flag(key: &str) -> bool {
    llng_keys().get(key).is_some_and(|k| k.kind == "boolOrExpr")
}

/// The main-configuration keys a `[portal]` section may override: every key LemonLDAP::NG
/// knows and every key of Limette's defaults.
pub fn is_known_key(key: &str) -> bool {
    support(key).is_some() || crate::config::defaults::defaults().contains_key(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_llng_list_parses_and_knows_the_tables() {
        let keys = llng_keys();
        assert!(keys.len() > 800, "{}", keys.len());
        // One key a line: every line was read, with its type.
        let lines = LLNG_KEYS.lines().filter(|l| l.starts_with('"')).count();
        assert_eq!(keys.len(), lines);
        assert_eq!(keys.get("SMTPPort").unwrap().kind, "int");
        assert_eq!(keys.get("AuthLDAPFilter").unwrap().default(), None);
        assert_eq!(keys.get("SSLAuthnLevel").unwrap().default(), Some(json!(5)));
        assert_eq!(keys.get("SSLVarIf").unwrap().default(), Some(json!({})));
        assert!(keys.get("noSuchKey").is_none());
        // The build's table is the file, key for key, type for type, default for default.
        let file: serde_json::Map<String, Value> = serde_json::from_str(LLNG_KEYS).unwrap();
        for (name, info) in &file {
            let k = keys.get(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(k.kind, info["type"].as_str().unwrap_or("text"), "{name}");
            assert_eq!(k.default(), info.get("default").cloned(), "{name}");
        }
        for k in IMPLEMENTED.iter().chain(REFUSED) {
            let limette_only = k.key == "fileNameSeparator"
                || k.key == "portalTimezone"
                || k.key == "dbiMailCol"
                || k.key.starts_with("oidcServiceEc")
                || k.key.starts_with("oidcServiceEd")
                || k.key == "oidcServiceRetiredKeysSig"
                || k.key == "totp2fKey"
                || crate::config::defaults::defaults().contains_key(k.key);
            assert!(keys.get(k.key).is_some() || limette_only, "{}", k.key);
        }
        assert_eq!(keys.get("timeout").unwrap().default(), Some(json!(72000)));
    }

    #[test]
    fn support_classifies() {
        assert_eq!(support("authentication").unwrap().support, Implemented);
        assert_eq!(support("singleSession").unwrap().support, Refused);
        let i = support("scrollTop").unwrap();
        assert_eq!((i.key, i.support), ("scrollTop", Ignored));
        assert!(support("portalSkn").is_none());
    }

    #[test]
    fn defaults_compare_by_meaning() {
        assert!(is_default("singleSession", &json!("0")));
        assert!(is_default("singleSession", &json!(0)));
        assert!(!is_default("singleSession", &json!(1)));
        assert!(is_default("timeout", &json!("72000")));
        assert!(is_default("bruteForceProtection", &json!(0)));
        assert!(!is_default("bruteForceProtection", &json!("1")));
        assert!(is_default("grantSessionRules", &json!({})));
        assert!(!is_default(
            "grantSessionRules",
            &json!({"r": "$uid eq 'x'"})
        ));
        assert!(is_default("portalSkin", &json!("bootstrap")));
    }

    #[test]
    fn closest_key() {
        let known = ["authentication", "userDB", "timeout"];
        assert_eq!(
            closest("authentification", known.into_iter()),
            Some("authentication")
        );
        assert_eq!(closest("timeOut", known.into_iter()), Some("timeout"));
        assert_eq!(closest("zzzzzz", known.into_iter()), None);
    }
}
