# SPDX-License-Identifier: GPL-2.0
"""shell_words.py - the programs a shell command line runs, for the
dependency scan (lint/deps_scan.py).  A line is split into simple
commands at ; & | && || ( ) and newlines, $(...), backquotes and <(...);
keywords, [[ ]], case patterns, function definitions, assignments and
redirections are passed over; the first word is the program, seen through
wrappers (sudo, env, xargs, timeout, flock, chroot, ip netns exec, sh -c).
"""

import os
import re

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


def match_close(text, i, open_='(', close=')'):
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
            j = match_close(text, i + 3)
            subs += _substitutions(text[i + 3:j])
            i = j + 1
        elif text.startswith('$(', i):
            j = match_close(text, i + 2)
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
        j = match_close(text, i + 3)
        subs += _substitutions(text[i + 3:j])
        return j + 2 if text.startswith('))', j) else j + 1
    if text.startswith('$(', i):
        j = match_close(text, i + 2)
        subs.append(text[i + 2:j])
        return j + 1
    if text.startswith('${', i):
        j = match_close(text, i + 2, '{', '}')
        subs += _substitutions(text[i + 2:j])
        return j + 1
    m = re.compile(r'\$(\w+|[@*#?$!-])').match(text, i)
    return m.end() if m else i + 1


REDIRECTS = ('&>>', '<<<', '<<-', '&>', '>>', '>&', '<&', '>|', '<>', '<<',
             '<', '>')
OPERATORS = (';;', '&&', '||', '|&', ';', '&', '|', '(', ')', '\n')


class Lexer:
    """lex()'s state: the tokens so far, the word being read (in_word:
    one is, even if empty, as after ''), the here-documents whose bodies
    come after the next newline, and the index i in text."""

    def __init__(self, text):
        self.text, self.n, self.i = text, len(text), 0
        self.toks, self.word, self.in_word = [], [], False
        self.heredocs = []

    def end_word(self):
        if self.in_word:
            self.toks.append(('w', ''.join(self.word)))
        self.word, self.in_word = [], False

    def tokens(self):
        while self.i < self.n:
            self.step()
        self.end_word()
        return self.toks

    def step(self):
        """Read what starts at text[i]."""
        text, i = self.text, self.i
        c = text[i]
        if c == '\\':
            self.backslash()
        elif c == "'":
            self.single_quoted()
        elif c == '"':
            self.double_quoted()
        elif c == '`':
            self.backquoted()
        elif c == '$':
            self.dollar()
        elif c == '#' and not self.in_word:
            j = text.find('\n', i)          # a comment
            self.i = self.n if j < 0 else j
        elif c in ' \t\r':
            self.end_word()
            self.i += 1
        elif text.startswith('<(', i) or text.startswith('>(', i):
            self.process_substitution()
        elif c in '<>' or text.startswith('&>', i):
            self.redirection()
        elif c in ';&|()\n':
            self.operator()
        else:
            self.word.append(c)
            self.in_word, self.i = True, i + 1

    def backslash(self):
        """An escaped character; a line continuation is nothing."""
        text, i = self.text, self.i
        if text.startswith('\\\n', i):
            self.i = i + 2
            return
        self.word.append(text[i + 1:i + 2])
        self.in_word, self.i = True, i + 2

    def single_quoted(self):
        j = self.text.find("'", self.i + 1)
        j = self.n if j < 0 else j
        self.word.append(self.text[self.i + 1:j])
        self.in_word, self.i = True, j + 1

    def double_quoted(self):
        """"...": its substitutions are tokens before the word; in the
        word every expansion is a '$'."""
        text, n = self.text, self.n
        i = self.i + 1
        start = i
        while i < n and text[i] != '"':
            if text.startswith('$(', i):
                i = match_close(text, i + 2) + 1
            elif text[i] == '`':
                j = text.find('`', i + 1)
                i = n if j < 0 else j + 1
            else:
                i += 2 if text[i] == '\\' else 1
        inner = text[start:i]
        for sub in _substitutions(inner):
            self.toks.append(('sub', sub))
        self.word.append(re.sub(r'\$\S*', '$', inner) if '$' in inner
                         or '`' in inner else inner)
        if '`' in inner:
            self.word.append('$')
        self.in_word, self.i = True, i + 1

    def backquoted(self):
        j = self.text.find('`', self.i + 1)
        j = self.n if j < 0 else j
        self.toks.append(('sub', self.text[self.i + 1:j]))
        self.word.append('$')
        self.in_word, self.i = True, j + 1

    def dollar(self):
        subs, start = [], self.i
        self.i = _dollar(self.text, self.i, subs)
        self.toks += [('sub', s) for s in subs]
        # $NAME keeps its name (`$sudo apt-get`), any other is '$'
        expansion = self.text[start:self.i]
        self.word.append(expansion if re.match(r'\$\w+\Z', expansion)
                         else '$')
        self.in_word = True

    def process_substitution(self):
        """<(...) or >(...): a substitution, and a word '$' (its path)."""
        self.end_word()
        j = match_close(self.text, self.i + 2)
        self.toks.append(('sub', self.text[self.i + 2:j]))
        self.toks.append(('w', '$'))
        self.i = j + 1

    def redirection(self):
        """A redirection operator (a here-document's delimiter read:
        no token, its body is skipped after the next newline)."""
        if self.in_word and ''.join(self.word).isdigit():
            self.word, self.in_word = [], False     # the fd of 2>&1
        self.end_word()
        op = next(r for r in REDIRECTS if self.text.startswith(r, self.i))
        self.i += len(op)
        if op in ('<<', '<<-'):
            m = re.compile(r'\s*([\'"]?)(\w+)\1').match(self.text, self.i)
            if m:
                self.heredocs.append((m.group(2), op == '<<-'))
                self.i = m.end()
            return
        self.toks.append(('redir', op))

    def operator(self):
        self.end_word()
        op = next(o for o in OPERATORS if self.text.startswith(o, self.i))
        self.toks.append(('op', op))
        self.i += len(op)
        if op == '\n':
            self.skip_heredoc_bodies()

    def skip_heredoc_bodies(self):
        """After a newline: the bodies of the here-documents, each up to
        the line that is its delimiter (<<-: leading tabs stripped)."""
        text, n = self.text, self.n
        while self.heredocs:
            delim, tabs = self.heredocs.pop(0)
            while self.i < n:
                j = text.find('\n', self.i)
                j = n if j < 0 else j
                line = text[self.i:j]
                self.i = j + 1
                if (line.lstrip('\t') if tabs else line) == delim:
                    break


def lex(text):
    """Shell tokens: ('w', word) with quotes removed and every expansion
    as a '$'; ('op', operator); ('redir', operator); ('sub', text) for a
    command substitution (before the word that holds it)."""
    return Lexer(text).tokens()


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
