//! The text exposition format 0.0.4 of the counters of `metrics`: `# HELP` and `# TYPE` before
//! each family, cumulative histogram buckets ending with `+Inf`, label values escaped.
use super::*;

/// A gauge family measured at scrape time: name, help, and its samples (labels, value).
pub struct Gauge {
    /// The family's name.
    pub name: &'static str,
    /// Its `# HELP` text.
    pub help: &'static str,
    /// `(labels, value)`: labels as `(name, value)` pairs.
    pub samples: Vec<(Vec<(&'static str, String)>, f64)>,
}

/// The whole exposition: the counters, then the families measured for this scrape.
pub fn render(version: &str, extra: &[Gauge]) -> String {
    let mut out = String::with_capacity(16 * 1024);
    family(
        &mut out,
        "limette_build_info",
        "gauge",
        "The running version.",
    );
    let _ = writeln!(
        out,
        "limette_build_info{{version=\"{}\"}} 1",
        escape(version)
    );
    if let Some((_, wall)) = STARTED.get() {
        let t = wall.duration_since(UNIX_EPOCH).unwrap_or_default();
        family(
            &mut out,
            "process_start_time_seconds",
            "gauge",
            "When the node started, in seconds since the epoch.",
        );
        let _ = writeln!(out, "process_start_time_seconds {}", t.as_secs());
    }
    requests(&mut out);
    latencies(&mut out);
    refusals(&mut out);
    let gauges = [
        (
            "limette_queue_depth",
            "Requests waiting for a worker.",
            queue_depth(),
        ),
        (
            "limette_workers_busy",
            "Requests a worker is answering.",
            BUSY.load(Relaxed).max(0),
        ),
        (
            "limette_connections",
            "Open client connections.",
            CONNECTIONS.load(Relaxed).max(0),
        ),
    ];
    for (name, help, v) in gauges {
        family(&mut out, name, "gauge", help);
        let _ = writeln!(out, "{name} {v}");
    }
    family(
        &mut out,
        "limette_logins_total",
        "counter",
        "Logins checked, by result.",
    );
    let _ = writeln!(
        out,
        "limette_logins_total{{result=\"ok\"}} {}",
        LOGINS_OK.load(Relaxed)
    );
    let _ = writeln!(
        out,
        "limette_logins_total{{result=\"failed\"}} {}",
        LOGINS_FAILED.load(Relaxed)
    );
    family(
        &mut out,
        "limette_tokens_issued_total",
        "counter",
        "Tokens the OpenID Connect provider issued, by type.",
    );
    for ((_, name), c) in TOKENS.iter().zip(&TOKENS_ISSUED) {
        let _ = writeln!(
            out,
            "limette_tokens_issued_total{{type=\"{name}\"}} {}",
            c.load(Relaxed)
        );
    }
    family(
        &mut out,
        "limette_config_reloads_total",
        "counter",
        "Newer configurations put in force since the start.",
    );
    let _ = writeln!(
        out,
        "limette_config_reloads_total {}",
        RELOADS.load(Relaxed)
    );
    for g in extra {
        family(&mut out, g.name, "gauge", g.help);
        for (labels, v) in &g.samples {
            let _ = writeln!(out, "{}{} {}", g.name, label_set(labels), number(*v));
        }
    }
    out
}

fn requests(out: &mut String) {
    family(
        out,
        "limette_http_requests_total",
        "counter",
        "Requests answered, by area and status class.",
    );
    for ((_, area), row) in AREAS.iter().zip(&REQUESTS) {
        for (i, c) in row.iter().enumerate() {
            let n = c.load(Relaxed);
            if n > 0 {
                let _ = writeln!(
                    out,
                    "limette_http_requests_total{{area=\"{area}\",class=\"{}xx\"}} {n}",
                    i + 1
                );
            }
        }
    }
}

fn latencies(out: &mut String) {
    let name = "limette_http_request_duration_seconds";
    family(
        out,
        name,
        "histogram",
        "Time the workers took to answer, by area.",
    );
    for (a, (_, area)) in AREAS.iter().enumerate() {
        let (Some(row), Some(sum)) = (LATENCY.get(a), LATENCY_SUM_US.get(a)) else {
            continue;
        };
        let counts: Vec<u64> = row.iter().map(|c| c.load(Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            continue;
        }
        let mut cumulative = 0;
        for (i, n) in counts.iter().enumerate() {
            cumulative += n;
            let le = BUCKETS
                .get(i)
                .map_or_else(|| "+Inf".to_string(), |b| number(*b));
            let _ = writeln!(
                out,
                "{name}_bucket{{area=\"{area}\",le=\"{le}\"}} {cumulative}"
            );
        }
        let secs = sum.load(Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum{{area=\"{area}\"}} {}", number(secs));
        let _ = writeln!(out, "{name}_count{{area=\"{area}\"}} {cumulative}");
    }
}

fn refusals(out: &mut String) {
    family(
        out,
        "limette_refused_total",
        "counter",
        "Requests the reading stage refused at its caps and deadlines, by status.",
    );
    for (i, c) in REFUSED.iter().enumerate() {
        let status = REFUSALS
            .get(i)
            .map_or_else(|| "other".to_string(), u16::to_string);
        let _ = writeln!(
            out,
            "limette_refused_total{{status=\"{status}\"}} {}",
            c.load(Relaxed)
        );
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn label_set(labels: &[(&str, String)]) -> String {
    if labels.is_empty() {
        return String::new();
    }
    let inner: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect();
    format!("{{{}}}", inner.join(","))
}

/// A label value escaped as the text format wants: backslash, double quote and line feed.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A sample value: integers without a fraction, others as Rust prints them (which the
/// format's float syntax accepts).
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_show_in_the_exposition() {
        mark_start();
        request(Area::Status, 200, Duration::from_millis(3));
        request(Area::Status, 503, Duration::from_secs(20));
        refused(413);
        refused(999);
        login(false);
        token(Token::Refresh);
        let text = render(
            "1.2.3",
            &[Gauge {
                name: "limette_sessions",
                help: "SSO sessions.",
                samples: vec![(vec![("kind", "a\"b".into())], 4.0)],
            }],
        );
        assert!(text.contains("limette_build_info{version=\"1.2.3\"} 1"));
        assert!(text.contains("limette_http_requests_total{area=\"status\",class=\"2xx\"}"));
        assert!(text.contains(
            "limette_http_request_duration_seconds_bucket{area=\"status\",le=\"0.005\"}"
        ));
        assert!(text
            .contains("limette_http_request_duration_seconds_bucket{area=\"status\",le=\"+Inf\"}"));
        assert!(text.contains("limette_refused_total{status=\"413\"}"));
        assert!(text.contains("limette_refused_total{status=\"other\"}"));
        assert!(text.contains("limette_sessions{kind=\"a\\\"b\"} 4"));
        assert!(text.ends_with('\n'));
        for line in text.lines() {
            assert!(!line.is_empty(), "no blank line");
        }
    }

    #[test]
    fn buckets_are_cumulative_and_end_with_the_count() {
        let before = summary().requests;
        request(Area::Manager, 200, Duration::from_micros(10));
        request(Area::Manager, 302, Duration::from_millis(200));
        assert!(summary().requests >= before + 2);
        let text = render("x", &[]);
        let get = |le: &str| -> u64 {
            let key = format!(
                "limette_http_request_duration_seconds_bucket{{area=\"manager\",le=\"{le}\"}} "
            );
            let line = text.lines().find(|l| l.starts_with(&key)).unwrap();
            line[key.len()..].parse().unwrap()
        };
        assert!(get("0.001") >= 1);
        assert!(get("0.25") > get("0.001"));
        assert_eq!(get("+Inf"), get("10"));
    }

    #[test]
    fn numbers_and_escapes() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    }
}
