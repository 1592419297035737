# SPDX-License-Identifier: GPL-2.0
"""deps_scan.py - which programs the build and the harness run, and
whether each comes from a Debian package that `make deps` installs or
that every Debian system has (lint/tests/test_deps.py runs the check).

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
   b. Shell scripts (a `#!` line naming sh or bash) under guest/, tree/,
      selftests/, stress/, ovs/, bench/, difftest/, offload/.
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

from tdc.shell_words import (BUILTINS, PROGRAM_RE, UNKNOWN, match_close,
                             command_programs, shell_programs)

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)

SCAN_DIRS = ('guest', 'tree', 'selftests', 'stress', 'ovs', 'bench',
             'difftest', 'offload')
BUSYBOX_SCRIPTS = ('guest/init', 'guest/modprobe')
# files of the initramfs (guest/mkinitramfs), not of a package
INITRAMFS_FILES = {'/init', '/sbin/tdc-modprobe'}
DEBIAN_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

# Programs no scan sees, and where they are run.
EXPLICIT = {
    # the kernel's own build (make kernel, stock-ext, walk32, series-check)
    'make': 'kbuild', 'gcc': 'kbuild', 'ld': 'kbuild', 'ar': 'kbuild',
    'nm': 'kbuild', 'objcopy': 'kbuild', 'awk': 'kbuild',
    'perl': 'kbuild, checkpatch.pl (tree/kernel-checks, via a variable)',
    'bison': 'kbuild (kconfig)', 'flex': 'kbuild (kconfig)',
    'bc': 'kbuild (timeconst)', 'gzip': 'kbuild (KERNEL_GZIP bzImage)',
    'depmod': 'kbuild (modules_install)',
    'rsync': "kbuild's make headers_install (make walk32)",
    'xz': 'tar -xf linux-source-6.1.tar.xz (tree/extract-tree)',
    # the tree's forwarding selftests (lib.sh, tc_*.sh) in the guest
    'mausezahn': 'selftests (lib.sh $MZ)', 'jq': 'selftests (lib.sh)',
    'ncat': 'selftests (lib.sh)', 'ping': 'selftests (lib.sh $PING)',
    'ping6': 'selftests (lib.sh $PING6), ovs/ovsctl.py',
    'ethtool': 'selftests (lib.sh), offload/replay.py (a step of '
               'offload/scenarios.py)',
    'bridge': 'selftests (lib.sh)',
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
        j = match_close(text, i + 2, nxt, close)
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


# `. "$repo/PATH"`: a shell library of the repository a script sources
# (tree/kernel-paths.sh); its functions are the script's, and so are the
# programs they run
SOURCED_RE = re.compile(r'^\s*(?:\.|source)\s+"\$repo/([^"$]+)"\s*$',
                        re.MULTILINE)


def with_sourced(text):
    """A script's text followed by that of the repository files it
    sources."""
    for m in SOURCED_RE.finditer(text):
        with open(os.path.join(REPO, m.group(1))) as f:
            text += '\n' + f.read()
    return text


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
                        progs = shell_programs(with_sourced(f.read()))
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
