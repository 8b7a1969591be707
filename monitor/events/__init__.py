"""Events on the timeline: SNMP traps, syslog and the monitor's own (reboots, port changes, alerts, maintenance).

The receivers (traps.py, syslogd.py) run as processes of their own; what they and the monitor record is one table
(models.Event) that pages, the marker API and alert rules read. docs/events.md describes it.
"""
