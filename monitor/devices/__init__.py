"""Devices: their profiles, the admin and its test-and-discover form, and the ports and graphs a poll finds."""
