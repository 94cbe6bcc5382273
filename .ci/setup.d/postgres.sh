#!/bin/sh
# The PostgreSQL tests (storage contract, two nodes on one database, a database restart,
# LemonLDAP::NG's PgJSON session module reading Limette's sessions) start a throw-away cluster
# of the distribution's server (initdb and pg_ctl in a temporary folder, Unix socket only) and
# drive LemonLDAP::NG's Perl modules through DBD::Pg. Idempotent: installs only what is missing.
set -eu
. "$(dirname "$0")/need"
# The server's binaries are not in PATH: Debian keeps them under its versioned folder.
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
need_file "${pgbin:-/usr/lib/postgresql/15/bin}/initdb" postgresql
need_file "${pgbin:-/usr/lib/postgresql/15/bin}/pg_ctl" postgresql
need_cmd psql postgresql-client
need_perl DBD::Pg libdbd-pg-perl
need_perl Apache::Session::Browseable::PgJSON libapache-session-browseable-perl
need_install
