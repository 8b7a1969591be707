"""`manage.py receive_syslog`: the syslog receiver (UDP and TCP) as a process of its own (no Celery needed)."""

from django.conf import settings
from django.core.management.base import BaseCommand

from monitor.events.syslogd import SyslogReceiver


class Command(BaseCommand):
    help = "Receive syslog over UDP and TCP (RFC 5424, RFC 3164) and store it as events of the devices that sent it."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default=settings.EVENTS_SYSLOG_BIND, help="address (EVENTS_SYSLOG_BIND)")
        parser.add_argument("--port", type=int, default=settings.EVENTS_SYSLOG_PORT, help="UDP and TCP port")
        parser.add_argument("--name", default="", help="this receiver's name on the events page (kind@host:port)")

    def handle(self, *args, **opts):
        receiver = SyslogReceiver(opts["bind"], opts["port"], opts["name"])
        self.stdout.write(f"receiving syslog on udp+tcp {opts['bind']}:{opts['port']} as {receiver.name}")
        receiver.serve_forever()
        totals = ", ".join(f"{k} {v}" for k, v in sorted(receiver.counts.totals.items())) or "nothing"
        self.stdout.write(f"syslog receiver stopped: {totals}")
