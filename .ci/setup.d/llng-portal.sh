#!/bin/sh
# The directory-bridge test (tests/suite/bridge/) runs a real LemonLDAP::NG 2.16 portal under its
# FastCGI server behind nginx, reading users from a throw-away OpenLDAP slapd; the test starts
# its own instances on loopback in a temp folder and never uses the system services. The
# portal loads, with the test's configuration, modules that LemonLDAP::NG's packages only
# recommend (String::Random among them): a system installed without recommended packages
# lacks them, so each is checked by loading it. Idempotent.
set -eu
. "$(dirname "$0")/need"
# What the test runs by name, and the files it reads.
need_cmd slapd slapd
need_cmd slapadd slapd
need_cmd ldapsearch ldap-utils
need_cmd nginx nginx
need_cmd llng-fastcgi-server lemonldap-ng-fastcgi-server
need_file /etc/ldap/schema/inetorgperson.schema slapd
need_file /etc/nginx/fastcgi_params nginx-common
need_file /var/lib/lemonldap-ng/conf/lmConf-1.json liblemonldap-ng-common-perl
need_file /usr/share/lemonldap-ng/portal/htdocs/index.psgi liblemonldap-ng-portal-perl
# What the FastCGI server and the portal load at start (LDAP authentication, the REST
# authentication server, and the plugins of the packaged configuration).
need_perl Plack::Handler::FCGI libplack-perl
need_perl FCGI::ProcManager libfcgi-procmanager-perl
need_perl Lemonldap::NG::Portal::Main liblemonldap-ng-portal-perl
need_perl Lemonldap::NG::Portal::Plugins::RESTServer liblemonldap-ng-portal-perl
need_perl Net::LDAP libnet-ldap-perl
need_perl Unicode::String libunicode-string-perl
need_perl IO::Socket::Timeout libio-socket-timeout-perl
need_perl String::Random libstring-random-perl
need_perl Email::Sender::Simple libemail-sender-perl
need_perl GD::SecurityImage libgd-securityimage-perl
need_perl Image::Magick libimage-magick-perl
need_perl Lemonldap::NG::Portal::Auth::LDAP liblemonldap-ng-portal-perl
# LemonLDAP::NG's TOTP (Common/TOTP.pm), which the second-factor tests run (tests/llng_totp.pl).
need_perl Digest::HMAC_SHA1 libdigest-hmac-perl
need_perl Convert::Base32 libconvert-base32-perl
need_install
# The FastCGI server refuses to run as root; the test drops it to www-data.
id www-data >/dev/null
