#!/usr/bin/env bash
# Install the Debian packages the demo and tests run: redis-server, chromium (browser tests), slapd and ldap-utils
# (a real directory for the LDAP sign-in tests), OpenLDAP's headers, which python-ldap builds against, snmp
# (Net-SNMP's snmptrap and snmpinform: real trap senders for the events tests), snmpd (a real Net-SNMP agent the
# layer-2 read is tested against, started by the tests on a loopback port with a configuration of their own; the
# package's own service, where systemd starts it, answers on localhost only) and bsdutils (logger: syslog).
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v slapd >/dev/null 2>&1 || [ -x /usr/sbin/slapd ] || need+=(slapd)
command -v ldapadd >/dev/null 2>&1 || need+=(ldap-utils)
dpkg -s libldap2-dev >/dev/null 2>&1 || need+=(libldap2-dev)
dpkg -s libsasl2-dev >/dev/null 2>&1 || need+=(libsasl2-dev)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v snmptrap >/dev/null 2>&1 || need+=(snmp)
command -v snmpd >/dev/null 2>&1 || [ -x /usr/sbin/snmpd ] || need+=(snmpd)
command -v logger >/dev/null 2>&1 || need+=(bsdutils)
[ ${#need[@]} -eq 0 ] && exit 0
echo "installing Debian packages: ${need[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
