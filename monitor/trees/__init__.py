"""Graph trees, personal dashboards, aggregate graphs and API tokens."""
