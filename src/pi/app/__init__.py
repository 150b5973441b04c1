"""The `pi` program: CLI, modes, settings and resources.

Kept free of imports so that `pi --version` loads only the CLI module.
"""
