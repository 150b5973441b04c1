from pathlib import Path

import pytest

from pi.app.packages.sources import (
    NPM_NOT_SUPPORTED,
    PackageSourceError,
    _parse_requirement_fallback,
    normalize_name,
    parse_source,
    settings_form,
)

BASE = Path("/home/u/project")


@pytest.mark.parametrize(
    ("text", "identity", "pinned"),
    [
        ("pypi:pi-tools", "pypi:pi-tools", False),
        ("pypi:Pi_Tools==1.2.0", "pypi:pi-tools", True),
        ("pypi:pi.tools===1.2.0", "pypi:pi-tools", True),
        ("pypi:pi-tools>=1,<2", "pypi:pi-tools", False),
        ("pypi:pi-tools==1.*", "pypi:pi-tools", False),
        ("pypi:pi-tools[extra]==2.0 ; python_version >= '3'", "pypi:pi-tools", True),
    ],
)
def test_pypi_identity_and_pinning(text: str, identity: str, pinned: bool) -> None:
    source = parse_source(text, base_dir=BASE)
    assert (source.kind, source.identity, source.pinned) == ("pypi", identity, pinned)
    assert source.location == text.removeprefix("pypi:")


def test_invalid_requirement_and_npm_are_refused() -> None:
    with pytest.raises(PackageSourceError, match="Invalid PyPI requirement"):
        parse_source("pypi:not a requirement!!", base_dir=BASE)
    with pytest.raises(PackageSourceError) as caught:
        parse_source("npm:@scope/name@1.2.3", base_dir=BASE)
    assert str(caught.value) == NPM_NOT_SUPPORTED


def test_fallback_requirement_parser() -> None:
    assert _parse_requirement_fallback("pi-tools == 1.0") == ("pi-tools", [("==", "1.0")])
    assert _parse_requirement_fallback("a>=1,<2") == ("a", [(">=", "1"), ("<", "2")])
    with pytest.raises(PackageSourceError):
        _parse_requirement_fallback("a @ https://x")


def test_normalize_name() -> None:
    assert normalize_name("Pi__Demo.x-y") == "pi-demo-x-y"


@pytest.mark.parametrize(
    ("text", "identity", "ref", "clone"),
    [
        ("git:github.com/u/r@v1", "git:github.com/u/r", "v1", "https://github.com/u/r"),
        ("git:git@github.com:u/r.git", "git:github.com/u/r", None, "git@github.com:u/r.git"),
        ("https://github.com/u/r.git", "git:github.com/u/r", None, "https://github.com/u/r.git"),
        ("ssh://git@github.com:22/u/r@abc", "git:github.com/u/r", "abc", "ssh://git@github.com:22/u/r"),
        (
            "git://127.0.0.1:9418/acme/demo.git@v1",
            "git:127.0.0.1/acme/demo",
            "v1",
            "git://127.0.0.1:9418/acme/demo.git",
        ),
        ("git:localhost/a/b", "git:localhost/a/b", None, "https://localhost/a/b"),
        ("git:https://gitlab.example/g/sub/r", "git:gitlab.example/g/sub/r", None, "https://gitlab.example/g/sub/r"),
    ],
)
def test_git_forms(text: str, identity: str, ref: str | None, clone: str) -> None:
    source = parse_source(text, base_dir=BASE)
    assert (source.kind, source.identity, source.ref, source.location) == ("git", identity, ref, clone)
    assert source.pinned is (ref is not None)


def test_ssh_and_https_spellings_share_identity() -> None:
    a = parse_source("git:git@github.com:u/r@v2", base_dir=BASE)
    b = parse_source("https://github.com/u/r", base_dir=BASE)
    assert a.identity == b.identity == "git:github.com/u/r"


@pytest.mark.parametrize(
    "text",
    [
        "git://127.0.0.1:9418/demo.git",  # one path segment
        "git:nodot/u/r",  # shorthand host without a dot
        "git:github.com/u/../r",
        "git:github.com/u\\r/x",
        "git:git@github.com:/abs/path",
        "github.com/u/r",  # no git: and no explicit protocol
    ],
)
def test_non_git_forms_fall_back_to_local(text: str) -> None:
    source = parse_source(text, base_dir=BASE)
    assert source.kind == "local"
    assert source.identity == f"local:{BASE / text}" or source.identity.startswith("local:/")


def test_local_paths(tmp_path: Path) -> None:
    home = Path("~").expanduser()
    assert parse_source("./pkg", base_dir=BASE).identity == "local:/home/u/project/pkg"
    assert parse_source("/abs/x/", base_dir=BASE).location == "/abs/x"
    assert parse_source("~/x", base_dir=BASE).location == str(home / "x")
    assert parse_source("file:../other", base_dir=BASE).location == "/home/u/other"
    assert parse_source("file:///abs/y", base_dir=BASE).location == "/abs/y"


def test_settings_form_is_relative_to_settings_dir() -> None:
    agent = Path("/home/u/.pi/agent")
    assert settings_form(parse_source("/home/u/.pi/agent", base_dir=BASE), agent) == "."
    assert settings_form(parse_source("./pkg", base_dir=BASE), agent) == "../../project/pkg"
    assert settings_form(parse_source("pypi:x==1", base_dir=BASE), agent) == "pypi:x==1"
