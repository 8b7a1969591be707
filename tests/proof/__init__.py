"""Generated scenarios through the live path: an agent whose counters follow a scenario, played through the product's
own poll path on a controlled clock, read through the series API at chosen moments and compared with the model."""
