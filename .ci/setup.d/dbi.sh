#!/bin/sh
# The DBI user store's tests (tests/suite/dbi/) run LemonLDAP::NG 2.16's own DBI password and
# authentication code (tests/fixtures/dbi/llng-vectors.pl) on SQLite through DBD::SQLite, with
# the hash functions conf/llng/LimetteSQLite.pm gives it. Idempotent: installs only what is
# missing.
set -eu
. "$(dirname "$0")/need"
need_cmd perl perl
need_perl JSON::PP perl
need_perl Digest::SHA perl
need_perl DBI libdbi-perl
need_perl DBD::SQLite libdbd-sqlite3-perl
need_perl Lemonldap::NG::Portal::Password::DBI liblemonldap-ng-portal-perl
need_install
