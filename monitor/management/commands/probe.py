"""`manage.py probe HOST`: what the admin's "Test and discover" does, on the command line (text or --json)."""

from __future__ import annotations

import asyncio
import json
import math
import sys

from django.core.management.base import BaseCommand, CommandError

from collectors.discovery import discover
from collectors.poll import poll_device
from collectors.snmptypes import SnmpError, SnmpTarget
from monitor.devices.profiles import registry

AUTH = ["MD5", "SHA", "SHA224", "SHA256", "SHA384", "SHA512"]
PRIV = ["DES", "AES128", "AES192", "AES256"]
# The same bounds as a device in the admin (monitor/models.py), and a pause between polls of at most an hour.
LIMITS = (("--timeout", 0.1, 60), ("--retries", 0, 10), ("--max-repetitions", 1, 100), ("--interval", 0, 3600))


class Command(BaseCommand):
    help = "Identify a device, match its profile, list its ports and read every metric once (rates: polls twice)."

    def run_from_argv(self, argv: list[str]) -> None:
        """`--version` means the SNMP version here, as people type it (Django's would print its own and exit 0)."""
        argv = [
            "--snmp-version" + arg[len("--version") :] if arg == "--version" or arg.startswith("--version=") else arg
            for arg in argv
        ]
        super().run_from_argv(argv)

    def add_arguments(self, parser):
        parser.add_argument("host")
        parser.add_argument("--port", type=int, default=161)
        parser.add_argument("--snmp-version", choices=["1", "2c", "3"], default=None, help="also --version")
        parser.add_argument("--community", default=None, help="v1/v2c community (default: public)")
        parser.add_argument("--v3-user", default="")
        parser.add_argument("--auth-protocol", choices=AUTH, default="")
        parser.add_argument("--auth-key", default="")
        parser.add_argument("--priv-protocol", choices=PRIV, default="")
        parser.add_argument("--priv-key", default="")
        parser.add_argument("--timeout", type=float, default=2.0)
        parser.add_argument("--retries", type=int, default=1)
        parser.add_argument("--max-repetitions", type=int, default=25)
        parser.add_argument("--interval", type=float, default=5.0, help="seconds between the two polls (rates)")
        parser.add_argument("--profile", default="", help="use this profile instead of matching one")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **opts):
        target = self._target(opts)
        try:
            report = asyncio.run(self._probe(target, opts))
        except SnmpError as exc:
            raise CommandError(f"{opts['host']}: {exc}") from None
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            self._print(report)

    def _target(self, opts) -> SnmpTarget:
        host = opts["host"].strip()
        if not host or len(host) > 255 or not host.isprintable() or any(ch.isspace() for ch in host):
            raise CommandError(f"host {opts['host'][:60]!r} is not a host name or an IP address")
        if not 1 <= opts["port"] <= 65535:
            raise CommandError("--port must be between 1 and 65535")
        for name, low, high in LIMITS:
            value = opts[name.lstrip("-").replace("-", "_")]
            if not (math.isfinite(value) and low <= value <= high):
                raise CommandError(f"{name} must be between {low:g} and {high:g}, not {value!r}")
        version = opts["snmp_version"] or ("3" if opts["v3_user"] else "2c")
        if version == "3":
            if not opts["v3_user"]:
                raise CommandError("SNMPv3 needs --v3-user")
            for proto, key in (("auth_protocol", "auth_key"), ("priv_protocol", "priv_key")):
                if opts[proto] and len(opts[key]) < 8:
                    raise CommandError(
                        f"--{key.replace('_', '-')} must be at least 8 characters with --{proto.replace('_', '-')}"
                    )
            if opts["priv_protocol"] and not opts["auth_protocol"]:
                raise CommandError("--priv-protocol needs --auth-protocol (authPriv)")
        return SnmpTarget(
            host=host,
            port=opts["port"],
            version=version,
            community=opts["community"] or "public",
            v3_user=opts["v3_user"],
            v3_auth_protocol=opts["auth_protocol"],
            v3_auth_key=opts["auth_key"],
            v3_priv_protocol=opts["priv_protocol"],
            v3_priv_key=opts["priv_key"],
            timeout=opts["timeout"],
            retries=opts["retries"],
            max_repetitions=opts["max_repetitions"],
        )

    async def _probe(self, target: SnmpTarget, opts) -> dict:
        profiles = registry()
        if opts["profile"] and opts["profile"] not in profiles:
            raise SnmpError(f"no profile named {opts['profile']!r}")
        found = await discover(target, profiles, opts["profile"])
        profile = profiles.get(found.profile)
        first = await poll_device(target, "probe", None, profile=profile)
        await asyncio.sleep(opts["interval"])
        second = await poll_device(target, "probe", first.state, profile=profile)
        metrics = [
            {"name": name, "tags": tags, "value": value, "unit": unit} for name, tags, value, unit in second.values
        ]
        for sample in second.samples:
            if sample.measurement == "interface":
                for field in ("in_bps", "out_bps"):
                    if field in sample.fields:
                        metrics.append(
                            {
                                "name": field,
                                "tags": {"port": sample.tags["port"]},
                                "value": sample.fields[field],
                                "unit": "bit/s",
                            }
                        )
        return {
            "profile": found.profile,
            "profile_reason": found.matched_by,
            "sys_descr": found.identity.sys_descr,
            "sys_object_id": found.identity.sys_object_id,
            "sys_name": found.identity.sys_name,
            "uptime_seconds": second.uptime_s,
            "interfaces": [
                {
                    "name": p.name,
                    "alias": p.alias,
                    "speed_bps": p.speed_bps,
                    "oper_status": {True: "up", False: "down", None: "unknown"}[p.oper_up],
                    "hc_counters": p.hc_counters,
                    "pseudo": p.pseudo,
                }
                for p in found.ports
            ],
            "inventory": found.inventory,
            "metrics": metrics,
            "errors": [*found.errors, *second.errors],
            "missing": second.missing,
        }

    def _print(self, report: dict) -> None:
        out = self.stdout.write
        out(f"profile:     {report['profile']} ({report['profile_reason']})")
        out(f"sysDescr:    {report['sys_descr']}")
        out(f"sysObjectID: {report['sys_object_id']}")
        out(f"sysName:     {report['sys_name']}")
        out(f"uptime:      {report['uptime_seconds']} s")
        out(f"interfaces ({len(report['interfaces'])}):")
        for port in report["interfaces"]:
            out(
                f"  {port['name']:<24} {port['oper_status']:<7} {port['speed_bps'] / 1e6:>8.0f} Mbit/s "
                f"{'64-bit' if port['hc_counters'] else '32-bit'} {port['alias']}"
            )
        for measurement, items in report["inventory"].items():
            out(f"{measurement} ({len(items)}): {'; '.join(items)}")
        out(f"metrics ({len(report['metrics'])}):")
        for metric in report["metrics"]:
            tags = ",".join(f"{k}={v}" for k, v in metric["tags"].items())
            out(f"  {metric['name']}{'{' + tags + '}' if tags else ''} = {metric['value']} {metric['unit']}")
        for error in report["errors"]:
            out(f"error: {error}")
        if report["missing"]:
            out(f"not served by this device: {', '.join(report['missing'])}")
        sys.stdout.flush()
