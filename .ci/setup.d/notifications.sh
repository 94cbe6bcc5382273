#!/bin/sh
# SOAP::Lite, the Perl client LemonLDAP::NG's documentation uses, for the notification server's
# real-client SOAP test (tests/suite/notifications/soap.rs). Idempotent.
set -eu
. "$(dirname "$0")/need"
need_cmd perl perl
need_perl SOAP::Lite libsoap-lite-perl
need_install
