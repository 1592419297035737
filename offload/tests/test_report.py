# SPDX-License-Identifier: GPL-2.0
"""offload/report.py: the page `offload.compare --doc` writes, pinned
byte for byte.  report() was one 122-line function of offload/compare.py;
split into its parts it must write the same page.  The expected pages
are report_golden/NAME.md, written by that function; a deliberate change
to the page regenerates them: REGENERATE=1 python3 -m unittest
offload.tests.test_report (and the diff is reviewed)."""
import datetime
import os
import unittest
from unittest import mock

from offload import report as page
from offload.compare import Diff, Result

FIXED_NOW = datetime.datetime(2026, 1, 2, 3, 4, tzinfo=datetime.timezone.utc)


class _FixedDatetime(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return FIXED_NOW


def _rewrite(line):
    """cookie renamed
    across   lines"""
    return line


K1 = {'name': 'k-one', 'items': r'^c-', 'fields': ('extack', 'log'),
      'reason': 'because | of pipes', 'patch': 1, 'a_extack': 'Error: x'}
K2 = {'name': 'k-two', 'items': '', 'fields': None, 'rewrite': _rewrite,
      'reason': 'rewritten', 'ours_extack': 'Warning: y'}
K3 = {'name': 'k-three', 'items': 'x', 'fields': ('*',), 'reason': 'plain',
      'patch': 2}
K4 = {'name': 'k-four', 'items': 'z', 'fields': ('show',), 'rewrite': None,
      'reason': 'no doc'}
del K4['rewrite']
K5 = {'name': 'k-five', 'items': 'q', 'fields': ('log',),
      'rewrite': lambda line: line, 'reason': 'undocumented rewrite'}


def _item(i, source='c', binding='direct', what=''):
    it = {'id': '%s-%d' % (source, i), 'source': source, 'what': what or
          'filter add dev X | proto ip flower dst_ip 10.0.0.%d' % i}
    if binding:
        it['binding'] = binding
    return it


def results():
    out = []
    for i in range(7):
        src = 'cdgt'[i % 4]
        diffs = [Diff('log', i % 3, 'tc filter add %d' % i,
                      'ours 12 callbacks, stock 11 | more', False),
                 Diff('show', None, None, 'ours in_hw_count 1, stock 2',
                      False),
                 Diff('rc', 1, 'x', 'exit 2 vs 0', False),
                 Diff('extack', 0, 'y', 'message added: Error: n %d' % i,
                      True)]
        out.append(Result(_item(i, src, 'veth' if i % 2 else None),
                          'fail', diffs[i % 3:], None))
    out.append(Result(_item(10), 'pass', [], None))
    out.append(Result(_item(11, 's'), 'added',
                      [Diff('extack', 0, 'c', 'message added: Error: 3',
                            True)], None))
    out.append(Result(_item(12), 'known',
                      [Diff('extack', 0, 'c', 'x', False)], [K1, K2]))
    out.append(Result({'id': 's-ss-1-a', 'source': 's', 'what': 'w'},
                      'known', [Diff('log', 0, 'c', 'x', False)], [K1]))
    out.append(Result({'id': 's-ss-2-b', 'source': 's', 'what': 'w'},
                      'pass', [], None))
    return out


def run_doc(variant, complete=True):
    return {'kernel': '6.1.0-%s' % variant, 'srcversion': 'ABC' + variant,
            'items': [{'id': 'c-1'}], 'secs': 12.5, 'complete': complete,
            'meta': {'seed': 7, 'stock_series': True}}


def scenarios():
    """[(name, kwargs for report())]."""
    rs = results()
    strict_pair = {'known': [K1, K2, K3, K4, K5], 'strict': True,
                   'about': 'stock-next and stock'}
    lax_pair = {'known': [], 'strict': False, 'about': 'ours and stock'}
    return [
        ('default', dict(results=rs, ours=run_doc('ours'),
                         stock=run_doc('stock'))),
        ('everything', dict(results=rs, ours=run_doc('a', False), stock=None,
                            wall=321, limit=3, problems=('p one', 'p two'),
                            names=('stock-next', 'stock'), pair=strict_pair,
                            notes=('note 1', 'note 2'), made_by='make x')),
        ('other-pair', dict(results=rs[:2], ours=None, stock=None,
                            names=('a', 'b'), pair=lax_pair)),
        ('a-vs-stock', dict(results=[], ours=None, stock={'meta': {}},
                            names=('a', 'stock'), pair=lax_pair)),
        ('known-is-KNOWN', dict(results=rs[7:], ours=run_doc('ours'),
                                stock=run_doc('stock'), limit=0)),
    ]


def render(name, kwargs):
    series = [(1, 'first patch'), (2, 'second | patch'), (3, 'third')]
    drivers = {1: ('no change', 'software only'), 3: ('new keys', 'why')}
    with mock.patch.object(page, 'git_head', lambda: 'abc1234'), \
            mock.patch.object(page.datetime, 'datetime', _FixedDatetime), \
            mock.patch.object(page, 'stock_series', lambda: series), \
            mock.patch.object(page, 'STOCK_SERIES_DRIVERS', drivers), \
            mock.patch.object(page, 'KNOWN', [K1, K3]):
        if name == 'known-is-KNOWN':
            kwargs = dict(kwargs, pair={'known': page.KNOWN,
                                        'strict': False, 'about': 'x'})
        return page.report(**kwargs)


GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      'report_golden')


class PageIsPinned(unittest.TestCase):
    def test_every_scenario_writes_its_golden_page(self):
        for name, kwargs in scenarios():
            with self.subTest(name):
                got = render(name, kwargs)
                path = os.path.join(GOLDEN, name + '.md')
                if os.environ.get('REGENERATE'):
                    with open(path, 'w') as f:
                        f.write(got)
                with open(path) as f:
                    self.assertEqual(got, f.read())

    def test_the_scenarios_reach_every_part(self):
        pages = {name: render(name, kw) for name, kw in scenarios()}
        for part in ('Note: note 1', 'Strict: a message', 'INCOMPLETE',
                     '- stock: no result', 'wall time', '**PROBLEM**',
                     '## Failures by kind', 'more failed items',
                     '## Messages added by', 'None declared.',
                     '(stock patch 1)', 'exactly: <lambda>',
                     '## The stock series and what drivers get'):
            self.assertTrue(any(part in p for p in pages.values()), part)
        self.assertIn('`make offload-a`', pages['a-vs-stock'])
        self.assertIn('make offload OFL_A=a OFL_B=b', pages['other-pair'])
        self.assertIn('## Declared differences (offload/known.py)\n',
                      pages['known-is-KNOWN'])


if __name__ == '__main__':
    unittest.main()
