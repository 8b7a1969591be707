"""manage.py discover_subnet 10.0.0.0/24 --community ...: find SNMP agents in a range and add them."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from monitor.core.config import env
from monitor.devices.importing import tree_path
from monitor.devices.subnet import addresses, discover_subnet


class Command(BaseCommand):
    help = (
        "Ask every address of a range (SNMP v1/v2c, or v3 with --v3-*) for its system group, all at once, and add "
        "each agent that answers the way the device form does (tested, discovered, its ports graphed). The "
        "community may come from --community or the environment variable named by --community-env."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("network", help="CIDR range, e.g. 10.0.0.0/24 (at most 4,096 addresses)")
        parser.add_argument("--community", default="", help="SNMP v1/v2c community (prefer --community-env)")
        parser.add_argument("--community-env", default="", help="read the community from this environment variable")
        parser.add_argument("--snmp-version", dest="snmp_version", default="2c", choices=["1", "2c", "3"])
        parser.add_argument("--v3-user", default="")
        parser.add_argument("--v3-level", default="authPriv", choices=["noAuthNoPriv", "authNoPriv", "authPriv"])
        parser.add_argument("--v3-auth-protocol", default="SHA256")
        parser.add_argument("--v3-auth-key-env", default="", help="environment variable holding the v3 auth key")
        parser.add_argument("--v3-priv-protocol", default="AES128")
        parser.add_argument("--v3-priv-key-env", default="", help="environment variable holding the v3 privacy key")
        parser.add_argument("--port", type=int, default=161)
        parser.add_argument("--timeout", type=float, default=1.0, help="seconds per request (default 1)")
        parser.add_argument("--retries", type=int, default=0)
        parser.add_argument("--interval", type=int, default=60, help="poll interval of the devices added, seconds")
        parser.add_argument("--group", default="", help="poller group of the devices added")
        parser.add_argument("--tree", default="", help="place them under Tree/Header[/...] (created when missing)")

    def handle(self, *args, **o) -> None:
        try:
            addresses(o["network"])
            tree = tree_path(o["tree"]) if o["tree"] else None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        community = env(o["community_env"], "") if o["community_env"] else o["community"]
        if o["snmp_version"] != "3" and not community:
            raise CommandError("SNMP v1/v2c needs --community or --community-env")
        values = {
            "snmp_version": o["snmp_version"],
            "community": community,
            "v3_user": o["v3_user"],
            "v3_security_level": o["v3_level"],
            "v3_auth_protocol": o["v3_auth_protocol"],
            "v3_auth_key": env(o["v3_auth_key_env"], "") if o["v3_auth_key_env"] else "",
            "v3_priv_protocol": o["v3_priv_protocol"],
            "v3_priv_key": env(o["v3_priv_key_env"], "") if o["v3_priv_key_env"] else "",
            "port": o["port"],
            "timeout_s": o["timeout"],
            "retries": o["retries"],
            "poll_interval_s": o["interval"],
            "poller_group": o["group"],
        }
        found = discover_subnet(o["network"], values, tree)
        for row in found:
            if row.device is not None:
                self.stdout.write(f"{row.host}: added {row.device.name} ({row.device.profile})")
            elif row.skipped:
                self.stdout.write(f"{row.host}: {row.skipped}")
            else:
                self.stdout.write(f"{row.host}: answered but not added: {'; '.join(row.errors)}")
        added = sum(row.device is not None for row in found)
        self.stdout.write(f"{len(found)} agent(s) answered in {o['network']}, {added} added")
