//! The arguments of `limette config`, read the way `lemonldap-ng-cli` reads them: its options
//! first (`-yes 1`, `-log TEXT`, `-cfgNum N`, `-sep CHAR`, `-safe 1`, `-force 0`,
//! `-iniFile FILE`; one or two dashes, each with a value), then the verb and its arguments.
//! Limette's own spellings still work after the verb: `--log TEXT`, `--` before a value that
//! starts with a dash, and `--help` (or `-h`) for the verb's usage. An option whose meaning
//! Limette cannot honour (`-force 1`, `-safe 0`, `-format`, `--user`, `--group`) is refused
//! here with one line, never ignored. The table `VERBS` holds every verb's usage: a new verb
//! is one row there and one arm in `parse_verb`.
use std::path::PathBuf;

/// One verb of `limette config`: its name, its argument shape, what it does.
#[derive(Debug, PartialEq, Eq)]
pub struct Verb {
    /// The verb as typed.
    pub name: &'static str,
    /// Its arguments, as in the usage line.
    pub args: &'static str,
    /// One sentence.
    pub about: &'static str,
}

/// Every verb, in the order of the general help.
pub const VERBS: &[Verb] = &[
    Verb { name: "info", args: "", about: "number, author, IP, date, version and log of the configuration (latest, or -cfgNum N)" },
    Verb { name: "get", args: "KEY [KEY...]", about: "print keys (defaults merged); KEY/SUBKEY reads inside a hash; an unknown key is reported on stderr and the exit code is 1" },
    Verb { name: "set", args: "KEY VALUE [KEY VALUE...]", about: "save the latest configuration with these values as a new number (asks for confirmation unless -yes 1)" },
    Verb { name: "addKey", args: "KEY SUBKEY VALUE [KEY SUBKEY VALUE...]", about: "add or set SUBKEY inside the hash KEY (KEY/host/... for deeper hashes) and save a new number" },
    Verb { name: "delKey", args: "KEY SUBKEY [KEY SUBKEY...]", about: "delete SUBKEY from the hash KEY and save a new number" },
    Verb { name: "save", args: "", about: "the stored configuration (latest, or -cfgNum N) as JSON on stdout, keys sorted" },
    Verb { name: "restore", args: "FILE|-", about: "save the JSON configuration of FILE (- for stdin) as a new number" },
    Verb { name: "list", args: "", about: "one line per number: N<TAB>date<TAB>author<TAB>log" },
    Verb { name: "export", args: "[N]", about: "the stored configuration (latest, or number N) as JSON on stdout" },
    Verb { name: "import", args: "FILE|-", about: "save the JSON configuration of FILE (- for stdin) as a new number; prints the number on stdout" },
    Verb { name: "rotate-keys", args: "", about: "new OpenID Connect signing keys (as LemonLDAP::NG's rotateOidcKeys, RSA always); the previous public keys stay in the JWKS until their tokens have expired; saves a new number" },
    Verb { name: "check", args: "[--json]", about: "what Limette does with the effective configuration: errors, disabled relying parties, ignored keys, warnings (exit 0 clean, 1 warnings, 2 errors)" },
];

/// The options of `lemonldap-ng-cli` that Limette honours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flags {
    /// `-yes 1`: no confirmation prompt.
    pub yes: bool,
    /// `-log TEXT` (or `--log TEXT`): the `cfgLog` of a save.
    pub log: Option<String>,
    /// `-cfgNum N`: the configuration read by `info`, `get`, `save`, `export`.
    pub cfg_num: Option<u64>,
    /// `-sep CHAR`: the separator of `KEY/SUBKEY` paths.
    pub sep: String,
    /// `-iniFile FILE`: another local file, as `-c FILE`.
    pub ini_file: Option<PathBuf>,
}

impl Default for Flags {
    fn default() -> Flags {
        Flags {
            yes: false,
            log: None,
            cfg_num: None,
            sep: "/".into(),
            ini_file: None,
        }
    }
}

/// One parsed command.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `check [--json]`
    Check(bool),
    /// `info`
    Info,
    /// `list`
    List,
    /// `get KEY...`
    Get(Vec<String>),
    /// `set KEY VALUE...`
    Set(Vec<(String, String)>),
    /// `addKey KEY SUBKEY VALUE...`
    AddKey(Vec<(String, String, String)>),
    /// `delKey KEY SUBKEY...`
    DelKey(Vec<(String, String)>),
    /// `save`
    Save,
    /// `restore FILE`
    Restore(String),
    /// `export [N]`
    Export(Option<u64>),
    /// `import FILE`
    Import(String),
    /// `rotate-keys`
    RotateKeys,
    /// `--help` of one verb, or of them all.
    Help(Option<&'static Verb>),
}

/// Reads the arguments that follow `config`.
pub fn parse(args: &[String]) -> Result<(Flags, Command), String> {
    let mut flags = Flags::default();
    let Some(i) = leading_options(args, &mut flags)? else {
        return Ok((flags, Command::Help(None)));
    };
    let Some(verb) = args.get(i) else {
        return Err(format!("nothing to do: expected one of {}", verb_names()));
    };
    // args.get(i) is Some, so i + 1 <= len.
    let (positional, log, help) = after_verb(&args[i + 1..])?;
    if log.is_some() {
        flags.log = log;
    }
    let spec = VERBS
        .iter()
        .find(|v| v.name == verb)
        .ok_or_else(|| format!("unknown command {verb}: expected one of {}", verb_names()))?;
    if help {
        return Ok((flags, Command::Help(Some(spec))));
    }
    let cmd = parse_verb(spec, positional).map_err(|e| format!("{e}; usage: {}", usage(spec)))?;
    Ok((flags, cmd))
}

/// `config VERB ARGS`, as in the usage line.
pub fn usage(v: &Verb) -> String {
    let mut s = format!("limette config [OPTIONS] {}", v.name);
    if !v.args.is_empty() {
        s.push(' ');
        s.push_str(v.args);
    }
    s
}

/// The help of one verb, or of all, with the options.
pub fn help(verb: Option<&Verb>) -> String {
    let mut out = String::new();
    match verb {
        Some(v) => out.push_str(&format!("Usage: {}\n  {}\n", usage(v), v.about)),
        None => {
            out.push_str(
                "Usage: limette [-c FILE] [--data DIR] config [OPTIONS] VERB [ARGS...]\n\nVerbs:\n",
            );
            for v in VERBS {
                out.push_str(&format!(
                    "  {:<48} {}\n",
                    format!("{} {}", v.name, v.args),
                    v.about
                ));
            }
            out.push_str("\n'limette config VERB --help' prints the usage of one verb.\n");
        }
    }
    out.push_str(OPTIONS_HELP);
    out
}

const OPTIONS_HELP: &str = "
Options (before the verb, as lemonldap-ng-cli; one or two dashes):
  -yes 0|1        1: save without the confirmation prompt of set
  -log TEXT       the cfgLog of the saved configuration (also --log TEXT after the verb)
  -cfgNum N       read configuration N (info, get, save, export); set, addKey and delKey
                  accept only the latest number
  -sep CHAR       separator of KEY/SUBKEY paths (default /)
  -safe 1         refuse a configuration the checks reject (always so: -safe 0 is refused)
  -force 0        never overwrite a number (-force 1 is refused)
  -iniFile FILE   the local file, as -c FILE
";

fn verb_names() -> String {
    VERBS.iter().map(|v| v.name).collect::<Vec<_>>().join(", ")
}

/// Reads the options before the verb into `flags`; returns where the verb is, or `None` for
/// `--help`.
fn leading_options(args: &[String], flags: &mut Flags) -> Result<Option<usize>, String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return Ok(Some(i + 1));
        }
        let Some(name) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            break;
        };
        if name == "h" || name == "help" {
            return Ok(None);
        }
        let (name, value) = match name.split_once('=') {
            Some((n, v)) => (n, v.to_string()),
            None => {
                i += 1;
                let v = args
                    .get(i)
                    .ok_or_else(|| format!("option -{name} needs a value"))?;
                (name, v.clone())
            }
        };
        option(flags, name, value)?;
        i += 1;
    }
    Ok(Some(i))
}

/// Applies one leading option; the options Limette cannot honour are refused.
fn option(flags: &mut Flags, name: &str, value: String) -> Result<(), String> {
    let flag = |v: &str| match v {
        "1" => Ok(true),
        "0" | "" => Ok(false),
        _ => Err(format!("option -{name} expects 0 or 1, got {v:?}")),
    };
    match name {
        "yes" => flags.yes = flag(&value)?,
        "log" => flags.log = Some(value),
        "cfgNum" => {
            let n = value.parse().map_err(|_| {
                format!("option -cfgNum expects a configuration number, got {value:?}")
            })?;
            flags.cfg_num = Some(n);
        }
        "sep" if value.is_empty() => return Err("option -sep expects a separator".into()),
        "sep" => flags.sep = value,
        "iniFile" => flags.ini_file = Some(PathBuf::from(value)),
        "safe" if !flag(&value)? => {
            return Err(
                "-safe 0 is not supported: Limette never saves a configuration its checks reject"
                    .into(),
            )
        }
        "force" if flag(&value)? => {
            return Err(
                "-force 1 is not supported: Limette never overwrites a saved configuration number"
                    .into(),
            )
        }
        "safe" | "force" => {}
        "format" => {
            return Err("-format is not supported: the confirmation table has one layout".into())
        }
        "user" | "group" | "u" | "g" => {
            return Err(format!(
                "--{name} is not supported: Limette runs as the user who starts it (use sudo -u)"
            ))
        }
        other => return Err(format!("unknown option -{other}")),
    }
    Ok(())
}

/// Splits what follows the verb: positional arguments, `--log TEXT`, `--help`; after a `--`
/// everything is positional.
fn after_verb(args: &[String]) -> Result<(Vec<String>, Option<String>, bool), String> {
    let (mut positional, mut log, mut help) = (Vec::new(), None, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => {
                positional.extend(it.cloned());
                break;
            }
            "--help" | "-h" => help = true,
            "--log" => log = Some(it.next().ok_or("option --log needs a value")?.clone()),
            s if s.starts_with("--log=") => log = Some(s["--log=".len()..].to_string()),
            _ => positional.push(a.clone()),
        }
    }
    Ok((positional, log, help))
}

/// The command of one verb from its positional arguments.
fn parse_verb(spec: &'static Verb, a: Vec<String>) -> Result<Command, String> {
    // A verb without free values takes no option but its own: a dashed word is an option
    // misspelt or misplaced, and says so (`set` and the others take values that may start
    // with a dash).
    let fixed = matches!(
        spec.name,
        "check" | "info" | "list" | "save" | "rotate-keys" | "export"
    );
    let own = |w: &str| spec.name == "check" && w == "--json";
    if let Some(bad) = a
        .iter()
        .find(|w| fixed && w.len() > 1 && w.starts_with('-') && !own(w))
    {
        return Err(format!("unknown option {bad} for {}", spec.name));
    }
    let n = a.len();
    let cmd = match (spec.name, n) {
        ("check", 0) => Command::Check(false),
        ("check", 1) if a[0] == "--json" => Command::Check(true),
        ("info", 0) => Command::Info,
        ("list", 0) => Command::List,
        ("save", 0) => Command::Save,
        ("rotate-keys", 0) => Command::RotateKeys,
        ("get", 0) => return Err("get requires at least one key".into()),
        ("get", _) => Command::Get(a),
        ("set", n) if n > 0 && n % 2 == 0 => Command::Set(pairs(a)),
        ("set", _) => return Err("set expects KEY VALUE pairs".into()),
        ("addKey", n) if n > 0 && n % 3 == 0 => Command::AddKey(triplets(a)),
        ("addKey", _) => return Err("addKey expects KEY SUBKEY VALUE triplets".into()),
        ("delKey", n) if n > 0 && n % 2 == 0 => Command::DelKey(pairs(a)),
        ("delKey", _) => return Err("delKey expects KEY SUBKEY pairs".into()),
        ("restore", 1) => Command::Restore(a.concat()),
        ("restore", _) => return Err("restore expects one FILE (- for stdin)".into()),
        ("import", 1) => Command::Import(a.concat()),
        ("export", 0) => Command::Export(None),
        ("export", 1) => {
            let text = a.concat();
            let num = text
                .parse()
                .map_err(|_| format!("not a configuration number: {text}"))?;
            Command::Export(Some(num))
        }
        (name, 0) => return Err(format!("{name} needs an argument")),
        (name, _) => {
            let extra = a.last().map(String::as_str).unwrap_or_default();
            return Err(format!("unexpected argument {extra} for {name}"));
        }
    };
    Ok(cmd)
}

fn pairs(a: Vec<String>) -> Vec<(String, String)> {
    let mut it = a.into_iter();
    let mut out = Vec::new();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        out.push((k, v));
    }
    out
}

fn triplets(a: Vec<String>) -> Vec<(String, String, String)> {
    let mut it = a.into_iter();
    let mut out = Vec::new();
    while let (Some(k), Some(s), Some(v)) = (it.next(), it.next(), it.next()) {
        out.push((k, s, v));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn cmd(s: &str) -> Command {
        parse(&args(s)).unwrap().1
    }

    fn err(s: &str) -> String {
        parse(&args(s)).unwrap_err()
    }

    #[test]
    fn verbs_take_their_shapes() {
        assert_eq!(cmd("info"), Command::Info);
        assert_eq!(cmd("get a b"), Command::Get(args("a b")));
        assert_eq!(
            cmd("set a 1 b 2"),
            Command::Set(vec![("a".into(), "1".into()), ("b".into(), "2".into())])
        );
        assert_eq!(
            cmd("addKey macros x 1"),
            Command::AddKey(vec![("macros".into(), "x".into(), "1".into())])
        );
        assert_eq!(
            cmd("delKey macros x"),
            Command::DelKey(vec![("macros".into(), "x".into())])
        );
        assert_eq!(cmd("restore -"), Command::Restore("-".into()));
        assert_eq!(cmd("export 3"), Command::Export(Some(3)));
        assert_eq!(cmd("set -- timeout -1"), cmd("set timeout -1"));
        for bad in [
            "set a",
            "addKey a b",
            "delKey a",
            "export x",
            "get",
            "restore",
            "frobnicate",
            "",
        ] {
            assert!(parse(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn options_come_first_with_one_or_two_dashes() {
        let (f, c) = parse(&args(
            "-yes 1 --log why -cfgNum 3 -sep , -safe 1 -force 0 get a,b",
        ))
        .unwrap();
        assert_eq!(c, Command::Get(args("a,b")));
        assert_eq!(
            (f.yes, f.log.as_deref(), f.cfg_num, f.sep.as_str()),
            (true, Some("why"), Some(3), ",")
        );
        let (f, _) = parse(&args("import x --log=late")).unwrap();
        assert_eq!(f.log.as_deref(), Some("late"));
        assert_eq!(cmd("set --help"), Command::Help(Some(&VERBS[2])));
        assert_eq!(cmd("--help"), Command::Help(None));
    }

    #[test]
    fn options_limette_cannot_honour_are_refused() {
        assert!(err("-force 1 set a b").contains("-force 1 is not supported"));
        assert!(err("-safe 0 set a b").contains("-safe 0 is not supported"));
        assert!(err("-yes 2 info").contains("expects 0 or 1"));
        assert!(err("-format x info").contains("-format is not supported"));
        assert!(err("--user=root info").contains("--user is not supported"));
        assert!(err("-frob 1 info").contains("unknown option -frob"));
        assert!(err("-cfgNum x info").contains("-cfgNum expects"));
        assert!(err("-log").contains("needs a value"));
    }

    #[test]
    fn a_misplaced_option_is_named() {
        assert!(err("check --bogus").starts_with("unknown option --bogus for check"));
        assert!(err("info -x").starts_with("unknown option -x for info"));
        assert!(err("list extra").starts_with("unexpected argument extra for list"));
        assert!(err("import").starts_with("import needs an argument"));
        assert_eq!(cmd("check --json"), Command::Check(true));
    }
}
