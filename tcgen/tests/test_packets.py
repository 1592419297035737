# SPDX-License-Identifier: GPL-2.0
"""tcgen.packets: every frame tcgen writes is a spec (flower.packets
Layers); the case gets its text, render(spec), which tdc's scapyPlugin
evaluates with scapy.all's names, and tcgen counts its bytes from the
scapy packet scapy_frame(spec) builds without an eval.  The two must be
the same frame: for every spec the corpus sends or counts, scapy builds
the same bytes from the text (evaluated here, as the plugin does) as
from the spec.  And no text of a frame is evaluated or executed by
tcgen itself."""

import ast
import os
import unittest
from unittest import mock

import scapy.all

from flower import packets as P
from tcgen import main
from tcgen import packets as T
from tcgen.cases import Corpus

SCAPY = vars(scapy.all)     # the names tdc's scapyPlugin evaluates with
TCGEN = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def corpus_specs():
    """(the Corpus, {rendered text: spec} of every frame its cases send
    and every frame tcgen built with scapy_frame() to count bytes)."""
    built = []

    def recording(layers):
        built.append(layers)
        return P.scapy_frame(layers)
    with mock.patch.object(T, 'scapy_frame', recording):
        c = main.corpus()
    return c, {P.render(s): s for s in c.frames + built}


class TestSpecs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.corpus, cls.specs = corpus_specs()

    def test_text_and_spec_are_the_same_frame(self):
        self.assertGreater(len(self.specs), 300)
        for text, spec in sorted(self.specs.items()):
            with self.subTest(frame=text):
                self.assertEqual(bytes(eval(text, SCAPY)),
                                 bytes(P.scapy_frame(spec)))

    def test_every_sent_frame_is_counted_from_its_spec(self):
        # what the cases say in "packet" is the render() of a checked
        # spec, so no case's frame text escaped the check above
        sent = {b['packet'] for cases in self.corpus.themes.values()
                for case in cases for b in case.get('scapy', [])}
        self.assertEqual(sorted(sent - set(self.specs)), [])
        self.assertGreater(len(sent), 300)

    def test_a_spec_is_plain_data(self):
        for text, spec in self.specs.items():
            for name, fields in spec:
                self.assertIn(name, SCAPY, text)
                for value in fields.values():
                    # repr() writes it back exactly: no expression
                    self.assertNotIsInstance(value, P.Code, text)
                    self.assertEqual(ast.literal_eval(repr(value)), value,
                                     text)

    def test_text_is_refused_as_a_frame(self):
        with self.assertRaisesRegex(AssertionError, 'not text'):
            Corpus().case('actions', 'a frame given as text', 'true',
                          scapy=[("Ether()/IP()", 1)])

    def test_an_expression_is_not_built(self):
        with self.assertRaisesRegex(TypeError, 'an expression'):
            P.scapy_frame(P.one('Raw', load=P.zeros(4)))

    def test_tcgen_evaluates_no_text(self):
        # the frames' sizes come from the specs: no eval or exec left
        calls = []
        for top, dirs, names in os.walk(TCGEN):
            dirs[:] = [d for d in dirs if d != 'tests']
            for name in names:
                if not name.endswith('.py'):
                    continue
                path = os.path.join(top, name)
                with open(path) as f:
                    tree = ast.parse(f.read(), path)
                calls += ['%s:%d %s' % (os.path.relpath(path, TCGEN),
                                        node.lineno, node.func.id)
                          for node in ast.walk(tree)
                          if isinstance(node, ast.Call) and
                          isinstance(node.func, ast.Name) and
                          node.func.id in ('eval', 'exec', 'compile')]
        self.assertEqual(calls, [])


class TestLayers(unittest.TestCase):
    def test_stacking_and_fields(self):
        frame = T.ip4(l4=T.layer('TCP', dport=80))
        self.assertEqual([n for n, _ in frame], ['Ether', 'IP', 'TCP'])
        changed = frame.with_fields('IP', ttl=3)
        self.assertEqual(P.render(changed), P.render(frame).replace(
            "dst='10.1.0.1')", "dst='10.1.0.1',ttl=3)"))
        self.assertNotIn('ttl', frame[1][1])    # the original is unchanged
        self.assertEqual(T.ingress_bytes(frame), 20 + 20)
        self.assertEqual(T.frame_bytes(frame), 14 + 20 + 20)

    def test_the_outer_tag_is_not_counted(self):
        self.assertEqual(T.ingress_bytes(T.dot1q()),
                         T.ingress_bytes(T.ip4()))


if __name__ == '__main__':
    unittest.main()
