#!/bin/sh
# The handler endpoint's tests (tests/suite/handler/) put the distribution's nginx (with
# conf/nginx-protect.conf) and Caddy (with conf/Caddyfile-protect) in front of a small test
# application and ask Limette, and LemonLDAP::NG's own handler (served over HTTP by plackup;
# `make bench-handler` runs it under its FastCGI server), on loopback in a temp folder; they
# never use the system services. Idempotent.
set -eu
. "$(dirname "$0")/need"
need_cmd nginx nginx
need_cmd caddy caddy
need_cmd llng-fastcgi-server lemonldap-ng-fastcgi-server
need_cmd plackup libplack-perl
need_perl Lemonldap::NG::Handler::Server::Nginx liblemonldap-ng-handler-perl
need_file /etc/nginx/fastcgi_params nginx-common
need_file /var/lib/lemonldap-ng/conf/lmConf-1.json liblemonldap-ng-common-perl
need_install
