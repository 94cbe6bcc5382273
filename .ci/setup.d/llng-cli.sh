#!/usr/bin/env bash
# LemonLDAP::NG 2.16's own lemonldap-ng-cli and its packaged configuration, for the conformance
# test of `limette config` (tests/config/conformance.rs). Idempotent.
set -euo pipefail
if [ ! -x /usr/share/lemonldap-ng/bin/lemonldap-ng-cli ] \
  || [ ! -f /var/lib/lemonldap-ng/conf/lmConf-1.json ]; then
  "$(dirname "$0")/apt-need" lemonldap-ng
fi
test -x /usr/share/lemonldap-ng/bin/lemonldap-ng-cli
