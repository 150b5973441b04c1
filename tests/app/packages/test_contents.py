from pathlib import Path

from pi.app.packages.contents import discover_contents, distribution_contents, installed_distributions


def _write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_conventional_directories_honour_ignore_files(tmp_path: Path) -> None:
    _write(tmp_path / "extensions" / "a.py")
    _write(tmp_path / "extensions" / "_helper.py")
    _write(tmp_path / "extensions" / "notes.txt")
    _write(tmp_path / "extensions" / "tools" / "__init__.py")
    _write(tmp_path / "extensions" / "plain_dir" / "x.py")
    _write(tmp_path / "extensions" / "secret.py")
    _write(tmp_path / ".gitignore", "extensions/secret.py\n")
    _write(tmp_path / "skills" / "review" / "SKILL.md")
    _write(tmp_path / "skills" / "loose.md")
    _write(tmp_path / "prompts" / "fix.md")
    _write(tmp_path / "prompts" / "data.json")
    _write(tmp_path / "prompts" / ".ignore", "skip.md\n")
    _write(tmp_path / "prompts" / "skip.md")
    _write(tmp_path / "themes" / "dark.json")
    contents = discover_contents(tmp_path)
    assert contents.resources == {
        "extensions": ["extensions/a.py", "extensions/tools"],
        "skills": ["skills/loose.md", "skills/review"],
        "prompts": ["prompts/fix.md"],
        "themes": ["themes/dark.json"],
    }
    assert contents.absolute("prompts") == [tmp_path / "prompts" / "fix.md"]


def test_pyproject_manifest_with_globs_and_exclusions(tmp_path: Path) -> None:
    _write(
        tmp_path / "pyproject.toml",
        '[project]\nversion = "2.1.0"\n[tool.pi]\nextensions = ["src/ext/*.py", "!src/ext/b.py"]\n'
        'prompts = ["prompts/**/*.md"]\nchangelog-path = ""\n',
    )
    for name in ("a.py", "b.py", "c.py"):
        _write(tmp_path / "src" / "ext" / name)
    _write(tmp_path / "prompts" / "deep" / "p.md")
    _write(tmp_path / "themes" / "not-declared.json")
    contents = discover_contents(tmp_path)
    assert contents.resources["extensions"] == ["src/ext/a.py", "src/ext/c.py"]
    assert contents.resources["prompts"] == ["prompts/deep/p.md"]
    assert contents.resources["themes"] == ["themes/not-declared.json"]  # keys left out use the conventions
    assert contents.changelog_path is None
    assert contents.version == "2.1.0"


def test_pi_toml_manifest(tmp_path: Path) -> None:
    _write(tmp_path / "pi.toml", 'prompts = ["prompts/*.md"]\nchangelog-path = "NEWS.md"\n')
    _write(tmp_path / "prompts" / "one.md")
    _write(tmp_path / "extensions" / "conventional.py")
    contents = discover_contents(tmp_path)
    assert contents.resources["prompts"] == ["prompts/one.md"]
    assert contents.resources["extensions"] == ["extensions/conventional.py"]
    assert contents.changelog_path == "NEWS.md"


def _install_dist(target: Path, name: str, version: str, entry_points: str, modules: dict[str, str]) -> None:
    info = target / f"{name.replace('-', '_')}-{version}.dist-info"
    _write(info / "METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    _write(info / "entry_points.txt", entry_points)
    records = []
    for relative, text in modules.items():
        _write(target / relative, text)
        records.append(f"{relative},,")
    _write(info / "RECORD", "\n".join(records) + "\n")


def test_installed_distribution_entry_points_and_roots(tmp_path: Path) -> None:
    _install_dist(
        tmp_path,
        "pi-demo",
        "1.0.0",
        "[pi.extensions]\nmain = pi_demo.ext:setup\n",
        {
            "pi_demo/__init__.py": "",
            "pi_demo/ext.py": "",
            "pi_demo/pi.toml": 'prompts = ["prompts/*.md"]\n',
            "pi_demo/prompts/hi.md": "hi",
        },
    )
    _install_dist(tmp_path, "helper-lib", "3.0", "", {"helper_lib/__init__.py": ""})
    _install_dist(tmp_path, "pi-multi", "0.1", "[pi.packages]\nres = pi_multi.res\n", {"pi_multi/res/__init__.py": ""})
    found = installed_distributions(tmp_path)
    assert [(d.name, d.version) for d in found] == [("pi-demo", "1.0.0"), ("pi-multi", "0.1")]
    assert found[0].roots == (tmp_path / "pi_demo",) and found[0].entry_point_extensions == ("entrypoint:pi-demo:main",)
    assert found[1].roots == (tmp_path / "pi_multi" / "res",)
    (demo,) = distribution_contents(tmp_path, "PI_demo")
    assert demo.resources["extensions"] == ["entrypoint:pi-demo:main"]
    assert demo.resources["prompts"] == ["prompts/hi.md"]
    assert demo.version == "1.0.0"
