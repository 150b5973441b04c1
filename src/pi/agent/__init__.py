"""pi.agent layer."""
