#!/usr/bin/python3
"""The Dask recipe (tools/batch_dask.py) on a local cluster of two worker processes: every
generated image is retargeted exactly once, the outputs are mirrored and whole, and a rerun skips
them all. Exits 77 (skipped) where Dask distributed is not installed."""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib


def write_png(path, width, height, seed):
    rows = b"".join(b"\x00" + bytes(((x * 7 + seed * 30) % 256, (y * 5) % 256, ((x + y) * 3) % 256)
                                    [c] for x in range(width) for c in range(3))
                    for y in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def png_width(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">I", head[16:20])[0]


def main():
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("Dask distributed is not installed (Debian: python3-distributed): skipped")
        return 77
    lacuna, recipe = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        inputs = os.path.join(tmp, "in")
        names = [f"set{k % 3}/img{k:02d}.png" for k in range(10)]
        for k, name in enumerate(names):
            write_png(os.path.join(inputs, name), 40 + 2 * k, 30, k)
        output = os.path.join(tmp, "out")
        command = [sys.executable, recipe, "retarget", "--input", inputs, "--output", output,
                   "--local-workers", "2", "--lacuna", lacuna, "--", "--width", "50%",
                   "--backend", "cpu"]
        first = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        assert first.returncode == 0, first.stdout + first.stderr
        lines = [json.loads(line) for line in first.stdout.splitlines() if line.strip()]
        items = [line for line in lines if "summary" not in line]
        summary = [line["summary"] for line in lines if "summary" in line][0]
        assert sorted(os.path.relpath(i["input"], inputs) for i in items) == sorted(names), items
        assert all(i["status"] == "ok" for i in items), items
        assert summary["ok"] == 10 and summary["failed"] == 0, summary
        assert summary["cluster_workers"] == 2, summary
        for k, name in enumerate(names):
            assert png_width(os.path.join(output, name)) == (40 + 2 * k) // 2 + ((40 + 2 * k) % 2), name
        again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        assert again.returncode == 0, again.stderr
        summary = [json.loads(line)["summary"] for line in again.stdout.splitlines()
                   if line.startswith('{"summary"')][0]
        assert summary["skipped"] == 10 and summary["ok"] == 0, summary
        print(f"recipe ok: 10 items over {summary['shards']} shards on the workers "
              f"{summary['workers']}; rerun skipped all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
