"""dmtracedump's own numbers, orders and diff (its compatibility rules)."""
