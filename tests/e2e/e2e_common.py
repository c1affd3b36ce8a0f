"""e2e_common.py - helpers shared by the end-to-end suites: locating webnnc, the source/build roots
and ../shared, running `webnnc convert` / `webnnc run`, choosing the Vulkan driver (lavapipe when no
other device works), parsing run's parity lines, and judging how a run ended.

The webnnc executable is the suite's first argument (tests/e2e/meson.build passes it).
Environment (set by tests/meson.build): WEBNNC_SOURCE_ROOT, WEBNNC_BUILD_ROOT; CI=true turns
"../shared is missing" from a skip into a failure.
"""
import os
import re
import subprocess
import sys

SKIP = 77  # meson's exit code for a skipped test


def env_path(name):
    value = os.environ.get(name)
    if not value:
        sys.exit(f"error: {name} is not set (run through `meson test`)")
    return value


def webnnc():
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: SUITE.py PATH/TO/webnnc (run through `meson test`)")
    return os.path.abspath(sys.argv[1])


def source_root():
    return env_path("WEBNNC_SOURCE_ROOT")


def build_root():
    return env_path("WEBNNC_BUILD_ROOT")


def shared_dir_or_skip(what):
    """../shared next to the source root; skips (exit 77) when absent, fails under CI=true."""
    shared = os.path.normpath(os.path.join(source_root(), "..", "shared"))
    if os.path.isdir(shared):
        return shared
    if os.environ.get("CI") == "true":
        print(f"FAIL: {shared} is missing; {what} needs it and CI=true", flush=True)
        sys.exit(1)
    print(f"SKIP: {shared} is missing, so {what} cannot run (it always runs under CI=true)", flush=True)
    sys.exit(SKIP)


class Run:
    """Outcome of one webnnc invocation."""

    def __init__(self, args, returncode, stdout, stderr):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr

    @property
    def stderr_lines(self):
        return [line for line in self.stderr.splitlines() if line.strip()]

    def is_clean_error(self):
        """Exit 2 with exactly one stderr line of the form `webnnc: error: ...`."""
        lines = self.stderr_lines
        return self.returncode == 2 and len(lines) == 1 and lines[0].startswith("webnnc: error: ")

    def crashed(self):
        """Killed by a signal, a sanitizer abort, a timeout, or an exit code webnnc never uses."""
        return self.returncode not in (0, 1, 2)

    def describe(self):
        tail = " | ".join(self.stderr_lines[-3:])
        return f"exit {self.returncode}: {tail}"


def run_webnnc(args, timeout=300):
    cmd = [webnnc()] + list(args)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
        return Run(cmd, p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired:
        return Run(cmd, -999, "", f"timed out after {timeout} s")


def convert(model, outdir, dim_args=()):
    return run_webnnc(["convert", model, "-o", outdir] + list(dim_args))


def test_data_shapes(data_dir):
    """{tensor name: dims} of the input_N.pb files of a test_data_set folder ({} if none)."""
    import onnx  # python3-onnx; only the suites that need it import this module's helpers
    shapes = {}
    for f in sorted(os.listdir(data_dir)) if os.path.isdir(data_dir) else []:
        if f.startswith("input_") and f.endswith(".pb"):
            t = onnx.TensorProto()
            with open(os.path.join(data_dir, f), "rb") as fh:
                t.ParseFromString(fh.read())
            shapes[t.name] = list(t.dims)
    return shapes


def dim_args(graph, shapes, defaults=None, max_size=2048):
    """convert flags for every symbolic dim (dim_param) of the graph inputs: --fix NAME=N with N taken
    from the test data shapes (or `defaults`), --dim NAME=max_size where that size is 0 or unknown."""
    sizes = {}
    for vi in graph.input:
        dims = vi.type.tensor_type.shape.dim if vi.type.HasField("tensor_type") else []
        for i, d in enumerate(dims):
            if not d.HasField("dim_param"):
                continue
            given = shapes.get(vi.name)
            if given is not None and i < len(given):
                sizes.setdefault(d.dim_param, given[i])
            else:
                sizes.setdefault(d.dim_param, (defaults or {}).get(d.dim_param, 0))
    args = []
    for name, size in sizes.items():
        args += ["--fix", f"{name}={size}"] if size > 0 else ["--dim", f"{name}={max_size}"]
    return args


LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"


def use_working_vulkan_device():
    """Leaves the Vulkan loader alone when `webnnc devices` finds a device; otherwise (no GPU: CI)
    points VK_ICD_FILENAMES at Mesa's lavapipe.  Returns the first device line, or None (printing
    why) when no device works even then."""
    r = run_webnnc(["devices"], timeout=120)
    if (r.returncode != 0 or not r.stdout.strip()) and "VK_ICD_FILENAMES" not in os.environ \
            and os.path.isfile(LAVAPIPE_ICD):
        os.environ["VK_ICD_FILENAMES"] = LAVAPIPE_ICD
        r = run_webnnc(["devices"], timeout=120)
    if r.returncode != 0 or not r.stdout.strip():
        print(f"no Vulkan device: `webnnc devices` {r.describe()}", flush=True)
        return None
    return r.stdout.splitlines()[0].strip()


def api_suite_start(what, doc):
    """For suites run as `SUITE.py WEBNNC TOOL` (a program built against libwebnnc.so): (TOOL, the
    ../shared folder); exits 2 (printing doc) on other arguments, skips without ../shared, and
    exits 1 when no Vulkan device works."""
    if len(sys.argv) != 3:
        print(doc)
        sys.exit(2)
    webnnc()
    shared = shared_dir_or_skip(what)
    if use_working_vulkan_device() is None:
        sys.exit(1)
    return os.path.abspath(sys.argv[2]), shared


def finish(failures, summary):
    """Prints the failures (exit status 1) or "PASS: summary" (0)."""
    if failures:
        print(f"FAIL: {len(failures)} problem(s):\n  " + "\n  ".join(failures))
        return 1
    print(f"PASS: {summary}")
    return 0


def run_graph(outdir, inputs, expect, atol, rtol, timeout=300):
    """`webnnc run OUTDIR --inputs INPUTS --expect EXPECT --atol A --rtol R`."""
    return run_webnnc(["run", outdir, "--inputs", inputs, "--expect", expect, "--atol", repr(atol),
                       "--rtol", repr(rtol)], timeout)


# One output line of `webnnc run --expect` (cli/cmd_run.c): NAME [D, ...] DTYPE: max_abs X ... PASS|FAIL
_PARITY = re.compile(r"^(?P<name>\S+) \[(?P<shape>[^\]]*)\] (?P<dtype>\w+): (?:max_abs (?P<max_abs>\S+) .*?)?"
                     r"(?P<verdict>PASS|FAIL)\b(?P<rest>.*)$")


def parity_lines(stdout):
    """[{name, shape, dtype, max_abs (float or None), ok, text}] from `webnnc run --expect` output."""
    rows = []
    for line in stdout.splitlines():
        m = _PARITY.match(line.strip())
        if m:
            rows.append(dict(name=m["name"], shape=[int(d) for d in m["shape"].split(",") if d.strip()],
                             dtype=m["dtype"], max_abs=float(m["max_abs"]) if m["max_abs"] else None,
                             ok=m["verdict"] == "PASS", text=line.strip()))
    return rows


def classify_run(r):
    """How a `webnnc run --expect` ended: "passed", "crash", "missing kernel", "numeric mismatch"
    (exit 1: some output outside the tolerance, or of another shape), "runtime error" (exit 2)."""
    if r.crashed():
        return "crash"
    if r.returncode == 0:
        return "passed"
    if r.returncode == 1:
        return "numeric mismatch"
    return "missing kernel" if "no kernel for op " in r.stderr else "runtime error"
