#!/bin/sh
# The sessions tests drive LemonLDAP::NG's own REST session client (Perl) against Limette: it
# needs the common modules (REST session client, configuration REST backend, cipher) and the
# handler (whose cipher the client uses). Idempotent: installs only what is missing.
set -e
if ! perl -MLemonldap::NG::Common::Apache::Session::REST -MLemonldap::NG::Common::Conf \
    -MLemonldap::NG::Handler::Main -e 1 >/dev/null 2>&1; then
    "$(dirname "$0")/apt-need" liblemonldap-ng-common-perl liblemonldap-ng-handler-perl
fi
