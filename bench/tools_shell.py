"""Benchmarks for the shell and search tools, each beside a baseline measured in the same run.

1. bash on a command that prints a lot (``yes | head -c 500M`` by default): peak RSS of a process
   running the bash tool, against a naive runner that captures everything with subprocess.run.
   The tool keeps only a rolling tail in memory, so its peak should not grow with the output.
2. grep over a generated tree (50,000 files by default): the tool with `rg` against the same tool
   with its pure-Python fallback.

Each measurement runs in a fresh subprocess so peak RSS belongs to that case alone.

    .venv/bin/python bench/tools_shell.py              # full sizes
    .venv/bin/python bench/tools_shell.py --bytes 50M --files 5000   # quicker
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

BASH_TOOL_CASE = textwrap.dedent(
    """
    import asyncio, json, os, resource, sys, time
    from pi.tools.bash import BashParams, BashToolOptions, create_bash_tool

    async def main() -> None:
        temp_dir = sys.argv[2]
        tool = create_bash_tool(os.getcwd(), BashToolOptions(temp_dir=temp_dir))
        started = time.perf_counter()
        result = await tool.execute("bench", BashParams(command=sys.argv[1]), None, None)
        elapsed = time.perf_counter() - started
        size = os.path.getsize(result.details.full_output_path)
        os.unlink(result.details.full_output_path)
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"seconds": elapsed, "peak_kb": peak_kb, "file_bytes": size}))

    asyncio.run(main())
    """
)

NAIVE_CASE = textwrap.dedent(
    """
    import json, resource, subprocess, sys, time
    started = time.perf_counter()
    done = subprocess.run(["bash", "-c", sys.argv[1]], capture_output=True)
    elapsed = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": elapsed, "peak_kb": peak_kb, "file_bytes": len(done.stdout)}))
    """
)

GREP_CASE = textwrap.dedent(
    """
    import asyncio, hashlib, json, sys, time
    from pi.tools import ripgrep
    from pi.tools.grep import GrepParams, create_grep_tool

    async def main() -> None:
        root, engine = sys.argv[1], sys.argv[2]
        if engine == "python":
            ripgrep.find_rg = lambda: None
        tool = create_grep_tool(root)
        started = time.perf_counter()
        result = await tool.execute("bench", GrepParams(pattern="needle_[0-9]+", limit=1000), None, None)
        elapsed = time.perf_counter() - started
        text = result.content[0].text
        digest = hashlib.sha256(text.encode()).hexdigest()
        print(json.dumps({"seconds": elapsed, "lines": text.count("\\n") + 1, "text_hash": digest}))

    asyncio.run(main())
    """
)


def parse_size(text: str) -> int:
    units = {"K": 1024, "M": 1024**2, "G": 1024**3}
    if text[-1].upper() in units:
        return int(float(text[:-1]) * units[text[-1].upper()])
    return int(text)


def run_case(code: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmark case failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def bench_bash(size: int) -> None:
    command = f"yes | head -c {size}"
    with tempfile.TemporaryDirectory() as temp_dir:
        tool = run_case(BASH_TOOL_CASE, command, temp_dir)
    naive = run_case(NAIVE_CASE, command)
    mib = 1024
    print(f"bash: {command}")
    print(
        f"  tool   peak RSS {tool['peak_kb'] / mib:8.1f} MiB  time {tool['seconds']:6.2f} s  file {tool['file_bytes']}"
    )
    print(f"  naive  peak RSS {naive['peak_kb'] / mib:8.1f} MiB  time {naive['seconds']:6.2f} s")
    print(
        f"  ratio  memory naive/tool {naive['peak_kb'] / tool['peak_kb']:.1f}x, "
        f"time tool/naive {tool['seconds'] / naive['seconds']:.2f}x"
    )


def make_tree(root: str, files: int) -> None:
    per_dir = 100
    for index in range(files):
        directory = os.path.join(root, f"d{index // per_dir // per_dir:02d}", f"s{index // per_dir % per_dir:02d}")
        if index % per_dir == 0:
            os.makedirs(directory, exist_ok=True)
        lines = [f"line {n} of file {index} with some ordinary words in it" for n in range(40)]
        if index % 97 == 0:
            lines[17] = f"here is needle_{index} to find"
        with open(os.path.join(directory, f"f{index:06d}.txt"), "w") as handle:
            handle.write("\n".join(lines) + "\n")


def bench_grep(files: int) -> None:
    with tempfile.TemporaryDirectory() as root:
        started = time.perf_counter()
        make_tree(root, files)
        print(f"grep: {files} files (tree built in {time.perf_counter() - started:.1f} s)")
        with_rg = run_case(GREP_CASE, root, "rg")
        fallback = run_case(GREP_CASE, root, "python")
    same = "same output" if with_rg["text_hash"] == fallback["text_hash"] else "DIFFERENT OUTPUT"
    print(f"  rg      {with_rg['seconds']:6.2f} s  ({int(with_rg['lines'])} lines)")
    print(f"  python  {fallback['seconds']:6.2f} s  ({int(fallback['lines'])} lines, {same})")
    print(f"  ratio   python/rg {fallback['seconds'] / with_rg['seconds']:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bytes", default="500M", help="output size for the bash case (default 500M)")
    parser.add_argument("--files", type=int, default=50_000, help="files in the grep tree (default 50000)")
    args = parser.parse_args()
    bench_bash(parse_size(args.bytes))
    bench_grep(args.files)


if __name__ == "__main__":
    main()
