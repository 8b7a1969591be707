"""Signals other parts hang off the poll path (alerts evaluate here), so polling stays unaware of them."""

from django.dispatch import Signal

# Sent after every poll of a device, success or failure, once its samples are written (or spooled).
# Arguments: device (the Device row, status fields refreshed), samples (list[collectors.samples.Sample],
# empty on failure), error (str: "" on success, the safe error message on failure).
poll_finished = Signal()
