"""The per-provider sign-in flows."""
