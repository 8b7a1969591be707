"""Storage arrays as first-class citizens: array, pool and volume views, the capacity forecast, the latency unit the
polls found, per-device heatmap levels, and the iSCSI path from an array's ports to the switch ports that carry it."""
