//! The PostgreSQL backends on a throw-away cluster: the session store joins the storage
//! contract suite (`storage::contract`); the configuration and notification stores, the pool's
//! reconnection and the refusals are checked here.
use super::cluster::{Cluster, DB, USER};
use super::*;
use crate::storage::{ConfStore, Kind, SessionStore};
use serde_json::json;

/// The data source of a cluster.
pub fn source(c: &Cluster) -> PgSource {
    crate::config::stores::dbi_pg_source(&c.chain(), Some(USER), None).unwrap()
}

/// A cluster with every table created, and a session store on it (for the contract suite).
pub fn sessions() -> (Box<dyn std::any::Any>, Arc<dyn SessionStore>) {
    let c = Cluster::start();
    let src = source(&c);
    let pool = pool(&src, 4).unwrap();
    schema::run(&pool, &schema::sessions_ddl("sessions", false)).unwrap();
    let store = sessions::PgSessions::open(&src, "sessions", 8).unwrap();
    (Box::new(c), Arc::new(store))
}

#[test]
fn configurations_are_numbered_once_across_savers() {
    let c = Cluster::start();
    let src = source(&c);
    schema::run(&pool(&src, 2).unwrap(), &schema::conf_ddl("lmConfig")).unwrap();
    // Two stores as two nodes would have them (two pools).
    let a = Arc::new(conf::PgConf::open(&src, "lmConfig", 4).unwrap());
    let b = Arc::new(Pool::new(&src, 4).unwrap());
    let b = conf::PgConf {
        pool: b,
        table: "lmconfig".into(),
    };
    assert_eq!(a.latest().unwrap(), None);
    let doc = |v: i64| match json!({"v": v}) {
        serde_json::Value::Object(m) => m,
        _ => unreachable!(),
    };
    let b = Arc::new(b);
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let (a, b) = (a.clone(), b.clone());
            std::thread::spawn(move || {
                if i % 2 == 0 {
                    a.save(&doc(i)).unwrap()
                } else {
                    b.save(&doc(i)).unwrap()
                }
            })
        })
        .collect();
    let mut nums: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    crate::util::sort::sort(&mut nums);
    assert_eq!(nums, (1..=8).collect::<Vec<_>>());
    assert_eq!(b.latest().unwrap(), Some(8));
    assert_eq!(a.numbers().unwrap(), (1..=8).collect::<Vec<_>>());
    assert_eq!(a.load(8).unwrap()["cfgNum"], json!(8));
    assert!(matches!(a.load(9), Err(Error::NotFound(_))));
    // LemonLDAP::NG's CDBI layout, as its documentation creates it, read as is.
    c.psql(
        r#"INSERT INTO lmConfig (cfgNum, data) VALUES (9, '{"cfgNum":9,"portal":"http://x/"}')"#,
    );
    assert_eq!(a.load(9).unwrap()["portal"], json!("http://x/"));
    // Removing a version (dynamic registration's bound): once, and the numbering goes on.
    assert!(a.remove(3).unwrap());
    assert!(!a.remove(3).unwrap());
    assert_eq!(a.numbers().unwrap(), [1, 2, 4, 5, 6, 7, 8, 9]);
    assert_eq!(b.save(&doc(10)).unwrap(), 10);
}

#[test]
fn a_restarted_database_is_reconnected_and_a_stopped_one_is_unavailable() {
    let c = Cluster::start();
    let src = source(&c);
    schema::run(
        &pool(&src, 2).unwrap(),
        &schema::sessions_ddl("sessions", false),
    )
    .unwrap();
    let st = sessions::PgSessions::open(&src, "sessions", 2).unwrap();
    let s = match json!({"uid": "dwho"}) {
        serde_json::Value::Object(m) => m,
        _ => unreachable!(),
    };
    st.put(Kind::Global, "abc", &s).unwrap();
    c.down();
    let t = std::time::Instant::now();
    match st.get(Kind::Global, "abc") {
        Err(Error::Unavailable(m)) => assert!(m.contains("PostgreSQL"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(t.elapsed() < CONNECT_TIMEOUT + std::time::Duration::from_secs(1));
    c.up();
    // The pooled connections died with the server: new ones are opened, no error seen.
    assert_eq!(st.get(Kind::Global, "abc").unwrap(), Some(s.clone()));
    assert_eq!(st.get(Kind::Global, "abc").unwrap(), Some(s));
}

#[test]
fn a_missing_table_names_the_command_that_creates_it() {
    let c = Cluster::start();
    let st = sessions::PgSessions::open(&source(&c), "nosuch", 2).unwrap();
    match st.get(Kind::Global, "abc") {
        Err(Error::Storage(m)) => assert!(m.contains("limette db init"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn chains_and_their_refusals() {
    let s = crate::config::stores::dbi_pg_source(
        "dbi:Pg:database=sso;host=/run/postgresql;port=5433",
        Some("lemon"),
        Some("secret"),
    )
    .unwrap();
    assert_eq!(s.get("dbname"), Some("sso"));
    assert_eq!(s.get("port"), Some("5433"));
    assert_eq!(s.user.as_deref(), Some("lemon"));
    assert!(!format!("{s:?}").contains("secret"));
    let own =
        crate::config::stores::dbi_pg_source("DBI:Pg:dbname=a;user=u;password=p", Some("x"), None)
            .unwrap();
    assert_eq!(
        (own.user.as_deref(), own.password.as_deref()),
        (Some("u"), Some("p"))
    );
    for (bad, why) in [
        (
            "DBI:Pg:dbname=a;sslmode=require",
            "sslmode=require is not supported",
        ),
        ("DBI:Pg:dbname=a;sslmode=verify-full", "no TLS client"),
        (
            "DBI:Pg:dbname=a;sslcert=/x",
            "parameter sslcert is not supported",
        ),
        ("DBI:Pg:dbname=a;port=x", "not a port number"),
        ("DBI:Pg:dbname", "is not key=value"),
    ] {
        let e = crate::config::stores::dbi_pg_source(bad, None, None).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    assert!(check_table("lmConfig").is_ok());
    assert!(check_table("a;drop table x").is_err());
    let _ = DB;
}
