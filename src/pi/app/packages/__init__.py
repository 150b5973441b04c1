"""Pi packages: bundles of extensions, skills, prompt templates and themes installed from PyPI, git or a directory.

`sources` parses what the user types (`pypi:…`, `git:…`, URLs, paths) into a source with an identity;
`filters` reads settings entries and narrows what a package provides; `contents` finds what a package
provides; `install` puts packages into their managed directories; `resolve` merges both settings
scopes; `session_resources` gives a session the selected paths; `temporary` handles `-e <source>`;
`cli` is `pi install|remove|update|list` (`self_update` for pi itself); `config_items` and `config_ui`
are `pi config`; `update_notice` is the "Extension Updates" startup notice.
"""
