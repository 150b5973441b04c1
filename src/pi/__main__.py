"""`python -m pi` runs the same entry point as the `pi` console script."""

from pi.app.cli import entry

entry()
