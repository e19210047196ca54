"""The team service: routes, store, upload probe, sessions."""
