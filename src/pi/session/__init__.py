"""pi.session layer."""
