"""Where pi's own documentation is installed, for the system prompt's docs section.

The manual ships inside the package (`pi/manual/`: README.md, docs/, examples/) as package data,
so it is found the same way from a wheel, an editable checkout or a zip-free vendored copy. Only
a real directory on disk is useful to the model (it reads the files with its tools), so an
installation that is not on the filesystem has no docs section at all.
"""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct


class DocsPaths(Struct, frozen=True):
    """Absolute paths of the main documentation file and the directories beside it."""

    readme: Path
    docs: Path
    examples: Path

    @classmethod
    def under(cls, root: Path) -> DocsPaths:
        return cls(readme=root / "README.md", docs=root / "docs", examples=root / "examples")

    def exist(self) -> bool:
        return self.readme.is_file() and self.docs.is_dir() and self.examples.is_dir()


def package_docs_dir() -> Path | None:
    """The installed manual's directory, or None if this installation has none on disk.

    The package's own directory is where its data files are; `importlib.resources` would find the
    same place, at the cost of importing its readers on every start. Inside a zip archive the path
    names no real directory, so the check below leaves the section out, as it should.
    """
    import pi

    root = (Path(pi.__file__).parent / "manual").resolve()
    return root if DocsPaths.under(root).exist() else None


def package_docs() -> DocsPaths | None:
    root = package_docs_dir()
    return None if root is None else DocsPaths.under(root)


__all__ = ["DocsPaths", "package_docs", "package_docs_dir"]
