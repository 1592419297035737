# SPDX-License-Identifier: GPL-2.0
"""The base of tdc plugins: the hooks tdc.py calls, all doing nothing.

A plugin is plugins/<Name>.py defining `class SubPlugin(TdcPlugin)`.  Once
loaded (a selected case requires it, or tdc.py --plugin Name) its hooks run for
every case of the run, in load order (post_case in reverse order):

  pre_suite(cases)          once, before the first case
  pre_case(case, names)     before the case's setup; may add or change
                            entries of `names`, the variables ($DEV1 ...)
                            of this case; raise SkipCase(reason) to skip it
  adjust_command(stage, command) -> command
                            for every command of the case: stage is
                            "depends", "setup", "execute", "verify" or
                            "teardown"; command is the substituted shell
                            command line
  preexec(stage) -> None or a function
                            the function runs in the child process of each
                            command of that stage, just before the command
                            (nsPlugin enters the case's namespace there)
  post_execute(case, names) after cmdUnderTest (when its exit code was the
                            expected one), before verifyCmd
  post_case(case, names)    after teardown, also when the case failed
                            (only if this plugin's pre_case ran)
  post_suite()              once, after the last case

With tdc.py -J N, cases run in N worker processes forked after
pre_suite, each with its own copy of the plugins: pre_suite and
post_suite run once in the runner's process, the other hooks in the
worker that runs the case.

Any other exception from a hook fails the case, naming the hook.
`self.runner` gives .verbose (int), .timeout (seconds) and .log(text)
(a "# ..." TAP comment line when verbose).
"""


class SkipCase(Exception):
    """Raised by a hook: the case cannot run here; the text says why."""


class TdcPlugin:
    def __init__(self, runner):
        self.runner = runner

    def pre_suite(self, cases):
        pass

    def pre_case(self, case, names):
        pass

    def adjust_command(self, stage, command):
        return command

    def preexec(self, stage):
        return None

    def post_execute(self, case, names):
        pass

    def post_case(self, case, names):
        pass

    def post_suite(self):
        pass
