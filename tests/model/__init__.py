"""An independent reference model of what charts and legends must show (docs/graphs.md), and the scenarios it reads.

Nothing here imports monitor/ or collectors/, or shares a helper with them: it is the second, obviously correct
reading of the docs that the product's numbers are checked against (tests/test_proof.py, `make proof`)."""
