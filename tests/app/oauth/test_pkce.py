from __future__ import annotations

import base64
import hashlib
import re

from pi.app.oauth.pkce import challenge_for, generate_pkce


def test_verifier_is_32_random_bytes_base64url_and_challenge_is_its_sha256() -> None:
    first, second = generate_pkce(), generate_pkce()
    assert first.verifier != second.verifier
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", first.verifier)
    assert len(base64.urlsafe_b64decode(first.verifier + "=")) == 32
    expected = base64.urlsafe_b64encode(hashlib.sha256(first.verifier.encode()).digest()).rstrip(b"=").decode()
    assert first.challenge == expected == challenge_for(first.verifier)
    assert first.method == "S256"
