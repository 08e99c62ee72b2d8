"""The conformance runner's own logic (list files, outcomes, summary, exit status), without the suite:
CI has no network to fetch array-api-tests. The shipped xfail/skip lists are checked to parse."""
import json
import pathlib
import types

import pytest

from conformance import pytest_plugin, runner


def _lines(*records):
    return [json.dumps({"nodeid": n, "outcome": o}) for n, o in records]


def test_list_file_maps_ids_to_reasons():
    text = "# header comment\n\narray_api_tests/test_a.py::test_x  # jax arrays are immutable\n"
    assert runner.parse_id_file(text) == {"array_api_tests/test_a.py::test_x": "jax arrays are immutable"}


def test_list_file_line_without_reason_is_refused():
    with pytest.raises(runner.ListFileError, match="no reason"):
        runner.parse_id_file("array_api_tests/test_a.py::test_x\n", "jax-xfails.txt")


def test_list_file_line_with_empty_reason_is_refused():
    with pytest.raises(runner.ListFileError, match="no reason"):
        runner.parse_id_file("array_api_tests/test_a.py::test_x  #  \n")


def test_list_file_id_outside_the_suite_is_refused():
    with pytest.raises(runner.ListFileError, match="not a suite test id"):
        runner.parse_id_file("tests/test_ops.py::test_x  # reason\n")


def test_list_file_duplicate_id_is_refused():
    with pytest.raises(runner.ListFileError, match="listed twice"):
        runner.parse_id_file("array_api_tests/a.py::t  # one\narray_api_tests/a.py::t  # two\n")


@pytest.mark.parametrize("path", sorted(pathlib.Path(runner.HERE).glob("*-*.txt")), ids=lambda p: p.name)
def test_shipped_list_files_parse(path):
    runner.parse_id_file(path.read_text(), str(path))


def test_outcomes_keep_the_worse_report_of_a_test():
    outcomes = runner.read_outcomes(_lines(("a.py::t", "passed"), ("a.py::t", "error"), ("a.py::u", "xfailed")))
    assert outcomes == {"a.py::t": "error", "a.py::u": "xfailed"}


def test_unknown_outcome_is_an_error():
    with pytest.raises(ValueError, match="unknown outcome"):
        runner.read_outcomes(_lines(("a.py::t", "weird")))


def test_summary_counts_per_file_and_total():
    outcomes = {"array_api_tests/b.py::t1": "passed", "array_api_tests/b.py::t2[x]": "failed",
                "array_api_tests/a.py::t": "skipped", "array_api_tests/a.py::u": "xfailed"}
    per_file, total = runner.summarize(outcomes)
    assert list(per_file) == ["array_api_tests/a.py", "array_api_tests/b.py"]
    assert per_file["array_api_tests/b.py"] == {"passed": 1, "failed": 1}
    assert total == {"passed": 1, "failed": 1, "skipped": 1, "xfailed": 1}


@pytest.mark.parametrize("outcome, status", [("passed", 0), ("xfailed", 0), ("skipped", 0), ("failed", 1),
                                             ("error", 1), ("xpassed", 1)])
def test_exit_status_follows_the_worst_outcome(outcome, status):
    assert runner.exit_code({"a.py::ok": "passed", "a.py::t": outcome}) == status


def test_exit_status_is_failure_when_no_test_reported():
    assert runner.exit_code({}, pytest_status=4) == 1


def test_exit_status_is_failure_when_pytest_was_interrupted():
    assert runner.exit_code({"a.py::t": "passed"}, pytest_status=2) == 1


def test_markdown_lists_the_unexpected_outcomes():
    outcomes = {"array_api_tests/a.py::t": "failed", "array_api_tests/a.py::u": "xpassed",
                "array_api_tests/a.py::v": "passed"}
    per_file, total = runner.summarize(outcomes)
    text = runner.render_markdown("jax", per_file, total, outcomes, {"date": "today"})
    assert "| array_api_tests/a.py | 1 | 1 | 0 | 0 | 0 | 1 |" in text
    assert "## failed (1)\n\n- `array_api_tests/a.py::t`" in text
    assert "## xpassed (1)\n\n- `array_api_tests/a.py::u`" in text
    assert "::v" not in text


def _report(when, outcome, xfail=False):
    report = types.SimpleNamespace(when=when, passed=outcome == "passed", failed=outcome == "failed",
                                   skipped=outcome == "skipped")
    if xfail:
        report.wasxfail = "reason"
    return report


@pytest.mark.parametrize("when, outcome, xfail, expected", [
    ("call", "passed", False, "passed"), ("call", "passed", True, "xpassed"),
    ("call", "skipped", True, "xfailed"), ("call", "failed", False, "failed"),
    ("setup", "skipped", False, "skipped"), ("setup", "failed", False, "error"),
    ("setup", "passed", False, None), ("teardown", "failed", False, "error")])
def test_plugin_outcome_of_a_report(when, outcome, xfail, expected):
    assert pytest_plugin.outcome_of(_report(when, outcome, xfail)) == expected


def test_run_refuses_a_folder_that_is_not_the_suite(tmp_path, capsys):
    assert runner.main(["--backend", "numpy", "--suite", str(tmp_path)]) == 2
    assert "not an array-api-tests clone" in capsys.readouterr().err


def test_run_refuses_an_xfail_file_without_reasons(tmp_path, capsys):
    (tmp_path / "array_api_tests").mkdir()
    bad = tmp_path / "xfails.txt"
    bad.write_text("array_api_tests/test_a.py::t\n")
    assert runner.main(["--backend", "numpy", "--suite", str(tmp_path), "--xfails-file", str(bad)]) == 2
    assert "has no reason" in capsys.readouterr().err
