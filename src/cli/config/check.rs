//! `limette config check`: reads the effective configuration (the latest numbered one with the
//! INI's `[portal]` overrides) and lists what Limette will do with it, one finding a line:
//! errors (what refuses to start), relying parties disabled and why, keys Limette ignores whose
//! value differs from LemonLDAP::NG's default, unknown keys, and security warnings. Exit 0 when
//! clean, 1 with warnings, 2 with errors; `--json` for scripts. The findings are
//! `crate::findings`, which start-up and the console use too.
use crate::config::local::LocalConf;
use crate::config::Conf;
use crate::findings::finding;
pub use crate::findings::{findings, Finding, Level};
use serde_json::{json, Value};
use std::io::Write;

/// Start-up findings (`App::open`): errors refuse the start (one line each); warnings go to the log (a
/// disabled relying party was logged when the configuration was parsed).
pub fn at_start(local: &LocalConf, conf: &Conf) -> Result<(), Vec<String>> {
    let findings = findings(local, conf);
    let errors: Vec<String> = findings
        .iter()
        .filter(|f| f.level == Level::Error)
        .map(|f| f.message.clone())
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    // Macros and groups outside the rules language were logged when the configuration was
    // compiled; a missing key is said by `warn_if_keyless`.
    let logged = |f: &Finding| {
        f.key.starts_with("macros/") || f.key.starts_with("groups/") || f.key == "key"
    };
    for f in &findings {
        if f.level == Level::Warning && !logged(f) {
            crate::log::warn(&f.message);
        }
    }
    Ok(())
}

/// The exit code of `config check`: 2 with errors, 1 with other findings, 0 clean.
pub fn exit_code(findings: &[Finding]) -> i32 {
    match findings.iter().map(|f| f.level).min() {
        Some(Level::Error) => 2,
        Some(_) => 1,
        None => 0,
    }
}

/// The findings as a JSON document for scripts.
pub fn to_json(findings: &[Finding]) -> Value {
    let items: Vec<Value> = findings
        .iter()
        .map(|f| json!({"level": f.level.word(), "key": f.key, "message": f.message}))
        .collect();
    json!({"result": exit_code(findings), "findings": items})
}

/// `limette config check [--json]`: the findings on the latest configuration of the store the
/// INI names, with its overrides. Returns the exit code.
pub fn run(local: &LocalConf, args: &[String]) -> i32 {
    let json_out = match args {
        [] => false,
        [flag] if flag == "--json" => true,
        [flag] if flag == "--help" || flag == "-h" => {
            crate::cli::out::line(HELP);
            return 0;
        }
        _ => {
            crate::cli::out::err(&format!("limette config check: {HELP}"));
            return 2;
        }
    };
    let list = match load(local) {
        Ok(list) => list,
        Err(e) => vec![finding(Level::Error, "configuration", e)],
    };
    // A closed pipe (`| head`) ends the listing, not the process.
    let mut stdout = std::io::stdout().lock();
    if json_out {
        let _ = writeln!(stdout, "{}", to_json(&list));
    } else {
        for f in &list {
            if writeln!(stdout, "{f}").is_err() {
                break;
            }
        }
    }
    exit_code(&list)
}

const HELP: &str = "usage: limette config check [--json]
Checks the effective configuration (latest numbered one plus the INI's [portal] overrides):
errors (Limette refuses to start), disabled relying parties, ignored keys whose value differs
from LemonLDAP::NG's default, unknown keys, security warnings. Exit 0 clean, 1 warnings, 2 errors.";

fn load(local: &LocalConf) -> Result<Vec<Finding>, String> {
    let store = crate::storage::open::open_conf(local).map_err(|e| e.to_string())?;
    let num = store
        .latest()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no configuration found in {}", store.describe()))?;
    let stored = store.load(num).map_err(|e| e.to_string())?;
    let (built, logged) = crate::log::collect(|| {
        Conf::build(stored, &local.overrides, "", crate::router::area_settings)
    });
    let conf = built.map_err(|e| format!("lmConf-{num}: {e}"))?;
    let mut local = local.clone();
    local.adopt_conf_storage(&conf.stored);
    let list = findings(&local, &conf);
    // Parsing logged each disabled relying party, which the listing says too: once is enough.
    let listed: Vec<String> = conf
        .area::<crate::oidc::Settings>()
        .disabled
        .iter()
        .map(|d| crate::log::redact(&format!("relying party {} disabled: {}", d.name, d.reason)))
        .collect();
    let rest: Vec<crate::log::Line> = logged
        .into_iter()
        .filter(|l| !listed.contains(&l.text))
        .collect();
    crate::log::replay(&rest);
    Ok(list)
}
