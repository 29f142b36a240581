#!/usr/bin/python3
"""Run `lacuna batch` across machines with Dask distributed (Debian: python3-distributed).

The manifest (a folder's images, or a list file) is cut into shards; each shard is one
`lacuna batch` run on a Dask worker (which uses every GPU of its host, as `lacuna batch` does);
the shards' JSON lines are gathered and printed, then one summary line for the whole job.
Dask does the scheduling, retries and placement; this script only shards and gathers.

    # on a cluster: dask-scheduler on one host, dask-worker tcp://SCHED:8786 on each host
    tools/batch_dask.py retarget --input /data/photos --output /data/out \\
        --scheduler tcp://SCHED:8786 -- --width 75%
    # on this machine: a local cluster of two worker processes
    tools/batch_dask.py retarget --input photos --output out --local-workers 2 -- --width 75%

Every worker must see the input and output folders at the same paths (a shared file system),
and have `lacuna` on PATH (or give --lacuna). Outputs are mirrored as `lacuna batch` does, and a
rerun skips what is done (each shard resumes).
"""
import argparse
import json
import os
import subprocess
import sys
import time

IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp", ".ppm", ".pgm",
                    ".pfm", ".fits", ".fit", ".fts", ".dcm", ".pbm", ".pnm"}
VIDEO_EXTENSIONS = {".mp4", ".m4v", ".mov", ".avi", ".mkv", ".webm", ".mpg", ".mpeg"}


def manifest(input_path, videos, output):
    """(base folder, relative paths) with the rules of `lacuna batch` (videos: retarget; an
    output folder inside the input folder is left out)."""
    wanted = IMAGE_EXTENSIONS | (VIDEO_EXTENSIONS if videos else set())
    if os.path.isdir(input_path):
        found = []
        for folder, _, files in os.walk(input_path):
            here = os.path.abspath(folder)
            if here == output or here.startswith(output + os.sep):
                continue
            for name in files:
                if os.path.splitext(name)[1].lower() in wanted:
                    found.append(os.path.relpath(os.path.join(folder, name), input_path))
        return os.path.abspath(input_path), sorted(found)
    with open(input_path, encoding="utf-8") as listing:
        lines = [line.rstrip("\r\n ") for line in listing]
    entries = [line for line in lines if line and not line.startswith("#")]
    return os.path.abspath(os.path.dirname(input_path) or "."), entries


def run_shard(lacuna, job, shard_list, base, output, options):
    """One `lacuna batch` on a worker: its item lines, its exit status and where it ran."""
    import socket
    started = time.time()
    done = subprocess.run([lacuna, "batch", job, "--input", shard_list, "--base", base,
                           "--output", output] + options,
                          capture_output=True, text=True, check=False)
    return {"host": socket.gethostname(), "pid": os.getpid(), "exit": done.returncode,
            "lines": [line for line in done.stdout.splitlines()
                      if line and not line.startswith('{"summary"')],
            "stderr": done.stderr[-2000:], "seconds": time.time() - started}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", choices=["retarget", "inpaint", "histogram"])
    parser.add_argument("--input", required=True, help="folder or list file")
    parser.add_argument("--output", required=True, help="output folder (shared by the workers)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a running Dask scheduler")
    where.add_argument("--local-workers", type=int, help="start a local cluster of N processes")
    parser.add_argument("--shards", type=int, help="shards (default: 4 per worker)")
    parser.add_argument("--lacuna", default="lacuna", help="the lacuna binary on the workers")
    parser.epilog = "Options after -- go to lacuna batch JOB (e.g. -- --width 75%%)."
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.options = argv[cut + 1:]

    from distributed import Client, LocalCluster  # Debian: python3-distributed

    output = os.path.abspath(args.output)
    base, items = manifest(args.input, args.job == "retarget", output)
    shard_dir = os.path.join(output, ".batch-shards")
    os.makedirs(shard_dir, exist_ok=True)
    cluster = None
    if args.local_workers:
        cluster = LocalCluster(n_workers=args.local_workers, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(args.scheduler)
    try:
        workers = max(1, len(client.scheduler_info()["workers"]))
        count = max(1, min(len(items), args.shards or 4 * workers))
        shard_files = []
        for k in range(count):
            path = os.path.join(shard_dir, f"shard-{k:04d}.txt")
            with open(path, "w", encoding="utf-8") as shard:
                shard.write("".join(item + "\n" for item in items[k::count]))
            shard_files.append(path)
        started = time.time()
        futures = client.map(run_shard, [args.lacuna] * count, [args.job] * count, shard_files,
                             [base] * count, [output] * count, [args.options] * count, pure=False)
        tally = {"ok": 0, "failed": 0, "skipped": 0}
        placed = set()
        shard_failures = 0
        for future in futures:
            result = future.result()
            placed.add(f'{result["host"]}:{result["pid"]}')
            if result["exit"] not in (0, 1):
                shard_failures += 1
                sys.stderr.write(f"batch_dask: a shard failed: {result['stderr']}\n")
            for line in result["lines"]:
                print(line, flush=True)
                status = json.loads(line).get("status", "failed")
                tally[status if status in tally else "failed"] += 1
        seconds = time.time() - started
        worked = tally["ok"] + tally["failed"]
        print(json.dumps({"summary": {"items": len(items), **tally,
                                      "not_started": len(items) - sum(tally.values()),
                                      "shards": count, "shard_failures": shard_failures,
                                      "cluster_workers": workers,
                                      "workers": sorted(placed), "seconds": seconds,
                                      "images_per_s": worked / seconds if seconds > 0 else 0}},
                         separators=(",", ":")), flush=True)
        return 1 if tally["failed"] or shard_failures else 0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
