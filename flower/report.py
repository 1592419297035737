# SPDX-License-Identifier: GPL-2.0
"""flower.report - what the docs/*.md writers share."""

import json


def load(path):
    """A run's JSON output, or None when it is missing or cut short (a
    guest that died mid-write): the report then says the part has no
    result instead of failing."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cell(text):
    """Text as one Markdown table cell: pipes escaped, one line."""
    return str(text).replace('|', '\\|').replace('\n', ' ')


def module_problems(ours, stock, what, names=('ours', 'stock')):
    """Why two runs cannot be told apart by their cls_flower module, as
    lines: a run without its module's srcversion, or one module on both
    sides.  what: the runs as the message names them ("run", "results");
    names: the two kernels' (difftest's stock-next: ours, stock-next)."""
    ids = [run.get('srcversion') for run in (ours, stock)]
    if not all(ids):
        return ['no cls_flower srcversion in the %s %s: cannot tell the '
                'modules apart' % (' and '.join(
                    v for v, i in zip(names, ids) if not i), what)]
    if ids[0] == ids[1]:
        return ['%s and %s %scome from the same module (cls_flower '
                'srcversion %s)' % (names[0], names[1],
                                    '' if what == 'run' else what + ' ',
                                    ids[0])]
    return []
