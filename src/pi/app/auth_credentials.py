"""The entries auth.json holds: an API key (with variables of its own) or an OAuth login.

A module of its own so that runs without stored credentials (a key in the environment, a local
server) never define or build these models.
"""

import functools
import time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Credential(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow", defer_build=True)


class ApiKeyCredential(_Credential):
    type: Literal["api_key"]
    key: str | None = None
    """Absent in entries that only set variables (a llama.cpp router's URL, with no key)."""
    env: dict[str, str] | None = None


class OAuthCredential(_Credential):
    type: Literal["oauth"]
    access: str
    refresh: str | None = None
    expires: float | None = None

    @property
    def expired(self) -> bool:
        return self.expires is not None and self.expires <= time.time() * 1000


Credential = Annotated[ApiKeyCredential | OAuthCredential, Field(discriminator="type")]


@functools.cache
def credential_adapter() -> TypeAdapter[ApiKeyCredential | OAuthCredential]:
    return TypeAdapter(Credential)


__all__ = ["ApiKeyCredential", "Credential", "OAuthCredential", "credential_adapter"]
