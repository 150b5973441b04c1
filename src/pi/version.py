"""The package version, kept in a module of its own so that `pi --version` imports nothing else."""

__version__ = "0.2.0"
