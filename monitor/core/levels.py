"""Levels more than one page colours by, kept in one place so the map and the iSCSI path never disagree."""

NEAR_LINE_RATE_PCT = 90.0  # a port whose busiest sample in the window reached this share of its speed: red
