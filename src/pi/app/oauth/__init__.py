"""Subscription logins: the OAuth machinery (PKCE, loopback callback, device polling, refresh under a lock)
and the per-provider flows that turn a browser or device sign-in into an auth.json entry."""
