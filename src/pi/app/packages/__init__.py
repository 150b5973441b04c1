"""Pi packages: bundles of extensions, skills, prompt templates and themes installed from PyPI, git or a directory.

`sources` parses what the user types (`pypi:…`, `git:…`, URLs, paths) into a source with an identity;
`filters` reads settings entries and narrows what a package provides; `contents` finds what a package
provides; `install` puts packages into their managed directories; `cli` is `pi install|remove|update|list`.
"""
