"""pi.tui layer."""
