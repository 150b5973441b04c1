"""The built-in extension `builtin:llama.cpp`: a llama.cpp router server's models in pi, and `/llama`.

`config` finds the router (a stored `llama.cpp` credential's `LLAMA_BASE_URL`, else the
`LLAMA_BASE_URL` environment variable), `client` speaks the router's model-management API,
`catalog` turns its model list into the `llama.cpp` provider's chat and classifier models,
`extension` registers them, and `manager` is the `/llama` dialog.
"""
