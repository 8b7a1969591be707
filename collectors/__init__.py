"""Pollers: talk SNMP to devices, turn counters into rates, write samples to InfluxDB.

Nothing here imports Django, so the poll path can be called and tested as plain functions.
"""
