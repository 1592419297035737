"""What every part of the campaign's host side shares (mutate/README.md):
the paths, the control's id, the log line, and the result files, each
stamped with the commit whose oracles ran (MEASURED).

mutate/modules.py builds the mutants, mutate/guests.py runs them in
guests, mutate/kills.py confirms their kills, mutate/run.py is the
program (python3 -m mutate.run).
"""
import json
import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
BUILD = os.path.join(REPO, 'build')
OURS_SRC = os.path.join(BUILD, 'src/ours')
OURS_OBJ = os.path.join(BUILD, 'obj/ours')
DEBUG_OBJ = os.path.join(BUILD, 'obj/debug')
CONTROL = 'm0000'

MEASURED = []      # measured(), once per invocation (main())


def log(msg):
    print('mutate: ' + msg, flush=True)


def measured():
    """The commit whose oracles (cases, runners, judges) this run uses:
    the checkout's HEAD (the source mutated is the plan's commit)."""
    p = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=REPO,
                       capture_output=True, text=True)
    return p.stdout.strip() or None


def write_result(results, doc, res):
    m = next((x for x in doc['mutants'] if x['id'] == res['id']), None)
    res.update(commit=doc['commit'])
    if 'measured' not in res:
        res['measured'] = MEASURED[0] if MEASURED else None
    if m:
        res.update(op=m['op'], line=m['line'])
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, res['id'] + '.json'), 'w') as f:
        json.dump(res, f, indent=1, sort_keys=True)
