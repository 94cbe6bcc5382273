#!/usr/bin/perl
# LemonLDAP::NG's own REST session client against a Limette, as a LemonLDAP::NG node runs it:
# the configuration is read through LemonLDAP::NG's REST configuration backend from the
# Limette's /config, the handler's cipher is built from its `key` (Handler/Main/Reload.pm),
# and sessions go through Lemonldap::NG::Common::Session with the REST storage module.
#
# perl llng_session.pl BASE [--key KEY] create|read ID|update ID|delete ID [name=value...]
# Prints `id=<id>` (create) or the session as JSON (read); exits 1 with a message on failure.
use strict;
use warnings;
use JSON qw(to_json);
use Lemonldap::NG::Common::Conf;
use Lemonldap::NG::Common::Crypto;
use Lemonldap::NG::Common::Session;
use Lemonldap::NG::Handler::Main;

my $base = shift or die "usage: $0 BASE [--key KEY] STEP [ID] [name=value...]\n";
my $key_override;
if ( @ARGV && $ARGV[0] eq '--key' ) {
    shift;
    $key_override = shift;
}
my $step = shift or die "no step\n";
my $id   = $step eq 'create' ? undef : shift;
my %info = map { split /=/, $_, 2 } @ARGV;

my $confAcc =
  Lemonldap::NG::Common::Conf->new( { type => 'REST', baseUrl => "$base/config" } )
  or die "configuration backend: $Lemonldap::NG::Common::Conf::msg\n";
my $conf = $confAcc->getConf( { noCache => 1 } )
  or die "configuration: $Lemonldap::NG::Common::Conf::msg\n";
my $key = defined $key_override ? $key_override : $conf->{key};
Lemonldap::NG::Handler::Main->tsv->{cipher} = Lemonldap::NG::Common::Crypto->new($key);

sub session {
    my (%args) = @_;
    return Lemonldap::NG::Common::Session->new( {
            storageModule        => 'Lemonldap::NG::Common::Apache::Session::REST',
            storageModuleOptions => { baseUrl => "$base/sessions/global" },
            kind                 => 'SSO',
            %args,
        }
    );
}

if ( $step eq 'create' ) {
    my $s = session( info => {%info} );
    die "create: " . $s->error . "\n" if $s->error;
    print "id=" . $s->id . "\n";
}
elsif ( $step eq 'read' ) {
    my $s = session( id => $id );
    die "read: " . ( $s->error // 'no session' ) . "\n"
      if $s->error || !$s->data->{uid};
    print to_json( $s->data, { canonical => 1 } ) . "\n";
}
elsif ( $step eq 'update' ) {
    my $s = session( id => $id );
    $s->update( {%info} ) or die "update: " . $s->error . "\n";
}
elsif ( $step eq 'delete' ) {
    my $s = session( id => $id );
    $s->remove or die "delete: " . $s->error . "\n";
}
else {
    die "unknown step $step\n";
}
