"""Levels more than one page colours by, kept in one place so the map and the iSCSI path never disagree."""

NEAR_LINE_RATE_PCT = 90.0  # a port whose busiest sample in the window reached this share of its speed: red
# A replication this far behind has missed a daily cycle: the built-in alert's level and the array page's "lagging"
REPLICATION_LAG_S = 36 * 3600
REPLICATION_LAG_CLEAR_S = 24 * 3600
