"""Pickers and dialogs shown in the editor's place: model, thinking, settings, sessions, fork, tree."""
