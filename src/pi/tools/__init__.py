"""pi.tools layer."""
