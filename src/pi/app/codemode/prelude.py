"""The JavaScript that gives a script its globals, built over one host hook (`__pi_host`).

The worker evaluates `PRELUDE` once, then the script wrapped by `wrap_script`. The hook takes an
operation name and a JSON payload and answers with JSON; errors come back as `{"error": ...}` and
are thrown inside the VM, because an exception raised in a host function cannot cross into QuickJS.
"""

from __future__ import annotations

import json

MAX_OUTPUT_CALLS = 100000
MAX_OUTPUT_CHARS = 16777216
MAX_STORE_VALUE_CHARS = 262144
MAX_STORE_TOTAL_CHARS = 1048576

PRELUDE = (
    r"""
(() => {
  const host = globalThis.__pi_host;
  delete globalThis.__pi_host;
  const ask = (op, payload) => {
    const answer = JSON.parse(host(op, JSON.stringify(payload === undefined ? null : payload)));
    if (answer && typeof answer === "object" && "error" in answer) {
      throw new (globalThis[answer.errorType] || Error)(answer.error);
    }
    return answer === null ? undefined : answer.value;
  };
  const config = ask("config");
  const LIMITS = { calls: __MAX_CALLS__, chars: __MAX_CHARS__, value: __MAX_VALUE__, total: __MAX_TOTAL__ };
  let outputCalls = 0;
  let outputChars = 0;
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value === undefined) return "undefined";
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") return String(value);
    try {
      const json = JSON.stringify(value, null, 2);
      return json === undefined ? String(value) : json;
    } catch (error) {
      return String(value);
    }
  };
  const emit = (item, size) => {
    outputCalls += 1;
    outputChars += size;
    if (outputCalls > LIMITS.calls) {
      throw new RangeError("Too many text(), image() and console calls (more than " + LIMITS.calls + ")");
    }
    if (outputChars > LIMITS.chars) {
      throw new RangeError("Script output is larger than " + LIMITS.chars + " characters");
    }
    ask("output", item);
  };
  globalThis.text = (value) => {
    const s = show(value);
    emit({ type: "text", text: s }, s.length);
  };
  globalThis.image = (value) => {
    let spec = value;
    if (typeof value === "string") spec = { url: value };
    else if (value && typeof value === "object" && typeof value.image_url === "string") spec = { url: value.image_url };
    else if (value && typeof value === "object" && value.image_url && typeof value.image_url.url === "string") {
      spec = { url: value.image_url.url };
    } else if (value && typeof value === "object" && value.type === "image") {
      spec = { data: value.data, mimeType: value.mimeType };
    } else {
      throw new TypeError("image() takes a base64 data: URL, {image_url}, or {type: \"image\", data, mimeType}");
    }
    const item = ask("image", spec);
    emit(item, item.data.length);
  };
  const log = (level) => (...args) => {
    const line = args.map(show).join(" ");
    emit({ type: "console", level, text: line }, line.length);
  };
  globalThis.console = {
    log: log("log"), info: log("info"), warn: log("warn"), error: log("error"), debug: log("debug"),
  };
  const pending = new Map();
  const callTool = (name, args) => {
    const id = ask("call", { name, args: args === undefined ? {} : args });
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  };
  if (config.models) {
    const modelCall = (name) => (...args) => {
      const id = ask("model", { name: "models." + name, args: args.map((a) => (a === undefined ? null : a)) });
      return new Promise((resolve, reject) =>
        pending.set(id, { resolve: (v) => resolve(v === null ? undefined : v), reject }),
      );
    };
    globalThis.models = Object.freeze({
      getModelsOfType: modelCall("getModelsOfType"),
      getAvailableOfType: modelCall("getAvailableOfType"),
      getModelOfType: modelCall("getModelOfType"),
      classify: modelCall("classify"),
      generateImages: modelCall("generateImages"),
    });
  }
  const tools = {};
  for (const entry of config.tools) {
    const fn = (args) => callTool(entry.name, args);
    tools[entry.identifier] = fn;
    if (entry.name !== entry.identifier) tools[entry.name] = fn;
  }
  globalThis.tools = Object.freeze(tools);
  globalThis.ALL_TOOLS = Object.freeze(
    config.tools.map((t) => Object.freeze({ name: t.identifier, description: t.description })),
  );
  globalThis.searchTools = (query, options) => {
    const opts = options || {};
    return ask("search", { query: String(query), limit: opts.limit, namespace: opts.namespace });
  };
  globalThis.describeTool = (name) => {
    const found = config.tools.find((t) => t.identifier === name || t.name === name);
    return found ? found.declaration : undefined;
  };
  globalThis.describeNamespace = (name) => {
    const key = String(name).replace(/[^A-Za-z0-9_$]/g, "_");
    const found = config.namespaces.find(
      (n) => n.name === name || n.identifier === key || (n.aliases || []).includes(name),
    );
    if (!found) return undefined;
    const out = { name: found.name };
    if (found.description) out.description = found.description;
    if (found.instructions) out.instructions = found.instructions;
    out.tools = config.tools.filter((t) => t.namespace === found.name).map((t) => t.identifier);
    return out;
  };
  const stored = new Map(Object.entries(config.store || {}));
  const writes = new Map();
  const deleted = new Set();
  const storedSize = () => {
    let total = 0;
    for (const json of stored.values()) total += json.length;
    return total;
  };
  globalThis.store = (key, value) => {
    const k = String(key);
    if (value === undefined) {
      stored.delete(k);
      writes.delete(k);
      deleted.add(k);
      return;
    }
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError("store() values must be JSON values");
    if (json.length > LIMITS.value) {
      throw new RangeError(
        "store() value for " + JSON.stringify(k) + " is larger than " + LIMITS.value + " JSON characters",
      );
    }
    const before = stored.get(k);
    stored.set(k, json);
    if (storedSize() > LIMITS.total) {
      if (before === undefined) stored.delete(k); else stored.set(k, before);
      throw new RangeError("The codemode store would be larger than " + LIMITS.total + " JSON characters");
    }
    writes.set(k, json);
    deleted.delete(k);
  };
  globalThis.load = (key) => {
    const json = stored.get(String(key));
    return json === undefined ? undefined : JSON.parse(json);
  };
  const EXIT = {};
  globalThis.exit = () => { throw EXIT; };
  const describe = (error) => {
    if (error instanceof Error) {
      const head = error.name + ": " + error.message;
      const stack = typeof error.stack === "string" ? error.stack.replace(/\s+$/, "") : "";
      return stack ? head + "\n" + stack : head;
    }
    return "Uncaught " + show(error);
  };
  globalThis.__pi_pending = () => pending.size;
  globalThis.__pi_settle = (id, ok, value) => {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    if (ok) entry.resolve(value); else entry.reject(new Error(value));
  };
  globalThis.__pi_state = { done: false };
  globalThis.__pi_finish = (ok, value) => {
    let failure;
    if (ok) {
      try {
        if (value !== undefined) globalThis.text(value);
      } catch (error) {
        ok = false;
        failure = describe(error);
      }
    } else if (value === EXIT) {
      ok = true;
    } else {
      failure = describe(value);
    }
    const set = {};
    for (const [k, json] of writes) set[k] = JSON.parse(json);
    globalThis.__pi_state = { done: true, ok, error: failure, store: { set, delete: [...deleted] } };
  };
})();
""".replace("__MAX_CALLS__", str(MAX_OUTPUT_CALLS))
    .replace("__MAX_CHARS__", str(MAX_OUTPUT_CHARS))
    .replace("__MAX_VALUE__", str(MAX_STORE_VALUE_CHARS))
    .replace("__MAX_TOTAL__", str(MAX_STORE_TOTAL_CHARS))
)


def wrap_script(code: str) -> str:
    """The script as the body of an async function; its first line stays line 1."""
    return "(async () => {" + code + "\n})().then((v) => __pi_finish(true, v), (e) => __pi_finish(false, e));"


def settle_call(call_id: str, ok: bool, value: object) -> str:
    """JavaScript that settles one pending tool call (JSON is a valid JavaScript literal)."""
    return f"__pi_settle({json.dumps(call_id)}, {'true' if ok else 'false'}, {json.dumps(value)});"


__all__ = ["MAX_OUTPUT_CALLS", "MAX_OUTPUT_CHARS", "PRELUDE", "settle_call", "wrap_script"]
