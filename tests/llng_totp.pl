#!/usr/bin/perl
# LemonLDAP::NG 2.16's own TOTP code (Lemonldap::NG::Common::TOTP, as its 2F/TOTP.pm and
# 2F/Register/TOTP.pm use it), driven from the command line for the second-factor tests:
#   llng_totp.pl new KEY ENCRYPT        a new secret and the _secret value LemonLDAP::NG stores
#   llng_totp.pl verify KEY STORED CODE 1 when CODE is right for the stored _secret (30 s, 1, 6)
# KEY is the configuration's `key`; ENCRYPT is totp2fEncryptSecret (0 or 1).
use strict;
use warnings;

package Quiet;
sub new { bless {}, shift }
our $AUTOLOAD;
sub AUTOLOAD { return 1 }
sub DESTROY { }

package Llng;
use Mouse;
extends 'Lemonldap::NG::Common::TOTP';
has conf       => ( is => 'ro' );
has logger     => ( is => 'ro', default => sub { Quiet->new } );
has userLogger => ( is => 'ro', default => sub { Quiet->new } );

package main;
my ( $op, $key, @args ) = @ARGV;
die "usage: llng_totp.pl new KEY ENCRYPT | verify KEY STORED CODE\n" unless $op && $key;
if ( $op eq 'new' ) {
    my $t = Llng->new( conf => { key => $key, totp2fEncryptSecret => $args[0] } );
    my $secret = $t->newSecret;
    print "$secret\n", $t->get_storable_secret($secret), "\n";
}
elsif ( $op eq 'verify' ) {
    my $t = Llng->new( conf => { key => $key } );
    print $t->verifyCode( 30, 1, 6, $args[0], $args[1] ), "\n";
}
else { die "unknown operation $op\n" }
