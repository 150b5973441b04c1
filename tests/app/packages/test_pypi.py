import json
import subprocess
import sys
from importlib import metadata

import pytest

from pi.app.packages.install import PackageStore, host_constraints
from pi.app.packages.resolve import install_missing, resolve_packages
from tests.app.packages.conftest import PackageWorld
from tests.app.packages.index_server import SimpleIndex, build_wheel

pytestmark = pytest.mark.timeout(240)


def _demo(version: str) -> tuple[str, bytes]:
    return build_wheel(
        "pi-demo",
        version,
        {
            "pi_demo/__init__.py": f'VERSION = "{version}"\n',
            "pi_demo/ext.py": "def setup(pi):\n    return 'loaded'\n",
            "pi_demo/pi.toml": 'prompts = ["prompts/*.md"]\n',
            "pi_demo/prompts/hello.md": "Say hello",
        },
        entry_points="[pi.extensions]\nmain = pi_demo.ext:setup\n",
    )


def _packages(world: PackageWorld) -> object:
    return json.loads((world.agent_dir / "settings.json").read_text())["packages"]


async def test_install_pinned_then_update_unpinned(world: PackageWorld, index: SimpleIndex) -> None:
    index.add("pi-demo", *_demo("1.0.0"))
    result = await world.run("install", "pypi:pi-demo==1.0.0")
    assert (result.code, result.out, result.err) == (
        0,
        "Installing pypi:pi-demo==1.0.0...\nInstalled pypi:pi-demo==1.0.0\n",
        "",
    )
    target = world.agent_dir / "pypi" / "pi-demo"
    assert (target / "pi_demo" / "ext.py").is_file()
    assert (world.agent_dir / "pypi" / ".gitignore").read_text() == "*\n!.gitignore\n"
    assert _packages(world) == ["pypi:pi-demo==1.0.0"]

    (package,) = resolve_packages(PackageStore(world.agent_dir, world.cwd, True), [])
    assert package.selected["extensions"] == ["entrypoint:pi-demo:main"]
    assert package.selected["prompts"] == [str(target / "pi_demo" / "prompts" / "hello.md")]
    assert package.site_dirs == [target]
    loaded = subprocess.run(
        [sys.executable, "-c", _LOAD_ENTRY_POINT, str(target)], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "loaded"

    index.add("pi-demo", *_demo("1.1.0"))
    result = await world.run("update", "--extensions")
    assert (result.code, result.out) == (0, "Packages are already up to date\n")
    (world.agent_dir / "settings.json").write_text(json.dumps({"packages": ["pypi:pi-demo"]}))
    result = await world.run("update", "--extensions")
    assert (result.code, result.out, result.err) == (0, "Updated 1 package:\n  pypi:pi-demo 1.0.0 -> 1.1.0\n", "")
    assert 'VERSION = "1.1.0"' in (target / "pi_demo" / "__init__.py").read_text()

    result = await world.run("remove", "pypi:PI_Demo")
    assert (result.code, result.out) == (0, "Removed pypi:PI_Demo\n")
    assert not target.exists() and _packages(world) == []


async def test_pip_failure_is_reported(world: PackageWorld, index: SimpleIndex) -> None:
    result = await world.run("install", "pypi:pi-missing")
    assert result.code == 1
    assert result.err.startswith("Error: pip failed for pi-missing: ")
    assert not (world.agent_dir / "settings.json").exists()


def test_host_constraints_pin_the_running_distributions() -> None:
    pins = host_constraints()
    for name in ("pi-coding-agent", "httpx", "pydantic"):
        assert f"{name}=={metadata.version(name)}" in pins


_LOAD_ENTRY_POINT = """
import sys
from importlib import metadata
target = sys.argv[1]
sys.path.append(target)
(dist,) = [d for d in metadata.distributions(path=[target]) if d.metadata["Name"] == "pi-demo"]
(point,) = [p for p in dist.entry_points if p.group == "pi.extensions"]
print(point.load()(None))
"""


async def test_missing_project_package_is_installed_then_updated(world: PackageWorld, index: SimpleIndex) -> None:
    index.add("pi-demo", *_demo("1.0.0"))
    (world.cwd / ".pi").mkdir()
    (world.cwd / ".pi" / "settings.json").write_text(json.dumps({"packages": ["pypi:pi-demo", "pypi:pi-absent"]}))
    store = PackageStore(world.agent_dir, world.cwd, True)
    warnings: list[str] = []
    packages = resolve_packages(store, warnings)
    assert [(p.source.identity, p.scope, p.installed) for p in packages] == [
        ("pypi:pi-demo", "project", False),
        ("pypi:pi-absent", "project", False),
    ]
    assert await install_missing(store, packages, warnings) == 1
    assert len(warnings) == 1 and warnings[0].startswith("Failed to install package pypi:pi-absent: pip failed")
    assert (world.cwd / ".pi" / "pypi" / "pi-demo" / "pi_demo" / "ext.py").is_file()
    assert (world.cwd / ".pi" / "pypi" / ".gitignore").is_file()

    (world.cwd / ".pi" / "settings.json").write_text(json.dumps({"packages": ["pypi:pi-demo"]}))
    index.add("pi-demo", *_demo("1.1.0"))
    result = await world.run("update", "--extensions")
    assert (result.code, result.out) == (0, "Updated 1 package:\n  pypi:pi-demo (project) 1.0.0 -> 1.1.0\n")
