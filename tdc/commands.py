# SPDX-License-Identifier: GPL-2.0
"""commands.py - how tdc.py runs one command of a case.

Every command is a shell command line, as in upstream tdc, and behaves as
if run by /bin/sh -c.  Under TCG emulation each exec costs a few tenths of
a second and a Python start with pyroute2 some eight seconds, so:

* a command without shell syntax (no | & ; < > ( ) $ ` \\ * ? [ ] # ~ { }
  and a first word that is a program, not a builtin) is executed
  directly, without the shell;
* such a command that is `$FLNL ...` (FLNL below: `python3 -m
  tdc.flowernl` with this repository as PYTHONPATH, so that it runs from
  any directory) runs flowernl.main() in a fork of the runner, which has
  pyroute2 imported already: same argv, output and exit status, no new
  Python.

`preexec` (from the plugins, e.g. nsPlugin entering the case's network
namespace) runs in the child before the command.
"""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PYTHON = '/usr/bin/python3'
# -P: the current directory does not come first on the module path (a tdc/
# there would shadow the package with tdc/tdc.py)
FLNL_ARGV = ['env', 'PYTHONPATH=' + REPO, PYTHON, '-P', '-m', 'tdc.flowernl']
FLNL = ' '.join(shlex.quote(word) for word in FLNL_ARGV)

SHELL_SYNTAX = re.compile(r'[|&;<>()$`\\*?\[\]#~{}\n]')
SHELL_WORDS = {'!', 'time', 'exec', 'command', 'builtin', 'eval'}


class Outcome:
    """What one command did: exit code (None: timed out), stdout, stderr."""

    def __init__(self, command, code, out, err):
        self.command, self.code, self.out, self.err = command, code, out, err

    def output(self):
        """Upstream's choice of the output a case sees: stderr when the
        command failed and wrote some, else stdout."""
        return self.err if self.code != 0 and self.err else self.out


def simple_argv(command):
    """The argv of a command that needs no shell, else None."""
    if SHELL_SYNTAX.search(command):
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if not argv or '=' in argv[0] or argv[0] in SHELL_WORDS or \
            shutil.which(argv[0]) is None:
        return None
    return argv


def run(command, cwd, timeout, preexec=None):
    """Run `command` (a shell command line) -> Outcome."""
    argv = simple_argv(command)
    if argv and argv[:len(FLNL_ARGV)] == FLNL_ARGV:
        return _run_flowernl_forked(command, argv[len(FLNL_ARGV):], cwd,
                                    timeout, preexec)
    proc = subprocess.Popen(argv or command, shell=argv is None, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=preexec)
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        # the shell's children too: they are in its session
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    return Outcome(command, code, out.decode(errors='replace'),
                   err.decode(errors='replace'))


def _run_flowernl_forked(command, args, cwd, timeout, preexec):
    from tdc import flowernl        # pyroute2: imported once, here
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:                                    # the child
            code = 255
            try:
                os.setsid()
                os.chdir(cwd)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                if preexec:
                    preexec()
                sys.argv = [flowernl.__file__] + args
                code = flowernl.main(args)
            except SystemExit as exc:                   # argparse errors
                code = exc.code if isinstance(exc.code, int) else 2
            except BaseException as exc:
                print('flowernl: {}: {}'.format(type(exc).__name__, exc),
                      file=sys.stderr)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code & 0xFF)
        code = _wait(pid, timeout)
        out.seek(0)
        err.seek(0)
        return Outcome(command, code, out.read().decode(errors='replace'),
                       err.read().decode(errors='replace'))


def _wait(pid, timeout):
    """Exit status of child `pid`, or None after killing it at timeout."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)
