"""Slash commands of the interactive mode: the registry, the handlers, and the API they drive the app through."""
