#!/bin/sh
# LemonLDAP::NG 2.16's own lemonldap-ng-cli and its packaged configuration, for the conformance
# test of `limette config` (tests/suite/config/conformance.rs, tests/suite/config/llng_cli.rs): the script
# and the modules it loads. Idempotent.
set -eu
. "$(dirname "$0")/need"
need_file /usr/share/lemonldap-ng/bin/lemonldap-ng-cli liblemonldap-ng-manager-perl
need_file /var/lib/lemonldap-ng/conf/lmConf-1.json liblemonldap-ng-common-perl
need_perl Lemonldap::NG::Manager::Cli liblemonldap-ng-manager-perl
need_perl Lemonldap::NG::Common::Conf liblemonldap-ng-common-perl
need_install
