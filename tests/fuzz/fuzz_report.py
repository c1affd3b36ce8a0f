#!/usr/bin/python3
"""fuzz_report.py - the fuzzing done so far, per harness, as a markdown table: runs, CPU-minutes,
executions, coverage (edges: libFuzzer "cov", features: "ft", both the highest any run reached),
corpus size and crash files (crash-/leak-/timeout-/oom- in crashes/<harness>/).

Usage: tests/fuzz/fuzz_report.py [WORKDIR]     (default $WEBNNC_FUZZ_DIR or ~/.cache/webnnc-fuzz)

Reads the libFuzzer logs that run_fuzzers.sh leaves in WORKDIR/logs/<harness>.<time>.log (run with
-print_final_stats=1).  CPU time is the time libFuzzer reports for a run ("Done N runs in S
second(s)", else the time of its last status line): one process, one core.  When run_fuzzers.sh
wrapped the run in /usr/bin/time, the user + system CPU seconds it appended are used instead.
"""
import glob
import os
import re
import sys

STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
DONE = re.compile(r"^Done (\d+) runs in (\d+) second")
EXECS = re.compile(r"^stat::number_of_executed_units: (\d+)")
RATE = re.compile(r"exec/s: (\d+)")
CPU = re.compile(r"^webnnc-fuzz cpu_seconds: ([0-9.]+) ([0-9.]+)")


def parse_log(path):
    r = {"execs": 0, "secs": 0, "cov": 0, "ft": 0, "corp": 0}
    last_n = last_rate = 0
    cpu = None
    with open(path, errors="replace") as f:
        for line in f:
            m = STATUS.match(line)
            if m:
                last_n = int(m.group(1))
                r["cov"] = max(r["cov"], int(m.group(2)))
                r["ft"] = max(r["ft"], int(m.group(3)))
                r["corp"] = int(m.group(4))
                rate = RATE.search(line)
                last_rate = int(rate.group(1)) if rate else last_rate
            m = DONE.match(line)
            if m:
                r["secs"] = int(m.group(2))
            m = CPU.match(line)
            if m:
                cpu = float(m.group(1)) + float(m.group(2))
            m = EXECS.match(line)
            if m:
                r["execs"] = int(m.group(1))
    if not r["execs"]:
        r["execs"] = last_n
    if cpu is not None:
        r["secs"] = cpu
    elif not r["secs"] and last_rate:
        r["secs"] = last_n // last_rate
    return r


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "WEBNNC_FUZZ_DIR", os.path.expanduser("~/.cache/webnnc-fuzz"))
    totals = {}
    for log in sorted(glob.glob(os.path.join(work, "logs", "*.log"))):
        harness = os.path.basename(log).split(".")[0]
        r = parse_log(log)
        t = totals.setdefault(harness, {"runs": 0, "execs": 0, "secs": 0, "cov": 0, "ft": 0, "corp": 0})
        t["runs"] += 1
        t["execs"] += r["execs"]
        t["secs"] += r["secs"]
        t["cov"] = max(t["cov"], r["cov"])
        t["ft"] = max(t["ft"], r["ft"])
        t["corp"] = max(t["corp"], r["corp"])
    print("| harness | runs | CPU-min | execs | edges (cov) | features (ft) | corpus | crash files |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for h, t in sorted(totals.items()):
        crashes = [f for f in glob.glob(os.path.join(work, "crashes", h, "*"))
                   if os.path.basename(f).split("-")[0] in ("crash", "leak", "timeout", "oom")]
        print("| %s | %d | %.1f | %d | %d | %d | %d | %d |" % (
            h, t["runs"], t["secs"] / 60.0, t["execs"], t["cov"], t["ft"], t["corp"], len(crashes)))


if __name__ == "__main__":
    main()
