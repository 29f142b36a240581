#!/usr/bin/env python3
"""Fails when engine, kernel, app or test code runs CUDA work on the legacy default stream (stream 0).

Every device operation takes its caller's stream or owns one (lacuna::OwnedStream): work on
stream 0 would wait for, and hold up, every other stream of the process (a fill on a worker
thread, the document's stream, a line being dragged). This finds what a reader can see:
  - runtime calls that always use stream 0: cudaMemcpy, cudaMemcpy2D/3D, cudaMemcpyPeer,
    cudaMemcpyToSymbol, cudaMemcpyFromSymbol, cudaMemset, cudaMemset2D/3D, cudaDeviceSynchronize;
  - stream arguments spelled nullptr, 0, {} or cudaStreamLegacy in cudaMemcpy*Async,
    cudaMemset*Async, cudaMallocAsync, cudaFreeAsync, cudaLaunchKernel, cudaStreamSynchronize,
    cudaStreamWaitEvent, cudaEventRecord, the kernel launchers (launch_*, pm_launch_*,
    blend_launch_*), the event helpers (record, order_before) and set_stream;
  - kernel launches <<<grid, block>>> or <<<grid, block, shared>>> without a stream;
  - a default argument that makes a stream parameter optional (`DeviceStream stream = nullptr`):
    a caller that leaves it out runs on stream 0 without a word in its code;
  - the owned device resources made or used without a stream: a DeviceImage constructed from a
    host view alone, or from a size whose last argument does not name a stream (by the house
    convention a stream argument's expression says `stream`: `stream.get()`, `doc.stream()`,
    `result_stream`), a DeviceBuffer's zero_async/upload/download without their stream argument
    (the receiver is a DeviceBuffer declared in the same file), CudaScaler, CudaBilateral and
    CudaConv3d made without a stream, and upload_order without one.
A line (or the line above it) saying `check-device-streams: allow` is skipped: tests that show a
call refusing a missing stream, or a CPU-only build that has none to give. See
docs/architecture.md, "Threads and streams".
Usage: tools/check-device-streams.py [ROOT | FILE...]  (exit 1 and one line per finding when any)."""
import pathlib
import re
import sys

FOLDERS = ["engine", "kernels", "app", "tests"]
SUFFIXES = {".cpp", ".cu", ".hpp", ".h", ".cuh"}
ALLOW = "check-device-streams: allow"

ALWAYS_DEFAULT = re.compile(
    r"\b(cudaMemcpy|cudaMemcpy2D|cudaMemcpy3D|cudaMemcpyPeer|cudaMemcpyToSymbol|"
    r"cudaMemcpyFromSymbol|cudaMemset|cudaMemset2D|cudaMemset3D|cudaDeviceSynchronize)\s*\(")
LAST_ARG_STREAM = re.compile(
    r"\b(cudaMemcpyAsync|cudaMemcpy2DAsync|cudaMemcpy3DAsync|cudaMemcpyPeerAsync|"
    r"cudaMemcpyToSymbolAsync|cudaMemcpyFromSymbolAsync|cudaMemsetAsync|cudaMemset2DAsync|"
    r"cudaMemset3DAsync|cudaMallocAsync|cudaFreeAsync|cudaLaunchKernel|cudaEventRecord|"
    r"(?:pm_|blend_)?launch_\w+|record|order_before|set_stream)\s*\(")
FIRST_ARG_STREAM = re.compile(r"\b(cudaStreamSynchronize|cudaStreamWaitEvent)\s*\(")
LAUNCH = re.compile(r"<<<(.*?)>>>", re.S)
DEFAULT_SPELLINGS = {"nullptr", "0", "NULL", "{}", "cudaStreamLegacy", "cudaStreamPerThread",
                     "DeviceStream{}", "DeviceStream()", "cudaStream_t{}", "cudaStream_t()"}
DEFAULT_PARAMETER = re.compile(
    r"\b(DeviceStream|cudaStream_t|CUstream_st\s*\*)\s*(?:const\s+)?\w*\s*=\s*"
    r"(nullptr|0|NULL|\{\}|cudaStreamLegacy|cudaStreamPerThread)\s*[,)]")
# DeviceImage<T> name(args) / name{args}, DeviceImage<T>(args), make_unique<DeviceImage<T>>(args).
DEVICE_IMAGE = re.compile(
    r"\bDeviceImage<[^<>;]*(?:<[^<>;]*>)?[^<>;]*>\s*(?:>\s*)?(?:(?:const\s+)?\w+\s*)?([({])")
OPERATOR_CLASS = re.compile(
    r"\b(CudaScaler|CudaBilateral|CudaConv3d)\s*(?:>\s*)?(?:\w+\s*)?([({])")
UPLOAD_ORDER = re.compile(r"\bupload_order\s*\(")
BUFFER_DECLARATION = re.compile(r"\bDeviceBuffer<[^;(){}]*?>\s*&?\s*([\w\s,]+?)\s*[;)=,{]")
BUFFER_CALL = re.compile(r"\b(\w+)\s*(?:\[[^\]]*\])?\s*\.\s*(zero_async|upload|download)\s*\(")
STREAMISH = re.compile(r"stream|\.get\(\)$", re.I)
PARAMETER = re.compile(r"(?:const\s+)?[\w:]+(?:<[^()]*>)?(?:\s*[&*]\s*|\s+)(?:const\s+)?\w+")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def arguments(text, open_paren):
    """The top-level arguments of the call whose '(' or '{' is at open_paren, or None."""
    depth, args, start = 0, [], open_paren + 1
    for i in range(open_paren, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                args = [a.strip() for a in args]
                return [] if args == [""] else args
        elif ch == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
    return None


def is_declaration(text, match_start):
    """A function declaration or definition (a type before the name), not a call."""
    line_start = text.rfind("\n", 0, match_start) + 1
    before = re.sub(r"[\w:]*::$", "", text[line_start:match_start].strip()).strip()
    return bool(re.search(r"\b(cudaError_t|void|double|bool|auto|int|DeviceSeamOrder)$|>$", before))


def is_default(arg):
    return re.sub(r"\s+", "", arg) in DEFAULT_SPELLINGS


def runtime_findings(text, path):
    out = []
    for m in ALWAYS_DEFAULT.finditer(text):
        out.append((m.start(), f"{m.group(1)} always runs on the default stream"))
    for pattern, which in ((LAST_ARG_STREAM, -1), (FIRST_ARG_STREAM, 0)):
        for m in pattern.finditer(text):
            if is_declaration(text, m.start()):
                continue
            args = arguments(text, m.end() - 1)
            if args is None:
                continue
            if m.group(1) in ("record", "order_before", "set_stream") and not args:
                out.append((m.start(), f"{m.group(1)}() without a stream"))
                continue
            if args and is_default(args[which]):
                out.append((m.start(), f"{m.group(1)} on the default stream ({args[which]})"))
    if path.suffix in (".cu", ".cuh"):
        for m in LAUNCH.finditer(text):
            config = arguments("(" + m.group(1) + ")", 0) or []
            if len(config) < 4 or is_default(config[3]):
                out.append((m.start(), "kernel launch without a stream"))
    for m in DEFAULT_PARAMETER.finditer(text):
        out.append((m.start(), "a stream parameter defaulting to the default stream"))
    return out


def resource_findings(text):
    out = []
    for m in DEVICE_IMAGE.finditer(text):
        args = arguments(text, m.end() - 1)
        if not args:  # DeviceImage<T> x; or x{} / x(): empty, no memory, nothing enqueued
            continue
        if any(PARAMETER.fullmatch(a) or a.startswith("const ") or a.endswith("&") for a in args):
            continue  # a function declared to return a DeviceImage, not a construction
        if len(args) == 1 and not re.search(r"view", args[0], re.I):
            continue  # a move from another image (a temporary a function returned)
        last = args[-1]
        if len(args) == 1 or is_default(last) or not STREAMISH.search(last):
            out.append((m.start(), "a DeviceImage made without a stream"))
    for m in OPERATOR_CLASS.finditer(text):
        before = text[max(0, m.start() - 40):m.start()].rstrip()
        if before.endswith("~") or before.endswith(m.group(1) + "::"):
            continue  # the class's own destructor or constructor definition
        args = arguments(text, m.end() - 1)
        if args is not None and (not args or is_default(args[-1])):
            out.append((m.start(), f"a {m.group(1)} made without a stream"))
    for m in UPLOAD_ORDER.finditer(text):
        if is_declaration(text, m.start()):
            continue
        args = arguments(text, m.end() - 1)
        if args is not None and (len(args) < 2 or is_default(args[-1])):
            out.append((m.start(), "upload_order without a stream"))
    buffers = set()
    for m in BUFFER_DECLARATION.finditer(text):
        buffers.update(n for n in re.split(r"[\s,]+", m.group(1)) if n and n != "const")
    for m in BUFFER_CALL.finditer(text):
        if m.group(1) not in buffers:
            continue
        args = arguments(text, m.end() - 1)
        wanted = 2 if m.group(2) == "zero_async" else 3
        # One argument fewer: the stream left out (no argument at all is a DeviceImage's download).
        if args is not None and (len(args) == wanted - 1 or
                                 (len(args) == wanted and is_default(args[-1]))):
            out.append((m.start(), f"DeviceBuffer::{m.group(2)} without a stream"))
    return out


def findings(path):
    original = path.read_text(errors="replace")
    allowed = {i + 1 for i, line in enumerate(original.split("\n")) if ALLOW in line}
    text = strip_comments(original)
    line_of = lambda pos: text.count("\n", 0, pos) + 1
    found = runtime_findings(text, path) + resource_findings(text)
    lines = sorted({(line_of(pos), what) for pos, what in found})
    return [(n, what) for n, what in lines if n not in allowed and n - 1 not in allowed]


def files(argv):
    if len(argv) > 1 and all(pathlib.Path(a).is_file() for a in argv[1:]):
        return pathlib.Path("."), [pathlib.Path(a) for a in argv[1:]]
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).parent.parent)
    paths = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                paths.append(path)
    return root, paths


def main():
    root, paths = files(sys.argv)
    bad = 0
    for path in paths:
        for line, what in findings(path):
            shown = path.relative_to(root) if path.is_relative_to(root) else path
            print(f"{shown}:{line}: {what}")
            bad += 1
    if bad:
        print(f"check-device-streams: {bad} use(s) of the default stream", file=sys.stderr)
        return 1
    print("check-device-streams: no work on the default stream")
    return 0


if __name__ == "__main__":
    sys.exit(main())
