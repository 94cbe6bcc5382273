//! One key of the editor, drawn: its label, its typed input holding the draft, its one-line
//! help, its key name and LemonLDAP::NG default, and the error of the last save beside it. A
//! check box sits before its label; a key/value table has a row more than it holds, for a new
//! one; a secret's input is always empty (leaving it so keeps the stored value). Templates
//! only.
use super::typed::{self, Draft};
use super::Ctx;
use crate::config::catalogue::{Entry, Input};
use crate::config::support::{is_secret, llng_keys};
use crate::config::{truthy, value_string};
use maud::{html, Markup};
use serde_json::{Map, Value};

/// The id of a key's input (the first one of a table), the target of the errors' links.
pub fn id(key: &str) -> String {
    format!("f-{key}")
}

/// A key's block.
pub fn field(
    ctx: &Ctx,
    e: &Entry,
    doc: &Map<String, Value>,
    draft: Option<&Draft>,
    error: Option<&str>,
) -> Markup {
    let page = ctx.page();
    let text = e.text(page.lang);
    let fid = id(e.key);
    let mut described = format!("h-{} d-{}", e.key, e.key);
    if error.is_some() {
        described = format!("e-{} {described}", e.key);
    }
    let empty = Draft::One(String::new());
    let draft = draft.unwrap_or(&empty);
    let a = Attrs {
        id: &fid,
        name: typed::field(e.key),
        described: &described,
        invalid: error.is_some(),
    };
    html! {
        div.ed-field.ed-wide[wide(e.input)] id={ "fld-" (e.key) } {
            @if e.input == Input::Bool {
                p.check {
                    input type="checkbox" id=(fid) name=(a.name) value="1" checked[*draft == Draft::One("1".into())]
                        aria-describedby=(described) aria-invalid=[a.invalid.then_some("true")];
                    " " label for=(fid) { (text.label) }
                }
            } @else {
                label for=(fid) { (text.label) } "\n"
                (input(ctx, e, &a, draft, doc))
            }
            @if let Some(msg) = error {
                p.ed-error id={ "e-" (e.key) } { (msg) }
            }
            p.ed-help id={ "h-" (e.key) } { (text.help) }
            p.ed-default id={ "d-" (e.key) } {
                code { (e.key) }
                @if let Some(d) = default_text(ctx, e) { " · " (page.say("edDefault")) " " (d) }
            }
        } "\n"
    }
}

/// What every input of a key carries.
struct Attrs<'a> {
    id: &'a str,
    name: String,
    described: &'a str,
    invalid: bool,
}

/// Inputs that take the width of both columns.
fn wide(input: Input) -> bool {
    matches!(input, Input::Map | Input::Pem | Input::Json | Input::Lines)
}

/// The input of a key (a check box is drawn with its label).
fn input(ctx: &Ctx, e: &Entry, a: &Attrs, draft: &Draft, doc: &Map<String, Value>) -> Markup {
    let text = match draft {
        Draft::Rows(rows) => return table(ctx, e, a, rows),
        Draft::One(t) => t.as_str(),
    };
    let invalid = a.invalid.then_some("true");
    let hidden = typed::secret(e) && !matches!(e.input, Input::Pem | Input::Lines);
    match e.input {
        _ if hidden => html! {
            input type="password" id=(a.id) name=(a.name) value="" autocomplete="new-password"
                aria-describedby={ "k-" (e.key) " " (a.described) } aria-invalid=[invalid];
            (secret_note(ctx, e, doc))
        },
        Input::Int { min, max } => html! {
            input type="number" id=(a.id) name=(a.name) value=(text) min=(min) max=(max) step="1"
                aria-describedby=(a.described) aria-invalid=[invalid];
        },
        Input::Select(choices) => html! {
            select id=(a.id) name=(a.name) aria-describedby=(a.described) aria-invalid=[invalid] {
                @if !choices.contains(&text) { option value=(text) selected { (shown(ctx, text)) } }
                @for c in choices { option value=(c) selected[*c == text] { (shown(ctx, c)) } }
            }
        },
        Input::Pem | Input::Lines | Input::Json => html! {
            textarea id=(a.id) name=(a.name) rows=(if e.input == Input::Lines { 4 } else { 8 })
                spellcheck="false" aria-invalid=[invalid]
                aria-describedby=(if typed::secret(e) { format!("k-{} {}", e.key, a.described) } else { a.described.to_string() }) { (text) }
            @if typed::secret(e) { (secret_note(ctx, e, doc)) }
        },
        _ => html! {
            input type="text" id=(a.id) name=(a.name) value=(text)
                inputmode=[(e.input == Input::Url).then_some("url")]
                spellcheck=[(e.input != Input::Text).then_some("false")]
                aria-describedby=(a.described) aria-invalid=[invalid];
        },
    }
}

/// Whether a secret is stored (its value never shown), and that an empty field keeps it.
fn secret_note(ctx: &Ctx, e: &Entry, doc: &Map<String, Value>) -> Markup {
    let word = if doc.contains_key(e.key) {
        "edSecretSet"
    } else {
        "edSecretUnset"
    };
    html! { p.ed-help id={ "k-" (e.key) } { (ctx.page().say(word)) } }
}

/// A choice as the list shows it: the empty one as "(not set)".
fn shown(ctx: &Ctx, choice: &str) -> String {
    match choice {
        "" => ctx.page().raw("edUnset"),
        c => c.to_string(),
    }
}

/// A key/value table: its rows and an empty one to add.
fn table(ctx: &Ctx, e: &Entry, a: &Attrs, rows: &[(String, String)]) -> Markup {
    let page = ctx.page();
    let label = e.text(page.lang).label;
    let (name_word, value_word) = (page.raw("edName"), page.raw("edValue"));
    let blank = (String::new(), String::new());
    let all: Vec<&(String, String)> = rows.iter().chain(std::iter::once(&blank)).collect();
    html! {
        table.ed-map aria-describedby=(a.described) {
            thead { tr { th scope="col" { (name_word) } th scope="col" { (value_word) } } }
            tbody { @for (i, (n, v)) in all.iter().enumerate() {
                tr {
                    td { input id=[(i == 0).then_some(a.id)] name={ (a.name) ".n." (i) } value=(n)
                        aria-label={ (label) " — " (name_word) " " (i + 1) } spellcheck="false"; }
                    td { input name={ (a.name) ".v." (i) } value=(v)
                        aria-label={ (label) " — " (value_word) " " (i + 1) } spellcheck="false"; }
                } "\n"
            } }
        } "\n"
    }
}

/// LemonLDAP::NG's default, as the page shows it (`None` when it has none or it is a secret).
fn default_text(ctx: &Ctx, e: &Entry) -> Option<String> {
    if is_secret(e.key) {
        return None;
    }
    let d = llng_keys().get(e.key)?.default()?;
    let page = ctx.page();
    Some(match (e.input, &d) {
        (Input::Bool, d) => page.raw(if truthy(Some(d)) { "edOn" } else { "edOff" }),
        (_, Value::String(s)) if s.is_empty() => page.raw("edEmpty"),
        (_, Value::Object(_) | Value::Array(_)) => d.to_string(),
        (_, d) => value_string(d),
    })
}
