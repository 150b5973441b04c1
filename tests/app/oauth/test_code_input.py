from __future__ import annotations

import pytest

from pi.app.oauth.code_input import parse_pasted
from pi.app.oauth.errors import OAuthError


@pytest.mark.parametrize(
    ("text", "code", "state"),
    [
        ("https://platform.claude.com/oauth/code/callback?code=abc&state=xyz", "abc", "xyz"),
        ("  abc#xyz \n", "abc", "xyz"),
        ("code=abc&state=xyz", "abc", "xyz"),
        ("?code=abc", "abc", None),
        ("abc", "abc", None),
    ],
)
def test_pasted_forms(text: str, code: str, state: str | None) -> None:
    pasted = parse_pasted(text)
    assert (pasted.code, pasted.state) == (code, state)


def test_empty_and_codeless_pastes_are_errors() -> None:
    with pytest.raises(OAuthError, match="No authorization code"):
        parse_pasted("   ")
    with pytest.raises(OAuthError, match=r"^Missing authorization code\.$"):
        parse_pasted("http://localhost/callback?state=x")
