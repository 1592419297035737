# SPDX-License-Identifier: GPL-2.0
"""The harness stays readable: no Python file over 800 lines, no function
over 100 (issue 34's measure of "small and obvious").

A file that grows past the limit is a sign that it holds two roles; the
fix is a split by role, not a raised limit.  Files git tracks only: build/
holds extracted trees and generated code.
"""

import ast
import os
import subprocess
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 100


def python_files():
    out = subprocess.run(['git', 'ls-files', '-z', '*.py'], cwd=REPO,
                         capture_output=True, check=True).stdout
    return [p for p in out.decode().split('\0') if p]


def too_long(text, path):
    """(file's line count or None, [(function, lines)] over the limit)"""
    lines = text.count('\n')
    funcs = [(n.name, n.end_lineno - n.lineno + 1)
             for n in ast.walk(ast.parse(text, path))
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]
    return (lines if lines > MAX_FILE_LINES else None), funcs


class TestSizes(unittest.TestCase):
    def test_files_and_functions(self):
        files = python_files()
        self.assertGreater(len(files), 100, 'git ls-files found no harness')
        bad = []
        for path in files:
            with open(os.path.join(REPO, path)) as f:
                lines, funcs = too_long(f.read(), path)
            if lines:
                bad.append('%s: %d lines' % (path, lines))
            bad += ['%s: %s(): %d lines' % (path, name, n)
                    for name, n in funcs]
        self.assertEqual(bad, [], 'over %d lines a file or %d a function'
                         % (MAX_FILE_LINES, MAX_FUNCTION_LINES))

    def test_the_check_sees_what_is_too_long(self):
        body = ''.join('    x = %d\n' % i for i in range(MAX_FUNCTION_LINES))
        self.assertEqual(too_long('def f():\n' + body, 't.py'),
                         (None, [('f', MAX_FUNCTION_LINES + 1)]))
        self.assertEqual(too_long('def f():\n' + body[:-10], 't.py'),
                         (None, []))
        text = 'x = 1\n' * (MAX_FILE_LINES + 1)
        self.assertEqual(too_long(text, 't.py'), (MAX_FILE_LINES + 1, []))


if __name__ == '__main__':
    unittest.main()
