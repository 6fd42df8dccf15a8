"""BENCH.md's GPU section: the data-movement workloads W1, W7, W9, W10, W11,
W12 and the scatter workloads of bench/gpu_scatter.py (W2-W6, W8, W13, HOT
float32 and bfloat16, W2x8; PyTorch also with use_deterministic_algorithms)
on CUDA tensors, scatterkit against PyTorch CUDA in the same run,
plus the copy bandwidth probe (a device-to-device copy_ of 1 GiB, bytes read
plus written). Timed with CUDA events on the current stream: warm-up, then
the median of --runs (>= 20) runs. Each workload's result is checked against
PyTorch's once, bit for bit (the data movement) or against scatterkit's CPU
result (the scatter workloads). Byte counts follow bench/workloads.py (the
fewest bytes: inputs read once, outputs written once, index bytes included).

    python bench/gpu_bench.py [--runs 20] [--json out.json]
"""
import argparse
import json
import statistics
import sys

import torch

import scatterkit as sk
from gpu_scatter import run as run_scatter

MB = 1 << 20


def nb(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


def timed(fn, runs, warmup=3):
    """Median milliseconds of fn() over runs, each between two CUDA events."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def copy_bandwidth(runs):
    """GB/s of a 1 GiB device-to-device copy_, bytes read plus written."""
    a = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = timed(lambda: b.copy_(a), runs)
    return 2 * a.numel() / (ms * 1e-3) / 1e9


def workloads(g):
    """(id, what, bytes, scatterkit fn, torch fn) of each workload."""
    dev = "cuda"

    def randn(*shape):
        return torch.randn(*shape, generator=g, device=dev)

    def randint(n, *shape):
        return torch.randint(0, n, shape, generator=g, device=dev)

    out = []
    x1, i1 = randn(2048, 4096), randint(4096, 2048, 4096)
    out.append(("W1", "gather axis 1, f32 [2048,4096], idx int64 [2048,4096]", nb(x1, i1, x1),
                lambda: sk.gather(x1, i1, 1), lambda: torch.gather(x1, 1, i1)))
    t7, i7 = randn(1 << 20, 32), randint(1 << 20, 1 << 21)
    out.append(("W7", "index_select rows, table f32 [1M,32], idx [2M]",
                nb(t7, i7) + (1 << 21) * 32 * 4,
                lambda: sk.index_select(t7, i7, 0), lambda: torch.index_select(t7, 0, i7)))
    x9, s9 = randn(8192, 4096), randn(8192 * 4096)
    m9 = torch.zeros((8192, 1), dtype=torch.bool, device=dev)
    m9[torch.randperm(8192, generator=g, device=dev)[:4096]] = True
    out.append(("W9", "masked_scatter, x f32 [8192,4096], mask [8192,1] half true",
                2 * nb(x9) + nb(m9) + 4096 * 4096 * 4,
                lambda: sk.masked_scatter(x9, m9, s9), lambda: x9.masked_scatter(m9, s9)))
    x10, s10 = randn(8192, 4096), randn(8192, 2048)
    out.append(("W10", "slice_scatter axis 1 step 2, x f32 [8192,4096]", 2 * nb(x10) + nb(s10),
                lambda: sk.slice_scatter(x10, s10, 1, None, None, 2),
                lambda: torch.slice_scatter(x10, s10, 1, None, None, 2)))
    x11, s11 = randn(64, 1024, 1024), randn(64, 1024)
    out.append(("W11", "diagonal_scatter axes 1,2, x f32 [64,1024,1024]", 2 * nb(x11) + nb(s11),
                lambda: sk.diagonal_scatter(x11, s11, 0, 1, 2),
                lambda: torch.diagonal_scatter(x11, s11, 0, 1, 2)))
    x12, i12 = randn(100000, 32), randint(100000, 1 << 20)
    e12 = i12[:, None].expand(1 << 20, 32)
    out.append(("W12", "gather axis 0, x f32 [100k,32], idx [1M,32] expanded",
                nb(x12, i12) + (1 << 20) * 32 * 4,
                lambda: sk.gather(x12, e12, 0), lambda: torch.gather(x12, 0, e12)))
    return out


def run(runs):
    g = torch.Generator(device="cuda")
    g.manual_seed(22)
    copy = copy_bandwidth(runs)
    rows = []
    for wid, what, nbytes, skf, thf in workloads(g):
        same = torch.equal(skf().view(torch.int32), thf().view(torch.int32))
        ms_sk, ms_th = timed(skf, runs), timed(thf, runs)
        rows.append(dict(id=wid, what=what, bytes=nbytes, ms_scatterkit=ms_sk, ms_torch=ms_th,
                         speedup=ms_th / ms_sk, fraction=nbytes / (ms_sk * 1e-3) / 1e9 / copy,
                         bitwise_equal=same, kernel=sk.last_kernel()))
    return copy, rows + run_scatter(g, runs, timed, copy)


def print_rows(rows):
    print(f"{'id':8} {'scatterkit ms':>13} {'torch ms':>9} {'torch det.':>10} {'speed-up':>8} "
          f"{'of copy':>8} {'equal':>5}  kernel / workload")
    for r in rows:
        det = r.get("ms_torch_deterministic", "-")
        det = "refused" if det is None else det if det == "-" else f"{det:.4f}"
        flags = "" if r.get("run_to_run", True) else " NOT EQUAL RUN TO RUN"
        flags += "" if r.get("close_to_torch", True) else " (far from torch's result)"
        print(f"{r['id']:8} {r['ms_scatterkit']:13.4f} {r['ms_torch']:9.4f} {det:>10} "
              f"{r['speedup']:7.2f}x {100 * r['fraction']:7.1f}% {str(r['bitwise_equal']):>5}  "
              f"{r['kernel']}: {r['what']}{flags}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json", help="write the results there")
    a = ap.parse_args(argv)
    if a.runs < 20:
        ap.error("--runs: BENCH.md asks for the median of at least 20 runs")
    if not torch.cuda.is_available() or not sk._C.HAS_CUDA:
        print("gpu_bench: needs a CUDA device and scatterkit built with CUDA", file=sys.stderr)
        return 2
    copy, rows = run(a.runs)
    print(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}; "
          f"copy_ 1 GiB: {copy:.0f} GB/s; median of {a.runs} runs (CUDA events)")
    print_rows(rows)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                           copy_gbs=copy, runs=a.runs, workloads=rows), f, indent=1)
    # closeness to PyTorch is informational: its 16-bit sums accumulate in 16 bits
    ok = all(r["bitwise_equal"] and r.get("run_to_run", True) for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
