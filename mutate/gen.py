"""Mutants of cls_flower.c: text operators a reviewer would call real bugs.

Each mutant is one edit of the source at a fixed commit (never the work
tree, which changes under us): a start/end offset in the original text
and the text put there.  Operators:

  key-row        a row of the key table (fl_keys) points at the member of
                 the next row that names another member
  dissector-row  the same for the dissector key table (fl_dissector_keys)
  mask-drop      an assignment to a mask (mask->..., lmask->, mask_member,
                 memset/nla_memcpy into a mask) removed
  boundary       a relational operator moved by one (< <=, > >=): loop
                 bounds, depth and length checks
  off-by-one     "- 1" / "+ 1" dropped
  negate         == and != swapped, && and || swapped, a leading ! dropped
  flag-map       ip_flags and ct_state mapping tables: a flag swapped or
                 dropped
  stmt-del       a statement (call or assignment) of the classify, change/
                 replace, delete, dump and walk paths and of the flow
                 cache removed

Mutants are sorted by (line, column, operator, replacement) and numbered
m0001...; two edits that give the same text keep the first.  A mutant is
only a candidate until it compiles (mutate/modules.py): one that does not is
"stillborn".

usage: python3 -m mutate.gen [--commit REV] [--out FILE]
"""
import argparse
import json
import re
import subprocess
import sys

SRC_PATH = 'kernel/net/sched/cls_flower.c'

# Functions whose statements stmt-del removes: the classify, change
# (add/replace), delete, dump and walk paths and what they call.
STMT_FUNCS = re.compile(
    r'fl_(classify|dissect\w*|change\w*|ht_insert|replace_commit|delete|'
    r'walk|dump\w*|mask_put|masks_publish|masks_create|masks_init_dissector|'
    r'handle_assign|set_masked_key|filter_create|set_key\w*|mask_update_range|'
    r'hashfn|cmpfn|destroy|get|terse_dump|'
    r'lookup\w*|cache_\w+|range_\w+|insert|filter_remove)$')
DECL = re.compile(
    r'^(const |struct |unsigned |signed |static |enum )?'
    r'(u8|u16|u32|u64|int|bool|long|char|void|__be16|__be32|size_t|\w+_t|'
    r'struct \w+|\w+)\s+\**\w+(\[[^]]*\])?\s*(=|;|,)')
MASK_STMT = re.compile(
    r'^(l?mask->|mask_member\b|memset\(\s*(l?mask|mask_member)\b|'
    r'nla_memcpy\(\s*(l?mask|mask_member)\b|'
    r'dissector_set_mpls_lse\(\s*&mask)')


def blank_comments(text):
    """The text with comments, strings and preprocessor lines blanked
    (same length, newlines kept): operators match code only."""
    out = list(text)
    i, n = 0, len(text)
    bol = True
    while i < n:
        c = text[i]
        if bol and text[i:].lstrip(' \t').startswith('#'):
            j = i
            while j < n and not (text[j] == '\n' and text[j - 1] != '\\'):
                out[j] = ' '
                j += 1
            i = j
            continue
        if text.startswith('/*', i):
            j = text.index('*/', i) + 2
            for k in range(i, j):
                if text[k] != '\n':
                    out[k] = ' '
            i = j
            bol = False
            continue
        if text.startswith('//', i):
            j = text.index('\n', i)
            for k in range(i, j):
                out[k] = ' '
            i = j
            continue
        if c in '"\'':
            j = i + 1
            while text[j] != c:
                j += 2 if text[j] == '\\' else 1
            for k in range(i + 1, j):
                out[k] = ' '
            i = j + 1
            bol = False
            continue
        bol = c == '\n'
        i += 1
    return ''.join(out)


def functions(code):
    """(name, start offset, end offset) of each function body."""
    res = []
    pending = None
    pos = 0
    start = None
    for line in code.splitlines(True):
        m = re.match(r'^[a-z_].*?\b(\w+)\(', line)
        if m and not line.rstrip().endswith(';') and start is None:
            pending = m.group(1)
        if line.startswith('{') and pending:
            start = pos
        if line.startswith('}') and start is not None:
            res.append((pending, start, pos + len(line)))
            start = pending = None
        pos += len(line)
    return res


def func_at(funcs, off):
    for name, s, e in funcs:
        if s <= off < e:
            return name
    return None


def table_span(code, name):
    m = re.search(r'\b%s\[[^]]*\]\s*=\s*\{' % name, code)
    return m.end(), code.index('};', m.end())


def op_rows(text, code, table, macro, op):
    """key-row / dissector-row: the member argument of each row becomes
    the next row's (cyclic) that names another member."""
    s, e = table_span(code, table)
    rows = list(re.finditer(r'\b%s\(\s*\w+\s*,\s*([\w.\[\]]+)' % macro,
                            code[s:e]))
    out = []
    for i, r in enumerate(rows):
        mine = r.group(1)
        for k in range(1, len(rows)):
            other = rows[(i + k) % len(rows)].group(1)
            if other != mine:
                break
        out.append((op, s + r.start(1), s + r.end(1), other))
    return out


def statements(code, funcs, pred):
    """(start, end) of each statement (ends with ';', balanced
    parentheses) that begins a line inside a function and pred() takes."""
    out = []
    for name, fs, fe in funcs:
        body = code[fs:fe]
        pos = fs
        lines = body.splitlines(True)
        i = 0
        prev = '{'
        while i < len(lines):
            line = lines[i]
            st = line.strip()
            start = pos + len(line) - len(line.lstrip())
            if st and prev[-1:] in ';{}' or prev.startswith(('if ', 'else', 'for ', 'while ')) and prev.endswith((')', 'else')):
                j, depth, text = i, 0, ''
                while j < len(lines):
                    text += lines[j]
                    depth = text.count('(') - text.count(')')
                    if depth == 0 and lines[j].rstrip().endswith((';', '{', '}', ')')) :
                        break
                    j += 1
                stmt = text.strip()
                if stmt.endswith(';') and depth == 0 and pred(name, stmt):
                    end = start + len(text.rstrip()) - (len(line) - len(line.lstrip()))
                    out.append((start, end))
            if st:
                prev = st
            pos += len(line)
            i += 1
    return out


def is_plain_stmt(stmt):
    if re.match(r'(return|goto|break|continue|do|if|for|while|else|case|default)\b', stmt):
        return False
    if stmt.startswith(('}', '{')) or stmt == ';':
        return False
    if DECL.match(stmt) and not re.match(r'^\w+\s*(=|\+=|-=|\|=|&=)', stmt):
        return False
    return not stmt.startswith('NL_SET_ERR_MSG')


def op_stmts(text, code, funcs):
    out = []
    for s, e in statements(code, funcs,
                           lambda f, st: bool(STMT_FUNCS.match(f)) and is_plain_stmt(st)):
        op = 'mask-drop' if MASK_STMT.match(code[s:e]) else 'stmt-del'
        out.append((op, s, e, ';'))
    # mask assignments anywhere else too (key parsing is not in STMT_FUNCS
    # only: fl_check_* helpers, template creation)
    seen = {(s, e) for _, s, e, _ in out}
    for s, e in statements(code, funcs,
                           lambda f, st: bool(MASK_STMT.match(st)) and is_plain_stmt(st)):
        if (s, e) not in seen:
            out.append(('mask-drop', s, e, ';'))
    return out


def op_tokens(text, code, funcs):
    out = []
    for name, fs, fe in funcs:
        body = code[fs:fe]
        for m in re.finditer(r'(?<![-<>=!])(<=|>=|<|>)(?![<>=])', body):
            tok = m.group(1)
            new = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}[tok]
            out.append(('boundary', fs + m.start(), fs + m.end(), new))
        for m in re.finditer(r'(==|!=|&&|\|\|)', body):
            new = {'==': '!=', '!=': '==', '&&': '||', '||': '&&'}[m.group(1)]
            out.append(('negate', fs + m.start(), fs + m.end(), new))
        for m in re.finditer(r'\b(if|while) \(!(?!=)', body):
            out.append(('negate', fs + m.end() - 1, fs + m.end(), ''))
        for m in re.finditer(r' [-+] 1\b(?!\d)', body):
            out.append(('off-by-one', fs + m.start(), fs + m.end(), ''))
    return out


def op_flags(text, code):
    out = []
    s, e = table_span(code, 'fl_ip_flags')
    for m in re.finditer(r'\{\s*(\w+),\s*(\w+)\s*\}', code[s:e]):
        other = [x for x in re.findall(r'FLOW_DIS_\w+', code[s:e]) if x != m.group(2)]
        out.append(('flag-map', s + m.start(2), s + m.end(2), other[0]))
    s, e = table_span(code, 'fl_ct_states')
    for m in re.finditer(r'TCA_FLOWER_KEY_CT_FLAGS_\w+', code[s:e]):
        out.append(('flag-map', s + m.start(), s + m.end(), '0'))
    return out


def mutants(text):
    code = blank_comments(text)
    funcs = functions(code)
    edits = (op_rows(text, code, 'fl_keys', r'FL_KEY_(?:MASKED|EXACT)', 'key-row') +
             op_rows(text, code, 'fl_dissector_keys', 'FL_DISSECTOR_KEY', 'dissector-row') +
             op_stmts(text, code, funcs) + op_tokens(text, code, funcs) +
             op_flags(text, code))
    line_of = lambda off: text.count('\n', 0, off) + 1
    rows, seen = [], {text}
    for op, s, e, new in sorted(edits, key=lambda x: (x[1], x[2], x[0], x[3])):
        mutated = text[:s] + new + text[e:]
        if mutated in seen:
            continue
        seen.add(mutated)
        ls = text.rfind('\n', 0, s) + 1
        le = text.find('\n', e)
        rows.append({'op': op, 'line': line_of(s), 'start': s, 'end': e,
                     'new': new, 'func': func_at(funcs, s),
                     'before': text[ls:le], 'after': mutated[ls:le - (e - s) + len(new)]})
    for i, r in enumerate(rows):
        r['id'] = 'm%04d' % (i + 1)
    return rows


def apply(text, m):
    return text[:m['start']] + m['new'] + text[m['end']:]


def shard(rows, k, n):
    """Shard K of N (1-based): mutants whose index (0-based) mod N is K-1."""
    return [r for i, r in enumerate(rows) if i % n == k - 1]


def source_at(commit):
    return subprocess.run(['git', 'show', '%s:%s' % (commit, SRC_PATH)],
                          check=True, capture_output=True, text=True).stdout


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--commit', default='HEAD')
    ap.add_argument('--out', default='build/mutate/mutants.json')
    a = ap.parse_args(argv)
    commit = subprocess.run(['git', 'rev-parse', a.commit], check=True,
                            capture_output=True, text=True).stdout.strip()
    text = source_at(commit)
    rows = mutants(text)
    with open(a.out, 'w') as fp:
        json.dump({'commit': commit, 'path': SRC_PATH, 'mutants': rows}, fp, indent=1)
    by = {}
    for r in rows:
        by[r['op']] = by.get(r['op'], 0) + 1
    print('mutate: %d mutants of %s at %s: %s' % (
        len(rows), SRC_PATH, commit[:12],
        ', '.join('%s %d' % kv for kv in sorted(by.items()))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
