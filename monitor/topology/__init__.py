"""Where hosts plug in: what the switches' forwarding tables say, kept as sightings with their first and last seen."""
