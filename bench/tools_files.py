"""Benchmarks for the file tools, each beside a naive baseline measured in the same run.

1. edit: one replacement in the middle of a 10 MB file, with the `edit` tool (match, diff, patch,
   atomic write) against a naive edit (read the whole file, split it into lines, replace the line,
   join, write back).
2. read: `offset=5000000` into a 1 GiB file with the `read` tool, which streams and keeps only the
   lines it returns, against a naive read (read the whole file, split it into lines, slice).

Every case runs in a fresh subprocess; its peak RSS is that process's own high-water mark
(`VmHWM`), not `ru_maxrss`, which Linux carries over from the parent across fork and exec. The
files are generated in a temporary directory from repeated blocks of lines and deleted afterwards.

    .venv/bin/python bench/tools_files.py                  # full sizes (about 1 GiB of disk)
    .venv/bin/python bench/tools_files.py --read-mib 128   # quicker
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import Any

_PEAK = textwrap.dedent(
    """
    def peak_mib():
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")
    """
)

EDIT_TOOL_CASE = _PEAK + textwrap.dedent(
    """
    import asyncio, json, os, sys, time
    from pi.tools.edit import EditParams, ReplaceEdit, create_edit_tool

    async def main():
        path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
        tool = create_edit_tool(os.path.dirname(path))
        params = EditParams(path=os.path.basename(path), edits=[ReplaceEdit(old_text=old, new_text=new)])
        started = time.perf_counter()
        result = await tool.execute("bench", params, None, None)
        elapsed = time.perf_counter() - started
        print(json.dumps({"seconds": elapsed, "peak_mib": peak_mib(), "check": result.details.first_changed_line}))

    asyncio.run(main())
    """
)

EDIT_NAIVE_CASE = _PEAK + textwrap.dedent(
    """
    import json, sys, time
    path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
    started = time.perf_counter()
    with open(path, encoding="utf-8", newline="") as handle:
        lines = handle.read().split("\\n")
    index = lines.index(old)
    lines[index] = new
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("\\n".join(lines))
    elapsed = time.perf_counter() - started
    print(json.dumps({"seconds": elapsed, "peak_mib": peak_mib(), "check": index + 1}))
    """
)

READ_TOOL_CASE = _PEAK + textwrap.dedent(
    """
    import asyncio, json, os, sys, time
    from pi.tools.read import ReadParams, create_read_tool

    async def main():
        path, offset = sys.argv[1], int(sys.argv[2])
        tool = create_read_tool(os.path.dirname(path))
        started = time.perf_counter()
        params = ReadParams(path=os.path.basename(path), offset=offset, limit=100)
        result = await tool.execute("bench", params, None, None)
        elapsed = time.perf_counter() - started
        text = result.content[0].text
        print(json.dumps({"seconds": elapsed, "peak_mib": peak_mib(), "check": text.split("\\n", 1)[0]}))

    asyncio.run(main())
    """
)

READ_NAIVE_CASE = _PEAK + textwrap.dedent(
    """
    import json, sys, time
    path, offset = sys.argv[1], int(sys.argv[2])
    started = time.perf_counter()
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().split("\\n")
    window = lines[offset - 1 : offset - 1 + 100]
    total = len(lines)
    elapsed = time.perf_counter() - started
    print(json.dumps({"seconds": elapsed, "peak_mib": peak_mib(), "check": window[0], "total": total}))
    """
)


def line_for(number: int) -> str:
    return f"line {number:010d}: " + "the quick brown fox jumps over the lazy dog " * 2 + "\n"


def make_file(path: str, size: int, block_lines: int = 20_000) -> int:
    """Write numbered lines in large blocks until `size` bytes; returns the number of lines."""
    written = 0
    count = 0
    with open(path, "w", encoding="ascii") as handle:
        while written < size:
            block = "".join(line_for(count + n + 1) for n in range(block_lines))
            handle.write(block)
            written += len(block)
            count += block_lines
    return count


def run_case(script: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmark case failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def report(title: str, tool: dict[str, Any], naive: dict[str, Any]) -> None:
    print(f"\n{title}")
    print(f"{'':22}{'seconds':>10}{'peak RSS MiB':>15}")
    print(f"{'tool':22}{tool['seconds']:>10.3f}{tool['peak_mib']:>15.1f}")
    print(f"{'naive baseline':22}{naive['seconds']:>10.3f}{naive['peak_mib']:>15.1f}")
    print(
        f"{'tool / baseline':22}{tool['seconds'] / naive['seconds']:>10.2f}"
        f"{tool['peak_mib'] / naive['peak_mib']:>15.2f}"
    )


def bench_edit(directory: str, size_mb: int) -> None:
    path = os.path.join(directory, "edit.txt")
    lines = make_file(path, size_mb * 1_000_000, block_lines=5_000)
    middle = lines // 2
    old = line_for(middle).rstrip("\n")
    new = old.replace("quick", "QUICK")
    with open(path, "rb") as handle:
        original = handle.read()
    tool = run_case(EDIT_TOOL_CASE, path, old, new)
    with open(path, "wb") as handle:  # the naive edit gets the same starting file
        handle.write(original)
    naive = run_case(EDIT_NAIVE_CASE, path, old, new)
    assert tool["check"] == naive["check"] == middle, (tool, naive, middle)
    report(f"edit: one line in the middle of a {os.path.getsize(path) / 1e6:.1f} MB file ({lines} lines)", tool, naive)


def bench_read(directory: str, size_mib: int, offset: int) -> None:
    path = os.path.join(directory, "big.txt")
    started = time.perf_counter()
    lines = make_file(path, size_mib * 1024 * 1024)
    made = time.perf_counter() - started
    if lines < offset:
        raise SystemExit(f"{size_mib} MiB holds only {lines} lines; use a smaller --offset")
    print(f"\n(generated {os.path.getsize(path) / 2**30:.2f} GiB, {lines} lines, in {made:.1f} s)")
    # Warm the page cache once so neither side pays for the first disk read.
    with open(path, "rb") as handle:
        while handle.read(1 << 24):
            pass
    tool = run_case(READ_TOOL_CASE, path, str(offset))
    naive = run_case(READ_NAIVE_CASE, path, str(offset))
    expected = line_for(offset).rstrip("\n")
    assert tool["check"] == naive["check"] == expected, (tool["check"], naive["check"], expected)
    report(f"read: offset={offset} limit=100 in a {size_mib} MiB file", tool, naive)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edit-mb", type=int, default=10, help="size of the edited file (MB)")
    parser.add_argument("--read-mib", type=int, default=1024, help="size of the read file (MiB)")
    parser.add_argument("--offset", type=int, default=5_000_000, help="line to read from")
    parser.add_argument("--skip-read", action="store_true", help="only run the edit case")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="pi-bench-files-") as directory:
        bench_edit(directory, args.edit_mb)
        if not args.skip_read:
            bench_read(directory, args.read_mib, args.offset)


if __name__ == "__main__":
    main()
