"""What graph trees do when the device inventory says something (its signals; devices import nothing of trees)."""

from __future__ import annotations

from monitor.graphs.trees.models import place_on_path
from monitor.models import Device


def on_tree_path_given(sender, device: Device, parts: list[str], **kwargs) -> None:
    """A device imported or discovered with a `tree` column is placed under that path's last header."""
    place_on_path(device, parts)
