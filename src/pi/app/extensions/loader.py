"""Importing extensions and running their `setup(pi)`.

Each file is imported afresh under a private module name, `pi_ext_<sha8 of its path>_<generation>`,
so a reload never reuses a module from `sys.modules`; a package is imported with its directory as
search location, so its relative imports work. Registrations made by `setup` count only when it
returns normally. Every failure becomes an error diagnostic with pi's wording; the caller decides
whether that is fatal (at start-up) or only shown (after a reload).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import itertools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from msgspec import Struct, field

from pi.app.extensions import errors
from pi.app.extensions.api import ExtensionAPI
from pi.app.extensions.discovery import ExtensionSource
from pi.app.extensions.event_bus import EventBus
from pi.app.extensions.extension import Extension
from pi.app.extensions.registry import ExtensionRegistry
from pi.app.extensions.runtime import ExtensionRuntime
from pi.app.extensions.types import Diagnostic, SourceInfo

_generations = itertools.count(1)


def next_generation() -> int:
    """A number no earlier load in this process used (module names include it)."""
    return next(_generations)


def module_name(file: Path, generation: int) -> str:
    digest = hashlib.sha256(str(file.resolve()).encode()).hexdigest()[:8]
    return f"pi_ext_{digest}_{generation}"


class _ExtensionFinder(importlib.abc.MetaPathFinder):
    """Lets the import system find an extension under its private name while it is being imported.

    Importing through `importlib.import_module` (rather than executing a module by hand) leaves the
    bookkeeping to Python: the module is registered while it runs, so its relative imports,
    dataclasses and pickling work, and it is unregistered again if it fails to import.
    """

    def __init__(self) -> None:
        self.pending: dict[str, tuple[Path, list[str] | None]] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        entry = self.pending.get(fullname)
        if entry is None:
            return None
        file, locations = entry
        return importlib.util.spec_from_file_location(fullname, file, submodule_search_locations=locations)


_finder: _ExtensionFinder | None = None


def import_extension_module(file: Path, generation: int, package: bool) -> ModuleType:
    """Import `file` under a fresh name (a package's `__init__.py` with its directory searchable)."""
    global _finder
    if _finder is None:
        _finder = _ExtensionFinder()
        sys.meta_path.append(_finder)
    name = module_name(file, generation)
    _finder.pending[name] = (file, [str(file.parent)] if package else None)
    try:
        return importlib.import_module(name)
    finally:
        del _finder.pending[name]


class LoadResult(Struct):
    extensions: list[Extension] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(d.level == "error" for d in self.diagnostics)


def _source_info(source: ExtensionSource) -> SourceInfo:
    kind_source = {"builtin": "builtin", "inline": "sdk", "entry_point": "package"}.get(source.kind, "local")
    return SourceInfo(source.path, kind_source, source.scope, source.origin, source.base_dir)


class ExtensionLoader:
    """Loads sources into one runtime. Loading a source already loaded here reuses it (the trust
    bootstrap pass and the final pass share instances)."""

    def __init__(self, runtime: ExtensionRuntime) -> None:
        self.runtime = runtime
        self.bus = EventBus()
        self.apis: dict[str, ExtensionAPI] = {}
        self._loaded: dict[str, Extension] = {}
        self._failed: dict[str, Diagnostic] = {}

    @property
    def registry(self) -> ExtensionRegistry:
        return self.runtime.registry

    def _factory(self, source: ExtensionSource) -> Callable[..., Any] | str:
        """The setup callable, or the error text when the source has none."""
        if source.factory is not None:
            return source.factory
        factory: Any
        if source.kind == "entry_point":
            factory = source.entry_point.load()
        else:
            assert source.file is not None
            module = import_extension_module(source.file, self.runtime.generation, source.kind == "package")
            factory = getattr(module, "setup", None)
        if not callable(factory):
            return errors.missing_factory(source.path)
        setup: Callable[..., Any] = factory
        return setup

    async def load_one(self, source: ExtensionSource) -> Extension | Diagnostic:
        """Import and set up one extension; a failure comes back as an error diagnostic."""
        existing = self._loaded.get(source.key) or self._failed.get(source.key)
        if existing is not None:
            return existing
        outcome = await self._load_new(source)
        if isinstance(outcome, Diagnostic):
            self._failed[source.key] = outcome
        return outcome

    async def _load_new(self, source: ExtensionSource) -> Extension | Diagnostic:
        try:
            factory = self._factory(source)
        except Exception as error:
            return Diagnostic(
                "error",
                errors.failed_to_load(source.path, errors.load_exception(errors.error_text(error))),
                source.path,
            )
        if isinstance(factory, str):
            return Diagnostic("error", errors.failed_to_load(source.path, factory), source.path)
        extension = Extension(
            source.path,
            _source_info(source),
            source.replaceable,
            source.name if source.kind == "builtin" else None,
            source.hidden,
        )
        api = ExtensionAPI(extension, self.runtime, self.bus)
        try:
            result = factory(api)
            if inspect.isawaitable(result):
                await result
        except Exception as error:
            extension.state = "failed"
            for unsubscribe in extension.bus_unsubscribers:
                unsubscribe()
            extension.bus_unsubscribers.clear()
            return Diagnostic(
                "error",
                errors.failed_to_load(source.path, errors.load_exception(errors.error_text(error))),
                source.path,
            )
        self.registry.commit(extension)
        self.apis[source.path] = api
        self._loaded[source.key] = extension
        return extension

    async def load(self, sources: Sequence[ExtensionSource]) -> LoadResult:
        """Load the enabled sources in order, then settle replaced built-ins and conflicts."""
        result = LoadResult()
        order: list[Extension] = []
        for source in sources:
            if not source.enabled:
                continue
            outcome = await self.load_one(source)
            if isinstance(outcome, Diagnostic):
                result.diagnostics.append(outcome)
            else:
                order.append(outcome)
        others = [ext for ext in self.registry.extensions if ext not in order]
        self.registry.extensions[:] = order + others  # handler order follows this pass's load order
        result.diagnostics.extend(self.registry.finalize())
        result.extensions = self.registry.active()
        return result


async def load_extensions(
    sources: Sequence[ExtensionSource], cwd: Path, registry: ExtensionRegistry | None = None
) -> tuple[ExtensionLoader, LoadResult]:
    """Load `sources` into a new runtime generation; returns the loader (runtime, APIs) and the result."""
    runtime = ExtensionRuntime(registry or ExtensionRegistry(), cwd, next_generation())
    loader = ExtensionLoader(runtime)
    return loader, await loader.load(sources)


_offered: dict[Path, ExtensionLoader] = {}
"""Loaders of an earlier pass in this process (the CLI's project-trust pass), by cwd, kept for the session."""


def offer_loader(cwd: Path, loader: ExtensionLoader) -> None:
    """Keep `loader` so that the next session load in `cwd` reuses its instances (setup runs once)."""
    _offered[cwd.resolve()] = loader


def take_offered_loader(cwd: Path) -> ExtensionLoader | None:
    """The loader `offer_loader` kept for `cwd`, handed out once."""
    return _offered.pop(cwd.resolve(), None)


def startup_failure_lines(diagnostics: Sequence[Diagnostic]) -> list[str]:
    """What the CLI prints to stderr before exiting 1 when loading failed at start-up (empty when fine)."""
    if not any(d.level == "error" for d in diagnostics):
        return []
    return [d.render() for d in diagnostics] + [errors.NO_EXTENSIONS_HINT]


__all__ = [
    "ExtensionLoader",
    "LoadResult",
    "import_extension_module",
    "load_extensions",
    "module_name",
    "next_generation",
    "offer_loader",
    "startup_failure_lines",
    "take_offered_loader",
]
