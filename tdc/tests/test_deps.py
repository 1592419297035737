# SPDX-License-Identifier: GPL-2.0
"""Every program the build and the harness run comes from a Debian
package that `make deps` installs, or that every Debian system has.

Why: `make test` on a developer's machine passes with whatever that
machine happens to have; on a fresh Debian 12 one, stage walk32 failed
because the kernel's `make headers_install` runs rsync, which no list
named.  This test does not depend on what is installed here (beyond
finding the programs): it maps each program to the package that ships it
and checks that package against the Makefile's DEB_PACKAGES.

Method (host only, no guest; about a second):

1. The programs, by a scan of the repository (`programs()`):
   a. Makefiles: the top Makefile and every *.mk below the repository
      (build/ excluded).  Each recipe line (tab-indented after a rule,
      continuation lines joined) is make-expanded from the makefiles' own
      assignments (`$(VAR)`, `define` bodies; `$(if c,a,b)` gives a and b,
      `$(or a,..)` a, `$(shell X)` is a command line of its own; other
      functions, automatic variables and unknown variables become an
      unknown word) and read as a shell command line.
   b. Shell scripts (a `#!` line naming sh or bash) under guest/,
      selftests/, stress/, ovs/, bench/, difftest/.
   c. Python files there (*.py or a python `#!` line), with `ast`: the
      first argument of a call named run, sh, call, check_call,
      check_output, Popen, system, getoutput, when it is a string (read
      as a shell command line; %-format, .format() and f-string holes are
      unknown words; a module-level string constant counts as a string)
      or a list whose elements are strings (an argv).
   d. The corpus (tc-tests/**/*.json: dependsOn, setup, cmdUnderTest,
      verifyCmd, teardown), with tdc's $TC, $IP, $PYTHON and $FLNL
      (python3) substituted.
   e. EXPLICIT below: programs run where no scan looks (the kernel's own
      build, checkpatch.pl, the tree's forwarding selftests, programs
      that Python runs through a variable).
   A shell command line is split into simple commands at ; & | && || ( )
   and newlines, `$(...)`, backquotes and `<(...)`; shell keywords,
   `[[ ... ]]`, case patterns, function definitions, assignments and
   redirections are passed over.  The first word is the program, seen
   through wrappers (sudo, env, exec, nice, nohup, setsid, xargs,
   timeout, flock, chroot, `ip netns exec NS`; `sh -c`/`bash -c STRING`
   is read as a command line).  Shell builtins are not programs; a word
   holding an unexpanded variable, or a relative path (a script of the
   repository, scanned itself, or of the kernel tree), is not checked.
   guest/init and guest/modprobe run under the initramfs' busybox: a
   program that is a busybox applet there counts as `busybox`.
2. Each program is looked up with shutil.which in Debian's default PATH
   (/usr/local/sbin ... /bin, then this process's PATH): every hit is a
   candidate, and `dpkg -S` is asked about each candidate, its merged-/usr
   twin (/usr/bin/X <-> /bin/X, /usr/sbin/X <-> /sbin/X) and its symlink
   target with that twin (update-alternatives: awk -> mawk).
3. The program passes if a package that owns it is in DEB_PACKAGES (every
   `DEB_PACKAGES :=`/`+=` line of the Makefile and the *.mk files; a test
   below checks that make itself expands DEB_PACKAGES to the same list),
   or has Priority required or important, or is Essential
   (dpkg-query -W -f='${Priority} ${Essential}').
   A program not installed here fails with its name, unless its package
   (the hint in PACKAGE_OF, else the program's own name) is in
   DEB_PACKAGES and not installed here: then the test skips saying so
   (run `make deps`; the gate counts a skip as a failure).
"""

import ast
import glob
import json
import os
import re
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

SCAN_DIRS = ('guest', 'selftests', 'stress', 'ovs', 'bench', 'difftest')
BUSYBOX_SCRIPTS = ('guest/init', 'guest/modprobe')
# files of the initramfs (guest/mkinitramfs), not of a package
INITRAMFS_FILES = {'/init', '/sbin/tdc-modprobe'}
DEBIAN_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

# Programs no scan sees, and where they are run.
EXPLICIT = {
    # the kernel's own build (make kernel, stock-ext, walk32, series-check)
    'make': 'kbuild', 'gcc': 'kbuild', 'ld': 'kbuild', 'ar': 'kbuild',
    'nm': 'kbuild', 'objcopy': 'kbuild', 'awk': 'kbuild',
    'perl': 'kbuild, checkpatch.pl (guest/kernel-checks, via a variable)',
    'bison': 'kbuild (kconfig)', 'flex': 'kbuild (kconfig)',
    'bc': 'kbuild (timeconst)', 'gzip': 'kbuild (KERNEL_GZIP bzImage)',
    'depmod': 'kbuild (modules_install)',
    'rsync': "kbuild's make headers_install (make walk32)",
    'xz': 'tar -xf linux-source-6.1.tar.xz (guest/extract-tree)',
    # the tree's forwarding selftests (lib.sh, tc_*.sh) in the guest
    'mausezahn': 'selftests (lib.sh $MZ)', 'jq': 'selftests (lib.sh)',
    'ncat': 'selftests (lib.sh)', 'ping': 'selftests (lib.sh $PING)',
    'ping6': 'selftests (lib.sh $PING6), ovs/ovsctl.py',
    'ethtool': 'selftests (lib.sh)', 'bridge': 'selftests (lib.sh)',
    # tdc.py's $TC and $IP (the corpus, upstream's cases in make upstream)
    'tc': 'tdc ($TC)', 'ip': 'tdc ($IP)',
}

# The package of a program, where its name does not say (only used to say
# why a program is missing here).
PACKAGE_OF = {
    'mausezahn': 'netsniff-ng', 'busybox': 'busybox-static',
    'qemu-system-x86_64': 'qemu-system-x86',
    'qemu-system-i386': 'qemu-system-x86',
    'ovs-vsctl': 'openvswitch-switch', 'ovs-vswitchd': 'openvswitch-switch',
    'ovs-ofctl': 'openvswitch-common', 'ovs-appctl': 'openvswitch-common',
    'ovsdb-server': 'openvswitch-common', 'ovsdb-tool': 'openvswitch-common',
    'ping': 'iputils-ping', 'ping6': 'iputils-ping', 'tc': 'iproute2',
    'ip': 'iproute2', 'bridge': 'iproute2', 'depmod': 'kmod',
    'modprobe': 'kmod', 'rmmod': 'kmod', 'xz': 'xz-utils',
    'ld': 'binutils', 'ar': 'binutils', 'nm': 'binutils',
    'objcopy': 'binutils',
}

BUILTINS = set('''
    : . [ [[ ]] alias bg bind break builtin caller cd command compgen complete
    continue declare dirs disown echo enable eval exec exit export false fc
    fg getopts hash help history jobs kill let local logout mapfile popd
    printf pushd pwd read readarray readonly return set shift shopt source
    suspend test time times trap true type typeset ulimit umask unalias
    unset wait
'''.split())
KEYWORDS = {'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while',
            'until', '!', '{', '}', 'esac', 'time'}
PROGRAM_RE = re.compile(r'^(/[\w.+/-]+|[A-Za-z0-9][\w.-]*[\w]|[A-Za-z0-9])$')
ASSIGNMENT_RE = re.compile(r'^[A-Za-z_]\w*(\[[^]]*\])?\+?=')
UNKNOWN = '$X'              # a word make or Python could not know


# --- shell ------------------------------------------------------------------
def _match_close(text, i, open_='(', close=')'):
    """Index of the `close` that ends the group whose inside starts at i."""
    depth = 1
    while i < len(text):
        c = text[i]
        if c == '\\':
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = len(text) if j < 0 else j + 1
            continue
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == '\\' else 1
            i += 1
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def _substitutions(text):
    """The insides of the $(...) and `...` in text (not of $((...)))."""
    subs, i = [], 0
    while i < len(text):
        if text.startswith('$((', i):
            j = _match_close(text, i + 3)
            subs += _substitutions(text[i + 3:j])
            i = j + 1
        elif text.startswith('$(', i):
            j = _match_close(text, i + 2)
            subs.append(text[i + 2:j])
            i = j + 1
        elif text[i] == '`':
            j = text.find('`', i + 1)
            j = len(text) if j < 0 else j
            subs.append(text[i + 1:j])
            i = j + 1
        else:
            i += 1
    return subs


def _dollar(text, i, subs):
    """Read the expansion at text[i] == '$'; return the index after it."""
    if text.startswith('$((', i):
        j = _match_close(text, i + 3)
        subs += _substitutions(text[i + 3:j])
        return j + 2 if text.startswith('))', j) else j + 1
    if text.startswith('$(', i):
        j = _match_close(text, i + 2)
        subs.append(text[i + 2:j])
        return j + 1
    if text.startswith('${', i):
        j = _match_close(text, i + 2, '{', '}')
        subs += _substitutions(text[i + 2:j])
        return j + 1
    m = re.compile(r'\$(\w+|[@*#?$!-])').match(text, i)
    return m.end() if m else i + 1


REDIRECTS = ('&>>', '<<<', '<<-', '&>', '>>', '>&', '<&', '>|', '<>', '<<',
             '<', '>')
OPERATORS = (';;', '&&', '||', '|&', ';', '&', '|', '(', ')', '\n')


def lex(text):
    """Shell tokens: ('w', word) with quotes removed and every expansion
    as a '$'; ('op', operator); ('redir', operator); ('sub', text) for a
    command substitution (before the word that holds it)."""
    toks, word, in_word = [], [], False
    heredocs = []
    i, n = 0, len(text)

    def end_word():
        nonlocal word, in_word
        if in_word:
            toks.append(('w', ''.join(word)))
        word, in_word = [], False

    while i < n:
        c = text[i]
        if c == '\\':
            if text.startswith('\\\n', i):
                i += 2
                continue
            word.append(text[i + 1:i + 2])
            in_word, i = True, i + 2
        elif c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            word.append(text[i + 1:j])
            in_word, i = True, j + 1
        elif c == '"':
            i += 1
            start = i
            while i < n and text[i] != '"':
                if text.startswith('$(', i):
                    i = _match_close(text, i + 2) + 1
                elif text[i] == '`':
                    j = text.find('`', i + 1)
                    i = n if j < 0 else j + 1
                else:
                    i += 2 if text[i] == '\\' else 1
            inner = text[start:i]
            for sub in _substitutions(inner):
                toks.append(('sub', sub))
            word.append(re.sub(r'\$\S*', '$', inner) if '$' in inner
                        or '`' in inner else inner)
            if '`' in inner:
                word.append('$')
            in_word, i = True, i + 1
        elif c == '`':
            j = text.find('`', i + 1)
            j = n if j < 0 else j
            toks.append(('sub', text[i + 1:j]))
            word.append('$')
            in_word, i = True, j + 1
        elif c == '$':
            subs, start = [], i
            i = _dollar(text, i, subs)
            toks += [('sub', s) for s in subs]
            # $NAME keeps its name (`$sudo apt-get`), any other is '$'
            word.append(text[start:i] if re.match(r'\$\w+\Z',
                                                  text[start:i]) else '$')
            in_word = True
        elif c == '#' and not in_word:
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in ' \t\r':
            end_word()
            i += 1
        elif text.startswith('<(', i) or text.startswith('>(', i):
            end_word()
            j = _match_close(text, i + 2)
            toks.append(('sub', text[i + 2:j]))
            toks.append(('w', '$'))
            i = j + 1
        elif c in '<>' or text.startswith('&>', i):
            if in_word and ''.join(word).isdigit():
                word, in_word = [], False       # the fd of 2>&1
            end_word()
            op = next(r for r in REDIRECTS if text.startswith(r, i))
            i += len(op)
            if op in ('<<', '<<-'):
                m = re.compile(r'\s*([\'"]?)(\w+)\1').match(text, i)
                if m:
                    heredocs.append((m.group(2), op == '<<-'))
                    i = m.end()
                continue
            toks.append(('redir', op))
        elif c in ';&|()\n':
            end_word()
            op = next(o for o in OPERATORS if text.startswith(o, i))
            toks.append(('op', op))
            i += len(op)
            while op == '\n' and heredocs:     # skip here-document bodies
                delim, tabs = heredocs.pop(0)
                while i < n:
                    j = text.find('\n', i)
                    j = n if j < 0 else j
                    line = text[i:j]
                    i = j + 1
                    if (line.lstrip('\t') if tabs else line) == delim:
                        break
        else:
            word.append(c)
            in_word, i = True, i + 1
    end_word()
    return toks


def simple_commands(text):
    """The simple commands (lists of words, assignments left out) of a
    shell command line, those of its substitutions included."""
    toks = lex(text)
    cmds, cur = [], []
    skip_target = False
    depth = 0
    cases = []                 # per open case: expecting a pattern?
    skip_until = None          # ']]', or 'in' after case
    skip_for = False           # the words of a for/select head
    i = 0

    def flush():
        nonlocal cur
        while cur and ASSIGNMENT_RE.match(cur[0]):
            cur = cur[1:]
        if cur:
            cmds.append(cur)
        cur = []

    while i < len(toks):
        kind, val = toks[i]
        i += 1
        if kind == 'sub':
            cmds += simple_commands(val)
            continue
        if kind == 'redir':
            skip_target = True
            continue
        if kind == 'w' and skip_target:
            skip_target = False
            continue
        if skip_until:
            if kind == 'w' and val == skip_until:
                if skip_until == 'in':
                    cases.append(True)
                skip_until = None
            continue
        if cases and cases[-1]:                 # a case pattern
            if kind == 'w' and val == 'esac' and not cur:
                cases.pop()
            elif kind == 'op' and val == ')':
                cases[-1] = False
            continue
        if kind == 'op':
            if val == '(' and cur and i < len(toks) and \
                    toks[i] == ('op', ')'):     # a function definition
                cur, i = [], i + 1
                continue
            if val == '(' and len(cur) == 1 and cur[0].endswith('='):
                while i < len(toks) and toks[i] != ('op', ')'):
                    i += 1                      # an array: a=(x y)
                cur, i = [], i + 1
                continue
            if val == '(' and not cur and i < len(toks) and \
                    toks[i] == ('op', '('):     # (( arithmetic ))
                while i < len(toks) and not (toks[i] == ('op', ')') and
                                             toks[i - 1] == ('op', ')')):
                    i += 1
                i += 1
                continue
            flush()
            skip_for = False
            if val == '(':
                depth += 1
            elif val == ')' and depth:
                depth -= 1
            elif val == ';;' and cases:
                cases[-1] = True
            continue
        if skip_for:
            continue
        if not cur:
            if val == '[[':
                skip_until = ']]'
                continue
            if val == 'case':
                skip_until = 'in'
                continue
            if val in ('for', 'select'):
                skip_for = True
                continue
            if val == 'esac' and cases:
                cases.pop()
                continue
            if val in KEYWORDS:
                continue
        cur.append(val)
    flush()
    return cmds


def _after_options(words, with_arg=()):
    """The words after the leading options (and their arguments)."""
    i = 0
    while i < len(words) and words[i].startswith('-') and words[i] != '--':
        i += 2 if words[i] in with_arg else 1
    if i < len(words) and words[i] == '--':
        i += 1
    return words[i:]


def command_programs(words):
    """The programs a simple command runs: its first word, and the command
    a wrapper (env, timeout, flock, chroot, ip netns exec, sh -c) runs."""
    out = []
    while words:
        first = words[0]
        args = words[1:]
        if not first:
            return out
        if first in ('$sudo', '$SUDO'):    # `$sudo apt-get` (make deps)
            words = args
            continue
        if first.endswith('guest/run'):     # guest/run [OPTIONS] -- CMD
            words = args[args.index('--') + 1:] if '--' in args else []
            continue
        out.append(first)
        base = os.path.basename(first)
        if base in ('sudo', 'exec', 'nice', 'nohup', 'setsid', 'xargs',
                    'stdbuf'):
            words = _after_options(args, ('-u', '-g', '-n', '-a', '-I', '-P',
                                          '-d', '-s'))
        elif base == 'env':
            words = _after_options(args, ('-u', '-C', '-S'))
            while words and ASSIGNMENT_RE.match(words[0]):
                words = words[1:]
        elif base == 'timeout':
            words = _after_options(args, ('-k', '-s'))[1:]
        elif base == 'flock':
            if '-c' in args:
                index = args.index('-c')
                return out + [p for cmd in simple_commands(
                    ' '.join(args[index + 1:index + 2]))
                    for p in command_programs(cmd)]
            words = _after_options(args, ('-w', '-E'))[1:]
        elif base == 'chroot':
            words = _after_options(args)[1:]
        elif base in ('sh', 'bash', 'dash') and '-c' in args:
            index = args.index('-c')
            return out + [p for cmd in simple_commands(
                ' '.join(args[index + 1:index + 2]))
                for p in command_programs(cmd)]
        elif base == 'ip' and args[:2] == ['netns', 'exec']:
            words = args[3:]
        elif base == 'command' and args[:1] in (['-v'], ['-V']):
            return out
        else:
            return out
    return out


FUNCTION_RE = re.compile(r'^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)',
                         re.MULTILINE)


def shell_programs(text):
    """Program names (or absolute paths) a shell command line runs (not
    the functions it defines)."""
    found = []
    functions = set(FUNCTION_RE.findall(text))
    for cmd in simple_commands(text):
        for prog in command_programs(cmd):
            if '$' in prog or prog in BUILTINS or prog in functions or \
                    not PROGRAM_RE.match(prog):
                continue
            found.append(prog)
    return found


# --- make --------------------------------------------------------------------
MAKE_FUNCTIONS = set('''
    abspath addprefix addsuffix and basename call dir error eval file filter
    filter-out findstring firstword flavor foreach guile if info join
    lastword notdir or origin patsubst realpath shell sort strip subst
    suffix value warning wildcard word wordlist words
'''.split())


def _split_commas(text):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in '({':
            depth += 1
        elif c in ')}':
            depth -= 1
        elif c == ',' and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def make_expand(text, variables, shells, depth=0):
    """`text` with make's references expanded as far as the makefiles tell
    (see the module doc); $(shell X) commands go to `shells`."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != '$':
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt == '$':
            out.append('$')
            i += 2
            continue
        if nxt not in ('(', '{'):
            out.append(UNKNOWN)             # $@ $< $* $1 ...
            i += 2
            continue
        close = ')' if nxt == '(' else '}'
        j = _match_close(text, i + 2, nxt, close)
        inner, i = text[i + 2:j], j + 1
        m = re.match(r'([a-z-]+)\s(.*)\Z', inner, re.S)
        if m and m.group(1) in MAKE_FUNCTIONS:
            name, args = m.group(1), _split_commas(m.group(2))
            if name == 'shell':
                shells.append(make_expand(m.group(2), variables, shells,
                                          depth + 1))
                out.append(UNKNOWN)
            elif name == 'if':
                out.append(' '.join(make_expand(a, variables, shells,
                                                depth + 1)
                                    for a in args[1:]))
            elif name == 'or':
                out.append(make_expand(args[0], variables, shells,
                                       depth + 1))
            else:
                out.append(UNKNOWN)
        elif inner in variables and depth < 20:
            out.append(make_expand(variables[inner], variables, shells,
                                   depth + 1))
        else:
            out.append(UNKNOWN)
    return ''.join(out)


def makefiles():
    """The top Makefile, then every *.mk of the repository (not build/)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(REPO):
        dirnames[:] = [d for d in dirnames if not d.startswith('.') and
                       (dirpath != REPO or d != 'build')]
        found += [os.path.join(dirpath, f) for f in filenames
                  if f.endswith('.mk')]
    return [os.path.join(REPO, 'Makefile')] + sorted(found)


def _logical_lines(text):
    lines, cur = [], None
    for line in text.split('\n'):
        cur = line if cur is None else cur + ' ' + line.lstrip(' \t')
        if (len(cur) - len(cur.rstrip('\\'))) % 2 == 1:
            cur = cur[:-1]          # a backslash-newline: joined
            continue
        lines.append(cur)
        cur = None
    if cur is not None:
        lines.append(cur)
    return lines


ASSIGN_RE = re.compile(r'^(?:override\s+|export\s+)?([.\w-]+)\s*'
                       r'(::=|:=|\?=|\+=|!=|=)\s*(.*)$', re.S)


def read_makefiles(paths):
    """-> (variables, [(path, recipe line)]): assignments and define
    bodies in file order (the Makefile includes the *.mk at its end),
    and the recipe lines."""
    variables, recipes = {'MAKE': 'make'}, []
    for path in paths:
        with open(path) as f:
            lines = _logical_lines(f.read())
        in_rule, define = False, None
        for line in lines:
            if define is not None:
                if line.strip() == 'endef':
                    variables[define[0]] = '\n'.join(define[1])
                    define = None
                else:
                    define[1].append(line)
                continue
            if line.startswith('\t') and in_rule:
                recipes.append((path, line[1:]))
                continue
            stripped = line.strip()
            if not stripped or stripped.startswith('#'):
                continue
            m = re.match(r'define\s+([.\w-]+)', stripped)
            if m:
                define = (m.group(1), [])
                in_rule = False
                continue
            m = ASSIGN_RE.match(stripped)
            if m:
                name, op, value = m.groups()
                if op == '+=':
                    variables[name] = (variables.get(name, '') + ' ' +
                                       value).strip()
                elif op != '?=' or name not in variables:
                    variables[name] = value
                in_rule = False
                continue
            if re.match(r'(ifn?eq|ifn?def|else|endif|-?include|sinclude)\b',
                        stripped):
                continue
            if ':' in stripped:
                in_rule = True
                rule, _, inline = stripped.partition(';')
                if inline.strip() and ':' in rule:
                    recipes.append((path, inline))
            else:
                in_rule = False
    return variables, recipes


def deb_packages(paths=None):
    """DEB_PACKAGES as the Makefile and the *.mk assign it (:= and +=)."""
    packages = []
    for path in paths or makefiles():
        with open(path) as f:
            for line in _logical_lines(f.read()):
                m = re.match(r'DEB_PACKAGES\s*(:=|\+=|=)\s*(.*)$',
                             line.strip(), re.S)
                if m:
                    words = m.group(2).split('#')[0].split()
                    packages = (packages if m.group(1) == '+=' else []) + \
                        words
    return packages


# --- python ------------------------------------------------------------------
RUNNERS = {'run', 'sh', 'call', 'check_call', 'check_output', 'Popen',
           'system', 'getoutput', 'getstatusoutput'}


def _string_of(node, consts):
    """The text of a string expression; holes as UNKNOWN; None if it is
    not a string expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    if isinstance(node, ast.JoinedStr):
        return ''.join(v.value if isinstance(v, ast.Constant) else UNKNOWN
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = _string_of(node.left, consts)
        if left is not None:
            return re.sub(r'%[-#0 +]*(\d+|\*)?(\.\d+)?[a-zA-Z]', UNKNOWN,
                          left).replace('%%', '%')
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [_string_of(node.left, consts),
                 _string_of(node.right, consts)]
        if any(p is not None for p in parts):
            return ''.join(UNKNOWN if p is None else p for p in parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == 'join' and \
            isinstance(node.func.value, ast.Attribute) and \
            node.func.value.attr == 'path':         # os.path.join(...)
        parts = [_string_of(a, consts) for a in node.args]
        return '/'.join(UNKNOWN if p is None else p for p in parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == 'format':
        base = _string_of(node.func.value, consts)
        if base is not None:
            return re.sub(r'\{[^{}]*\}', UNKNOWN, base)
    return None


def python_programs(source):
    tree = ast.parse(source)
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and \
                isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    consts[target.id] = node.value.value
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else None
        if name not in RUNNERS:
            continue
        arg = node.args[0]
        if isinstance(arg, (ast.List, ast.Tuple)):
            words = [_string_of(e, consts) for e in arg.elts]
            words = [UNKNOWN if w is None else w for w in words]
            found += [p for p in command_programs(words)
                      if '$' not in p and p not in BUILTINS and
                      PROGRAM_RE.match(p)]
        else:
            text = _string_of(arg, consts)
            if text is not None:
                found += shell_programs(text)
    return found


# --- the scan ----------------------------------------------------------------
def _interpreter(path):
    try:
        with open(path, 'rb') as f:
            first = f.readline(200).decode(errors='replace')
    except OSError:
        return None
    if not first.startswith('#!'):
        return None
    words = first[2:].split()
    if words and os.path.basename(words[0]) == 'env':
        words = words[1:]
    return os.path.basename(words[0]) if words else None


def _busybox_applets():
    try:
        return set(subprocess.run(['/bin/busybox', '--list'],
                                  capture_output=True, text=True,
                                  timeout=30).stdout.split())
    except OSError:
        return set()


def corpus_commands():
    """(file, command) of every command of the corpus."""
    out = []
    for path in sorted(glob.glob(os.path.join(REPO, 'tc-tests', '**',
                                              '*.json'), recursive=True)):
        with open(path) as f:
            try:
                cases = json.load(f)
            except ValueError:
                continue
        for case in cases if isinstance(cases, list) else []:
            commands = [case.get(k) for k in ('dependsOn', 'cmdUnderTest',
                                              'verifyCmd')]
            for entry in case.get('setup', []) + case.get('teardown', []):
                commands.append(entry[0] if isinstance(entry, list)
                                else entry)
            out += [(path, c) for c in commands if isinstance(c, str) and c]
    return out


TDC_NAMES = {'TC': 'tc', 'IP': 'ip', 'PYTHON': '/usr/bin/python3',
             'FLNL': '/usr/bin/python3'}


def programs():
    """{program: sorted places (repository paths, or EXPLICIT's reason)}"""
    found = {}

    def add(progs, where):
        for prog in progs:
            found.setdefault(prog, set()).add(where)

    variables, recipes = read_makefiles(makefiles())
    for path, line in recipes:
        shells = []
        # make's recipe prefixes (@ + -), also on the lines of a define
        text = re.sub(r'(?m)^[ \t]*[@+-]+', '',
                      make_expand(line, variables, shells))
        where = os.path.relpath(path, REPO)
        for command in [text] + shells:
            add(shell_programs(command), where)
    applets = _busybox_applets()
    for top in SCAN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(REPO, top)):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in ('__pycache__',))
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, REPO)
                interp = _interpreter(path)
                if name.endswith('.py') or (interp or '').startswith(
                        'python'):
                    with open(path) as f:
                        add(python_programs(f.read()), rel)
                elif interp in ('sh', 'bash', 'dash'):
                    with open(path) as f:
                        progs = shell_programs(f.read())
                    if rel in BUSYBOX_SCRIPTS:
                        # /sbin/modprobe: the host's, under chroot /host
                        progs = ['busybox' if os.path.basename(p) in applets
                                 and p != '/sbin/modprobe' else p
                                 for p in progs if p not in INITRAMFS_FILES]
                    add(progs, rel)
    for path, command in corpus_commands():
        text = re.sub(r'\$\{?(TC|IP|PYTHON|FLNL)\}?\b',
                      lambda m: TDC_NAMES[m.group(1)], command)
        add(shell_programs(text), os.path.relpath(path, REPO))
    for prog, why in EXPLICIT.items():
        found.setdefault(prog, set()).add(why)
    return {p: sorted(w) for p, w in found.items()}


# --- packages ----------------------------------------------------------------
def _merged_usr_twin(path):
    for a, b in (('/usr/bin/', '/bin/'), ('/usr/sbin/', '/sbin/')):
        if path.startswith(a):
            return b + path[len(a):]
        if path.startswith(b):
            return a + path[len(b):]
    return None


def candidates(prog):
    """Paths where `prog` is installed here (Debian's PATH first)."""
    if prog.startswith('/'):
        return [prog] if os.path.exists(prog) else []
    paths = []
    for d in DEBIAN_PATH.split(':') + \
            os.environ.get('PATH', '').split(os.pathsep):
        hit = shutil.which(prog, path=d) if d else None
        if hit and hit not in paths:
            paths.append(hit)
    return paths


def lookup_names(path):
    """The paths to ask dpkg -S about for one installed file."""
    names = [path, _merged_usr_twin(path)]
    real = os.path.realpath(path)
    names += [real, _merged_usr_twin(real)]
    out = []
    for name in names:
        if name and name not in out:
            out.append(name)
    return out


def dpkg_owners(paths):
    """{path: [packages]} for the paths dpkg knows (one dpkg -S call)."""
    owners = {}
    if not paths:
        return owners
    proc = subprocess.run(['dpkg', '-S'] + sorted(set(paths)),
                          capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL='C'))
    for line in proc.stdout.splitlines():
        if line.startswith('diversion ') or ': ' not in line:
            continue
        pkgs, _, path = line.partition(': ')
        owners[path.strip()] = [p.strip().split(':')[0]
                                for p in pkgs.split(',')]
    return owners


def package_status(packages):
    """{package: (installed?, priority, essential?)} (one dpkg-query)."""
    status = {}
    if not packages:
        return status
    proc = subprocess.run(
        ['dpkg-query', '-W', '-f=${Package}\t${db:Status-Abbrev}\t'
         '${Priority}\t${Essential}\n'] + sorted(set(packages)),
        capture_output=True, text=True, env=dict(os.environ, LC_ALL='C'))
    for line in proc.stdout.splitlines():
        parts = line.split('\t')
        if len(parts) == 4:
            name, abbrev, priority, essential = parts
            status[name] = (abbrev.startswith('ii'), priority,
                            essential == 'yes')
    return status


def check(found, listed):
    """-> (failures, notes): lines saying which programs are not covered
    by the packages `listed` (DEB_PACKAGES), and which could not be
    checked because their package is listed but not installed here."""
    where = {p: candidates(p) for p in found}
    names = {p: [n for path in paths for n in lookup_names(path)]
             for p, paths in where.items()}
    owners = dpkg_owners([n for ns in names.values() for n in ns])
    packages = {p: [] for p in found}
    for p, ns in names.items():
        for n in ns:
            for pkg in owners.get(n, []):
                if pkg not in packages[p]:
                    packages[p].append(pkg)
    status = package_status([pkg for pkgs in packages.values()
                             for pkg in pkgs] + list(listed))
    not_installed = [pkg for pkg in listed
                     if not status.get(pkg, (False,))[0]]
    failures, notes = [], []
    for prog in sorted(found):
        places = ', '.join(found[prog])
        if not where[prog]:
            hint = PACKAGE_OF.get(prog, os.path.basename(prog))
            if hint in not_installed:
                notes.append('{} (run by {}): not installed here; its '
                             'package {} is in DEB_PACKAGES but not '
                             'installed: run `make deps`'.format(
                                 prog, places, hint))
            else:
                failures.append('{} (run by {}): not installed on this '
                                'machine{}'.format(
                                    prog, places,
                                    '; DEB_PACKAGES not installed here: '
                                    + ' '.join(not_installed)
                                    if not_installed else ''))
            continue
        if not packages[prog]:
            failures.append('{} (run by {}): {} belongs to no Debian package '
                            '(dpkg -S)'.format(prog, places,
                                               ', '.join(where[prog])))
            continue
        ok = False
        for pkg in packages[prog]:
            _, priority, essential = status.get(pkg, (True, '?', False))
            if pkg in listed or priority in ('required', 'important') or \
                    essential:
                ok = True
        if not ok:
            failures.append('{} (run by {}): {} is from package {}, which is '
                            'not in DEB_PACKAGES (Priority {}, not '
                            'Essential)'.format(
                                prog, places, where[prog][0],
                                ' or '.join(packages[prog]),
                                '/'.join(status.get(pkg, ('', '?'))[1]
                                         for pkg in packages[prog])))
    return failures, notes


HAVE_DPKG = shutil.which('dpkg') is not None


@unittest.skipUnless(HAVE_DPKG, 'not a Debian system (no dpkg)')
class TestDebPackages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.found = programs()
        cls.listed = deb_packages()

    def test_every_program_comes_from_a_listed_or_base_package(self):
        failures, notes = check(self.found, self.listed)
        if failures:
            self.fail('{} program(s) not covered by DEB_PACKAGES:\n{}'.format(
                len(failures), '\n'.join(failures + notes)))
        if notes:
            self.skipTest('\n'.join(notes))

    def test_a_package_missing_from_the_list_fails(self):
        # rsync (kbuild's headers_install, make walk32) is run by no file
        # of ours: without it in DEB_PACKAGES the check must fail
        listed = [p for p in self.listed if p != 'rsync']
        failures, _ = check({'rsync': self.found['rsync']}, listed)
        self.assertEqual(len(failures), 1, failures)
        self.assertTrue(failures[0].startswith('rsync '), failures)

    def test_a_program_not_installed_fails_with_its_name(self):
        failures, notes = check({'tdc-no-such-program': ['x']}, self.listed)
        self.assertEqual(len(failures), 1)
        self.assertIn('tdc-no-such-program', failures[0])
        self.assertIn('not installed on this machine', failures[0])
        # one whose package is listed but not installed is a note
        failures, notes = check({'tdc-no-such-program': ['x']},
                                self.listed + ['tdc-no-such-program'])
        self.assertEqual(failures, [])
        self.assertIn('make deps', notes[0])

    def test_a_program_from_no_package_fails(self):
        # a program found only outside dpkg's knowledge (e.g. /usr/local)
        failures, _ = check({'/bin/sh': ['x']}, self.listed)
        self.assertEqual(failures, [])
        failures, _ = check({os.path.join(REPO, 'guest', 'run'): ['x']},
                            self.listed)
        self.assertIn('belongs to no Debian package', failures[0])

    def test_the_scan_finds_what_the_repository_runs(self):
        # the scan is not vacuous: programs run from each kind of file
        for prog, place in [
                ('qemu-system-i386', 'guest/i386/walk32.mk'),
                ('flock', 'Makefile'), ('depmod', 'Makefile'),
                ('tar', 'guest/extract-tree'),
                ('git', 'guest/make-series'),
                ('patch', 'guest/series-check'),
                ('qemu-system-x86_64', 'guest/run'),
                ('busybox', 'guest/init'),
                ('ovs-vsctl', 'ovs/ovsctl.py'),
                ('ovsdb-tool', 'ovs/ovsctl.py'),
                ('bc', 'selftests/in-guest'),
                ('/usr/bin/python3', 'Makefile'),
                ('tc', 'difftest/runner.py'),
                ('md5sum', 'difftest/difftest.mk'),
                ('nproc', 'Makefile')]:
            self.assertIn(place, self.found.get(prog, []), prog)
        # no case pattern, keyword, variable or repository path
        for word in ['fuzz', 'churn', 'then', 'do', 'esac', 'in', 'guest/run',
                     'run', 'setup', 'CONFIG_', '$X']:
            self.assertNotIn(word, self.found)

    def test_deb_packages_as_make_expands_it(self):
        env = {k: v for k, v in os.environ.items()
               if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
        if shutil.which('make') is None:
            self.skipTest('no make')
        proc = subprocess.run(
            ['make', '-s', '--no-print-directory', '-C', REPO, '--eval',
             'tdc-print-deb-packages: ; @echo $(DEB_PACKAGES)',
             'tdc-print-deb-packages'],
            capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(proc.stdout.split()), sorted(self.listed))

    def test_rsync_is_listed(self):
        # the issue: walk32's headers_install on a fresh Debian 12
        self.assertIn('rsync', self.listed)


class TestShellScan(unittest.TestCase):
    def test_commands_and_wrappers(self):
        self.assertEqual(shell_programs(
            'a=1 foo -x | bar && { baz; } || (qux) ; sudo -E env X=1 quux '
            '2>/dev/null; timeout -k 5 10 tool arg; flock -n lk true; '
            'flock lk make x; ip netns exec ns ping -c1 h; '
            'sh -c \'grep x && sed y\'; echo "$(cat f) `wc -l`"; '
            'x=$(od -c) ; for i in a b; do seq 3; done; $sudo apt-get x; '
            'while read -r l; do :; done < <(find .)'),
            ['foo', 'bar', 'baz', 'qux', 'sudo', 'env', 'quux', 'timeout',
             'tool', 'flock', 'flock', 'make', 'ip', 'ping', 'sh', 'grep',
             'sed', 'cat', 'wc', 'od', 'seq', 'apt-get', 'find'])

    def test_what_is_not_a_program(self):
        self.assertEqual(shell_programs(
            'case $x in\n a|b) one ;;\n *) two ;;\nesac\n'
            'f() { three; }\n[[ $a =~ ^(X)=(.*)$ && -n $b ]] && four\n'
            '"$v" arg; ./script; dir/tool; ${VAR} x; echo hi # note: six\n'
            'echo "a (b) c; d"\nn=$((i + $(seven)))\ncat <<EOF\nnot this\n'
            'EOF\n'),
            ['one', 'two', 'three', 'four', 'seven', 'cat'])

    def test_make_expansion(self):
        shells = []
        variables = {'PY': '/usr/bin/python3', 'RUN': '$(PY) -m x',
                     'V': 'ours'}
        text = make_expand('@$(RUN) $$x $(if $(filter stock,$(V)),a,b) '
                           '$(shell nproc) $@ $(addprefix a,b)', variables,
                           shells)
        self.assertEqual(text, '@/usr/bin/python3 -m x $x a b $X $X $X')
        self.assertEqual(shells, ['nproc'])

    def test_python_calls(self):
        self.assertEqual(python_programs(
            'Q = "qemu-x"\n'
            'subprocess.run([Q, "-v"])\nsh("ip link add %s" % d)\n'
            'run(f"tc {x} show && ovs-vsctl show")\nrun(cmd)\n'
            'subprocess.run(["sh", "-c", "dmesg | tail"])\n'
            'other("nope")\n'),
            ['qemu-x', 'ip', 'tc', 'ovs-vsctl', 'sh', 'dmesg', 'tail'])


if __name__ == '__main__':
    unittest.main()
