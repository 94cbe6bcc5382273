#!/bin/sh
# The sessions tests drive LemonLDAP::NG's own REST session client (Perl,
# tests/sessions/llng_session.pl) against Limette: it loads the common modules (REST session
# client, configuration, cipher, sessions) and the handler (whose cipher the client uses).
# Idempotent: installs only what is missing.
set -eu
. "$(dirname "$0")/need"
need_cmd perl perl
need_perl JSON libjson-perl
need_perl Lemonldap::NG::Common::Apache::Session::REST liblemonldap-ng-common-perl
need_perl Lemonldap::NG::Common::Conf liblemonldap-ng-common-perl
need_perl Lemonldap::NG::Common::Crypto liblemonldap-ng-common-perl
need_perl Lemonldap::NG::Common::Session liblemonldap-ng-common-perl
need_perl Lemonldap::NG::Handler::Main liblemonldap-ng-handler-perl
need_install
