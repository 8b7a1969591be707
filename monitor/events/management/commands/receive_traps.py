"""`manage.py receive_traps`: the SNMP trap receiver as a process of its own (no Celery needed)."""

from django.conf import settings
from django.core.management.base import BaseCommand

from monitor.events.traps import TrapReceiver


class Command(BaseCommand):
    help = "Receive SNMP traps and informs (v1, v2c, v3) and store them as events of the devices that sent them."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default=settings.EVENTS_TRAP_BIND, help="address to listen on (EVENTS_TRAP_BIND)")
        parser.add_argument("--port", type=int, default=settings.EVENTS_TRAP_PORT, help="UDP port (EVENTS_TRAP_PORT)")
        parser.add_argument("--name", default="", help="this receiver's name on the events page (kind@host:port)")

    def handle(self, *args, **opts):
        receiver = TrapReceiver(opts["bind"], opts["port"], opts["name"])
        self.stdout.write(f"receiving traps on udp {opts['bind']}:{opts['port']} as {receiver.name}")
        receiver.serve_forever()
        totals = ", ".join(f"{k} {v}" for k, v in sorted(receiver.counts.totals.items())) or "nothing"
        self.stdout.write(f"trap receiver stopped: {totals}")
