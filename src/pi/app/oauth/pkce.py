"""PKCE (RFC 7636) with the S256 method, as every browser flow here uses it."""

from __future__ import annotations

import base64
import hashlib
import secrets

from msgspec import Struct


def base64url(data: bytes) -> str:
    """Unpadded base64url, the encoding PKCE and JWTs use."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def challenge_for(verifier: str) -> str:
    return base64url(hashlib.sha256(verifier.encode("ascii")).digest())


class Pkce(Struct, frozen=True):
    verifier: str
    challenge: str
    method: str = "S256"


def generate_pkce() -> Pkce:
    """A fresh verifier from 32 random bytes and its S256 challenge."""
    verifier = base64url(secrets.token_bytes(32))
    return Pkce(verifier, challenge_for(verifier))


__all__ = ["Pkce", "base64url", "challenge_for", "generate_pkce"]
