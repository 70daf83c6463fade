#!/usr/bin/env python3
"""Time whole processes on the generated layouts and print a markdown table.

    python bench/run.py                         # every preset, 3 repeats
    python bench/run.py --sizes 8,128,1024 --repeat 5
    python bench/run.py --load-only --sizes 100000
    python bench/run.py --cmd "python -m rackdesigner" --json results.json

For each preset the layout is (re)generated into --out (bench/out/ by default,
git-ignored; a file is rewritten only when its bytes change), then, --repeat
times and interleaved:

  tomllib   python -c "import tomllib; tomllib.load(open(F,'rb'))"
  validate  rackdesigner validate F --format json --output /dev/null
            (with RACKDESIGNER_TIMINGS=1; a {"timings": {...}} line on stderr
            adds the phase columns)

or, with --load-only, in place of validate:

  load      python -c "from rackdesigner.layout_io import load_path; load_path(F)"

Each child's wall time comes from perf_counter around Popen .. os.wait4, its
peak RSS from the rusage that os.wait4 returns for that child alone. Exit codes
0 and 1 of validate are both success (1 means rule findings); anything else is
reported as a failure with the end of its stderr, and makes this script exit 1.

Children run with the repository root as working directory, so
`python -m rackdesigner` finds the in-tree package even when it is not installed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from generate import PRESETS  # noqa: E402  (small: no layout is built here)

PHASES = ("read", "parse", "model", "analysis", "rules", "output")
LOAD_TARGET_RATIO = 1.2  # load_path <= 1.2 x tomllib parse (the target)
LOAD_TARGET_MB = 600.0
LOAD_TARGET_GPUS = 100_000  # the target is for the 100k layout; small ones are start-up bound


# --------------------------------------------------------------------------- children


class Result:
    def __init__(self, seconds: float, rss_mb: float, code: int, stderr: str):
        self.seconds = seconds
        self.rss_mb = rss_mb
        self.code = code
        self.stderr = stderr

    def timings(self) -> dict[str, float] | None:
        """The phase breakdown from a `{"timings": {...}}` stderr line, if any."""
        for line in reversed(self.stderr.splitlines()):
            line = line.strip()
            if not (line.startswith("{") and '"timings"' in line):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            t = obj.get("timings") if isinstance(obj, dict) else None
            if isinstance(t, dict):
                return {k: float(v) for k, v in t.items() if isinstance(v, (int, float))}
        return None


def run_child(argv: list[str], env: dict[str, str], timeout: float) -> Result:
    """Run argv to completion; wall seconds, peak RSS (MiB), exit code, stderr."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, env=env
        )
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            while True:
                try:
                    _, status, usage = os.wait4(proc.pid, 0)
                    break
                except InterruptedError:
                    continue
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # reaped here; keep Popen from waiting again
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    rss_kib = usage.ru_maxrss  # KiB on Linux
    if sys.platform == "darwin":
        rss_kib /= 1024  # bytes there
    if code < 0 and seconds >= timeout:
        text += f"\n[bench] killed after the {timeout:g} s timeout"
    return Result(seconds, rss_kib / 1024, code, text)


def crashed(stderr: str) -> bool:
    """A Python traceback or a missing module also exits 1: that is no finding."""
    return (
        "Traceback (most recent call last)" in stderr
        or "No module named" in stderr
        or "Error while finding module specification" in stderr
    )


def default_validate_cmd() -> list[str]:
    """The console script next to this interpreter, else on PATH, else python -m."""
    beside = os.path.join(os.path.dirname(sys.executable), "rackdesigner")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return [beside]
    found = shutil.which("rackdesigner")
    if found:
        return [found]
    return [sys.executable, "-m", "rackdesigner"]


# --------------------------------------------------------------------------- helpers


def human_size(n: int) -> str:
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def prepare(sizes: list[int], out: str, python: str) -> list[tuple[int, str]]:
    """Generate the layouts in a child process: this process must stay small, because
    Linux counts a parent's peak RSS into the ru_maxrss of every child it spawns after
    (the child's pre-exec memory is the parent's)."""
    os.makedirs(out, exist_ok=True)
    files = []
    for gpus in sizes:
        path = os.path.abspath(os.path.join(out, f"gpus-{gpus}.toml"))
        subprocess.run(
            [python, os.path.join(HERE, "generate.py"), "--gpus", str(gpus), "-o", path],
            check=True,
            cwd=ROOT,
        )
        files.append((gpus, path))
    return files


def summary(results: list[Result]) -> dict[str, object]:
    secs = [r.seconds for r in results]
    return {
        "best_s": min(secs),
        "median_s": statistics.median(secs),
        "peak_mb": max(r.rss_mb for r in results),
        "runs_s": secs,
    }


def fmt_s(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.2f}"


def best_median(s: dict[str, object] | None) -> str:
    if not s:
        return "–"
    return f"{fmt_s(s['best_s'])} / {fmt_s(s['median_s'])}"


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    ap.add_argument(
        "--sizes",
        default=",".join(map(str, PRESETS)),
        help="comma-separated GPU counts (default: every preset)",
    )
    ap.add_argument(
        "--out",
        default=os.path.join(HERE, "out"),
        help="where generated layouts go (default: bench/out/)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per command and file (3)")
    ap.add_argument(
        "--cmd",
        help='validate command prefix, e.g. "python -m rackdesigner" '
        "(default: the rackdesigner console script, else python -m)",
    )
    ap.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter for the tomllib and --load-only children (default: this one)",
    )
    ap.add_argument(
        "--load-only",
        action="store_true",
        help="time rackdesigner.layout_io.load_path against tomllib instead of validate",
    )
    ap.add_argument(
        "--files",
        help="comma-separated layout files to time as they are, instead of generating "
        "--sizes (e.g. bench/generate.py --spread output)",
    )
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per child (900)")
    ap.add_argument("--json", metavar="FILE", help="also write the raw results as JSON")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        ap.error("--sizes takes comma-separated integers")

    validate = shlex.split(args.cmd) if args.cmd else default_validate_cmd()
    env = dict(os.environ)
    env.pop("RACKDESIGNER_TIMINGS", None)
    env_timed = dict(env, RACKDESIGNER_TIMINGS="1")

    if args.files:
        files = [
            (os.path.basename(f).removesuffix(".toml"), os.path.abspath(f))
            for f in args.files.split(",")
            if f.strip()
        ]
    else:
        print(f"[bench] generating {', '.join(map(str, sizes))} into {args.out}", file=sys.stderr)
        files = [(f"gpus-{gpus}", path) for gpus, path in prepare(sizes, args.out, sys.executable)]
    floor = run_child([args.python, "-c", "pass"], env, 60.0).rss_mb

    def tomllib_argv(path: str) -> list[str]:
        return [args.python, "-c", f"import tomllib; tomllib.load(open({path!r}, 'rb'))"]

    if args.load_only:
        label = "load"

        def subject_argv(path: str) -> list[str]:
            return [
                args.python,
                "-c",
                f"from rackdesigner.layout_io import load_path; load_path({path!r})",
            ]

        ok_codes = {0}
    else:
        label = "validate"

        def subject_argv(path: str) -> list[str]:
            return [*validate, "validate", path, "--format", "json", "--output", os.devnull]

        ok_codes = {0, 1}

    print(f"[bench] {label}: {shlex.join(subject_argv('F'))}", file=sys.stderr)
    rows = []
    failures = 0
    for name, path in files:
        size = os.path.getsize(path)
        base: list[Result] = []
        subj: list[Result] = []
        failed: Result | None = None
        failed_what = ""
        for i in range(args.repeat):
            r = run_child(tomllib_argv(path), env, args.timeout)
            if r.code != 0 or crashed(r.stderr):
                failed, failed_what = r, "tomllib"
                print(
                    f"[bench] {name}: tomllib failed ({r.code})\n{r.stderr[-2000:]}",
                    file=sys.stderr,
                )
                break
            base.append(r)
            r = run_child(subject_argv(path), env_timed, args.timeout)
            print(
                f"[bench] {name} run {i + 1}/{args.repeat}: tomllib "
                f"{base[-1].seconds:.3f} s, {label} {r.seconds:.3f} s "
                f"(exit {r.code}, {r.rss_mb:.0f} MB)",
                file=sys.stderr,
            )
            if r.code not in ok_codes or crashed(r.stderr):
                failed, failed_what = r, label
                print(
                    f"[bench] {name}: {label} failed with exit code {r.code}:\n{r.stderr[-2000:]}",
                    file=sys.stderr,
                )
                break
            subj.append(r)
        failures += failed is not None
        phases: dict[str, float] = {}
        per_run = [t for t in (r.timings() for r in subj) if t]
        for key in {k for t in per_run for k in t}:
            phases[key] = statistics.median(t[key] for t in per_run if key in t)
        rows.append(
            {
                "name": name,
                "file": path,
                "bytes": size,
                "tomllib": summary(base) if base else None,
                label: summary(subj) if subj else None,
                "exit_codes": sorted({r.code for r in subj}),
                "failed": None
                if failed is None
                else {
                    "what": failed_what,
                    "code": failed.code,
                    "stderr_tail": failed.stderr[-2000:],
                },
                "timings_median_s": phases or None,
            }
        )

    # ---- the table
    phase_keys = [
        p for p in PHASES if any(r["timings_median_s"] and p in r["timings_median_s"] for r in rows)
    ]
    phase_keys += sorted({k for r in rows for k in (r["timings_median_s"] or {})} - set(phase_keys))
    head = [
        "preset",
        "file size",
        "tomllib parse s (best / median)",
        f"{label} s (best / median)",
        f"ratio {label}/tomllib",
        f"peak MB {label}",
        "peak MB tomllib",
    ]
    if args.load_only:
        head.append(f"target at 100k (≤ {LOAD_TARGET_RATIO}× tomllib, < {LOAD_TARGET_MB:.0f} MB)")
    head += [f"{k} s" for k in phase_keys]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(head))) + "|")
    for r in rows:
        b, s = r["tomllib"], r[label]
        ratio = (s["best_s"] / b["best_s"]) if (b and s) else None
        cells = [r["name"], human_size(r["bytes"]), best_median(b)]
        f = r["failed"]
        if f and not s:
            cells.append(f"FAILED ({f['what']}, exit {f['code']})")
        elif f:
            cells.append(best_median(s) + f" (then FAILED: {f['what']}, exit {f['code']})")
        else:
            cells.append(best_median(s))
        cells.append(f"{ratio:.2f}" if ratio is not None else "–")
        cells.append(f"{s['peak_mb']:.0f}" if s else "–")
        cells.append(f"{b['peak_mb']:.0f}" if b else "–")
        if args.load_only:
            small = r["name"].startswith("gpus-") and int(r["name"][5:]) < LOAD_TARGET_GPUS
            if ratio is None or small:
                cells.append("–")
            else:
                ok = ratio <= LOAD_TARGET_RATIO and s["peak_mb"] < LOAD_TARGET_MB
                cells.append("met" if ok else "missed")
        for k in phase_keys:
            t = r["timings_median_s"]
            cells.append(fmt_s(t.get(k)) if t and k in t else "–")
        print("| " + " | ".join(cells) + " |")
    print(
        f"\n{args.repeat} run(s) each; ratio = best {label} / best tomllib; peak MB = "
        f"max RSS (MiB) over runs (an empty `python -c pass` shows {floor:.0f}); phase "
        f"columns = median of RACKDESIGNER_TIMINGS. "
        f"Python {sys.version.split()[0]}, {label}: `{shlex.join(subject_argv('F'))}`."
    )

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {"mode": label, "repeat": args.repeat, "command": subject_argv("F"), "rows": rows},
                f,
                indent=2,
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
