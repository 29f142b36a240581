#!/usr/bin/env python3
"""Fails when engine, kernel or app code runs CUDA work on the legacy default stream (stream 0).

Every device operation takes its caller's stream or owns one (lacuna::OwnedStream): work on
stream 0 would wait for, and hold up, every other stream of the process (a fill on a worker
thread, the document's stream, a line being dragged). This finds what a reader can see:
  - runtime calls that always use stream 0: cudaMemcpy, cudaMemcpy2D, cudaMemset, cudaMemset2D,
    cudaDeviceSynchronize;
  - stream arguments spelled nullptr, 0 or cudaStreamLegacy in cudaMemcpy*Async,
    cudaMemset*Async, cudaStreamSynchronize, cudaEventRecord, cudaStreamWaitEvent, the kernel
    launchers (launch_*, pm_launch_*, blend_launch_*) and event helpers (record, order_before);
  - kernel launches <<<grid, block>>> or <<<grid, block, shared>>> without a stream.
A default argument (`DeviceStream stream = nullptr`) is not a call and is not flagged; see
docs/architecture.md, "Threads and streams".
Usage: tools/check-device-streams.py [ROOT]  (exit 1 and one line per finding when any)."""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
FOLDERS = ["engine", "kernels", "app"]
SUFFIXES = {".cpp", ".cu", ".hpp", ".h", ".cuh"}

ALWAYS_DEFAULT = re.compile(r"\b(cudaMemcpy|cudaMemcpy2D|cudaMemset|cudaMemset2D|cudaDeviceSynchronize)\s*\(")
LAST_ARG_STREAM = re.compile(
    r"\b(cudaMemcpyAsync|cudaMemcpy2DAsync|cudaMemsetAsync|cudaMemset2DAsync|cudaEventRecord|"
    r"(?:pm_|blend_)?launch_\w+|record|order_before)\s*\(")
FIRST_ARG_STREAM = re.compile(r"\b(cudaStreamSynchronize|cudaStreamWaitEvent)\s*\(")
LAUNCH = re.compile(r"<<<(.*?)>>>", re.S)
DEFAULT_SPELLINGS = {"nullptr", "0", "NULL", "cudaStreamLegacy", "cudaStreamPerThread"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def arguments(text, open_paren):
    """The top-level arguments of the call whose '(' is at open_paren, or None."""
    depth, args, start = 0, [], open_paren + 1
    for i in range(open_paren, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                return [a.strip() for a in args]
        elif ch == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
    return None


def is_declaration(text, match_start):
    """A function declaration or definition (a type before the name), not a call."""
    line_start = text.rfind("\n", 0, match_start) + 1
    before = re.sub(r"[\w:]*::$", "", text[line_start:match_start].strip()).strip()
    return bool(re.search(r"\b(cudaError_t|void|double|bool|auto|int)$|>$", before))


def findings(path):
    text = strip_comments(path.read_text(errors="replace"))
    line_of = lambda pos: text.count("\n", 0, pos) + 1
    out = []
    for m in ALWAYS_DEFAULT.finditer(text):
        out.append((line_of(m.start()), f"{m.group(1)} always runs on the default stream"))
    for pattern, which in ((LAST_ARG_STREAM, -1), (FIRST_ARG_STREAM, 0)):
        for m in pattern.finditer(text):
            if is_declaration(text, m.start()):
                continue
            args = arguments(text, m.end() - 1)
            if args is None:
                continue
            if which == -1 and m.group(1) in ("record", "order_before") and args == [""]:
                out.append((line_of(m.start()), f"{m.group(1)}() without a stream"))
                continue
            if not args or args == [""]:
                continue
            if args[which] in DEFAULT_SPELLINGS:
                out.append((line_of(m.start()), f"{m.group(1)} on the default stream ({args[which]})"))
    if path.suffix == ".cu":
        for m in LAUNCH.finditer(text):
            config = arguments("(" + m.group(1) + ")", 0) or []
            if len(config) < 4 or config[3] in DEFAULT_SPELLINGS:
                out.append((line_of(m.start()), "kernel launch without a stream"))
    return out


def main():
    bad = 0
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            for line, what in findings(path):
                print(f"{path.relative_to(ROOT)}:{line}: {what}")
                bad += 1
    if bad:
        print(f"check-device-streams: {bad} use(s) of the default stream", file=sys.stderr)
        return 1
    print("check-device-streams: no work on the default stream")
    return 0


if __name__ == "__main__":
    sys.exit(main())
