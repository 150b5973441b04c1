"""Errors a login or refresh reports to the user; their text is what the user sees."""

from __future__ import annotations


class OAuthError(Exception):
    """A login or refresh failed; the message says why (never contains a token)."""


class LoginCancelled(OAuthError):
    """The user (or the caller) cancelled the sign-in."""

    def __init__(self) -> None:
        super().__init__("Login cancelled")


__all__ = ["LoginCancelled", "OAuthError"]
