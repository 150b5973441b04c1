import pytest

from pi.app.packages.filters import PackageEntry, PackageEntryError, apply_filter, merge_scopes, parse_entry

DECLARED = ["extensions/a.py", "extensions/b.py", "extensions/tools", "entrypoint:demo:main"]


def test_omitted_filter_keeps_everything_and_empty_keeps_nothing() -> None:
    assert apply_filter(DECLARED, None) == DECLARED
    assert apply_filter(DECLARED, []) == []


def test_globs_exclusions_and_exact_paths() -> None:
    assert apply_filter(DECLARED, ["extensions/*.py"]) == ["extensions/a.py", "extensions/b.py"]
    assert apply_filter(DECLARED, ["!extensions/b.py"]) == [
        "extensions/a.py",
        "extensions/tools",
        "entrypoint:demo:main",
    ]
    assert apply_filter(DECLARED, ["entrypoint:*"]) == ["entrypoint:demo:main"]
    assert apply_filter(DECLARED, ["a.py", "+extensions/tools"]) == ["extensions/a.py", "extensions/tools"]
    assert apply_filter(DECLARED, ["-extensions/a.py"]) == DECLARED[1:]
    # Filters never add what the package does not declare.
    assert apply_filter(DECLARED, ["+extensions/zzz.py"]) == DECLARED


def test_delta_narrows_an_earlier_selection() -> None:
    first = apply_filter(DECLARED, ["extensions/*.py"])
    assert apply_filter(DECLARED, ["-extensions/a.py"], start=first) == ["extensions/b.py"]
    assert apply_filter(DECLARED, ["+extensions/tools"], start=first) == DECLARED[:3]


def test_parse_entry_forms() -> None:
    assert parse_entry("pypi:x", "user") == PackageEntry("pypi:x", "user")
    entry = parse_entry({"source": "./p", "extensions": [], "autoload": False}, "project")
    assert entry.is_object and not entry.autoload
    assert entry.filter_for("extensions") == () and entry.filter_for("skills") is None
    bad_entries: list[object] = [
        3,
        {"extensions": []},
        {"source": "x", "skills": "a"},
        {"source": "x", "autoload": "no"},
    ]
    for bad in bad_entries:
        with pytest.raises(PackageEntryError):
            parse_entry(bad, "user")


def _identity(entry: PackageEntry) -> str:
    return entry.source.split("@")[0]


def test_project_entry_replaces_user_entry() -> None:
    user = [PackageEntry("pkg", "user"), PackageEntry("other", "user")]
    project = [PackageEntry("pkg@v2", "project", {"skills": ()}, is_object=True), PackageEntry("p-only", "project")]
    merged = merge_scopes(user, project, _identity)
    assert [(m.entry.source, m.entry.scope) for m in merged] == [
        ("pkg@v2", "project"),
        ("other", "user"),
        ("p-only", "project"),
    ]
    assert merged[0].select("skills", ["skills/s"]) == []


def test_autoload_false_project_entry_is_a_delta_over_the_user_entry() -> None:
    user = [PackageEntry("pkg", "user", {"extensions": ("extensions/*.py",)}, is_object=True)]
    delta = PackageEntry("pkg", "project", {"extensions": ("-extensions/a.py",)}, autoload=False, is_object=True)
    merged = merge_scopes(user, [delta, PackageEntry("lonely", "project", autoload=False)], _identity)
    assert len(merged) == 1 and merged[0].entry.scope == "user"
    assert [layer.scope for layer in merged[0].layers] == ["user", "project"]
    assert merged[0].select("extensions", DECLARED) == ["extensions/b.py"]
    assert merged[0].select("themes", ["themes/t.json"]) == ["themes/t.json"]
