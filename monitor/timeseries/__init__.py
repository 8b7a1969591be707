"""Time series: the InfluxDB tiers and buckets, the rollup backfill and sweep, and the queries pages read."""
