"""The ``---`` header of skill and prompt-template files.

Only flat ``key: value`` pairs are read (with quoted values and ``|`` / ``>`` block scalars), which
is all these files use; nested mappings such as ``metadata`` are kept as raw text. A YAML library
would cost more start-up time than the whole feature.
"""

from __future__ import annotations


def split_frontmatter(text: str) -> tuple[dict[str, str], str]:
    """(fields, body). A file without a closing ``---`` has no frontmatter."""
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            return _parse(lines[1:end]), "\n".join(lines[end + 1 :])
    return {}, text


def _parse(lines: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#") or line[:1] in (" ", "\t"):
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if value in ("|", ">", "|-", ">-", "|+", ">+"):
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i][:1] in (" ", "\t")):
                block.append(lines[i].strip())
                i += 1
            joiner = "\n" if value.startswith("|") else " "
            fields[key] = joiner.join(block).strip()
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in ("'", '"'):
            value = value[1:-1]
            if line.partition(":")[2].strip().startswith('"'):
                value = value.replace('\\"', '"').replace("\\n", "\n")
        fields[key] = value
    return fields


__all__ = ["split_frontmatter"]
