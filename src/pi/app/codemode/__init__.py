"""Codemode: the `codemode` tool runs model-written JavaScript that calls other tools.

The JavaScript runs in QuickJS inside a child process per script (`pi.app.codemode.worker`); this
process keeps the tools and answers the script's tool calls. Nothing here imports QuickJS.
"""
