#!/usr/bin/env python3
"""Tests of utils/results.py's checks: each way docs/Results.md and
docs/Results.json can go stale must fail `--check`, and nothing else may.

The document and the cache are temporary files here, and the tool is a fake
whose answers the tests set, so these run in a second."""

import contextlib
import io
import json
import pathlib
import sys
import tempfile
import unittest
from unittest import mock

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import results  # noqa: E402

QUICK = ("hyperoffload", "compare", "--scenario", "a", "--context", "1")
SLOW = ("hyperoffload", "compare", "--scenario", "a", "--context", "2")


def fake_generate(tool):
    """A document of two answers, as results.generate builds its own."""
    return f"quick {tool.answer(QUICK)}, slow {tool.answer(SLOW)}\n"


class ResultsCheck(unittest.TestCase):
    def setUp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        root = pathlib.Path(directory.name)
        self.answers = {QUICK: 1, SLOW: 2}
        for name, value in (("CACHE", root / "Results.json"),
                            ("DOCUMENT", root / "Results.md")):
            patcher = mock.patch.object(results, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        for name, value in (("generate", fake_generate),
                            ("run_command", self.fake_run)):
            patcher = mock.patch.object(results, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        self.runs = []
        self.assertEqual(self.main("--write"), 0)
        self.runs.clear()

    def fake_run(self, build, command):
        self.runs.append(command)
        seconds = 1.0 if command == QUICK else results.QUICK_ANSWER_SECONDS + 1
        return {"output": self.answers[command], "seconds": seconds}

    def main(self, *args):
        """results.py's exit status and what it printed."""
        self.printed = io.StringIO()
        with mock.patch.object(sys, "argv", ["results.py", "build", *args]), \
                contextlib.redirect_stdout(self.printed):
            return results.main()

    def test_a_fresh_cache_passes_rerunning_only_quick_answers(self):
        self.assertEqual(self.main("--check"), 0, self.printed.getvalue())
        self.assertEqual(self.runs, [QUICK])
        recorded = {tuple(entry["command"]): entry["quick"]
                    for entry in json.loads(results.CACHE.read_text())}
        self.assertEqual(recorded, {QUICK: True, SLOW: False})

    def test_a_hand_edit_of_the_document_fails_with_its_diff(self):
        results.DOCUMENT.write_text("quick 1, slow 3\n")
        self.assertEqual(self.main("--check"), 1)
        self.assertIn("-quick 1, slow 3", self.printed.getvalue())
        self.assertIn("+quick 1, slow 2", self.printed.getvalue())

    def test_a_changed_quick_answer_fails(self):
        self.answers[QUICK] = 5
        self.assertEqual(self.main("--check"), 1)
        self.assertIn("the tool now answers differently: "
                      + " ".join(QUICK), self.printed.getvalue())

    def test_a_changed_slow_answer_fails_the_full_check_only(self):
        self.answers[SLOW] = 5
        self.assertEqual(self.main("--check"), 0)
        self.assertEqual(self.main("--check", "--full"), 1)
        self.assertIn("the tool now answers differently: " + " ".join(SLOW),
                      self.printed.getvalue())

    def test_an_answer_the_script_no_longer_asks_for_fails(self):
        with mock.patch.object(results, "generate",
                               lambda tool: f"quick {tool.answer(QUICK)}\n"):
            self.assertEqual(self.main("--check"), 1)
        self.assertIn("docs/Results.json holds an answer nothing asks for: "
                      + " ".join(SLOW), self.printed.getvalue())

    def test_a_new_question_fails_the_check_and_the_render_from_cache(self):
        new = ("hyperoffload", "model", "list")

        def asks_more(tool):
            return fake_generate(tool) + str(tool.answer(new))

        with mock.patch.object(results, "generate", asks_more):
            self.assertEqual(self.main("--check"), 1)
            self.assertIn("has no answer for hyperoffload model list",
                          self.printed.getvalue())
            self.assertEqual(self.main("--write", "--from-cache"), 1)
        self.assertEqual(self.runs, [])

    def test_render_from_cache_runs_nothing(self):
        with mock.patch.object(results, "generate",
                               lambda tool: "new text " + fake_generate(tool)):
            self.assertEqual(self.main("--write", "--from-cache"), 0)
        self.assertEqual(self.runs, [])
        self.assertEqual(results.DOCUMENT.read_text(),
                         "new text quick 1, slow 2\n")

    def test_an_unreadable_cache_says_what_to_run(self):
        results.CACHE.write_text("[{")
        with self.assertRaises(SystemExit) as raised:
            self.main("--check")
        self.assertIn("cannot read the recorded answers", str(raised.exception))
        self.assertIn("run `make results`", str(raised.exception))


@mock.patch.object(results, "QUICK_SECONDS", 90)
@mock.patch.object(results, "QUICK_ANSWER_SECONDS", 20)
class QuickChoice(unittest.TestCase):
    def test_scenarios_first_then_questions_then_the_rest_within_the_time(self):
        def compare(scenario, *extra):
            return ("hyperoffload", "compare", "--scenario", scenario, *extra)

        def sweep(point):
            return ("hyperoffload", "sweep", "--scenario", "d", "--vary",
                    str(point))

        answers = {compare("a", "--context", "1"): 5,
                   compare("a", "--context", "2"): 1,
                   compare("b"): 21,
                   compare("c"): 15}
        answers.update({sweep(point): 19 for point in range(5)})
        quick = results.choose_quick(
            {command: {"seconds": seconds}
             for command, seconds in answers.items()})
        # Scenarios a, c, d by their cheapest answers (35 s), then the sweep
        # points while they fit (73 s), then the other size of a (78 s);
        # never b, over the limit for one answer.
        self.assertEqual(quick, {compare("a", "--context", "2"), compare("c"),
                                 sweep(0), sweep(1), sweep(2),
                                 compare("a", "--context", "1")})
        self.assertLessEqual(sum(answers[command] for command in quick),
                             results.QUICK_SECONDS)


if __name__ == "__main__":
    unittest.main()
