"""writer layer."""
