# The SQL functions LemonLDAP::NG's DBI modules call to hash passwords, for a user table on
# SQLite shared with Limette. LemonLDAP::NG computes every hash with a database function
# (Lemonldap::NG::Portal::Lib::DBI): the dynamic schemes call `sha256(hex)`, `sha512(hex)`...
# on the hexadecimal text of the password (and salt) and read back hexadecimal text, and Unix
# crypt strings call `unixcrypth(hex password, hex salt)`. PostgreSQL and MariaDB get them
# with CREATE FUNCTION (LemonLDAP::NG's DBI page); SQLite has no such statement, so this
# module gives them to every SQLite connection DBI opens in the process, through DBD::SQLite's
# sqlite_create_function.
#
# Load it in the LemonLDAP::NG portal's process, e.g. in the FastCGI server's environment:
#   PERL5OPT="-I/etc/lemonldap-ng/perl -MLimetteSQLite"
# (the folder holding this file). Functions: md5, sha, sha1, sha224, sha256, sha384, sha512
# (hexadecimal in and out, for dbiDynamicHashEnabled = 1) and unixcrypth (unixcrypt1, 5, 6).
# The static mode (dbiAuthPasswordHash) calls the same names on the clear password instead:
# set LIMETTE_SQLITE_STATIC=1 in the environment for that mode (text in, hexadecimal out).
package LimetteSQLite;

use strict;
use warnings;
use Digest::MD5 ();
use Digest::SHA ();
use DBD::SQLite ();

our $VERSION = '1.0';

my %DIGEST = (
    md5    => \&Digest::MD5::md5,
    sha    => \&Digest::SHA::sha1,
    sha1   => \&Digest::SHA::sha1,
    sha224 => \&Digest::SHA::sha224,
    sha256 => \&Digest::SHA::sha256,
    sha384 => \&Digest::SHA::sha384,
    sha512 => \&Digest::SHA::sha512,
);

# Gives the functions to one database handle; returns it.
sub register {
    my ( $dbh, $static ) = @_;
    $static = $ENV{LIMETTE_SQLITE_STATIC} unless defined $static;
    for my $name ( keys %DIGEST ) {
        my $digest = $DIGEST{$name};
        my $fn     = $static
          ? sub { defined $_[0] ? unpack( 'H*', $digest->( $_[0] ) ) : undef }
          : sub {
            defined $_[0] ? unpack( 'H*', $digest->( pack( 'H*', $_[0] ) ) ) : undef;
          };
        $dbh->sqlite_create_function( $name, 1, $fn );
    }
    $dbh->sqlite_create_function(
        'unixcrypth',
        2,
        sub {
            return undef unless defined $_[0] and defined $_[1];
            my $hash = crypt( pack( 'H*', $_[0] ), pack( 'H*', $_[1] ) );
            return defined $hash ? unpack( 'H*', $hash ) : undef;
        }
    );
    # MySQL's ENCRYPT(password, stored) for dbiAuthPasswordHash = ENCRYPT: checks call it with
    # the stored crypt string, new passwords without (a new $6$ string here, where MySQL would
    # make a DES one).
    $dbh->sqlite_create_function(
        'encrypt', -1,
        sub {
            my ( $password, $setting ) = @_;
            return undef unless defined $password;
            unless ( defined $setting ) {
                my @set = ( '.', '/', 0 .. 9, 'A' .. 'Z', 'a' .. 'z' );
                $setting = '$6$' . join( '', map { $set[ rand @set ] } 1 .. 16 ) . '$';
            }
            return crypt( $password, $setting );
        }
    );
    return $dbh;
}

# Every SQLite handle DBI opens from now on gets the functions (LemonLDAP::NG opens its own
# with DBI->connect_cached, without a hook of its own).
{
    no warnings 'redefine';
    my $connect = \&DBD::SQLite::dr::connect;
    *DBD::SQLite::dr::connect = sub {
        my $dbh = $connect->(@_);
        register($dbh) if $dbh;
        return $dbh;
    };
}

1;
