"""Run the official array-API conformance suite (data-apis/array-api-tests) against xtensor on one backend.

    python -m conformance --backend numpy --suite /path/to/array-api-tests
    xtensor conformance --backend jax --suite /path/to/array-api-tests

Runs are repeatable: ``--max-examples=20 --hypothesis-seed=0 --disable-deadline``, a fresh
``HYPOTHESIS_STORAGE_DIRECTORY`` (no replayed examples) and this package's pytest plugin (seeded
global RNG). The backend's ``<backend>-xfails.txt`` / ``<backend>-skips.txt`` beside this file list
known failures, one test id per line followed by ``# reason`` (a line without a reason is refused).
The summary per test file is printed and written to ``results/<backend>.md``; the exit status is 1
on an unexpected failure, an error or an XPASS (a listed failure that now passes: remove its line),
2 on bad input, 0 otherwise.
"""
import argparse
import collections
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

__all__ = ["main", "add_arguments", "run", "parse_id_file", "read_outcomes", "summarize", "exit_code",
           "render_markdown", "ListFileError"]

HERE = pathlib.Path(__file__).resolve().parent
SUITE_SETTINGS = ("--max-examples=20", "--hypothesis-seed=0", "--disable-deadline")
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
UNEXPECTED = ("failed", "error", "xpassed")
# When one test reports twice (a passing call, then a failing teardown), the worse outcome stands.
_SEVERITY = {o: i for i, o in enumerate(("skipped", "passed", "xfailed", "xpassed", "failed", "error"))}


class ListFileError(ValueError):
    """An xfail/skip file line that is not ``<test id>  # <reason>``."""


def parse_id_file(text, source="<list>"):
    """``{test id: reason}`` from an xfail/skip file: blank lines and ``#`` comment lines are ignored."""
    entries = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        test_id, sep, reason = stripped.partition("#")
        test_id, reason = test_id.strip(), reason.strip()
        if not sep or not reason:
            raise ListFileError(f"{source}:{number}: {test_id!r} has no reason; write it as '<test id>  # <reason>'")
        if not test_id.startswith("array_api_tests/"):
            raise ListFileError(f"{source}:{number}: {test_id!r} is not a suite test id (array_api_tests/...)")
        if test_id in entries:
            raise ListFileError(f"{source}:{number}: {test_id!r} is listed twice")
        entries[test_id] = reason
    return entries


def read_outcomes(lines):
    """``{nodeid: outcome}`` from the plugin's JSON lines (the worse outcome when a test reports twice)."""
    outcomes = {}
    for line in lines:
        if not line.strip():
            continue
        record = json.loads(line)
        nodeid, outcome = record["nodeid"], record["outcome"]
        if outcome not in _SEVERITY:
            raise ValueError(f"unknown outcome {outcome!r} for {nodeid}")
        previous = outcomes.get(nodeid)
        if previous is None or _SEVERITY[outcome] > _SEVERITY[previous]:
            outcomes[nodeid] = outcome
    return outcomes


def summarize(outcomes):
    """Counts per test file (``{file: Counter}``, files sorted) and the overall Counter."""
    per_file = collections.defaultdict(collections.Counter)
    for nodeid, outcome in outcomes.items():
        per_file[nodeid.split("::", 1)[0]][outcome] += 1
    total = collections.Counter()
    for counts in per_file.values():
        total.update(counts)
    return dict(sorted(per_file.items())), total


def unexpected(outcomes):
    """The tests whose outcome makes the run fail, by outcome."""
    found = collections.defaultdict(list)
    for nodeid, outcome in sorted(outcomes.items()):
        if outcome in UNEXPECTED:
            found[outcome].append(nodeid)
    return dict(found)


def exit_code(outcomes, pytest_status=0):
    """1 on a failure, an error or an XPASS (or when pytest itself broke before reporting any test), else 0."""
    if any(o in UNEXPECTED for o in outcomes.values()):
        return 1
    if not outcomes or pytest_status not in (0, 1, 5):  # 2-4: interrupted, internal or usage error
        return 1
    return 0


def render_markdown(backend, per_file, total, outcomes, header):
    """The results file: how it was run, a table per test file, and every unexpected outcome."""
    lines = [f"# Conformance results: backend `{backend}`", ""]
    lines += [f"- {key}: {value}" for key, value in header.items()]
    lines += ["", "| test file | " + " | ".join(OUTCOMES) + " |", "|---" * (len(OUTCOMES) + 1) + "|"]
    for name, counts in [*per_file.items(), ("**total**", total)]:
        lines.append(f"| {name} | " + " | ".join(str(counts.get(o, 0)) for o in OUTCOMES) + " |")
    for outcome, ids in unexpected(outcomes).items():
        lines += ["", f"## {outcome} ({len(ids)})", ""] + [f"- `{i}`" for i in ids]
    return "\n".join(lines) + "\n"


def print_summary(backend, per_file, total, outcomes):
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # rich is optional: plain text then
        for name, counts in [*per_file.items(), ("total", total)]:
            print(name, " ".join(f"{o}={counts.get(o, 0)}" for o in OUTCOMES))
    else:
        table = Table(title=f"array-api-tests on xtensor, backend {backend}")
        table.add_column("test file", no_wrap=True)
        for o in OUTCOMES:
            table.add_column(o, justify="right", style="red" if o in UNEXPECTED else None)
        for name, counts in per_file.items():
            table.add_row(name.removeprefix("array_api_tests/"), *(str(counts.get(o, 0)) for o in OUTCOMES))
        table.add_row("total", *(str(total.get(o, 0)) for o in OUTCOMES), style="bold")
        Console(width=130).print(table)
    for outcome, ids in unexpected(outcomes).items():
        print(f"\n{outcome} ({len(ids)}):")
        for i in ids:
            print(f"  {i}")


def _list_file(path, source):
    """The suite's form of an xfail/skip file (ids only) written to ``path``, and its number of entries."""
    if not source.is_file():
        return None, 0
    entries = parse_id_file(source.read_text(), str(source))
    path.write_text("".join(f"{i}\n" for i in entries))
    return path, len(entries)


def _plugin_environment(env):
    """PYTHONPATH such that the pytest subprocess imports this package under the name it has here."""
    top = sys.modules[__package__.split(".")[0]]
    root = str(pathlib.Path(top.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return f"{__package__}.pytest_plugin"


def _suite_commit(suite):
    try:
        return subprocess.run(["git", "-C", str(suite), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def add_arguments(parser):
    parser.add_argument("--backend", required=True, help="numpy, jax, array_api_strict, or any array-API module")
    parser.add_argument("--suite", required=True, type=pathlib.Path,
                        help="a clone of data-apis/array-api-tests (with its array-api submodule)")
    parser.add_argument("--xfails-file", type=pathlib.Path, help="default: <backend>-xfails.txt beside the runner")
    parser.add_argument("--skips-file", type=pathlib.Path, help="default: <backend>-skips.txt beside the runner")
    parser.add_argument("--results", type=pathlib.Path, help="default: results/<backend>.md beside the runner "
                        "('-' to write none)")
    parser.add_argument("pytest_args", nargs="*", help="test files or pytest options after '--' "
                        "(default: the whole suite)")


def run(args):
    suite = args.suite.resolve()
    if not (suite / "array_api_tests").is_dir():
        print(f"error: {suite} is not an array-api-tests clone (no array_api_tests/ folder)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="xtensor-conformance-") as tmp:
        tmp = pathlib.Path(tmp)
        try:
            xfails, n_xfails = _list_file(tmp / "xfails.txt", args.xfails_file or HERE / f"{args.backend}-xfails.txt")
            skips, n_skips = _list_file(tmp / "skips.txt", args.skips_file or HERE / f"{args.backend}-skips.txt")
        except ListFileError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        env = dict(os.environ, ARRAY_API_TESTS_MODULE="xtensor.array_api", XTENSOR_BACKEND=args.backend,
                   HYPOTHESIS_STORAGE_DIRECTORY=str(tmp / "hypothesis"))
        outcomes_path = tmp / "outcomes.jsonl"
        env["XTENSOR_CONFORMANCE_OUTCOMES"] = str(outcomes_path)
        plugin = _plugin_environment(env)
        command = [sys.executable, "-m", "pytest", *(args.pytest_args or ["array_api_tests"]), "-p", plugin,
                   *SUITE_SETTINGS, "-q", "-p", "no:cacheprovider", "--tb=line", "-rN"]
        command += ["--xfails-file", str(xfails)] if xfails else []
        command += ["--skips-file", str(skips)] if skips else []
        started = datetime.datetime.now(datetime.timezone.utc)
        status = subprocess.run(command, cwd=suite, env=env).returncode
        outcomes = read_outcomes(outcomes_path.read_text().splitlines() if outcomes_path.exists() else [])
    per_file, total = summarize(outcomes)
    print_summary(args.backend, per_file, total, outcomes)
    if args.results != pathlib.Path("-"):
        header = {"command": f"`python -m conformance --backend {args.backend} --suite <array-api-tests>"
                             + "".join(f" {a}" for a in args.pytest_args) + "`",
                  "settings": " ".join(SUITE_SETTINGS) + ", fresh HYPOTHESIS_STORAGE_DIRECTORY, seeded global RNG",
                  "suite commit": _suite_commit(suite), "date": started.strftime("%Y-%m-%d %H:%M UTC"),
                  "python": platform.python_version(),
                  "listed": f"{n_xfails} xfails, {n_skips} skips (each with its reason in conformance/)"}
        results = args.results or HERE / "results" / f"{args.backend}.md"
        results.parent.mkdir(parents=True, exist_ok=True)
        results.write_text(render_markdown(args.backend, per_file, total, outcomes, header))
        print(f"\nresults: {results}")
    return exit_code(outcomes, status)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))
