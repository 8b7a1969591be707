"""Run the product's parts locally: Redis, InfluxDB, snmpsim agents and a simulated fleet (demo and tests)."""
