"""Graphs: who may read what, time ranges, the device and tree pages, and the series API."""
