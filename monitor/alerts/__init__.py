"""Threshold alerts: rules, a per-target state machine fed by polls, and mails claimed once and retried."""
