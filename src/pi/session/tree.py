"""The entry tree as nodes and as the JSON of RPC ``get_tree`` / ``get_entries``, and copying one path of it.

Trees are built without recursion: a session of 20,000 linear entries is a tree 20,000 levels deep.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec.structs
from msgspec import Struct, field

from pi.session.entries import LabelEntry, SessionEntry, UnknownEntry


class SessionTreeNode(Struct):
    """One entry of the session tree with its children and, when it is bookmarked, its label."""

    entry: SessionEntry
    children: list[SessionTreeNode] = field(default_factory=list)
    """Sorted oldest first."""
    label: str | None = None
    label_timestamp: str | None = None
    """When the label was set (the label entry's timestamp)."""


class Label(Struct, frozen=True):
    """The current bookmark of an entry: the text and ISO timestamp of the latest label entry that set it."""

    text: str
    timestamp: str


def build_tree(entries: Sequence[SessionEntry], labels: Mapping[str, Label]) -> list[SessionTreeNode]:
    """Every entry as a forest (orphans become roots), children oldest first."""
    nodes: dict[str, SessionTreeNode] = {}
    for entry in entries:
        if entry.id:
            label = labels.get(entry.id)
            nodes[entry.id] = SessionTreeNode(
                entry,
                label=label.text if label else None,
                label_timestamp=label.timestamp if label else None,
            )
    roots: list[SessionTreeNode] = []
    for node in nodes.values():
        parent_id = node.entry.parent_id
        parent = nodes.get(parent_id) if parent_id is not None else None
        if parent is None or parent is node:
            roots.append(node)
        else:
            parent.children.append(node)
    for node in nodes.values():
        if len(node.children) > 1:
            node.children.sort(key=lambda n: n.entry.timestamp)
    return roots


def tree_json(roots: Sequence[SessionTreeNode]) -> list[dict[str, Any]]:
    """``[{entry, label?, labelTimestamp?, children}]`` as RPC ``get_tree`` sends it, built iteratively.

    A very deep tree gives deeply nested JSON: encode it with `dumps_tree_data`, which does not recurse
    per level, when sending it.
    """
    out: list[dict[str, Any]] = []
    stack: list[tuple[SessionTreeNode, list[dict[str, Any]]]] = [(root, out) for root in reversed(roots)]
    while stack:
        node, siblings = stack.pop()
        item: dict[str, Any] = {"entry": node.entry.to_dict()}
        if node.label is not None:
            item["label"] = node.label
            if node.label_timestamp is not None:
                item["labelTimestamp"] = node.label_timestamp
        item["children"] = []
        siblings.append(item)
        stack.extend((child, item["children"]) for child in reversed(node.children))
    return out


def dumps_tree_data(data: dict[str, Any]) -> str:
    """`data` (``{"tree": [...], ...}`` from `tree_json`) as compact JSON, without recursing per tree level.

    `json.dumps` recurses once per nesting level and fails on a session a few thousand entries deep;
    here only each node's own fields are encoded by `json.dumps`, and the nesting is written from a stack.
    """

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    parts: list[str] = ["{"]
    rest = [(key, value) for key, value in data.items() if key != "tree"]
    parts.append('"tree":')
    # Each stack item is a node still to write, or a closing string.
    stack: list[dict[str, Any] | str] = ["]"]
    stack.extend(reversed(_with_commas(data.get("tree", []))))
    parts.append("[")
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        own = {key: value for key, value in item.items() if key != "children"}
        head = dumps(own)
        parts.append(head[:-1] + ("," if len(own) else "") + '"children":[')
        stack.append("]}")
        stack.extend(reversed(_with_commas(item.get("children", []))))
    for key, value in rest:
        parts.append(f",{dumps(key)}:{dumps(value)}")
    parts.append("}")
    return "".join(parts)


def _with_commas(nodes: list[dict[str, Any]]) -> list[dict[str, Any] | str]:
    out: list[dict[str, Any] | str] = []
    for index, node in enumerate(nodes):
        if index:
            out.append(",")
        out.append(node)
    return out


def without_labels(path: Sequence[SessionEntry]) -> list[SessionEntry]:
    """`path` (root first) without its label entries, still one chain.

    Labelling moves the leaf, so the entry after a label names the label as its parent; such an entry
    is re-linked to the entry before the label, or the copy would start a new root there.
    """
    out: list[SessionEntry] = []
    for entry in path:
        if isinstance(entry, LabelEntry):
            continue
        parent_id = out[-1].id if out else None
        if entry.parent_id != parent_id:
            if isinstance(entry, UnknownEntry):
                entry = msgspec.structs.replace(entry, parent_id=parent_id, data={**entry.data, "parentId": parent_id})
            else:
                entry = msgspec.structs.replace(entry, parent_id=parent_id)
        out.append(entry)
    return out


__all__ = ["Label", "SessionTreeNode", "build_tree", "dumps_tree_data", "tree_json", "without_labels"]
