#!/usr/bin/env python3
"""Tests of utils/check-docs.py: a documented command that fails, or that
does not print what its `# prints:` comment says, fails the check; skipped
and slow blocks run only when they should; a document's blocks share their
directory. The documents and the build directory are temporary here, so
these run in a second."""

import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent / "check-docs.py"


class CheckDocs(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.temp.name)
        self.build = root / "build"
        (self.build / "bin").mkdir(parents=True)
        tool = self.build / "bin" / "hyperoffload"
        tool.write_text("#!/bin/sh\necho \"hyperoffload $*\"\n")
        tool.chmod(0o755)
        self.doc = root / "Doc.md"

    def tearDown(self):
        self.temp.cleanup()

    def check(self, markdown, *options):
        self.doc.write_text(textwrap.dedent(markdown))
        return subprocess.run(
            [sys.executable, str(SCRIPT), str(self.build), *options,
             str(self.doc)], capture_output=True, text=True)

    def test_commands_that_succeed_pass(self):
        run = self.check("""
            ```sh
            build/bin/hyperoffload model list
            # prints: hyperoffload model   list
            ```
            """)
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("PASS", run.stdout)

    def test_a_failing_command_fails(self):
        run = self.check("""
            ```sh
            build/bin/hyperoffload model list
            false
            ```
            """)
        self.assertEqual(run.returncode, 1)
        self.assertIn("exit status 1", run.stdout)

    def test_a_failure_inside_a_pipe_fails(self):
        run = self.check("""
            ```sh
            build/bin/no-such-tool | cat
            ```
            """)
        self.assertEqual(run.returncode, 1)

    def test_output_other_than_documented_fails(self):
        run = self.check("""
            ```sh
            build/bin/hyperoffload model list
            # prints: hyperoffload model emit
            ```
            """)
        self.assertEqual(run.returncode, 1)
        self.assertIn("did not print `hyperoffload model emit`", run.stdout)

    def test_skipped_and_slow_blocks(self):
        markdown = """
            <!-- docs-test: skip needs a tool we do not have -->
            ```sh
            false
            ```

            <!-- docs-test: slow -->
            ```sh
            false
            ```
            """
        run = self.check(markdown)
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("SKIP", run.stdout)
        self.assertIn("needs a tool we do not have", run.stdout)
        self.assertIn("SLOW", run.stdout)
        full = self.check(markdown, "--full")
        self.assertEqual(full.returncode, 1)
        self.assertIn("1 documented command blocks failed", full.stdout)

    def test_blocks_of_a_document_share_a_directory(self):
        run = self.check("""
            ```sh
            build/bin/hyperoffload model emit -o x > model.txt
            ```

            ```sh
            cat model.txt
            # prints: hyperoffload model emit -o x
            ```
            """)
        self.assertEqual(run.returncode, 0, run.stdout)

    def test_a_documented_output_is_checked(self):
        run = self.check("""
            <!-- docs-test: output build/bin/hyperoffload model list -->
            ```
            hyperoffload model  list
            ...
            ```
            """)
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("PASS", run.stdout)
        stale = self.check("""
            <!-- docs-test: output build/bin/hyperoffload model list -->
            ```
            hyperoffload model emit
            ```
            """)
        self.assertEqual(stale.returncode, 1)
        self.assertIn("did not print `hyperoffload model emit`", stale.stdout)

    def test_a_slow_documented_output_runs_with_full(self):
        markdown = """
            <!-- docs-test: slow output build/bin/hyperoffload model list -->
            ```
            something else
            ```
            """
        self.assertEqual(self.check(markdown).returncode, 0)
        self.assertEqual(self.check(markdown, "--full").returncode, 1)

    def test_other_fences_are_not_run(self):
        run = self.check("""
            ```
            false
            ```

            ```mlir
            false
            ```
            """)
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertNotIn("RUN", run.stdout)


if __name__ == "__main__":
    unittest.main()
