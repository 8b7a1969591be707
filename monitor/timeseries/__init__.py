"""Time series: the InfluxDB tiers and buckets, the graph templates, the rollup backfill, and the queries pages read."""
