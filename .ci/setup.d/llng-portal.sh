#!/bin/sh
# The directory-bridge test (tests/bridge/) runs a real LemonLDAP::NG 2.16 portal under its
# FastCGI server behind nginx, reading users from a throw-away OpenLDAP slapd. It needs the
# Debian packages below; the test starts its own instances on loopback in a temp folder and
# never uses the system services. Idempotent.
set -eu
need=""
for pair in lemonldap-ng:/usr/share/perl5/Lemonldap/NG/Portal/Plugins/RESTServer.pm \
            lemonldap-ng-fastcgi-server:/usr/sbin/llng-fastcgi-server \
            nginx:/usr/sbin/nginx \
            slapd:/usr/sbin/slapd \
            ldap-utils:/usr/bin/ldapsearch \
            libnet-ldap-perl:/usr/share/perl5/Net/LDAP.pm; do
    pkg=${pair%%:*}
    file=${pair#*:}
    [ -e "$file" ] || need="$need $pkg"
done
if [ -n "$need" ]; then
    # shellcheck disable=SC2086
    "$(dirname "$0")/apt-need" $need
fi
# The FastCGI server refuses to run as root; the test drops it to www-data.
id www-data >/dev/null
