#!/usr/bin/env bash
# SOAP::Lite, the Perl client LemonLDAP::NG's documentation uses, for the notification server's
# real-client SOAP test (tests/notifications/soap.rs).
set -euo pipefail
if ! perl -MSOAP::Lite -e1 2>/dev/null; then
  "$(dirname "$0")/apt-need" libsoap-lite-perl
fi
